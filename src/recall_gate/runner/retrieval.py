"""From a query to ranked cards: the retrieval modes, composed per case.

* ``dense`` (default): the store's top ``candidates`` chunks by cosine
  similarity.
* ``hybrid``: the dense list and a BM25 list of ``candidates`` chunks each,
  fused by weighted reciprocal rank (:mod:`recall_gate.runner.fusion`) and
  cut back to ``candidates``.
* then, optionally, the cross-encoder re-orders the top
  ``reranker.candidates`` chunks (:mod:`recall_gate.runner.rerank`),
* and parent expansion (:mod:`recall_gate.runner.expansion`) turns the chunk
  list into one entry per card, each represented by its best chunk.

Fusion and reranking work on chunks, before expansion, so a card's rank is
always that of its best chunk under the final ordering.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.adapters.config import HybridSettings
from recall_gate.runner.expansion import ScoredChunk
from recall_gate.runner.fusion import reciprocal_rank_fusion

__all__ = ["fuse_hybrid"]


def fuse_hybrid(
    dense: Sequence[ScoredChunk],
    lexical: Sequence[ScoredChunk],
    *,
    settings: HybridSettings,
    limit: int,
) -> list[ScoredChunk]:
    """Dense and BM25 chunk lists fused by weighted RRF; score = fused score."""
    parent = {item.chunk_id: item.parent_id for item in (*dense, *lexical)}
    fused = reciprocal_rank_fusion(
        [[item.chunk_id for item in dense], [item.chunk_id for item in lexical]],
        weights=[settings.dense_weight, settings.bm25_weight],
        rrf_k=settings.rrf_k,
    )
    return [ScoredChunk(ident, parent[ident], score) for ident, score in fused[:limit]]
