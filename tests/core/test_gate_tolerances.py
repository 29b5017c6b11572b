"""The tolerance is keyed by metric, like the floors: one number applies to
every gated metric; a mapping gates only the metrics it names, each against
its own tolerance. Synthetic data only.

Cases go through the real evaluator: a single gold card at rank r scores hit 1
and nDCG 1/log2(r+1) (rank 1: 1.0, rank 3: 0.5).
"""

from __future__ import annotations

import pytest

from factories import baseline_of, case, results
from recall_gate.core.compare import Comparison, compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.gate import (
    REFERENCE_TOLERANCE,
    Floors,
    Tolerances,
    find_regressions,
    judge_comparison,
)
from recall_gate.core.metric_registry import METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL


@pytest.fixture
def comparison() -> Comparison:
    """20 cases at rank 1 in the baseline; now one is lost and four sit at rank 3.
    hit and recall: 1.0 → 19/20 (−0.05); nDCG: 1.0 → (15 + 4 × 0.5) / 20 = 0.85 (−0.15).
    Within noise: the tests that hold it to a tolerance turn require-significance off."""
    base = [case(f"c{i:02d}", 1) for i in range(20)]
    cur = [case("c00", None), *(case(f"c{i:02d}", 3) for i in range(1, 5))]
    cur += [case(f"c{i:02d}", 1) for i in range(5, 20)]
    return compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )


def _failed(verdict_regressions: tuple[object, ...]) -> set[str]:
    return {r.metric for r in verdict_regressions}  # type: ignore[attr-defined]


def test_a_tolerance_keyed_by_metric_gates_only_that_metric(comparison: Comparison) -> None:
    # hit drops 0.05, within 0.1; nDCG drops 0.15 but has no tolerance: not gated.
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances({HIT: 0.1}))
    assert verdict.gate.verdict == "pass"
    assert verdict.gate.regressions == ()
    assert verdict.gate.exempt == ()
    # nDCG alone, at 0.1: its 0.15 drop fails; hit's and recall's 0.05 are not looked at.
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances({NDCG: 0.1}), require_significance=False
    )
    assert verdict.gate.verdict == "fail"
    assert _failed(verdict.gate.regressions) == {NDCG}


def test_each_metric_is_judged_against_its_own_tolerance(comparison: Comparison) -> None:
    verdict = judge_comparison(
        comparison,
        floors=Floors(),
        require_significance=False,
        tolerances=Tolerances({HIT: 0.01, NDCG: 0.2}),
    )
    assert verdict.gate.verdict == "fail"
    assert _failed(verdict.gate.regressions) == {HIT}
    assert {r.tolerance for r in verdict.gate.regressions} == {0.01}
    verdict = judge_comparison(
        comparison,
        floors=Floors(),
        require_significance=False,
        tolerances=Tolerances({HIT: 0.1, NDCG: 0.1}),
    )
    assert _failed(verdict.gate.regressions) == {NDCG}
    assert {r.tolerance for r in verdict.gate.regressions} == {0.1}


def test_one_tolerance_applies_to_every_gated_metric(comparison: Comparison) -> None:
    every = Tolerances.every(0.04)
    assert dict(every.values) == dict.fromkeys(METRIC_KEYS, 0.04)
    assert every.uniform == 0.04
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=every, require_significance=False
    )
    assert _failed(verdict.gate.regressions) == {HIT, RECALL, NDCG}
    assert Tolerances.every(None) == Tolerances()
    assert Tolerances({HIT: 0.04}).uniform is None


def test_no_tolerance_is_report_only_and_would_fail_at_the_reference_one_for_every_metric(
    comparison: Comparison,
) -> None:
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances(), require_significance=False
    )
    assert verdict.gate.verdict == "report-only"
    assert verdict.would_fail is not None
    assert {r.tolerance for r in verdict.would_fail.regressions} == {REFERENCE_TOLERANCE}
    assert _failed(verdict.would_fail.regressions) == {NDCG}  # 0.05 is not beyond 0.05


def test_a_tolerance_on_a_metric_the_registry_does_not_gate_is_refused() -> None:
    with pytest.raises(ValueError, match="no tolerance for retrieval_map: not a gated metric"):
        Tolerances({"retrieval_map": 0.1})


def test_find_regressions_skips_a_metric_without_a_tolerance(comparison: Comparison) -> None:
    found = find_regressions(comparison, tolerances=Tolerances({HIT: 0.0}))
    assert _failed(found) == {HIT}


def test_the_comparison_document_records_each_metrics_tolerance(comparison: Comparison) -> None:
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances({NDCG: 0.1, HIT: 0.02})
    )
    doc = comparison_document(comparison, verdict, profile="default")
    # By the registry's short names, in its order; a metric without one is absent.
    assert list(doc.gate.tolerances.items()) == [("hit", 0.02), ("ndcg", 0.1)]
    assert doc.schema_version == 5
