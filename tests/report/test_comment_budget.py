"""The PR comment against hostile sizes and GitHub's autolinker: whatever the
user strings hold, the verdict, the metric table and the failing rows stay, the
comment fits GitHub's limit, and case text renders as text, never as a link,
a reference or math."""

from __future__ import annotations

import re

from test_render_comment import baseline, results, suite

from factories import LANGS, case
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.github_limits import COMMENT_BUDGET, comment_length
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult, RetrievedDetail, Retriever
from recall_gate.report.comparison import render_comment
from recall_gate.report.markup import escape_markdown

HUGE = 100_000


def _with_query(c: CaseResult, query: str) -> CaseResult:
    return c.model_copy(update={"query": query})


def _huge_scenario() -> tuple[str, str]:
    """Every user string 100,000 characters long: ids, queries, gold cards, the
    baseline's reason, path and ref, the retriever's label; six cases lost."""

    def long(seed: str) -> str:
        return (seed * HUGE)[:HUGE]

    old, new = [], []
    for i in range(36):
        cid = long(f"case{i:02d}-")
        gold = (long(f"card{i:02d}-"),)
        lost = i % 6 == 0
        old.append(_with_query(case(cid, 1, language=LANGS[i % 3], gold=gold), long("q ")))
        new.append(
            _with_query(
                case(cid, None if lost else 1, language=LANGS[i % 3], gold=gold), long("q ")
            )
        )
    then = Retriever(adapter="callable", name="team.retriever", label=long("old label "))
    now = Retriever(adapter="callable", name="team.retriever", label=long("new label "))
    comparison = compare_to_baseline(
        current=results(new, retriever=now),
        baseline=baseline(old, reason=long("why "), retriever=then),
        baseline_path=long("dir/") + "default.json",
        baseline_ref=long("ref"),
    )
    assert comparison.status == "stale"
    verdict = judge_comparison(
        comparison, floors=Floors({HIT: 0.95}), tolerances=Tolerances.every(0.02)
    )
    assert verdict.gate.verdict == "fail"
    full = render_comment(comparison_document(comparison, verdict, profile="default"))
    short = render_comment(
        comparison_document(comparison, verdict, profile="default"), max_chars=COMMENT_BUDGET
    )
    return full, short


def _metric_table(text: str) -> list[str]:
    lines = text.splitlines()
    start = lines.index("| group | n | metric | baseline | current | Δ | noise |")
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_user_strings_of_100k_characters_leave_the_verdict_table_and_failing_rows() -> None:
    full, short = _huge_scenario()
    assert comment_length(full) > COMMENT_BUDGET
    assert comment_length(short) <= COMMENT_BUDGET
    assert short.startswith(
        "<!-- recall-gate:default -->\n\n### ❌ recall-gate `default`: **fail**"
    )
    assert "Failed: 9 drops beyond the 0.020 tolerance; 1 floor missed." in short
    # The whole metric table, row for row.
    table = _metric_table(full)
    assert len(table) == 2 + 5 * 3  # header, rule; overall, one type, three languages × 3 metrics
    assert _metric_table(short) == table
    # Every failing row (the floor and each group's drop) survives.
    failing = [
        line for line in full.splitlines() if line.startswith("- ❌ ") and "drop" not in line
    ]
    assert len(failing) == 4
    for line in failing:
        assert line in short
    # The banners survive, their user strings shortened (a cut marked with …).
    assert "**Stale baseline: 1 change since it was made**" in short
    assert "retriever label" in short
    assert "…" in short


# --- autolinks and math ------------------------------------------------------------


def _rendered_query(query: str) -> str:
    """The comment of a run whose one lost case carries ``query``: the flips row."""
    old = suite()
    new = [_with_query(c, query) if c.case_id == "en-003" else c for c in suite({"en-003": None})]
    comparison = compare_to_baseline(
        current=results(new), baseline=baseline(old), baseline_path="baselines/default.json"
    )
    text = render_comment(
        comparison_document(
            comparison,
            judge_comparison(comparison, floors=Floors(), tolerances=Tolerances()),
            profile="default",
        ),
    )
    return next(line for line in text.splitlines() if line.startswith("| en-003 |"))


def test_gh_123_in_a_query_is_not_autolinked() -> None:
    row = _rendered_query("see GH-123 and gh-7")
    # GitHub links `GH-<digits>` (any case) as an issue; a joiner inside breaks the pattern.
    assert not re.search(r"(?i)\bgh-\d", row)
    assert "GH\u200d-123" in row
    assert "gh\u200d-7" in row


def test_a_cross_repository_reference_is_not_autolinked() -> None:
    row = _rendered_query("fixed in octo/repo#12")
    assert not re.search(r"[\w.-]+/[\w.-]+#\d", row)
    assert "octo/repo\\#\u200d12" in row


def test_a_bare_issue_or_pull_request_url_is_not_autolinked() -> None:
    row = _rendered_query(
        "https://github.com/o/r/issues/4 and http://github.com/o/r/pull/5 www.example.com"
    )
    assert "://" not in row.replace("\u200d://", "")
    assert not re.search(r"(?i)\bwww\.", row)
    assert "https\u200d://github.com/o/r/issues/4" in row


def test_dollar_math_in_case_text_is_not_rendered_as_math() -> None:
    row = _rendered_query("costs $5 and $x^2$")
    # Every `$` is wrapped in a span, GitHub's documented way to show a literal dollar.
    assert row.count("$") == row.count("<span>$</span>") == 3
    assert escape_markdown("$a$") == "<span>$</span>a<span>$</span>"


def test_huge_chunk_ids_and_metadata_in_what_came_back_instead_fit_the_comment() -> None:
    # A comparison JSON from anywhere (the action renders one it did not make)
    # may say 100,000 characters of each card: the comment still fits, and the
    # verdict stays.
    said = RetrievedDetail(chunk_id="c" * HUGE, metadata="source: " + "s" * HUGE)
    cases = [
        c.model_copy(update={"retrieved_detail": dict.fromkeys(c.ranked_ids, said)})
        if c.metrics and not c.metrics[HIT]
        else c
        for c in suite(n=300)
    ]
    comparison = compare_to_baseline(current=results(cases), baseline=None, baseline_path="b.json")
    verdict = judge_comparison(comparison, floors=Floors({HIT: 0.95}), tolerances=Tolerances())
    doc = comparison_document(comparison, verdict, profile="default")
    full = render_comment(doc)
    short = render_comment(doc, max_chars=COMMENT_BUDGET)
    assert comment_length(full) > COMMENT_BUDGET
    assert comment_length(short) <= COMMENT_BUDGET
    assert "What came back instead" in short
    assert "(chunk ccc" in short
