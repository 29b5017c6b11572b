"""The KB changes section of the report: rendered from the comparison document,
absent when no card changed, within GitHub's comment limit however many cards
a pull request changes, user text inert."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.base_judging import PullRequestChanges
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.github_limits import COMMENT_BUDGET, comment_length
from recall_gate.core.kb_diff import CardFile, FileChange, diff_kb, kb_changes
from recall_gate.core.records import Card, CaseLabel
from recall_gate.report.comparison import render_comment, render_comparison_text


def side(card_id: str, *, title: str = "Title", body: str = "Body.") -> CardFile:
    card = Card(id=card_id, language="en", title=title, body=body)
    return CardFile(card=card, path=f"docs/{card_id}.md")


def document(files: list[FileChange], *, n: int = 12) -> ComparisonDocument:
    """12 cases, case-i citing card-case-i; the first half lose their hit."""
    before = [case(f"case-{i}", 1) for i in range(n)]
    after = [case(f"case-{i}", None if i < n // 2 else 1) for i in range(n)]
    labels = [
        CaseLabel(
            id=c.case_id, language="en", case_type="golden", must_cite_one_of=c.must_cite_one_of
        )
        for c in before
    ]
    pr = PullRequestChanges(ref="main", kb=kb_changes(diff_kb(files), labels))
    comparison = compare_to_baseline(
        current=results(after),
        baseline=baseline_of(before),
        baseline_path="b.json",
        pull_request=pr,
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    return comparison_document(comparison, verdict, profile="default")


def edited(card_id: str) -> FileChange:
    return FileChange(base=side(card_id), head=side(card_id, body="Rewritten."))


def test_the_cases_on_changed_cards_are_a_tested_row_of_their_own() -> None:
    doc = document([edited(f"card-case-{i}") for i in range(12)])
    text = render_comment(doc)
    # 12 cases on edited cards, hit 1.000 → 0.500: six lost, none gained.
    assert (
        "| cases on changed cards (12) | 12 | hit@5 | 1.000 | 0.500 | −0.500 | likely real" in text
    )
    # Report-only: the metric table and the gate do not carry it.
    assert all(d.group != "kb:cases on changed cards" for d in doc.deltas)


def test_no_card_change_no_section() -> None:
    doc = document([FileChange(base=side("x"), head=side("x"))])
    assert "KB changes" not in render_comment(doc)
    assert "KB changes" not in render_comparison_text(doc)


def test_a_changed_card_no_case_cites_is_said_to_be_unmeasured() -> None:
    text = render_comment(document([edited("nobody-cites-me")]))
    assert "No case cites an edited or renamed card: no metric here measures this change." in text


def test_thousands_of_changed_cards_fit_the_comment() -> None:
    files = [edited(f"page-{i:05d}") for i in range(3000)]
    files += [FileChange(base=None, head=side(f"new-{i:05d}")) for i in range(3000)]
    doc = document(files)
    text = render_comment(doc, max_chars=COMMENT_BUDGET)
    assert comment_length(text) <= COMMENT_BUDGET
    assert "3000 edited, 3000 added" in text
    assert "more changed cards (the job summary lists all)" in text
    assert "<details><summary>KB changes in this pull request" in text
    # The full report (the job summary) lists every card.
    assert render_comment(doc).count("| edited | `page-") == 3000


def test_a_title_is_user_text_made_inert() -> None:
    files = [FileChange(base=None, head=side("new", title="@team <b>x</b> | y"))]
    text = render_comment(document(files))
    assert "@team" not in text
    assert "<b>" not in text


def test_the_section_renders_the_same_from_the_json_document() -> None:
    # The fork-safe comment path renders from the validated comparison JSON.
    doc = document([edited(f"card-case-{i}") for i in range(12)])
    again = ComparisonDocument.model_validate_json(doc.model_dump_json())
    assert render_comment(again) == render_comment(doc)
    assert again.pull_request is not None
    assert again.pull_request.kb is not None
