"""The report names each metric's tolerance where it names the tolerance: the
verdict line (and which shown metrics are not tolerance-gated) and each drop
line. One tolerance for every metric reads as before. Synthetic data only."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.compare import Comparison, compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.report.comparison import render_comment, render_comparison_text


def _comparison() -> Comparison:
    """20 cases at rank 1; now one is lost and four sit at rank 3:
    hit and recall −0.05, nDCG −0.15."""
    base = [case(f"c{i:02d}", 1) for i in range(20)]
    cur = [case("c00", None), *(case(f"c{i:02d}", 3) for i in range(1, 5))]
    cur += [case(f"c{i:02d}", 1) for i in range(5, 20)]
    return compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )


def _text(tolerances: Tolerances) -> str:
    comparison = _comparison()
    # Within noise: held to the tolerances alone, as require-significance off does.
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=tolerances, require_significance=False
    )
    return render_comparison_text(comparison_document(comparison, verdict, profile="default"))


def test_the_gate_line_says_which_metrics_are_not_tolerance_gated() -> None:
    text = _text(Tolerances({HIT: 0.1}))
    assert (
        "Passed: no drop beyond the tolerance of each metric "
        "(hit@5 0.100; recall@5, nDCG@5 not tolerance-gated)." in text
    )


def test_a_failed_gate_line_names_each_metrics_tolerance() -> None:
    text = _text(Tolerances({HIT: 0.01, RECALL: 0.01, NDCG: 0.2}))
    assert "beyond the tolerance of each metric (hit@5 0.010, recall@5 0.010, nDCG@5 0.200)" in text


def test_a_drop_line_names_each_metrics_own_tolerance_when_they_differ() -> None:
    text = _text(Tolerances({HIT: 0.01, NDCG: 0.1}))
    assert "beyond the tolerance of each metric (hit@5 0.010, nDCG@5 0.100; max-regression)" in text


def test_one_tolerance_for_every_metric_reads_as_one_number() -> None:
    text = _text(Tolerances.every(0.01))
    assert "beyond the 0.010 tolerance" in text
    assert "tolerance of each metric" not in text
    comparison = _comparison()
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.2))
    comment = render_comment(comparison_document(comparison, verdict, profile="default"))
    assert "no drop beyond the 0.200 tolerance" in comment


def test_one_number_with_a_metrics_own_beside_it_reads_as_the_number_and_the_exception() -> None:
    text = _text(Tolerances({**Tolerances.every(0.2).values, NDCG: 0.1}))
    assert "Failed: 3 drops beyond the 0.200 tolerance (0.100 for nDCG@5)." in text
