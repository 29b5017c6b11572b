"""The noise rule of the tolerance, one test per rule: a drop beyond
max-regression fails only with min-group-n compared cases and, with
require-significance, when the report-level noise test (every gated row tested
together) calls it likely real, overall included; every over-tolerance row
names the cases behind it.

Cases go through the real evaluator: a single gold card at rank r scores
hit 1 and nDCG 1/log2(r+1) (rank 1: 1.0, rank 3: 0.5).
"""

from __future__ import annotations

import pytest

from factories import baseline_of, case, results
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.evaluate import score_case
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT, NDCG
from recall_gate.core.records import CaseLabel, CaseResult
from recall_gate.core.stats import mcnemar_exact_p, min_detectable_lost


def en_cases(n: int, rank: int | None, *, prefix: str = "en") -> list[CaseResult]:
    return [case(f"{prefix}-{i:02d}", rank) for i in range(n)]


def test_a_drop_in_a_group_below_min_group_n_is_exempt_and_names_its_case() -> None:
    # es-419 has two cases; one moves from rank 1 to rank 3: nDCG (1 + 1) / 2 → (0.5 + 1) / 2,
    # a 0.25 drop. Overall improves: three en cases go from a miss to rank 1.
    base = [*en_cases(17, 1), *en_cases(3, None, prefix="en-x")]
    base += [case("es-a", 1, language="es-419"), case("es-b", 1, language="es-419")]
    cur = [*en_cases(17, 1), *en_cases(3, 1, prefix="en-x")]
    cur += [case("es-a", 3, language="es-419"), case("es-b", 1, language="es-419")]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "pass"
    assert verdict.gate.regressions == ()
    (row,) = verdict.gate.exempt
    assert (row.metric, row.group, row.n, row.exempt) == (NDCG, "language:es-419", 2, "small_n")
    assert row.delta == pytest.approx(-0.25)
    (moved,) = row.cases
    assert (moved.case_id, moved.direction, moved.rank_before, moved.rank_after) == (
        "es-a",
        "down",
        1,
        3,
    )


def test_a_subgroup_drop_the_noise_test_does_not_call_real_is_exempt() -> None:
    # pt-BR: 12 cases, one lost: McNemar p = 1.0, a 0.083 drop. Overall (n = 24)
    # stays within a 0.1 tolerance (−0.042).
    base = en_cases(12, 1) + [case(f"pt-{i:02d}", 1, language="pt-BR") for i in range(12)]
    cur = en_cases(12, 1) + [
        case(f"pt-{i:02d}", None if i == 0 else 1, language="pt-BR") for i in range(12)
    ]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "pass"
    assert {(r.metric, r.exempt) for r in verdict.gate.exempt if r.group == "language:pt-BR"} >= {
        (HIT, "not_significant")
    }
    strict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances.every(0.05), require_significance=False
    )
    assert strict.gate.verdict == "fail"
    assert {r.group for r in strict.gate.regressions} == {"language:pt-BR"}
    assert strict.gate.exempt == ()


def test_overall_needs_its_significance_like_every_row() -> None:
    # 20 cases, 3 lost (15%): one-sided McNemar p = 1/8, "within noise": exempt overall too.
    base = en_cases(20, 1)
    cur = [case(f"en-{i:02d}", None if i < 3 else 1) for i in range(20)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    hit = comparison.delta_for(HIT)
    assert hit is not None
    assert hit.noise.significant is False
    assert hit.noise.drop_real is False
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "pass"
    overall_hit = next(r for r in verdict.gate.exempt if (r.metric, r.group) == (HIT, "overall"))
    assert overall_hit.exempt == "not_significant"
    assert [m.case_id for m in overall_hit.cases] == ["en-00", "en-01", "en-02"]
    assert all((m.rank_before, m.rank_after) == (1, None) for m in overall_hit.cases)


def test_without_require_significance_every_row_is_held_to_its_tolerance_within_noise() -> None:
    base = en_cases(20, 1)
    cur = [case(f"en-{i:02d}", None if i < 3 else 1) for i in range(20)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances.every(0.05), require_significance=False
    )
    assert verdict.gate.verdict == "fail"
    assert (HIT, "overall") in {(r.metric, r.group) for r in verdict.gate.regressions}


def test_a_drop_the_report_level_test_calls_real_fails_overall() -> None:
    # 20 cases, 9 lost, none gained: every gated row holds the same 9 cases, so the
    # report-level p is the one-sided McNemar p of one row, 2^-9.
    base = en_cases(20, 1)
    cur = [case(f"en-{i:02d}", None if i < 9 else 1) for i in range(20)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    hit = comparison.delta_for(HIT)
    assert hit is not None
    assert hit.noise.p_family == pytest.approx(2**-9)
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "fail"
    row = next(r for r in verdict.gate.regressions if (r.metric, r.group) == (HIT, "overall"))
    assert row.significant is True
    assert row.p_family == pytest.approx(2**-9)


def test_the_family_is_the_gated_rows_and_costs_each_row_its_share() -> None:
    # en: 8 lost of 20 (one-sided 2^-8 alone); pt-BR reshuffled: 3 lost, 3 gained.
    base = en_cases(20, 1) + [
        case(f"pt-{i:02d}", 1 if i < 10 else None, language="pt-BR") for i in range(20)
    ]
    cur = [case(f"en-{i:02d}", None if i < 8 else 1) for i in range(20)] + [
        case(f"pt-{i:02d}", None if i < 3 or 10 <= i < 17 else 1, language="pt-BR")
        for i in range(20)
    ]
    only_hit = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json", family=[HIT]
    )
    rows = {(d.metric, d.group.label): d.noise for d in only_hit.deltas}
    assert rows[NDCG, "language:en"].p_family is None  # no tolerance: not in the family
    en = rows[HIT, "language:en"]
    assert en.p_drop == pytest.approx(2**-8)
    assert en.p_family is not None
    assert en.p_drop is not None
    assert en.p_drop < en.p_family < 0.05
    assert only_hit.family is not None
    assert only_hit.family.cells == 4  # hit@k × overall, golden, en, pt-BR


def test_overall_below_min_group_n_is_exempt_too() -> None:
    comparison = compare_to_baseline(
        current=results([case("a", None), case("b", 1)]),
        baseline=baseline_of([case("a", 1), case("b", 1)]),
        baseline_path="b.json",
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert verdict.gate.verdict == "pass"
    assert {r.exempt for r in verdict.gate.exempt} == {"small_n"}


def test_min_group_n_is_also_where_the_report_starts_testing() -> None:
    base = en_cases(4, 1)
    cur = [case("en-00", None), *en_cases(3, 1)[1:], case("en-03", 1)]
    low = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json", min_group_n=3
    )
    default = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    low_hit, default_hit = low.delta_for(HIT), default.delta_for(HIT)
    assert low_hit is not None
    assert default_hit is not None
    assert low_hit.noise.small_n is False
    assert low_hit.noise.p_value == 1.0
    assert default_hit.noise.small_n is True
    verdict = judge_comparison(
        low, floors=Floors(), tolerances=Tolerances.every(0.05), require_significance=False
    )
    assert verdict.gate.verdict == "fail"  # overall, n = 4 ≥ 3: gated


def test_min_group_n_below_one_is_rejected() -> None:
    with pytest.raises(ValueError, match="min_group_n must be at least 1"):
        compare_to_baseline(
            current=results([case("a", 1)]), baseline=None, baseline_path="b.json", min_group_n=0
        )


def test_the_comparison_json_lists_the_cases_behind_each_row_and_every_rank_move() -> None:
    label = CaseLabel(id="q1", language="en", case_type="golden", must_cite_one_of=("gold",))
    before = score_case(label, ["gold", "n1", "n2"], k=5, query="where is the clinic?")
    after = score_case(label, ["n1", "n2", "n3"], k=5, query="where is the clinic?")
    moved_before = case("q2", 1)
    moved_after = case("q2", 2)
    base = [before, moved_before, *en_cases(10, 1)]
    cur = [after, moved_after, *en_cases(10, 1)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances.every(0.05), require_significance=False
    )
    payload = comparison_document(comparison, verdict, profile="default").model_dump(mode="json")
    assert payload["schema_version"] == 5
    assert payload["gate"]["min_group_n"] == 10
    assert payload["gate"]["require_significance"] is False
    rows = payload["gate"]["regressions"]
    assert rows
    assert all(r["status"] == "failed" for r in rows)
    hit_row = next(r for r in rows if r["metric"] == HIT)
    assert hit_row["cases"] == [
        {
            "case_id": "q1",
            "language": "en",
            "case_type": "golden",
            "query": "where is the clinic?",
            "direction": "lost",
            "card": "gold",
            "rank_before": 1,
            "rank_after": None,
            "before": {"hit": 1.0, "recall": 1.0, "ndcg": 1.0},
            "after": {"hit": 0.0, "recall": 0.0, "ndcg": 0.0},
            "retrieved": ["n1", "n2", "n3"],  # what came back instead of the gold card
            # Both rankings held 3 cards at k = 5: "not retrieved (3 returned)".
            "returned_before": 3,
            "returned_after": 3,
        }
    ]
    (move,) = payload["flips"]["rank_moves"]
    assert (move["case_id"], move["direction"], move["rank_before"], move["rank_after"]) == (
        "q2",
        "down",
        1,
        2,
    )


def test_the_smallest_detectable_hit_drop_is_six_lost_cases_with_nothing_gained() -> None:
    # p(5 lost, 0 gained) = 2/32 = 0.0625 ≥ 0.05; p(6, 0) = 2/64 = 0.031 < 0.05.
    assert min_detectable_lost() == 6
    # With 2 gained: p(9, 2) = 2·(1 + 11 + 55)/2048 = 0.065; p(10, 2) = 2·79/4096 = 0.039.
    assert min_detectable_lost(gained=2) == 10
    assert mcnemar_exact_p(lost=5, gained=0) >= 0.05 > mcnemar_exact_p(lost=6, gained=0)


def test_a_group_holding_every_compared_case_costs_the_report_level_test_nothing() -> None:
    # All 20 cases are English and golden: those groups are overall by another name,
    # and hit, recall and nDCG move together: 9 rows, one test. 6 lost, none gained:
    # one-sided p = 2^-6 = 0.016 for every row (Holm over 9 rows would ask 0.0056).
    base = en_cases(20, 1)
    cur = [case(f"en-{i:02d}", None if i < 6 else 1) for i in range(20)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    assert [d.noise.p_family for d in comparison.deltas] == [pytest.approx(2**-6)] * 9
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.05))
    assert {r.group for r in verdict.gate.regressions} == {
        "overall",
        "case_type:golden",
        "language:en",
    }
    assert verdict.gate.exempt == ()
