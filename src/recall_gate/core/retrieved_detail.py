"""What the retriever said of a card it returned (pure): its own chunk id and a
short summary of its metadata, for "what came back instead".

A capture keeps each document's chunk id (``id`` when it has a ``parent_id``)
and its metadata (:class:`~recall_gate.core.records.RetrievedItem`). A missed
case's record keeps, for each card of its top k, what its first document said
of itself: the chunk id when it differs from the card id, and the metadata as
one line of ``key: value`` pairs — the keys a reader looks for first
(:data:`SUMMARY_KEYS`), then the others in the retriever's order, scalars only,
cut at :data:`SUMMARY_CHARS` characters. Informational: no part of scoring.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from recall_gate.core.records import RetrievedDetail

__all__ = ["SUMMARY_CHARS", "SUMMARY_KEYS", "metadata_summary", "retrieved_detail"]

# The metadata keys shown first, in this order, when a document has them.
SUMMARY_KEYS = ("source", "section", "title", "page", "url")
# The most characters a chunk id or a metadata summary takes (then "…").
SUMMARY_CHARS = 100


def _cut(text: str) -> str:
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool | int | float) or (isinstance(value, str) and value.strip()):
        return " ".join(str(value).split())
    return None


def metadata_summary(metadata: Mapping[str, Any] | None) -> str | None:
    """``source: content/a.md, section: Setup, …`` (at most :data:`SUMMARY_CHARS`
    characters), or None when the metadata holds no scalar value."""
    if not metadata:
        return None
    keys = [k for k in SUMMARY_KEYS if k in metadata]
    keys += [k for k in metadata if k not in SUMMARY_KEYS]
    parts = []
    size = 0
    for key in keys:
        value = _scalar(metadata[key])
        if value is None:
            continue
        part = f"{key}: {value}"
        parts.append(part)
        size += len(part) + 2
        if size > SUMMARY_CHARS:
            break  # the rest would be cut anyway
    return _cut(", ".join(parts)) if parts else None


def _detail(item: Any) -> RetrievedDetail | None:
    parent = item.parent_id
    chunk = _cut(item.id) if parent and item.id != parent else None
    summary = metadata_summary(item.metadata)
    if chunk is None and summary is None:
        return None
    return RetrievedDetail(chunk_id=chunk, metadata=summary)


def retrieved_detail(items: Iterable[Any], top: Sequence[str]) -> dict[str, RetrievedDetail] | None:
    """For each card of ``top`` (card ids), what its first item (a capture's
    retrieved id string or item) says of itself; None when no card has anything."""
    wanted = set(top)
    seen: set[str] = set()
    out: dict[str, RetrievedDetail] = {}
    for item in items:
        card = item if isinstance(item, str) else item.card_id
        if card in seen or card not in wanted:
            continue
        seen.add(card)
        if not isinstance(item, str):
            detail = _detail(item)
            if detail is not None:
                out[card] = detail
        if len(seen) == len(wanted):
            break
    return out or None
