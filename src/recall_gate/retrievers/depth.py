"""Retrieve ONE case, deep enough: what happens for a single query, apart from
the loop that runs the cases (concurrency, retries and timeouts belong to it).

Chunk and section retrievers return k chunks from fewer than k pages, so a
capture cut at k documents would hold fewer than k distinct cards, and hit@k
would really be hit@3 against a baseline that saw 5. :func:`retrieve_case`
asks again, deeper — k, 2k, 4k … up to :data:`MAX_DEPTH_FACTOR` × k documents
— until the case holds k distinct cards (pages outside the KB count: they take
a rank too), or the retriever has no more to give (it returned fewer documents
than asked, or ignores the depth). It keeps the documents up to the k-th
distinct card, so the dedup-then-cut metrics see k cards, and records the
depth it fetched.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall_gate.core.records import RetrievedItem
from recall_gate.retrievers.adapter import Adapter
from recall_gate.retrievers.documents import Hit, IdMapper

__all__ = ["MAX_DEPTH_FACTOR", "Retrieved", "aretrieve_case", "retrieve_case"]

# The deepest a case is asked: 16 × k documents (5 rounds: k, 2k, 4k, 8k, 16k).
MAX_DEPTH_FACTOR = 16


@dataclass(frozen=True)
class Retrieved:
    """One case's ranked items, the depth fetched, and how many distinct cards it holds."""

    items: tuple[RetrievedItem, ...]
    depth: int
    distinct: int


def _items(hits: list[Hit], mapper: IdMapper, *, case_id: str) -> tuple[list[RetrievedItem], int]:
    items = []
    for rank, hit in enumerate(hits, start=1):
        card, outside = mapper.map(hit, case_id=case_id, rank=rank)
        chunk = hit.chunk_id if hit.chunk_id and hit.chunk_id != card else None
        items.append(
            RetrievedItem(
                id=chunk or card,
                parent_id=card if chunk else None,
                score=hit.score,
                outside_kb=True if outside else None,
            )
        )
    return items, len(hits)


def _up_to_k_distinct(items: list[RetrievedItem], k: int) -> tuple[tuple[RetrievedItem, ...], int]:
    seen: set[str] = set()
    for i, item in enumerate(items):
        seen.add(item.card_id)
        if len(seen) == k:
            return tuple(items[: i + 1]), k
    return tuple(items), len(seen)


def retrieve_case(
    adapter: Adapter,
    mapper: IdMapper,
    query: str,
    *,
    k: int,
    case_id: str,
    deepen: bool = True,
) -> Retrieved:
    """The case's items holding k distinct cards when the retriever has them
    (see the module docstring); ``deepen=False`` asks for k documents once."""
    depth = k
    while True:
        hits = adapter.search(query, depth)
        done = _round(hits, mapper, k=k, depth=depth, case_id=case_id, deepen=deepen)
        if done is not None:
            return done
        depth *= 2


def _round(
    hits: list[Hit], mapper: IdMapper, *, k: int, depth: int, case_id: str, deepen: bool
) -> Retrieved | None:
    """One round's result, or None when the case should be asked deeper."""
    items, returned = _items(hits, mapper, case_id=case_id)
    kept, distinct = _up_to_k_distinct(items, k)
    exhausted = returned < depth
    if distinct >= k or exhausted or not deepen or depth >= MAX_DEPTH_FACTOR * k:
        return Retrieved(items=kept, depth=depth, distinct=distinct)
    return None


async def aretrieve_case(
    adapter: Adapter, mapper: IdMapper, query: str, *, k: int, case_id: str
) -> Retrieved:
    """:func:`retrieve_case` for a natively async retriever (``adapter.asearch``)."""
    asearch = adapter.asearch
    assert asearch is not None
    depth = k
    while True:
        hits = await asearch(query, depth)
        done = _round(hits, mapper, k=k, depth=depth, case_id=case_id, deepen=True)
        if done is not None:
            return done
        depth *= 2
