"""compare_to_baseline, judge_comparison and the noise tests: one test per rule.

Cases are built through the real evaluator (see `factories.case`), so a case
"hit at rank r" scores hit 1, recall 1 and nDCG 1/log2(r+1) for its single gold card.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from factories import LANGS, K, baseline_of, case, results
from recall_gate.core.compare import Group, compare_to_baseline
from recall_gate.core.evaluate import score_case
from recall_gate.core.gate import (
    MIN_GROUP_N,
    REFERENCE_TOLERANCE,
    Floors,
    Tolerances,
    find_regressions,
    judge_comparison,
)
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import CaseLabel, CaseResult
from recall_gate.core.stats import mcnemar_exact_p, sign_flip_test


def many(n: int, rank: int | None, *, prefix: str = "c", start: int = 0) -> list[CaseResult]:
    """Cases ``<prefix>000``… spread over the three languages, all at ``rank``."""
    return [case(f"{prefix}{i:03d}", rank, language=LANGS[i % 3]) for i in range(start, start + n)]


# --- means on the common cases -------------------------------------------------


def test_means_are_recomputed_on_the_cases_present_in_both() -> None:
    # Baseline: a (hit), b (hit), gone (miss). Current: a (miss), b (hit), new (miss).
    # Common: a, b → baseline hit 1.0, current hit 0.5; "gone" and "new" are listed.
    base = baseline_of([case("a", 1), case("b", 1), case("gone", None)])
    cur = results([case("a", None), case("b", 2), case("new", None)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    hit = comparison.delta_for(HIT)
    assert hit is not None
    assert (hit.baseline, hit.current, hit.n_compared, hit.n_total) == (1.0, 0.5, 2, 4)
    assert hit.delta == -0.5
    assert comparison.cases.added == ("new",)
    assert comparison.cases.removed == ("gone",)
    assert comparison.cases.compared == 2


def test_a_relabelled_case_is_listed_and_not_compared() -> None:
    base = baseline_of([case("a", 1, gold=("x",)), case("b", 1)])
    cur = results([case("a", None, gold=("y",)), case("b", 1)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    assert comparison.cases.relabelled == ("a",)
    hit = comparison.delta_for(HIT)
    assert hit is not None
    assert (hit.n_compared, hit.baseline, hit.current) == (1, 1.0, 1.0)
    assert comparison.flips == ()


def test_groups_are_overall_case_types_then_languages_and_skip_unscored() -> None:
    cases = [
        case("g", 1, case_type="golden", language="pt-BR"),
        case("adv", 1, case_type="adversarial", language="en"),
        case("cap", None, case_type="capability", language="es-419", gold=()),
    ]
    comparison = compare_to_baseline(
        current=results(cases), baseline=baseline_of(cases), baseline_path="b.json"
    )
    labels = list(dict.fromkeys(d.group.label for d in comparison.deltas))
    # capability and es-419 carry only an unscored case: no row (no gold, no score).
    assert labels == [
        "overall",
        "case_type:golden",
        "case_type:adversarial",
        "language:en",
        "language:pt-BR",
    ]


# --- flips -------------------------------------------------------------------------


def test_flips_carry_the_gold_card_and_its_rank_before_and_after() -> None:
    base = baseline_of([case("lost", 2), case("won", None), case("same", 1)])
    cur = results([case("lost", None), case("won", 3), case("same", 1)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    lost, won = comparison.lost, comparison.gained
    assert [(f.case_id, f.card, f.rank_before, f.rank_after) for f in lost] == [
        ("lost", "card-lost", 2, None)
    ]
    assert [(f.case_id, f.card, f.rank_before, f.rank_after) for f in won] == [
        ("won", "card-won", None, 3)
    ]


def test_a_flip_names_the_best_ranked_gold_card_of_disjunctive_gold() -> None:
    # Baseline retrieves y (rank 1) and x (rank 3): the card that made the hit is y.
    label = CaseLabel(id="d", language="en", case_type="golden", must_cite_one_of=("x", "y"))
    before = score_case(label, ["y", "n1", "x", "n2", "n3"], k=K)
    after = score_case(label, ["n1", "n2", "n3", "n4", "n5"], k=K)
    comparison = compare_to_baseline(
        current=results([after]), baseline=baseline_of([before]), baseline_path="b.json"
    )
    (flip,) = comparison.flips
    assert (flip.card, flip.rank_before, flip.rank_after) == ("y", 1, None)


def test_a_rank_move_without_a_flip_names_the_case_and_its_ranks() -> None:
    base = baseline_of([case("a", 1), case("b", 1)])
    cur = results([case("a", 4), case("b", 1)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    assert comparison.flips == ()
    assert [
        (m.case_id, m.direction, m.rank_before, m.rank_after) for m in comparison.rank_moves
    ] == [("a", "down", 1, 4)]


# --- staleness --------------------------------------------------------------------


def test_stale_baseline_names_every_changed_fingerprint() -> None:
    cases = [case("a", 1)]
    base = baseline_of(cases, kb_fingerprint="sha256:kb-old", config_fingerprint="sha256:c1")
    cur = results(
        cases,
        dataset_fingerprint="sha256:other",
        kb_fingerprint="sha256:kb-new",
        config_fingerprint="sha256:c1",
        embedder="bge-small",
    )
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    assert comparison.status == "stale"
    assert [(s.what, s.baseline, s.current) for s in comparison.stale] == [
        ("dataset", "sha256:cases", "sha256:other"),
        ("kb", "sha256:kb-old", "sha256:kb-new"),
    ]
    assert comparison.deltas, "a stale baseline is still compared"


def test_a_fingerprint_unknown_on_one_side_is_not_staleness() -> None:
    cases = [case("a", 1)]
    # The baseline came from `score` (no KB fingerprint); this run from `run`.
    comparison = compare_to_baseline(
        current=results(cases, kb_fingerprint="sha256:kb"),
        baseline=baseline_of(cases),
        baseline_path="b.json",
    )
    assert comparison.status == "ok"


def test_another_k_is_not_comparable_no_delta_no_flip_no_regression() -> None:
    base = baseline_of([case("a", 1, k=10)], k=10)
    cur = results([case("a", None)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    assert comparison.status == "not_comparable"
    assert comparison.deltas == ()
    assert comparison.flips == ()
    assert find_regressions(comparison, tolerances=Tolerances.every(0.0)) == ()


def test_no_baseline_is_reported_missing_not_failed() -> None:
    comparison = compare_to_baseline(
        current=results([case("a", None)]), baseline=None, baseline_path="b.json"
    )
    assert comparison.status == "missing"
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.01))
    assert verdict.gate.verdict == "pass"
    assert verdict.gate.regressions == ()


# --- regressions and verdicts ---------------------------------------------------------


def test_a_drop_equal_to_the_tolerance_is_not_a_regression() -> None:
    # 20 cases: 18 hits → 17 hits is 0.90 → 0.85, a drop of exactly 0.05 (in floats,
    # 0.85 - 0.9 = -0.05000000000000004: rounding keeps it at the tolerance).
    base = baseline_of([*many(18, 1), *many(2, None, prefix="m")])
    cur = results([*many(17, 1), *many(1, None, start=17), *many(2, None, prefix="m")])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    overall = [
        r
        for r in find_regressions(comparison, tolerances=Tolerances.every(0.05))
        if r.group == "overall"
    ]
    assert overall == []
    beyond = find_regressions(comparison, tolerances=Tolerances.every(0.049))
    assert ("retrieval_hit_at_k", "overall") in {(r.metric, r.group) for r in beyond}


def test_report_only_lists_what_would_fail_at_the_reference_knobs() -> None:
    base = baseline_of(many(14, 1) + many(6, 1, prefix="z"))
    cur = results(many(14, 1) + many(6, None, prefix="z"))
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    assert verdict.gate.verdict == "report-only"
    assert verdict.gate.regressions == ()
    assert verdict.would_fail is not None
    # hit 1.0 → 0.7 overall: beyond the 0.05 reference tolerance.
    assert {r.tolerance for r in verdict.would_fail.regressions} == {REFERENCE_TOLERANCE}
    assert ("retrieval_hit_at_k", "overall") in {
        (r.metric, r.group) for r in verdict.would_fail.regressions
    }
    # The suggested floors come from the baseline (hit 1.0, n = 20).
    assert [f.metric for f in verdict.would_fail.failed_floors] == [HIT, RECALL, NDCG]
    assert verdict.would_fail_count == len(verdict.would_fail.regressions) + 3


def test_an_enforced_tolerance_fails_and_a_floor_alone_does_not_check_drops() -> None:
    base = baseline_of(many(20, 1))
    cur = results([*many(14, 1), *many(6, None, start=14)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    failed = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.1))
    assert failed.gate.verdict == "fail"
    assert failed.would_fail is None
    floors_only = judge_comparison(comparison, floors=Floors({HIT: 0.5}), tolerances=Tolerances())
    assert floors_only.gate.verdict == "pass"
    assert floors_only.gate.regressions == ()


def test_floors_apply_to_all_current_cases_not_only_the_compared_ones() -> None:
    base = baseline_of([case("a", 1)])
    cur = results([case("a", 1), case("new", None)])
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    verdict = judge_comparison(comparison, floors=Floors({HIT: 0.6}), tolerances=Tolerances())
    assert verdict.gate.verdict == "fail"  # 1 of 2 current cases hit: 0.5 < 0.6


# --- noise -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lost", "gained", "expected"),
    [
        (0, 0, 1.0),  # nothing flipped
        (1, 0, 1.0),  # 2 · P[X ≤ 0 | m=1] = 2 · 1/2
        (6, 0, 0.03125),  # 2 · (1/2)^6 = 1/32
        (3, 1, 0.625),  # 2 · (C(4,0) + C(4,1)) / 16 = 2 · 5/16
        (5, 5, 1.0),  # balanced: capped at 1
        (1, 9, 0.021484375),  # 2 · (1 + 10) / 1024 = 22/1024
    ],
)
def test_mcnemar_exact_p_matches_hand_computed_values(
    lost: int, gained: int, expected: float
) -> None:
    assert mcnemar_exact_p(lost=lost, gained=gained) == pytest.approx(expected, abs=1e-12)
    assert mcnemar_exact_p(lost=gained, gained=lost) == pytest.approx(expected, abs=1e-12)


def test_mcnemar_stays_exact_for_thousands_of_flips() -> None:
    # Normal approximation: z = (600 - 400) / sqrt(1000) ≈ 6.32 → p ≈ 2.5e-10.
    p = mcnemar_exact_p(lost=600, gained=400)
    assert 1e-11 < p < 1e-9


def test_graded_rows_carry_the_paired_sign_flip_test_of_their_differences() -> None:
    # 12 cases: four move from rank 1 to rank 3 (nDCG 1 → 0.5), one from 3 to 1.
    base = [case(f"c{i:02d}", 1 if i < 11 else 3) for i in range(12)]
    cur = [case(f"c{i:02d}", 3 if i < 4 else 1) for i in range(12)]
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    ndcg = comparison.delta_for(NDCG)
    assert ndcg is not None
    diffs = [c.metrics[NDCG] - b.metrics[NDCG] for b, c in zip(base, cur, strict=True)]
    test = sign_flip_test(diffs)
    assert (ndcg.noise.p_value, ndcg.noise.p_drop) == (test.p_value, test.p_drop)
    assert (ndcg.noise.method, ndcg.noise.lost, ndcg.noise.gained) == ("exact", 4, 1)


def test_small_groups_are_marked_and_not_tested() -> None:
    n = MIN_GROUP_N - 1
    base = baseline_of(many(n, 1))
    cur = results(many(n, None))
    comparison = compare_to_baseline(current=cur, baseline=base, baseline_path="b.json")
    for d in comparison.deltas:
        assert d.noise.small_n
        assert d.noise.significant is None
        assert d.noise.p_value is None


def test_a_clear_drop_is_significant_and_a_wobble_is_not() -> None:
    base = baseline_of(many(30, 1))
    dropped = compare_to_baseline(
        current=results([*many(22, 1), *many(8, None, start=22)]),
        baseline=base,
        baseline_path="b.json",
    )
    wobble = compare_to_baseline(
        current=results([*many(29, 1), *many(1, None, start=29)]),
        baseline=base,
        baseline_path="b.json",
    )
    hit_drop = dropped.delta_for(HIT)
    hit_wobble = wobble.delta_for(HIT)
    assert hit_drop is not None
    assert hit_wobble is not None
    assert hit_drop.noise.significant is True  # 8 lost, 0 gained: p = 2/256
    assert hit_wobble.noise.significant is False  # 1 lost: p = 1


# --- properties -----------------------------------------------------------------------

ranks = st.one_of(st.none(), st.integers(min_value=1, max_value=K))


@settings(max_examples=40, deadline=None)
@given(st.lists(ranks, min_size=1, max_size=25))
def test_a_run_compared_with_itself_changes_nothing(rank_list: list[int | None]) -> None:
    cases = [case(f"c{i}", r, language=LANGS[i % 3]) for i, r in enumerate(rank_list)]
    comparison = compare_to_baseline(
        current=results(cases), baseline=baseline_of(cases), baseline_path="b.json"
    )
    assert comparison.flips == ()
    assert comparison.rank_moves == ()
    assert all(d.delta == 0.0 for d in comparison.deltas)
    assert find_regressions(comparison, tolerances=Tolerances.every(0.0)) == ()


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(ranks, ranks), min_size=1, max_size=25))
def test_hit_delta_equals_net_flips_over_n(pairs: list[tuple[int | None, int | None]]) -> None:
    before = [case(f"c{i}", b) for i, (b, _) in enumerate(pairs)]
    after = [case(f"c{i}", a) for i, (_, a) in enumerate(pairs)]
    comparison = compare_to_baseline(
        current=results(after), baseline=baseline_of(before), baseline_path="b.json"
    )
    hit = comparison.delta_for(HIT, Group(kind="overall", name="all"))
    assert hit is not None
    assert hit.delta is not None
    net = len(comparison.gained) - len(comparison.lost)
    assert hit.delta == pytest.approx(net / len(pairs))


def test_a_baseline_file_compares_equal_to_the_run_it_was_made_from() -> None:
    from recall_gate.adapters.baseline_store import dump_baseline, parse_baseline

    # Ranks 2 and 3 give nDCG 0.6309297…, 0.5: more digits than a file keeps.
    cases = [case(f"c{i}", rank, language=LANGS[i % 3]) for i, rank in enumerate([1, 2, 3, 2] * 5)]
    current = results(cases)
    stored = parse_baseline(dump_baseline(baseline_of(cases)), source="baseline.json")
    comparison = compare_to_baseline(
        current=current, baseline=stored, baseline_path="baselines/default.json"
    )
    assert comparison.rank_moves == ()
    assert all(d.delta == 0.0 for d in comparison.deltas if d.delta is not None)
