"""Each framework's own async path is awaited when the retriever has one —
LangChain `ainvoke`, LlamaIndex `aretrieve`, Haystack `run_async` — and a
retriever whose async method is only the framework's default (the sync path in
a thread) is driven through the capture's own thread pool instead. Real framework
objects over the synthetic KB; no model, no network."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from haystack import Document as HaystackDocument
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore
from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from llama_index.core import Document as LlamaDocument
from llama_index.core import VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.retrievers import BaseRetriever as LlamaBaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from recall_gate import capture
from recall_gate.retrievers.capture import adapt
from synthetic_kb import CASES, DOCS, embed, write_kb

GOLD = {ident: gold for ident, _, _, _, gold in CASES}


def keyword_docs(query: str) -> list[str]:
    """Card ids whose text shares a word with the query, best first."""
    words = set(query.lower().split())
    scored = [
        (len(words & set(text.lower().split())), name.removesuffix(".md"))
        for name, text in DOCS.items()
    ]
    return [card for shared, card in sorted(scored, key=lambda p: (-p[0], p[1])) if shared]


class SyncOnly(BaseRetriever):
    """A LangChain retriever with only a sync path."""

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        return [Document(page_content="x", metadata={"card_id": c}) for c in keyword_docs(query)]


NATIVE_THREADS: set[str] = set()  # the threads NativeAsync ran on


class NativeAsync(SyncOnly):
    """A LangChain retriever with its own async path (records the thread it ran on)."""

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        NATIVE_THREADS.add(threading.current_thread().name)
        return [Document(page_content="x", metadata={"card_id": c}) for c in keyword_docs(query)]


def test_a_langchain_retriever_with_its_own_async_path_is_awaited(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    assert adapt(NativeAsync()).asearch is not None
    NATIVE_THREADS.clear()
    native = capture(NativeAsync(), root / "cases.yaml", k=3, kb=root / "docs", concurrency=4)
    sync = capture(SyncOnly(), root / "cases.yaml", k=3, kb=root / "docs", concurrency=4)
    assert {threading.current_thread().name} == NATIVE_THREADS  # awaited, no thread
    assert [a.retrieved for a in native.artifacts] == [a.retrieved for a in sync.artifacts]


def test_a_langchain_retriever_with_only_a_sync_path_uses_the_capture_threads() -> None:
    assert adapt(SyncOnly()).asearch is None


class BagOfWords(BaseEmbedding):
    """Deterministic word-hash embeddings (no model, no network)."""

    model_name: str = "bag-of-words-512"

    def _get_query_embedding(self, query: str) -> list[float]:
        return embed(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return embed(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return embed(text)


def test_a_llamaindex_vector_retriever_is_awaited_and_the_users_top_k_is_untouched(
    tmp_path: Path,
) -> None:
    root = write_kb(tmp_path)
    documents = [
        LlamaDocument(text=text, metadata={"file_path": str(root / "docs" / name)})
        for name, text in DOCS.items()
    ]
    index = VectorStoreIndex.from_documents(documents, embed_model=BagOfWords())
    retriever: Any = index.as_retriever(similarity_top_k=2)
    assert adapt(retriever).asearch is not None  # VectorIndexRetriever has its own _aretrieve
    parallel = capture(retriever, root / "cases.yaml", k=3, kb=root / "docs", concurrency=6)
    sequential = capture(retriever, root / "cases.yaml", k=3, kb=root / "docs", concurrency=1)
    assert retriever.similarity_top_k == 2
    assert [a.retrieved for a in parallel.artifacts] == [a.retrieved for a in sequential.artifacts]
    assert all(len(a.retrieved) == 3 for a in parallel.artifacts)


class LlamaSyncOnly(LlamaBaseRetriever):
    """A LlamaIndex retriever with only `_retrieve` (its default `_aretrieve` would
    run it on the event loop)."""

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [
            NodeWithScore(node=TextNode(text="x", id_=c), score=1.0)
            for c in keyword_docs(query_bundle.query_str)
        ]


def test_a_llamaindex_retriever_with_only_a_sync_path_uses_the_capture_threads() -> None:
    assert adapt(LlamaSyncOnly()).asearch is None


def test_a_haystack_component_with_run_async_is_awaited(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    store = InMemoryDocumentStore()
    store.write_documents(
        [
            HaystackDocument(content=text, meta={"file_path": f"docs/{name}"})
            for name, text in DOCS.items()
        ]
    )
    component: Any = InMemoryBM25Retriever(document_store=store, top_k=2)
    assert adapt(component).asearch is not None
    captured = capture(component, root / "cases.yaml", k=3, kb=root / "docs", concurrency=4)
    by_hand = [component.run(query=query, top_k=3)["documents"] for _, _, _, query, _ in CASES]
    assert [[i.id for i in a.retrieved if not isinstance(i, str)] for a in captured.artifacts] == [
        [d.id for d in docs] for docs in by_hand
    ]
