"""The noise tests hold their level at the team's n: exact McNemar and the paired
sign-flip permutation test against scipy's own, each regime (exact, Monte-Carlo,
normal) against an exact enumeration written here, the report-level joint test
(step-down max-T) against a brute-force enumeration of every sign pattern, and
the level of each regime measured by simulation under a true null."""

from __future__ import annotations

import itertools
import math
import random

import pytest
from scipy import stats as scipy_stats  # type: ignore[import-untyped]  # no stubs in dev

from recall_gate.core.stats import (
    EXACT_LIMIT,
    NORMAL_MIN_CHANGED,
    FamilyCell,
    Method,
    family_drop_p,
    fewest_lost_caught,
    mcnemar_drop_p,
    mcnemar_exact_p,
    sign_flip_test,
    smallest_drop_caught,
)


@pytest.mark.parametrize(("lost", "gained"), [(0, 0), (1, 0), (6, 0), (11, 1), (3, 9), (40, 25)])
def test_mcnemar_matches_scipys_binomial_test(lost: int, gained: int) -> None:
    m = lost + gained
    if m == 0:
        assert mcnemar_exact_p(lost=0, gained=0) == mcnemar_drop_p(lost=0, gained=0) == 1.0
        return
    two = scipy_stats.binomtest(lost, m, 0.5).pvalue
    one = scipy_stats.binomtest(lost, m, 0.5, alternative="greater").pvalue
    assert mcnemar_exact_p(lost=lost, gained=gained) == pytest.approx(two, abs=1e-12)
    assert mcnemar_drop_p(lost=lost, gained=gained) == pytest.approx(one, abs=1e-12)


def _scipy_paired(diffs: list[float], alternative: str) -> float:
    before = [0.0] * len(diffs)
    result = scipy_stats.permutation_test(
        (diffs, before),
        lambda x, y: sum(x) - sum(y),
        permutation_type="samples",
        alternative=alternative,
        n_resamples=math.inf,
        vectorized=False,
    )
    return float(result.pvalue)


@pytest.mark.parametrize("seed", range(6))
def test_the_exact_sign_flip_p_is_scipys_paired_permutation_test(seed: int) -> None:
    rng = random.Random(seed)
    # nDCG@5-like differences: 1/log2(r+1) steps, many zeros, n = 12.
    steps = [0.0, 0.0, 0.0, 1.0, 0.6309, 0.5, 0.4307, 0.3869]
    diffs = [round(rng.choice(steps) - rng.choice(steps), 4) for _ in range(12)]
    test = sign_flip_test(diffs)
    assert test.method in ("exact", "none")
    assert test.p_value == pytest.approx(_scipy_paired(diffs, "two-sided"), abs=1e-9)
    assert test.p_drop == pytest.approx(_scipy_paired(diffs, "less"), abs=1e-9)


def test_on_zero_one_differences_the_sign_flip_test_is_mcnemar() -> None:
    diffs = [-1.0] * 11 + [1.0] * 1 + [0.0] * 48
    test = sign_flip_test(diffs)
    assert (test.method, test.down, test.up) == ("exact", 11, 1)
    assert test.p_value == pytest.approx(mcnemar_exact_p(lost=11, gained=1), abs=1e-12)
    assert test.p_drop == pytest.approx(mcnemar_drop_p(lost=11, gained=1), abs=1e-12)


def _grid_exact_drop_p(diffs: list[float], unit: float) -> float:
    """P[Σ ±d ≤ observed] by dynamic programming over integer multiples of ``unit``."""
    dist = {0: 1}
    for d in diffs:
        step = round(abs(d) / unit)
        nxt: dict[int, int] = {}
        for s, w in dist.items():
            for t in (s + step, s - step):
                nxt[t] = nxt.get(t, 0) + w
        dist = nxt
    observed = round(sum(diffs) / unit)
    return sum(w for s, w in dist.items() if s <= observed) / float(2 ** len(diffs))


def test_past_the_exact_limit_a_monte_carlo_p_is_seeded_and_near_the_exact_one() -> None:
    rng = random.Random(3)
    diffs = [rng.choice([-1, 1]) * rng.choice([0.1, 0.2, 0.3, 0.5]) for _ in range(80)]
    diffs += [-0.3] * 8  # a drop
    test = sign_flip_test(diffs)
    assert test.method == "monte_carlo"
    assert sign_flip_test(diffs) == test
    assert sign_flip_test(diffs, seed="another") != test
    exact = _grid_exact_drop_p(diffs, 0.1)
    # 4,999 draws: the standard error at p ≈ 0.05 is 0.003.
    assert test.p_drop == pytest.approx(exact, abs=0.012)


def test_from_500_changed_cases_the_normal_approximation_is_close_and_not_liberal() -> None:
    rng = random.Random(5)
    sizes = [rng.randint(1, 60) / 100 for _ in range(NORMAL_MIN_CHANGED // 2)]
    diffs = [*sizes, *(-v for v in sizes), *[-0.4] * 40]  # noise that cancels, and a drop
    test = sign_flip_test(diffs)
    assert test.method == "normal"
    exact = _grid_exact_drop_p(diffs, 0.01)
    assert 0.005 < exact < 0.2
    assert exact <= test.p_drop <= exact * 1.15


def _null_rejections(make: list[float], trials: int, rng: random.Random, **kw: int) -> float:
    hits = 0
    for t in range(trials):
        diffs = [rng.choice([-1, 1]) * abs(d) for d in make]
        hits += sign_flip_test(diffs, seed=f"level-{t}", **kw).p_value < 0.05
    return hits / trials


@pytest.mark.parametrize(
    ("regime", "sizes"),
    [
        ("exact", [1.0] * 14 + [0.0] * 16),  # hit@k flips at n = 30
        ("exact", [0.5, 0.3869, 0.6309, 1.0, 0.1131, 0.25] * 3),  # nDCG at n = 18
        ("monte_carlo", [i / 37 for i in range(1, 38)]),  # 37 distinct sizes
        ("normal", [((i * 7919) % 997 + 1) / 1000 for i in range(NORMAL_MIN_CHANGED)]),
    ],
)
def test_each_regime_holds_its_five_percent_level_under_a_true_null(
    regime: str, sizes: list[float]
) -> None:
    rng = random.Random(regime)
    assert sign_flip_test(sizes).method == regime
    rate = _null_rejections(sizes, 400, rng, resamples=199)
    # 400 trials at a 5 % level: the standard error is 1.1 points.
    assert rate <= 0.05 + 0.025


def _brute_force_step_down(
    columns: list[list[float]], atoms: list[int], cells: list[FamilyCell]
) -> list[float]:
    """Westfall-Young step-down max-T over every sign pattern of the cases, written
    case by case (no grouping of equal differences)."""
    n = len(atoms)
    sums = []
    scales = []
    for cell in cells:
        ds = [columns[cell.metric][i] for i in range(n) if atoms[i] in cell.atoms]
        sums.append(sum(ds))
        scales.append(math.sqrt(sum(d * d for d in ds)))
    tested = [j for j in range(len(cells)) if scales[j] > 0]
    t_obs = {j: -sums[j] / scales[j] for j in tested}
    order = sorted(tested, key=lambda j: -t_obs[j])
    counts = [0] * len(order)
    for signs in itertools.product((1, -1), repeat=n):
        t = {}
        for j in tested:
            cell = cells[j]
            s = sum(signs[i] * columns[cell.metric][i] for i in range(n) if atoms[i] in cell.atoms)
            t[j] = -s / scales[j]
        for rank, j in enumerate(order):
            if max(t[x] for x in order[rank:]) >= t_obs[j] - 1e-9:
                counts[rank] += 1
    out = [1.0] * len(cells)
    running = 0.0
    for rank, j in enumerate(order):
        running = max(running, counts[rank] / 2**n)
        out[j] = running
    return out


def test_the_joint_test_is_the_step_down_max_t_over_every_sign_pattern() -> None:
    # 12 cases in two languages (atoms 0 and 1), hit and nDCG columns.
    hit = [-1, -1, -1, 0, 1, 0, -1, 0, 0, -1, 1, 0]
    ndcg = [-0.5, -1, -0.37, 0.2, 0.63, 0, -1, -0.13, 0, -0.5, 1, 0.1]
    atoms = [0] * 6 + [1] * 6
    columns = [[float(x) for x in hit], ndcg]
    cells = [FamilyCell(metric=m, atoms=frozenset(a)) for m in (0, 1) for a in ({0, 1}, {0}, {1})]
    got = family_drop_p(columns, atoms, cells)
    assert got.method == "exact"
    assert list(got.p_drop) == pytest.approx(_brute_force_step_down(columns, atoms, cells))


def test_a_cell_alone_is_its_own_one_sided_sign_flip_test() -> None:
    diffs = [-1.0] * 11 + [1.0] + [0.0] * 8
    alone = family_drop_p([diffs], [0] * 20, [FamilyCell(metric=0, atoms=frozenset({0}))])
    assert alone.p_drop[0] == pytest.approx(mcnemar_drop_p(lost=11, gained=1))


def test_a_cell_repeated_costs_the_family_nothing() -> None:
    # Golden holds every case: the overall row by another name, perfectly correlated.
    diffs = [-1.0] * 11 + [1.0] + [0.0] * 8
    cell = FamilyCell(metric=0, atoms=frozenset({0}))
    twice = family_drop_p([diffs, diffs], [0] * 20, [cell, FamilyCell(metric=1, atoms=cell.atoms)])
    assert twice.p_drop == pytest.approx((mcnemar_drop_p(lost=11, gained=1),) * 2)


def test_independent_cells_pay_for_their_number() -> None:
    rng = random.Random(2)
    atoms = [a for a in range(4) for _ in range(30)]
    diffs = [rng.choice([-1.0, 0.0, 0.0, 1.0]) for _ in atoms]
    diffs[:12] = [-1.0] * 12
    cells = [FamilyCell(metric=0, atoms=frozenset({a})) for a in range(4)]
    joint = family_drop_p([diffs], atoms, cells)
    alone = family_drop_p([diffs], atoms, cells[:1])
    assert joint.method == "monte_carlo"
    assert alone.p_drop[0] < joint.p_drop[0] <= min(1.0, 4 * alone.p_drop[0]) + 0.01
    assert family_drop_p([diffs], atoms, cells) == joint  # seeded


def test_a_family_without_any_change_tests_nothing() -> None:
    got = family_drop_p([[0.0] * 5], [0] * 5, [FamilyCell(metric=0, atoms=frozenset({0}))])
    assert (got.p_drop, got.method) == ((1.0,), "none")


def _family_null_rate(
    trials: int, n: int, rng: random.Random, *, graded: bool
) -> tuple[float, set[Method]]:
    methods = set()
    rejected = 0
    atoms = [i % 3 for i in range(n)]
    cells = [
        FamilyCell(metric=m, atoms=frozenset(a)) for m in (0, 1) for a in ({0, 1, 2}, {0}, {1}, {2})
    ]
    for t in range(trials):
        hit = [rng.choice([-1.0, 0.0, 0.0, 0.0, 1.0]) for _ in range(n)]
        if graded:
            other = [
                h * rng.randint(1, 997) / 1000 + rng.choice([-1, 1]) * rng.randint(1, 97) / 1000
                for h in hit
            ]
        else:
            other = [h * rng.choice([1.0, 0.5, 0.63]) for h in hit]
        got = family_drop_p([hit, other], atoms, cells, seed=f"t{t}", resamples=199)
        methods.add(got.method)
        rejected += min(got.p_drop) < 0.05
    return rejected / trials, methods


@pytest.mark.parametrize(
    ("n", "graded", "method"),
    [(12, False, "exact"), (60, False, "monte_carlo"), (4500, True, "normal")],
)
def test_the_report_level_false_alarm_rate_is_at_most_five_percent(
    n: int, graded: bool, method: str
) -> None:
    rate, methods = _family_null_rate(
        150 if method == "normal" else 400, n, random.Random(n), graded=graded
    )
    assert method in methods
    assert rate <= 0.05 + (0.036 if method == "normal" else 0.025)


def test_the_fewest_lost_hits_caught_follow_the_critical_value() -> None:
    assert fewest_lost_caught(critical=0.0) == 6  # 2^-6 = 0.016 < 0.03 ≤ 2^-5 for one cell
    assert fewest_lost_caught(critical=0.0, alpha=0.05) == 5  # 2^-5 = 0.031 < 0.05
    assert fewest_lost_caught(critical=2.4) == 6  # √6 = 2.45 > 2.4
    assert fewest_lost_caught(critical=3.0) == 10  # √9 = 3 does not exceed it


def test_the_smallest_drop_caught_eighty_percent_of_the_time_is_a_binomial_quantile() -> None:
    share = smallest_drop_caught(n=20, lost=6, tolerance=0.02)
    assert share is not None
    # At that share, P[Binomial(20, share) ≥ 6] is 0.8.
    assert scipy_stats.binom.sf(5, 20, share) == pytest.approx(0.8, abs=1e-6)
    assert smallest_drop_caught(n=5, lost=6) is None
    # The tolerance binds when it asks for more lost cases than the test.
    tight = smallest_drop_caught(n=100, lost=5, tolerance=0.1)
    assert tight is not None
    assert scipy_stats.binom.sf(10, 100, tight) == pytest.approx(0.8, abs=1e-6)


def test_exact_enumeration_stops_at_its_limit() -> None:
    # 16 distinct sizes once each: 2^16 patterns, still exact; one more is drawn.
    sizes = [i / 17 for i in range(1, 17)]
    assert math.prod(2 for _ in sizes) == EXACT_LIMIT
    assert sign_flip_test(sizes).method == "exact"
    assert sign_flip_test([*sizes, 1.0]).method == "monte_carlo"
