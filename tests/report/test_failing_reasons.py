"""Reviewers read why a row fails: a failing drop says it is likely real (with
the report-level p), or, only where the team set require-significance false,
that it fails within noise because of that; and a group (a language) is named
once per bullet list, its failing and exempt drops in one bullet."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document, judged
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.traffic_record import UnansweredLog
from recall_gate.report.actions import comparison_annotations
from recall_gate.report.style import MARKDOWN
from recall_gate.report.verdict_phrases import checks_block


def document(*, lost: int, require_significance: bool = True) -> ComparisonDocument:
    """Forty English cases of which ``lost`` lose their hit, against a 0.02 tolerance."""
    base = [case(f"c{i:03d}", 1) for i in range(40)]
    current = [case(f"c{i:03d}", None if i < lost else 1) for i in range(40)]
    comparison = compare_to_baseline(
        current=results(current), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(
        comparison,
        floors=Floors(),
        tolerances=Tolerances.every(0.02),
        require_significance=require_significance,
    )
    return comparison_document(comparison, verdict, profile="default")


def bullets(doc: ComparisonDocument) -> list[str]:
    return (checks_block(doc, MARKDOWN) or "").splitlines()


def test_a_likely_real_drop_says_it_fails_because_it_is_likely_real() -> None:
    doc = document(lost=12)
    assert doc.verdict == "fail"
    (overall,) = [b for b in bullets(doc) if b.startswith("- ❌ overall:")]
    assert "beyond the 0.020 tolerance (max-regression), fails: likely real (p " in overall


def test_a_drop_within_noise_fails_only_saying_require_significance_is_off() -> None:
    doc = document(lost=2, require_significance=False)
    assert doc.verdict == "fail"
    (overall,) = [b for b in bullets(doc) if b.startswith("- ❌ overall:")]
    assert "fails within noise because require-significance is off" in overall
    assert "likely real (p" not in overall


def test_a_language_appears_once_per_bullet_list() -> None:
    doc = document(lost=12)
    gate = doc.gate
    failing = next(r for r in gate.regressions if r.group == "language:en")
    # The same language with a drop exempt for another reason: one bullet still.
    exempt = failing.model_copy(
        update={"metric": "retrieval_ndcg_at_k", "status": "exempt_small_n"}
    )
    doc = doc.model_copy(update={"gate": gate.model_copy(update={"exempt": (exempt,)})})
    lines = [b for b in bullets(doc) if "language en" in b]
    assert len(lines) == 1, lines
    assert lines[0].startswith("- ❌ language en: ")
    assert "; and nDCG@5" in lines[0]


def test_every_failed_or_unjudged_gate_is_one_error_annotation_with_its_reason() -> None:
    missing = UnansweredLog(queries="q.jsonl", snapshot="c.queries.jsonl", max_moved_share=0.2)
    doc, _ = judged(document(lost=0).model_copy(update={"traffic_unanswered": missing}))
    assert doc.verdict == "fail"
    (error,) = [a for a in comparison_annotations(doc) if a.level == "error"]
    assert error.title == "recall-gate: gate could not be judged"
    assert error.message == (
        "max_moved_share 20.0 % could not be judged: the capture holds no answers to the "
        "logged queries"
    )
