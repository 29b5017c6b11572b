"""Means with an honest n (no gold, no score; the denominator is "has gold"):
overall, by case type, by language."""

from __future__ import annotations

from recall_gate.core.aggregate import CITATION_COVERAGE, aggregate
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import CaseResult, CaseType, CitationOutcome, Language, MetricSummary


def result(
    case_id: str,
    *,
    language: Language = "en",
    case_type: CaseType = "golden",
    hit: float | None = None,
    recall: float | None = None,
    ndcg: float | None = None,
    outcome: CitationOutcome | None = None,
) -> CaseResult:
    """A per-case record; no metric given = empty gold (no keys)."""
    metrics = {}
    if hit is not None:
        metrics = {
            HIT: hit,
            RECALL: hit if recall is None else recall,
            NDCG: hit if ndcg is None else ndcg,
        }
    return CaseResult(
        case_id=case_id,
        language=language,
        case_type=case_type,
        metrics=metrics,
        ranked_ids=(),
        citation_outcome=outcome,
    )


def test_n_per_group_counts_only_cases_carrying_keys() -> None:
    results = [
        result("en-1", hit=1.0),
        result("en-2", hit=0.0),
        result("en-3", case_type="capability"),  # no gold: no keys
        result("es-1", language="es-419", case_type="adversarial", hit=1.0),
        result("es-2", language="es-419", case_type="no_match"),  # no gold
        result("pt-1", language="pt-BR", hit=1.0, recall=0.5, ndcg=0.75),
    ]
    groups = aggregate(results)
    assert groups.overall[HIT] == MetricSummary(mean=0.75, n=4)  # (1 + 0 + 1 + 1) / 4
    assert groups.overall[RECALL] == MetricSummary(mean=0.625, n=4)  # (1 + 0 + 1 + 0.5) / 4
    assert groups.overall[NDCG] == MetricSummary(mean=0.6875, n=4)  # (1 + 0 + 1 + 0.75) / 4
    assert groups.by_language["en"][HIT] == MetricSummary(mean=0.5, n=2)  # en-3 not counted
    assert groups.by_language["es-419"][HIT] == MetricSummary(mean=1.0, n=1)
    assert groups.by_language["pt-BR"][RECALL] == MetricSummary(mean=0.5, n=1)
    assert groups.by_case_type["golden"][HIT] == MetricSummary(mean=2 / 3, n=3)
    assert groups.by_case_type["adversarial"][HIT] == MetricSummary(mean=1.0, n=1)
    # Groups that hold only unlabelled cases are present and empty: "not scored".
    assert groups.by_case_type["capability"] == {}
    assert groups.by_case_type["no_match"] == {}


def test_every_metric_key_carries_its_own_n() -> None:
    groups = aggregate([result("a", hit=1.0), result("b", hit=0.0, outcome="retrieval_miss")])
    assert {key: s.n for key, s in groups.overall.items()} == {
        HIT: 2,
        RECALL: 2,
        NDCG: 2,
        CITATION_COVERAGE: 1,  # only one case carried citations
    }


def test_citation_coverage_is_the_share_of_ok_outcomes() -> None:
    groups = aggregate(
        [
            result("a", hit=1.0, outcome="ok"),
            result("b", hit=1.0, outcome="citation_miss"),
            result("c", hit=0.0, outcome="retrieval_miss"),
            result("d", hit=1.0, outcome="ok"),
        ]
    )
    assert groups.overall[CITATION_COVERAGE] == MetricSummary(mean=0.5, n=4)


def test_no_citation_coverage_without_captured_citations() -> None:
    assert CITATION_COVERAGE not in aggregate([result("a", hit=1.0)]).overall


def test_groups_follow_the_contract_order() -> None:
    groups = aggregate(
        [
            result("1", language="pt-BR", case_type="no_match", hit=1.0),
            result("2", language="es-419", case_type="capability", hit=1.0),
            result("3", language="en", case_type="adversarial", hit=1.0),
            result("4", language="pt-BR", case_type="golden", hit=1.0),
        ]
    )
    assert list(groups.by_case_type) == ["golden", "adversarial", "capability", "no_match"]
    assert list(groups.by_language) == ["en", "es-419", "pt-BR"]


def test_groups_without_cases_are_absent() -> None:
    groups = aggregate([result("1", hit=1.0)])
    assert list(groups.by_case_type) == ["golden"]
    assert list(groups.by_language) == ["en"]


def test_nothing_scored_gives_empty_overall() -> None:
    groups = aggregate([result("1"), result("2", case_type="capability")])
    assert groups.overall == {}
    assert groups.by_language == {"en": {}}
    assert aggregate([]).overall == {}


def test_the_mean_is_exactly_rounded() -> None:
    # 10 × 0.1 summed naively is 0.9999999999999999; fsum keeps the mean exact.
    groups = aggregate([result(str(i), hit=1.0, recall=0.1) for i in range(10)])
    assert groups.overall[RECALL].mean == 0.1


def test_aggregate_accepts_a_generator() -> None:
    groups = aggregate(result(str(i), hit=float(i % 2)) for i in range(4))
    assert groups.overall[HIT] == MetricSummary(mean=0.5, n=4)
    assert set(groups.overall) == set(DEFAULT_METRIC_KEYS)
