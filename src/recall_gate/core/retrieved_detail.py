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

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "SUMMARY_CHARS",
    "SUMMARY_KEYS",
    "detail_data",
    "metadata_summary",
]

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


def _detail(item: Any) -> dict[str, str] | None:
    """What one document says of itself, as the results file writes it (None keys left out)."""
    ident = item.id
    parent = item.parent_id
    metadata = item.metadata
    detail: dict[str, str] = {}
    if parent and ident != parent:
        detail["chunk_id"] = _cut(ident)
    if metadata:
        summary = metadata_summary(metadata)
        if summary is not None:
            detail["metadata"] = summary
    return detail or None


def detail_data(items: Sequence[Any], top: Sequence[str]) -> dict[str, dict[str, str]] | None:
    """For each card of ``top`` (card ids), what its first item (a capture's
    retrieved id string or item) says of itself, as the results file writes it
    (``{"chunk_id": …, "metadata": …}``, absent keys left out); None when no
    card has anything. A line of bare ids says nothing (one C-speed test)."""
    try:
        "".join(items)
    except TypeError:
        pass
    else:
        return None  # bare ids only
    wanted = set(top)
    out: dict[str, dict[str, str]] = {}
    for item in items:
        plain = isinstance(item, str)
        card = item if plain else (item.parent_id or item.id)
        if card not in wanted:
            continue
        wanted.discard(card)  # its first document only
        if not plain:
            detail = _detail(item)
            if detail is not None:
                out[card] = detail
        if not wanted:
            break
    return out or None
