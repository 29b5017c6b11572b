"""Noise awareness for paired comparisons (pure, standard library only).

A baseline and a current run score the *same* cases, so every test here is
paired: it looks at per-case differences, not at two independent means.

* hit@k is 0/1 per case, so the only informative pairs are the flips. The
  exact McNemar test is a two-sided binomial test on the discordant pairs:
  under "no change", a flip is equally likely to go either way.
* recall@k and nDCG@k are bounded but not binary: a paired bootstrap
  resamples the per-case differences and reads a percentile interval of their
  mean. The generator is seeded with a fixed string (stdlib ``random`` seeds
  a string through SHA-512, so the seed is independent of ``PYTHONHASHSEED``),
  hence the same inputs always give the same interval.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "BOOTSTRAP_SEED",
    "CONFIDENCE",
    "MIN_GROUP_N",
    "MIN_MARGIN",
    "SIGNIFICANCE",
    "mcnemar_exact_p",
    "min_detectable_lost",
    "paired_bootstrap_ci",
]

BOOTSTRAP_RESAMPLES = 1000
BOOTSTRAP_SEED = "recall-gate/bootstrap/1"
CONFIDENCE = 0.95
# A change the tests give less than this p-value (McNemar), or whose interval
# excludes zero (bootstrap, at CONFIDENCE), is called likely real.
SIGNIFICANCE = 0.05
# The default of the `min-group-n` setting: a group with fewer compared cases
# is neither tested here nor gated (too few pairs to tell a drop from noise).
MIN_GROUP_N = 10
# A suggested floor sits at least this far below the observed mean (the default of
# `floors suggest --min-margin`; here, with the other defaults a parser shows).
MIN_MARGIN = 0.02


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


def min_detectable_lost(*, gained: int = 0, alpha: float = SIGNIFICANCE) -> int:
    """The fewest lost hits (1 → 0) that the exact McNemar test calls real
    (p < ``alpha``) alongside ``gained`` flips the other way: how large a
    hit@k drop a case set can detect. With nothing gained it is 6 at
    alpha = 0.05 (p = 2 / 2**6 = 0.031), whatever the n: a drop of 6 / n."""
    if gained < 0 or not 0.0 < alpha < 1.0:
        raise ValueError(f"need gained ≥ 0 and alpha in (0, 1), got {gained} and {alpha}")
    lost = gained + 1
    while mcnemar_exact_p(lost=lost, gained=gained) >= alpha:
        lost += 1
    return lost


def paired_bootstrap_ci(
    differences: Sequence[Sequence[float]],
    *,
    seed: str,
    resamples: int = BOOTSTRAP_RESAMPLES,
    confidence: float = CONFIDENCE,
) -> list[tuple[float, float]]:
    """Percentile bootstrap intervals of the means of paired differences.

    ``differences`` holds one column per metric, all over the same ``n`` cases
    in the same order; each resample draws ``n`` case indices with replacement
    from ``random.Random(seed)`` and applies them to every column, so the
    metrics stay paired with each other too. Same seed, same intervals. A
    column whose differences are all equal gets that value as its interval.
    """
    n = len(differences[0]) if differences else 0
    if n == 0 or any(len(column) != n for column in differences):
        raise ValueError("expected one or more columns of the same, non-zero length")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    varying = [i for i, column in enumerate(differences) if any(d != column[0] for d in column)]
    means: list[list[float]] = [[] for _ in differences]
    if varying:
        # Reproducible resampling, not cryptography.
        draw = random.Random(seed).random  # noqa: S311
        for _ in range(resamples):
            picks = [int(draw() * n) for _ in range(n)]
            for i in varying:
                means[i].append(sum(map(differences[i].__getitem__, picks)) / n)
    alpha = (1.0 - confidence) / 2.0
    # Rounded first: 0.025 · 1000 must be 25, not 25.000000000000004.
    low_at = math.floor(round(alpha * resamples, 6))
    high_at = max(0, math.ceil(round((1.0 - alpha) * resamples, 6)) - 1)
    out = []
    for i, column in enumerate(differences):
        if i not in varying:
            out.append((column[0], column[0]))
            continue
        ordered = sorted(means[i])
        out.append((ordered[low_at], ordered[high_at]))
    return out
