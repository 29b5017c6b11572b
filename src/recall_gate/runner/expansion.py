"""Parent expansion: a chunk ranking → a card ranking (pure).

Retrieval ranks chunks, but the unit a RAG answer cites (and recall-gate scores)
is the parent card. Each card takes the rank of its best chunk; later chunks
of a card already seen are dropped (first-occurrence de-duplication), so one
long card cannot fill the top k with its own pieces.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

__all__ = ["ScoredChunk", "expand_to_parents"]


class ScoredChunk(NamedTuple):
    """A chunk in a ranking: its id, its card's id and the ranking's score.

    ``score`` is whatever ordered the list: cosine similarity (dense), fused
    RRF score (hybrid), cross-encoder score (rerank), or None where the stage
    that ordered the item gave no comparable score.
    """

    chunk_id: str
    parent_id: str
    score: float | None


def expand_to_parents(ranking: Iterable[ScoredChunk]) -> list[ScoredChunk]:
    """The best chunk of each card, in rank order (one entry per card)."""
    seen: set[str] = set()
    out = []
    for item in ranking:
        if item.parent_id not in seen:
            seen.add(item.parent_id)
            out.append(item)
    return out
