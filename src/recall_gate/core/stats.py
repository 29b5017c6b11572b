"""Noise awareness for paired comparisons (pure, standard library only).

A baseline and a current run score the *same* cases, so every test here is
paired: it looks at per-case differences (current − baseline), not at two
independent means. Every function takes plain sequences of numbers, so the
comparison can stream its cases and hand over columns.

**One cell** (a metric in a group):

* hit@k is 0/1 per case, so the only informative pairs are the flips. The
  exact McNemar test is a binomial test on the discordant pairs: under "no
  change", a flip is equally likely to go either way (:func:`mcnemar_exact_p`,
  two-sided, the figure the report shows; :func:`mcnemar_drop_p`, one-sided).
* recall@k, nDCG@k, MRR@k and precision@k: a paired **sign-flip permutation
  test** (:func:`sign_flip_test`). Under "no change" each case's difference
  is as likely to be +d as −d, so the null distribution of the sum of the
  differences is that of Σ ±dᵢ. It holds its level at any n (the percentile
  bootstrap it replaces called 6–9 % of true nulls real at n = 10–50). Three
  ways to compute it, chosen by what is cheap and accurate:

  - *exact* when the sign patterns are few: the differences are grouped by
    their size |d| (count c each) and the distribution of Σ ±d is the
    convolution of one binomial per size, enumerated when Π (c + 1) ≤
    :data:`EXACT_LIMIT`. That covers every 0/1 metric at any n (then it *is*
    McNemar) and the few distinct values nDCG@k and recall@k take on small
    sets;
  - the *normal approximation* z = Σd / √Σd² (continuity-corrected by the
    smallest |d|) when at least :data:`NORMAL_MIN_CHANGED` cases changed: the
    sign-flip sum is symmetric, so the approximation's first error term
    (skewness) vanishes and its kurtosis is below the normal's, which makes
    the tail conservative;
  - *Monte-Carlo* otherwise: :data:`RESAMPLES` draws from a generator seeded
    with a fixed string (stdlib ``random`` seeds a string through SHA-512, so
    independent of ``PYTHONHASHSEED``): the same inputs always give the same
    p. Its p-value (1 + hits) / (draws + 1) is valid at any number of draws.

**The whole report** (:func:`family_drop_p`): a report gates many cells
(metrics × overall, case types, languages), and a 5 % test per cell would fail
a no-op pull request far more often than 5 %. The cells are tested together by
a one-sided step-down max-T permutation test (Westfall & Young): one draw
flips the sign of a case's differences in *every* metric and *every* group it
belongs to, so the correlations between metrics and between a group and the
overall are part of the null distribution, and a cell's adjusted p is the
share of draws whose largest standardised drop, over the cells not yet
rejected, reaches its own. The family-wise error rate is at most
:data:`FAMILY_LEVEL` (3 %, a margin under the 5 % promised): a pull request
that changes nothing on average fails at most that often, at any n, whatever
the number of cells. The draws are enumerated when cheap, drawn (seeded)
otherwise (fewer when each draw is long: the p stays valid), and drawn from
the normal approximation of the joint sign-flip sums when every tested cell
has at least :data:`NORMAL_MIN_CHANGED` changed cases and drawing case by case
would be slow (many distinct differences). Where each regime's level was
measured: ``tests/core/test_stats_sign_flip.py``.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

__all__ = [
    "EXACT_LIMIT",
    "FAMILY_LEVEL",
    "MIN_GROUP_N",
    "MIN_MARGIN",
    "NORMAL_MIN_CHANGED",
    "PERMUTATION_SEED",
    "PROMISED_FALSE_FAIL",
    "RESAMPLES",
    "SIGNIFICANCE",
    "FamilyCell",
    "FamilyTest",
    "Method",
    "SignFlipTest",
    "family_drop_p",
    "fewest_lost_caught",
    "mcnemar_drop_p",
    "mcnemar_exact_p",
    "min_detectable_lost",
    "sign_flip_test",
    "smallest_drop_caught",
]

# A change a row's own test gives less than this p-value is called likely real.
SIGNIFICANCE = 0.05
# The share of no-op pull requests the gate may fail at most: the promise the
# report makes and `python -m benchmarks gate-calibration` measures.
PROMISED_FALSE_FAIL = 0.05
# The level of the gate's report-level test: two points under the 5 % a no-op
# pull request is promised. The test is exact, so its false-fail rate is close to
# its level; the margin keeps what a team counts over a few hundred pull requests
# (or `python -m benchmarks gate-calibration` measures) under 5 %.
FAMILY_LEVEL = 0.03
# The default of the `min-group-n` setting: a group with fewer compared cases
# is neither tested here nor gated (too few pairs to tell a drop from noise).
MIN_GROUP_N = 10
# A suggested floor sits at least this far below the observed mean (the default of
# `floors suggest --min-margin`; here, with the other defaults a parser shows).
MIN_MARGIN = 0.02
# Sign patterns enumerated exactly at most (one cell: Π (c + 1) over the sizes).
EXACT_LIMIT = 1 << 16
# The joint test enumerates fewer: each pattern sums every cell.
FAMILY_EXACT_LIMIT = 1 << 12
# Changed cases from which a cell's sign-flip sum is read off the normal curve.
NORMAL_MIN_CHANGED = 500
# Monte-Carlo draws, and their seed.
RESAMPLES = 4999
PERMUTATION_SEED = "recall-gate/sign-flip/1"
# Distinct difference vectors above which the joint test draws from the normal
# approximation (when every cell has NORMAL_MIN_CHANGED changed cases).
_FAMILY_DRAW_LIMIT = 2000
# Drawing case by case: at most about this many vector additions in all, and at
# least this many draws (the Monte-Carlo error of p near 0.05 is then ≤ 0.007).
_FAMILY_WORK = 1_000_000
_FAMILY_MIN_DRAWS = 999
# Differences are compared at this many digits: 0.1 + 0.2 is 0.3 here.
_DIGITS = 9
_EPS = 1e-9

Method = Literal["exact", "monte_carlo", "normal", "none"]
_NORMAL = NormalDist()


def mcnemar_exact_p(*, lost: int, gained: int) -> float:
    """Two-sided exact McNemar p-value for ``lost`` (1 → 0) and ``gained``
    (0 → 1) paired flips: ``min(1, 2 · P[X ≤ min(lost, gained)])`` with
    ``X ~ Binomial(lost + gained, 1/2)``. No flip at all gives 1.0.

    Integer arithmetic up to the final division, so it is exact for any n.
    """
    if lost < 0 or gained < 0:
        raise ValueError(f"flip counts must be non-negative, got {lost} and {gained}")
    m = lost + gained
    if m == 0:
        return 1.0
    tail = sum(math.comb(m, i) for i in range(min(lost, gained) + 1))
    return min(1.0, 2 * tail / (1 << m))


def mcnemar_drop_p(*, lost: int, gained: int) -> float:
    """One-sided exact McNemar p-value for a drop: ``P[X ≥ lost]`` with
    ``X ~ Binomial(lost + gained, 1/2)`` (1.0 without flips)."""
    if lost < 0 or gained < 0:
        raise ValueError(f"flip counts must be non-negative, got {lost} and {gained}")
    m = lost + gained
    if m == 0:
        return 1.0
    return sum(math.comb(m, i) for i in range(lost, m + 1)) / (1 << m)


def min_detectable_lost(*, gained: int = 0, alpha: float = SIGNIFICANCE) -> int:
    """The fewest lost hits (1 → 0) that the exact two-sided McNemar test calls real
    (p < ``alpha``) alongside ``gained`` flips the other way: how large a
    hit@k drop a case set can detect. With nothing gained it is 6 at
    alpha = 0.05 (p = 2 / 2**6 = 0.031), whatever the n: a drop of 6 / n."""
    if gained < 0 or not 0.0 < alpha < 1.0:
        raise ValueError(f"need gained ≥ 0 and alpha in (0, 1), got {gained} and {alpha}")
    lost = gained + 1
    while mcnemar_exact_p(lost=lost, gained=gained) >= alpha:
        lost += 1
    return lost


@dataclass(frozen=True, kw_only=True)
class SignFlipTest:
    """One cell's paired sign-flip test: ``p_value`` two-sided (what the report
    shows), ``p_drop`` one-sided for a drop (what the gate uses), how it was
    computed, and how many cases went ``down`` and ``up``."""

    p_value: float
    p_drop: float
    method: Method
    down: int
    up: int


def _sizes(differences: Sequence[float]) -> dict[float, int]:
    """Count of each non-zero |d|, at the compared precision."""
    sizes: dict[float, int] = {}
    for d in differences:
        v = round(abs(d), _DIGITS)
        if v:
            sizes[v] = sizes.get(v, 0) + 1
    return sizes


def _exact_tails(sizes: Mapping[float, int], observed: float) -> tuple[float, float]:
    """P[S ≤ observed], P[S ≥ observed] for S = Σ ±d over every sign pattern."""
    dist: dict[float, int] = {0.0: 1}
    for v, c in sizes.items():
        step: dict[float, int] = {}
        for s, w in dist.items():
            for b in range(c + 1):
                key = round(s + v * (2 * b - c), _DIGITS)
                step[key] = step.get(key, 0) + w * math.comb(c, b)
        dist = step
    total = 1 << sum(sizes.values())
    low = sum(w for s, w in dist.items() if s <= observed + _EPS)
    high = sum(w for s, w in dist.items() if s >= observed - _EPS)
    return low / total, high / total


def _patterns(sizes: Mapping[float, int]) -> int:
    return math.prod(c + 1 for c in sizes.values())


def sign_flip_test(
    differences: Sequence[float],
    *,
    seed: str = PERMUTATION_SEED,
    resamples: int = RESAMPLES,
) -> SignFlipTest:
    """The paired sign-flip permutation test of ``differences`` (current −
    baseline per case; a case without the metric is a 0). Exact, normal or
    Monte-Carlo as the module docstring says; same inputs, same p."""
    observed = round(math.fsum(differences), _DIGITS)
    down = sum(1 for d in differences if round(d, _DIGITS) < 0)
    up = sum(1 for d in differences if round(d, _DIGITS) > 0)
    sizes = _sizes(differences)
    if not sizes:
        return SignFlipTest(p_value=1.0, p_drop=1.0, method="none", down=0, up=0)
    method: Method
    if _patterns(sizes) <= EXACT_LIMIT:
        low, high = _exact_tails(sizes, observed)
        method = "exact"
    elif down + up >= NORMAL_MIN_CHANGED:
        scale = math.sqrt(math.fsum(v * v * c for v, c in sizes.items()))
        step = min(sizes)  # one flip moves the sum by 2·|d|: half of the smallest step
        low = _NORMAL.cdf(min(0.0, observed + step) / scale) if observed < 0 else 1.0
        high = 1.0 - _NORMAL.cdf(max(0.0, observed - step) / scale) if observed > 0 else 1.0
        method = "normal"
    else:
        # Reproducible resampling, not cryptography.
        bits = random.Random(seed).getrandbits  # noqa: S311
        items = sorted(sizes.items())
        low_hits = high_hits = 0
        for _ in range(resamples):
            s = round(sum(v * (2 * bits(c).bit_count() - c) for v, c in items), _DIGITS)
            low_hits += s <= observed + _EPS
            high_hits += s >= observed - _EPS
        low, high = (1 + low_hits) / (resamples + 1), (1 + high_hits) / (resamples + 1)
        method = "monte_carlo"
    return SignFlipTest(
        p_value=min(1.0, 2 * min(low, high)), p_drop=low, method=method, down=down, up=up
    )


@dataclass(frozen=True, kw_only=True)
class FamilyCell:
    """One gated cell of the joint test: a column of differences (``metric``,
    an index into the columns) summed over the cases of some ``atoms`` (the
    atoms partition the cases: one per case type × language, say; a group is
    the atoms it holds)."""

    metric: int
    atoms: frozenset[int]


@dataclass(frozen=True, kw_only=True)
class FamilyTest:
    """The joint test of a family of cells: ``p_drop`` (per cell, in the order
    given: the step-down max-T adjusted one-sided p of a drop; 1.0 for a cell
    without a change), how the null draws were made, and ``critical``: the
    upper :data:`FAMILY_LEVEL` point of the largest standardised drop
    (−Σd / √Σd²) under the draws, which the largest cell must exceed to be
    called likely real."""

    p_drop: tuple[float, ...]
    method: Method
    critical: float


def _cholesky(cov: Sequence[Sequence[float]]) -> list[list[float]]:
    """Lower factor of a positive semi-definite matrix (a zero pivot: a column
    that repeats another, which then adds nothing)."""
    size = len(cov)
    low = [[0.0] * size for _ in range(size)]
    for i in range(size):
        for j in range(i + 1):
            s = cov[i][j] - math.fsum(low[i][t] * low[j][t] for t in range(j))
            if i == j:
                low[i][i] = math.sqrt(s) if s > _EPS * max(1.0, cov[i][i]) else 0.0
            elif low[j][j] > 0.0:
                low[i][j] = s / low[j][j]
    return low


_Item = tuple[int, tuple[float, ...], int]  # (atom, a distinct difference vector, its count)
_Draw = tuple[Mapping[int, Sequence[float]], float]  # (per atom: the summed columns, weight)


def _distinct_vectors(columns: Sequence[Sequence[float]], atoms: Sequence[int]) -> list[_Item]:
    """Per atom, each distinct non-zero difference vector and how many cases have it:
    cases with the same vector in the same atom are interchangeable under a flip."""
    counts: dict[tuple[int, tuple[float, ...]], int] = {}
    for i, a in enumerate(atoms):
        u = tuple(round(col[i], _DIGITS) for col in columns)
        if any(u):
            counts[a, u] = counts.get((a, u), 0) + 1
    return [(a, u, c) for (a, u), c in sorted(counts.items())]


def _add(acc: dict[int, list[float]], atom: int, u: Sequence[float], k: float) -> None:
    row = acc.get(atom)
    if row is None:
        row = acc[atom] = [0.0] * len(u)
    for m, value in enumerate(u):
        if value:
            row[m] += k * value


def _enumerated(items: Sequence[_Item]) -> Iterator[_Draw]:
    """Every joint sign pattern, as counts of positive signs per distinct vector."""
    for flips in itertools.product(*(range(c + 1) for _, _, c in items)):
        acc: dict[int, list[float]] = {}
        weight = 1.0
        for (a, u, c), b in zip(items, flips, strict=True):
            weight *= math.comb(c, b) / (1 << c)
            _add(acc, a, u, 2 * b - c)
        yield acc, weight


def _drawn(items: Sequence[_Item], rng: random.Random, resamples: int) -> Iterator[_Draw]:
    """Seeded random sign patterns: a Binomial(c, 1/2) count of positive signs per vector."""
    bits = rng.getrandbits
    for _ in range(resamples):
        acc: dict[int, list[float]] = {}
        for a, u, c in items:
            k = 2 * bits(c).bit_count() - c
            if k:
                _add(acc, a, u, k)
        yield acc, 1.0


def _normal_draws(items: Sequence[_Item], rng: random.Random, resamples: int) -> Iterator[_Draw]:
    """Draws of the joint normal approximation: per atom, Σ ±u ≈ N(0, Σ u uᵀ)."""
    covariances: dict[int, list[list[float]]] = {}
    for a, u, c in items:
        cov = covariances.setdefault(a, [[0.0] * len(u) for _ in u])
        for x, ux in enumerate(u):
            for y, uy in enumerate(u):
                cov[x][y] += c * ux * uy
    factors = {a: _cholesky(cov) for a, cov in covariances.items()}
    for _ in range(resamples):
        acc: dict[int, list[float]] = {}
        for a, low in factors.items():
            g = [rng.gauss() for _ in low]
            acc[a] = [math.fsum(row[t] * g[t] for t in range(m + 1)) for m, row in enumerate(low)]
        yield acc, 1.0


def family_drop_p(
    columns: Sequence[Sequence[float]],
    atoms: Sequence[int],
    cells: Sequence[FamilyCell],
    *,
    seed: str = PERMUTATION_SEED,
    resamples: int = RESAMPLES,
    alpha: float = FAMILY_LEVEL,
) -> FamilyTest:
    """Step-down max-T sign-flip test of a drop in every cell at once.

    ``columns`` hold one list per metric of per-case differences (current −
    baseline, 0 where a case lacks the metric), all in the same case order;
    ``atoms[i]`` is case i's atom. A draw flips the sign of case i in every
    column at once. Each cell's statistic is its standardised drop
    T = −Σd / √Σd² (the denominator does not change under a flip); the adjusted
    p of the cell with the j-th largest T is the share of draws in which the
    largest T among the cells ranked j and below reaches it, made monotone
    (a cell is never more significant than one with a larger T).
    """
    if any(len(c) != len(atoms) for c in columns):
        raise ValueError("every column needs one difference per case")
    items = _distinct_vectors(columns, atoms)
    scales: list[float] = []
    observed: dict[int, float] = {}
    changed: list[int] = []
    for j, cell in enumerate(cells):
        mine = [(u[cell.metric], c) for a, u, c in items if a in cell.atoms and u[cell.metric]]
        scale = math.sqrt(math.fsum(d * d * c for d, c in mine))
        scales.append(scale)
        changed.append(sum(c for _, c in mine))
        if scale > 0.0:
            observed[j] = -math.fsum(d * c for d, c in mine) / scale
    order = sorted(observed, key=lambda j: (-observed[j], j))
    if not order:
        return FamilyTest(p_drop=tuple(1.0 for _ in cells), method="none", critical=math.inf)
    method: Method
    rng = random.Random(seed)  # noqa: S311  (reproducible draws, not cryptography)
    draws: Iterator[_Draw]
    if math.prod(c + 1 for _, _, c in items) <= FAMILY_EXACT_LIMIT:
        method, draws = "exact", _enumerated(items)
    elif len(items) > _FAMILY_DRAW_LIMIT and all(changed[j] >= NORMAL_MIN_CHANGED for j in order):
        method, draws = "normal", _normal_draws(items, rng, resamples)
    else:
        # Fewer draws when each is long: the p-value stays valid at any number of draws.
        resamples = max(_FAMILY_MIN_DRAWS, min(resamples, _FAMILY_WORK // max(1, len(items))))
        method, draws = "monte_carlo", _drawn(items, rng, resamples)
    counts = [0.0] * len(order)
    maxima: list[tuple[float, float]] = []  # (the largest T of a draw, its weight)
    for acc, weight in draws:
        running = -math.inf
        for rank in range(len(order) - 1, -1, -1):
            j = order[rank]
            metric = cells[j].metric
            total = math.fsum(acc[a][metric] for a in cells[j].atoms if a in acc)
            running = max(running, -total / scales[j])
            if running >= observed[j] - _EPS:
                counts[rank] += weight
        maxima.append((running, weight))
    if method != "exact":  # the observed pattern counts as one draw: valid at any number
        counts = [(1 + hits) / (resamples + 1) for hits in counts]
    adjusted = [1.0] * len(cells)
    running_p = 0.0
    for rank, j in enumerate(order):
        running_p = max(running_p, min(1.0, counts[rank]))
        adjusted[j] = running_p
    return FamilyTest(
        p_drop=tuple(adjusted), method=method, critical=_quantile(maxima, 1.0 - alpha)
    )


def _quantile(weighted: Sequence[tuple[float, float]], level: float) -> float:
    """The draws' upper (1 − ``level``) point: the largest value reached by more
    than a (1 − ``level``) share of the weight (reaching it: likely real)."""
    total = math.fsum(w for _, w in weighted)
    above = 0.0
    for value, weight in sorted(weighted, reverse=True):
        above += weight
        if above / total > 1.0 - level:
            return value
    return -math.inf


def fewest_lost_caught(*, critical: float, alpha: float = FAMILY_LEVEL) -> int:
    """The fewest lost hits, with nothing gained, that a cell calls likely real:
    L lost alone standardise to √L, which must exceed the family's ``critical``
    value, and the cell's own exact test needs 2^−L < ``alpha``."""
    lost = 1
    while lost * lost < 10**6 and (math.sqrt(lost) <= critical + _EPS or 0.5**lost >= alpha):
        lost += 1
    return lost


def smallest_drop_caught(
    *, n: int, lost: int, tolerance: float = 0.0, power: float = 0.8
) -> float | None:
    """The smallest hit@k drop (a share of the group's ``n`` cases) caught with
    probability ``power`` when each case loses its hit independently with that
    probability and none is gained: the binomial count must reach ``lost`` (the
    test's threshold) and exceed the ``tolerance``. ``None``: no drop of this
    group can be caught (``lost`` > n)."""
    need = max(lost, math.floor(round(tolerance * n, _DIGITS)) + 1)
    if need > n:
        return None

    def caught(share: float) -> float:
        """P[Binomial(n, share) ≥ need], as 1 − its lower tail (need is small)."""
        log_p, log_q = math.log(share), math.log1p(-share)
        below = math.fsum(
            math.exp(
                math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                + i * log_p + (n - i) * log_q
            )
            for i in range(need)
        )  # fmt: skip
        return 1.0 - below

    low, high = 0.0, 1.0
    for _ in range(40):
        mid = (low + high) / 2
        if caught(mid) >= power:
            high = mid
        else:
            low = mid
    return high
