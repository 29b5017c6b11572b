"""retrieval_mrr_at_k and retrieval_precision_at_k, hand-computed (synthetic ids)."""

from __future__ import annotations

import pytest

from recall_gate.core.evaluate import CaseScorer
from recall_gate.core.metric_registry import (
    DEFAULT_METRIC_KEYS,
    metric_spec,
    select_metrics,
    shown_metrics,
)
from recall_gate.core.metrics import (
    HIT,
    MRR,
    NDCG,
    PRECISION,
    RECALL,
    precision_at_k,
    reciprocal_rank_at_k,
)


@pytest.mark.parametrize(
    ("top", "relevant", "k", "mrr", "precision"),
    [
        (["a", "b", "c"], {"a"}, 3, 1.0, 1 / 3),  # first at rank 1; 1 of k = 3
        (["x", "b", "a"], {"a", "b"}, 3, 0.5, 2 / 3),  # first relevant at rank 2; 2 of 3
        (["x", "y"], {"a"}, 2, 0.0, 0.0),  # none retrieved
        (["a"], {"a"}, 5, 1.0, 1 / 5),  # one card back at k = 5: P divides by k, as P_k
        (["x", "y", "a"], {"a"}, 2, 0.0, 0.0),  # rank 3 is outside the top 2
    ],
)
def test_mrr_and_precision_of_one_case(
    top: list[str], relevant: set[str], k: int, mrr: float, precision: float
) -> None:
    assert reciprocal_rank_at_k(top, relevant, relevant, k) == pytest.approx(mrr)
    assert precision_at_k(top, relevant, relevant, k) == pytest.approx(precision)


def test_mrr_and_precision_use_relevant_ids_not_must_cite_one_of() -> None:
    # gold {a}; relevant_ids {a, b}: the first relevant card is b at rank 1.
    scorer = CaseScorer(3, metrics=(MRR, PRECISION))
    record = scorer.add("c", ("en", "golden", ("a",), ("a", "b")), ["b", "x", "a"])
    assert record["metrics"][MRR] == 1.0
    assert record["metrics"][PRECISION] == pytest.approx(2 / 3)


def test_default_set_is_hit_recall_ndcg_and_a_selection_adds_to_it() -> None:
    assert DEFAULT_METRIC_KEYS == (HIT, RECALL, NDCG)
    assert CaseScorer(3).metrics == (HIT, RECALL, NDCG)
    assert CaseScorer(3, metrics=(PRECISION,)).metrics == (HIT, RECALL, NDCG, PRECISION)


def test_metrics_are_selected_by_short_name_or_key_in_registry_order() -> None:
    assert select_metrics(["precision", "retrieval_mrr_at_k", "hit"]) == (HIT, MRR, PRECISION)
    with pytest.raises(ValueError, match="unknown metric 'map'"):
        select_metrics(["map"])


def test_reports_show_the_default_set_and_what_is_carried() -> None:
    assert shown_metrics() == (HIT, RECALL, NDCG)
    assert shown_metrics({PRECISION: 0.1}) == (HIT, RECALL, NDCG, PRECISION)


def test_registry_entries_name_the_trec_eval_measures() -> None:
    assert metric_spec(MRR).formula == "trec_eval recip_rank on the top k"
    assert metric_spec(PRECISION).formula == "trec_eval P_k"
    assert (metric_spec(MRR).name, metric_spec(PRECISION).name) == ("mrr", "precision")
