"""LangChain: a ``BaseRetriever`` (``invoke``) or a ``VectorStore``
(``similarity_search_with_score``), recognised by class, never imported."""

from __future__ import annotations

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
    "LangChainRetriever",
    "LangChainVectorStore",
    "detect",
    "document_hit",
]


def document_hit(document: Any, score: Any = None) -> Hit:
    metadata = dict(getattr(document, "metadata", None) or {})
    ident = getattr(document, "id", None)
    if score is None:
        score = metadata.get("score")
    return Hit(
        fields={"id": ident, "metadata": metadata},
        score=clean_score(score),
        chunk_id=str(ident) if ident else None,
    )


class LangChainRetriever:
    """``retriever.invoke(query)``; a retriever with ``search_kwargs`` (a vector
    store retriever) is asked for ``k`` documents, any other is cut at ``k``."""

    kind = "langchain-retriever"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, retriever: Any) -> None:
        self.retriever = retriever
        self.name = class_name(retriever)
        self.asearch = self._asearch if _native_async(retriever) else None

    def _kwargs(self, k: int) -> dict[str, int]:
        return {"k": k} if isinstance(getattr(self.retriever, "search_kwargs", None), dict) else {}

    def search(self, query: str, k: int) -> list[Hit]:
        documents = self.retriever.invoke(query, **self._kwargs(k))
        return [document_hit(d) for d in list(documents)[:k]]

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        documents = await self.retriever.ainvoke(query, **self._kwargs(k))
        return [document_hit(d) for d in list(documents)[:k]]

    def params(self) -> dict[str, ParamValue]:
        r = self.retriever
        store = getattr(r, "vectorstore", None)
        return readable_params(
            {
                "search_type": getattr(r, "search_type", None),
                "search_kwargs": getattr(r, "search_kwargs", None),
                "vectorstore": class_name(store) if store is not None else None,
                "embedder": embedder_name(getattr(store, "embeddings", None)),
            }
        )


class LangChainVectorStore:
    """``store.similarity_search_with_score(query, k=k)``: documents with their scores."""

    kind = "langchain-vectorstore"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, store: Any) -> None:
        self.store = store
        self.name = class_name(store)
        native = overrides(store, "asimilarity_search_with_score", "langchain", "VectorStore")
        self.asearch = self._asearch if native else None

    def search(self, query: str, k: int) -> list[Hit]:
        return [document_hit(d, s) for d, s in self.store.similarity_search_with_score(query, k=k)]

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        pairs = await self.store.asimilarity_search_with_score(query, k=k)
        return [document_hit(d, s) for d, s in pairs]

    def params(self) -> dict[str, ParamValue]:
        return readable_params({"embedder": embedder_name(getattr(self.store, "embeddings", None))})


# The store method a vector store retriever's async path awaits, by search type.
_STORE_ASYNC = {
    "similarity": "asimilarity_search",
    "similarity_score_threshold": "asimilarity_search_with_relevance_scores",
    "mmr": "amax_marginal_relevance_search",
}


def _native_async(retriever: Any) -> bool:
    """Whether ``ainvoke`` awaits the retriever's own async code: LangChain's default
    only runs the sync path in its loop's small default thread pool."""
    if not overrides(retriever, "_aget_relevant_documents", "langchain", "BaseRetriever"):
        return False
    store = getattr(retriever, "vectorstore", None)
    if has_base(retriever, "langchain", "VectorStoreRetriever") and store is not None:
        method = _STORE_ASYNC.get(str(getattr(retriever, "search_type", "similarity")))
        return method is not None and overrides(store, method, "langchain", "VectorStore")
    return True


def detect(obj: Any) -> LangChainRetriever | LangChainVectorStore | None:
    if has_base(obj, "langchain", "BaseRetriever") and callable(getattr(obj, "invoke", None)):
        return LangChainRetriever(obj)
    if has_base(obj, "langchain", "VectorStore") and callable(
        getattr(obj, "similarity_search_with_score", None)
    ):
        return LangChainVectorStore(obj)
    return None
