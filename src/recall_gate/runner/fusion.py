"""Weighted reciprocal rank fusion (pure).

Hybrid retrieval merges a dense and a BM25 ranking. Their scores live on
unrelated scales (cosine similarity vs. an unbounded BM25 sum), so the
rankings are fused by rank alone (Cormack et al., 2009)::

    fused(d) = Σ_r  w_r / (rrf_k + rank_r(d))      rank_r is 1-based

summed over the rankings ``r`` that contain ``d``; an id missing from a
ranking gets nothing from it. A larger ``rrf_k`` flattens the curve (the top
ranks matter less); the weights tilt the blend toward one retriever. A
ranking with weight 0 is ignored entirely, so its ids do not enter the list.

Ties in the fused score are broken by the best (smallest) rank the id reached
in any ranking, then by id, so the output is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["reciprocal_rank_fusion"]


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[str]],
    *,
    weights: Sequence[float],
    rrf_k: int,
) -> list[tuple[str, float]]:
    """Ids with their fused scores, best first (see the module docstring)."""
    if len(rankings) != len(weights):
        raise ValueError(f"{len(rankings)} rankings but {len(weights)} weights")
    if rrf_k <= 0:
        raise ValueError(f"rrf_k must be positive, got {rrf_k}")
    score: dict[str, float] = {}
    best_rank: dict[str, int] = {}
    for ranking, weight in zip(rankings, weights, strict=True):
        if weight < 0:
            raise ValueError(f"weights must be non-negative, got {weight}")
        if weight == 0:
            continue
        seen: set[str] = set()
        for rank, ident in enumerate(ranking, start=1):
            if ident in seen:  # a duplicate in one ranking does not count twice
                continue
            seen.add(ident)
            score[ident] = score.get(ident, 0.0) + weight / (rrf_k + rank)
            best_rank[ident] = min(best_rank.get(ident, rank), rank)
    order = sorted(score, key=lambda i: (-score[i], best_rank[i], i))
    return [(ident, score[ident]) for ident in order]
