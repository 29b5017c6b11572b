"""The traffic diff: per logged query top-1 changed, Jaccard@k and RBO_ext between
the base snapshot and this capture, aggregated weighted and unweighted, overall
and per language, with the biggest movers. Hand tables for the arithmetic; a
generated 5,000-query log with planted truth for the bar."""

from __future__ import annotations

import pytest

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.rank_overlap import rbo_ext
from recall_gate.core.traffic_diff import OVERALL, diff_traffic
from recall_gate.core.traffic_record import traffic_record
from traffic_fixture import base_rankings, permute_tail, query_log, rechunk


def q(qid: str, weight: float = 1, language: str | None = "en") -> LoggedQuery:
    return LoggedQuery(id=qid, query=f"query {qid}", language=language, weight=weight)


def test_shares_are_weighted_by_traffic_and_unweighted_per_query() -> None:
    queries = [q("a", 9), q("b", 1), q("c", 10, "de")]
    base = {"a": ["x", "y"], "b": ["x", "y"], "c": ["x", "y"]}
    current = {"a": ["x", "y"], "b": ["y", "x"], "c": ["x", "z"]}
    diff = diff_traffic(queries, base=base, current=current, k=2)
    overall = diff.overall
    # b (weight 1) changed its top 1; b keeps its set; c (weight 10) changed its set.
    assert overall.top1_changed == pytest.approx(1 / 3)
    assert overall.weighted_top1_changed == pytest.approx(1 / 20)
    assert overall.moved == pytest.approx(1 / 3)
    assert overall.weighted_moved == pytest.approx(10 / 20)
    rbo_b, rbo_c = rbo_ext(["x", "y"], ["y", "x"]), rbo_ext(["x", "y"], ["x", "z"])
    assert overall.rbo == pytest.approx((1 + rbo_b + rbo_c) / 3)
    assert overall.weighted_rbo == pytest.approx((9 + rbo_b + 10 * rbo_c) / 20)
    # Jaccard@2: a 1, b 1, c {x} of {x, y, z} = 1/3.
    assert overall.jaccard == pytest.approx((1 + 1 + 1 / 3) / 3)
    assert list(diff.groups) == [OVERALL, "de", "en"]
    assert diff.groups["en"].n == 2
    assert diff.groups["en"].weighted_top1_changed == pytest.approx(1 / 10)
    assert diff.groups["de"].weighted_moved == 1.0


def test_rankings_are_cut_to_k_before_they_are_compared() -> None:
    diff = diff_traffic([q("a")], base={"a": ["x", "y", "z"]}, current={"a": ["x", "y", "w"]}, k=2)
    assert diff.overall.moved == 0.0
    assert diff.overall.rbo == 1.0
    assert diff.movers == ()


def test_movers_are_ranked_by_weight_times_one_minus_rbo() -> None:
    queries = [q("light", 1), q("heavy", 50), q("still", 1000), q("swap", 5)]
    base = {"light": ["x", "y"], "heavy": ["x", "y"], "still": ["x", "y"], "swap": ["x", "y"]}
    current = {"light": ["z", "w"], "heavy": ["x", "z"], "still": ["x", "y"], "swap": ["y", "x"]}
    diff = diff_traffic(queries, base=base, current=current, k=2)
    impacts = {m.id: m.impact for m in diff.movers}
    # heavy: 50 × (1 − RBO(xy, xz)); swap: 5 × (1 − RBO(xy, yx)); light: 1 × (1 − 0).
    assert impacts["heavy"] == pytest.approx(50 * (1 - rbo_ext(["x", "y"], ["x", "z"])))
    assert [m.id for m in diff.movers] == sorted(impacts, key=lambda i: -impacts[i])
    assert "still" not in impacts  # an unmoved query is no mover, however heavy
    assert diff.movers[0].before == ("x", "y")
    assert diff.movers[0].after == ("x", "z")


def test_movers_are_at_most_ten() -> None:
    queries = [q(f"q{i}") for i in range(25)]
    diff = diff_traffic(
        queries,
        base={x.id: ["a"] for x in queries},
        current={x.id: ["b"] for x in queries},
        k=5,
    )
    assert len(diff.movers) == 10
    assert [m.id for m in diff.movers] == sorted(x.id for x in queries)[:10]


def test_a_query_missing_from_either_side_is_counted_not_compared() -> None:
    diff = diff_traffic(
        [q("new"), q("failed"), q("both")],
        base={"failed": ["x"], "both": ["x"]},
        current={"new": ["x"], "both": ["x"]},
        k=5,
    )
    assert diff.not_in_base == ("new",)
    assert diff.not_captured == ("failed",)
    assert diff.overall.n == 1


def test_a_query_without_language_is_reported_as_undetermined() -> None:
    diff = diff_traffic([q("a", language=None)], base={"a": ["x"]}, current={"a": ["y"]}, k=5)
    assert list(diff.groups) == [OVERALL, "und"]


def test_the_record_names_the_rbo_variant_its_persistence_and_the_cards_titles() -> None:
    diff = diff_traffic([q("a")], base={"a": ["x"]}, current={"a": ["y"]}, k=5, p=0.8)
    record = traffic_record(diff, titles={"x": "Card X", "z": "unused"}, max_moved_share=None)
    assert record.rbo_variant == "RBO_ext (Webber, Moffat & Zobel 2010, Eq. 32)"
    assert record.p == 0.8
    assert record.groups[OVERALL].weighted.moved == 1.0
    assert record.movers[0].before == ("x",)
    assert record.movers[0].after == ("y",)
    assert record.titles == {"x": "Card X"}  # only the movers' cards
    assert record.failed is False  # report-only without max_moved_share


def test_max_moved_share_fails_only_above_the_share() -> None:
    queries = [q("a", 3), q("b", 1)]
    diff = diff_traffic(
        queries, base={"a": ["x"], "b": ["x"]}, current={"a": ["x"], "b": ["y"]}, k=5
    )
    # b carries 1 of 4 units of traffic: 25 % moved.
    assert traffic_record(diff, titles={}, max_moved_share=0.25).failed is False
    assert traffic_record(diff, titles={}, max_moved_share=0.24).failed is True


# --- the bar: a generated 5,000-query log with planted truth -----------------------


def test_a_pr_that_only_permutes_ranks_6_to_10_moves_nothing_in_the_top_5() -> None:
    queries = query_log()
    base = base_rankings(queries)
    diff = diff_traffic(queries, base=base, current=permute_tail(base), k=5)
    for figures in diff.groups.values():
        assert figures.weighted_moved == 0.0
        assert figures.moved == 0.0
        assert figures.weighted_top1_changed == 0.0
        assert figures.weighted_rbo == 1.0
    assert diff.movers == ()


def test_a_rechunking_pr_reports_the_planted_moved_share_per_language() -> None:
    queries = query_log()
    base = base_rankings(queries)
    targets = {"en": 0.30, "es-419": 0.12, "pt-BR": 0.45}
    current, truth = rechunk(queries, base, targets=targets)
    diff = diff_traffic(queries, base=base, current=current, k=5)
    for language, share in truth.items():
        assert diff.groups[language].weighted_moved == pytest.approx(share, abs=0.005)
        assert share == pytest.approx(targets[language], abs=0.02)  # the planting worked
    # The 10 biggest movers: the churned queries with the most weight × (1 − RBO).
    impact = {
        x.id: x.weight * (1 - rbo_ext(base[x.id][:5], current[x.id][:5]))
        for x in queries
        if base[x.id] != current[x.id]
    }
    expected = sorted(impact, key=lambda i: (-impact[i], i))[:10]
    assert [m.id for m in diff.movers] == expected
    assert diff.overall.n == 5_000


def test_two_captures_of_a_deterministic_retriever_report_no_movers() -> None:
    queries = query_log()
    base = base_rankings(queries)
    again = base_rankings(queries)
    diff = diff_traffic(queries, base=base, current=again, k=5)
    assert diff.movers == ()
    assert diff.overall.weighted_moved == 0.0
