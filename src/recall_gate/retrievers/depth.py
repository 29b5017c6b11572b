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

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from recall_gate.core.records import MAX_ITEM_METADATA_BYTES, RetrievedItem
from recall_gate.retrievers.adapter import Adapter
from recall_gate.retrievers.documents import Hit, IdMapper, lookup

__all__ = ["MAX_DEPTH_FACTOR", "Retrieved", "aretrieve_case", "retrieve_case"]

# The deepest a case is asked: 16 × k documents (5 rounds: k, 2k, 4k, 8k, 16k).
MAX_DEPTH_FACTOR = 16


@dataclass(frozen=True)
class Retrieved:
    """One case's ranked items, the depth fetched, and how many distinct cards it holds."""

    items: tuple[RetrievedItem, ...]
    depth: int
    distinct: int


def _metadata(hit: Hit, mapper: IdMapper) -> tuple[dict[str, Any] | None, bool]:
    """The document's own metadata as JSON, and whether it was left out (over
    ``MAX_ITEM_METADATA_BYTES``, or not JSON); (None, False) when it has none.
    A top-level value that is an absolute path inside the project is kept
    relative to the project root (:meth:`IdMapper.project_relative`)."""
    found = lookup(hit.fields, "metadata")
    if not isinstance(found, Mapping) or not found:
        return None, False
    kept_paths = {
        key: mapper.project_relative(value) if isinstance(value, str) else value
        for key, value in found.items()
    }
    try:
        text = json.dumps(kept_paths, ensure_ascii=False, default=str, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None, True
    if len(text.encode("utf-8")) > MAX_ITEM_METADATA_BYTES:
        return None, True
    kept: dict[str, Any] = json.loads(text)
    return kept, False


def _items(
    hits: list[Hit], mapper: IdMapper, *, case_id: str
) -> tuple[list[RetrievedItem], int, list[bool]]:
    """The hits as items, how many there were, and which items' metadata was left out."""
    items = []
    dropped = []
    for rank, hit in enumerate(hits, start=1):
        card, outside = mapper.map(hit, case_id=case_id, rank=rank)
        # The retriever's own id of the document (a chunk's, or the URL it returned)
        # is kept beside the card it maps to.
        chunk = hit.chunk_id if hit.chunk_id and hit.chunk_id != card else None
        metadata, left_out = _metadata(hit, mapper)
        dropped.append(left_out)
        items.append(
            RetrievedItem(
                id=chunk or card,
                parent_id=card if chunk else None,
                score=hit.score,
                outside_kb=True if outside else None,
                metadata=metadata,
                language=None if outside else mapper.language(hit, card),
            )
        )
    return items, len(hits), dropped


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
    items, returned, dropped = _items(hits, mapper, case_id=case_id)
    kept, distinct = _up_to_k_distinct(items, k)
    exhausted = returned < depth
    if distinct >= k or exhausted or not deepen or depth >= MAX_DEPTH_FACTOR * k:
        mapper.metadata_dropped += sum(dropped[: len(kept)])  # the final round's items
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
