"""LlamaIndex: a ``BaseRetriever`` (``retrieve`` → ``NodeWithScore``), or an index
(``as_retriever(similarity_top_k=k)``), recognised by class, never imported."""

from __future__ import annotations

import copy
import threading
from collections.abc import Awaitable, Callable
from typing import Any

from recall_gate.core.records import ParamValue
from recall_gate.retrievers.adapter import (
    class_name,
    embedder_name,
    has_base,
    overrides,
    readable_params,
)
from recall_gate.retrievers.documents import Hit, clean_score

__all__ = [
    "LlamaIndexRetriever",
    "detect",
    "node_hit",
    "node_parsers",
]


def node_hit(result: Any) -> Hit:
    node = getattr(result, "node", result)
    node_id = getattr(node, "node_id", None) or getattr(node, "id_", None)
    return Hit(
        fields={
            "id": node_id,
            "node_id": node_id,
            "ref_doc_id": getattr(node, "ref_doc_id", None),
            "metadata": dict(getattr(node, "metadata", None) or {}),
        },
        score=clean_score(getattr(result, "score", None)),
        chunk_id=str(node_id) if node_id else None,
    )


_SPLIT_SETTINGS = ("chunk_size", "chunk_overlap", "window_size", "header_path_separator")


def node_parsers(transformations: Any) -> str | None:
    """The index's transformations as ``Class(chunk_size=…, chunk_overlap=…)``: what
    LlamaIndex keeps of how the documents were split (its node parser settings)."""
    if not isinstance(transformations, list | tuple) or not transformations:
        return None
    described = []
    for step in transformations:
        settings = [
            f"{name}={value}"
            for name in _SPLIT_SETTINGS
            if isinstance(value := getattr(step, name, None), int | str)
        ]
        described.append(f"{type(step).__name__}({', '.join(settings)})")
    return ", ".join(described)


class LlamaIndexRetriever:
    """``retriever.retrieve(query)`` (``aretrieve`` when the retriever has its own
    async path), with ``similarity_top_k`` set to ``k`` when the retriever has
    one, else cut at ``k``.

    The setting is made on a shallow copy per k, never on the user's object:
    cases asked concurrently (or at different depths) cannot see each other's k.
    """

    kind = "llamaindex"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, retriever: Any, *, index: Any = None) -> None:
        self.retriever = retriever
        self.index = index
        self.name = class_name(retriever)
        self._by_k: dict[int, Any] = {}
        self._lock = threading.Lock()
        native = overrides(retriever, "_aretrieve", "llama_index", "BaseRetriever")
        self.asearch = self._asearch if native else None

    def _at(self, k: int) -> Any:
        """The retriever asking for ``k`` results (a copy with ``similarity_top_k = k``)."""
        if not isinstance(getattr(self.retriever, "similarity_top_k", None), int):
            return self.retriever
        with self._lock:
            copy_at_k = self._by_k.get(k)
            if copy_at_k is None:
                copy_at_k = copy.copy(self.retriever)
                copy_at_k.similarity_top_k = k
                self._by_k[k] = copy_at_k
        return copy_at_k

    def search(self, query: str, k: int) -> list[Hit]:
        return [node_hit(result) for result in list(self._at(k).retrieve(query))[:k]]

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        return [node_hit(result) for result in list(await self._at(k).aretrieve(query))[:k]]

    def params(self) -> dict[str, ParamValue]:
        r = self.retriever
        index = self.index if self.index is not None else getattr(r, "_index", None)
        store = getattr(index, "vector_store", None) or getattr(r, "_vector_store", None)
        return readable_params(
            {
                "index": class_name(index) if index is not None else None,
                "vector_store": class_name(store) if store is not None else None,
                "embedder": embedder_name(getattr(r, "_embed_model", None)),
                "mode": str(getattr(r, "_vector_store_query_mode", "") or "") or None,
                # How the index was chunked: a baseline made with another splitter is stale.
                "node_parser": node_parsers(getattr(index, "_transformations", None)),
            }
        )


def detect(obj: Any) -> LlamaIndexRetriever | None:
    if has_base(obj, "llama_index", "BaseRetriever") and callable(getattr(obj, "retrieve", None)):
        return LlamaIndexRetriever(obj)
    if has_base(obj, "llama_index", "BaseIndex") and callable(getattr(obj, "as_retriever", None)):
        return LlamaIndexRetriever(obj.as_retriever(), index=obj)
    return None
