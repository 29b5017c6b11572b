"""How much two rankings of one query agree, without labels (pure).

Three per-query figures compare the base's top-k card ids with the current ones:

- **top-1 changed**: the first card differs (an empty list has no first card:
  two empty lists agree, one empty and one not differ).
- **Jaccard@k**: ``|A ∩ B| / |A ∪ B|`` of the two top-k *sets* (order ignored);
  1 for two empty lists.
- **RBO_ext**: rank-biased overlap, the extrapolated point estimate of Webber,
  Moffat & Zobel, "A similarity measure for indefinite rankings", ACM TOIS 28(4),
  2010, Eq. 32 (uneven lengths; Eq. 30 when both lists are as long). ``p`` is the
  persistence: the weight of depth ``d`` falls as ``p**(d-1)``, so at the
  default ``p = 0.9`` the first ten ranks carry about 86 % of the weight. Two
  identical lists score 1, two disjoint lists 0, a list and a longer list that
  extends it 1 (the extrapolation assumes the agreement seen continues).

With ``S`` the shorter list (length ``s``), ``L`` the longer (length ``l``) and
``X_d`` the overlap of the two prefixes at depth ``d`` (for ``d > s`` all of
``S`` against the first ``d`` of ``L``)::

    RBO_ext = (1-p)/p * [ Σ_{d=1..l} X_d/d · p^d  +  Σ_{d=s+1..l} X_s (d-s)/(s d) · p^d ]
              + [ (X_l - X_s)/l + X_s/s ] · p^l

A ranking holds each card once: a repeated id counts at its first rank only.
An empty list against a non-empty one scores 0; two empty lists 1.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["DEFAULT_PERSISTENCE", "jaccard_at_k", "rbo_ext", "top1_changed"]

# Webber et al.'s own worked examples use p = 0.9; so does OpenSearch's RBO.
DEFAULT_PERSISTENCE = 0.9


def _distinct(ranking: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ranking))


def rbo_ext(
    first: Sequence[str], second: Sequence[str], *, p: float = DEFAULT_PERSISTENCE
) -> float:
    """RBO_ext (Webber et al. 2010, Eq. 32) of two rankings at persistence ``p``."""
    if not 0 < p < 1:
        raise ValueError(f"p must be strictly between 0 and 1, got {p}")
    a, b = _distinct(first), _distinct(second)
    if not a and not b:
        return 1.0
    if not a or not b:
        return 0.0
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, l = len(short), len(long_)  # noqa: E741 - the paper's names
    seen_short: set[str] = set()
    seen_long: set[str] = set()
    overlap = 0
    total = 0.0
    weight = 1.0  # p**d, kept as a running product
    overlap_at_s = 0
    for d in range(1, l + 1):
        weight *= p
        item = long_[d - 1]
        if item in seen_short:
            overlap += 1
        seen_long.add(item)
        if d <= s:
            other = short[d - 1]
            if other in seen_long:
                overlap += 1
            seen_short.add(other)
            if d == s:
                overlap_at_s = overlap
        total += overlap / d * weight
        if d > s:
            total += overlap_at_s * (d - s) / (s * d) * weight
    extrapolated = ((overlap - overlap_at_s) / l + overlap_at_s / s) * weight
    return (1 - p) / p * total + extrapolated


def jaccard_at_k(first: Sequence[str], second: Sequence[str], *, k: int) -> float:
    """``|A ∩ B| / |A ∪ B|`` of the first ``k`` cards of each list (1 when both are empty)."""
    a, b = set(_distinct(first)[:k]), set(_distinct(second)[:k])
    union = a | b
    return 1.0 if not union else len(a & b) / len(union)


def top1_changed(first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether the first card differs (an empty list's first card is none)."""
    return (first[0] if first else None) != (second[0] if second else None)
