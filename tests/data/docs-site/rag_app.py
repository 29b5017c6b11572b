"""The team's retrievers over the docs, as a RAG app would build them (SYNTHETIC
fixture, see NOTICE.md). Both index the WHOLE docs folder, blog and release
notes included, split into Markdown sections: real Haystack and LlamaIndex
components, in memory, no network, no model download."""

from __future__ import annotations

import functools
import hashlib
import math
import re
from pathlib import Path
from typing import Any

DOCS = Path(__file__).parent / "docs"


def _pages() -> list[tuple[str, str]]:
    return [
        (str(path), path.read_text(encoding="utf-8"))
        for path in sorted(DOCS.rglob("*"))
        if path.suffix in (".md", ".mdx")
    ]


def haystack_sections() -> Any:
    """Haystack: Markdown header sections in an in-memory store, BM25."""
    from haystack import Document
    from haystack.components.preprocessors import MarkdownHeaderSplitter
    from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
    from haystack.document_stores.in_memory import InMemoryDocumentStore

    documents = [Document(content=text, meta={"file_path": path}) for path, text in _pages()]
    splitter = MarkdownHeaderSplitter(secondary_split="word", split_length=60)
    sections = splitter.run(documents=documents)["documents"]
    store = InMemoryDocumentStore()
    store.write_documents(sections)
    return InMemoryBM25Retriever(document_store=store, top_k=3)


@functools.cache
def _shared_haystack() -> Any:
    return haystack_sections()


def _embedding_class() -> Any:
    from llama_index.core.embeddings import BaseEmbedding

    class HashingEmbedding(BaseEmbedding):
        """A bag of hashed words, L2-normalised: a deterministic stand-in for a model."""

        def _vector(self, text: str) -> list[float]:
            vector = [0.0] * 256
            for word in re.findall(r"\w+", text.lower()):
                digest = hashlib.sha256(word.encode()).digest()
                vector[digest[0]] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            return [v / norm for v in vector]

        def _get_query_embedding(self, query: str) -> list[float]:
            return self._vector(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return self._vector(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return self._vector(text)

    return HashingEmbedding


def _llamaindex(parser: Any) -> Any:
    from llama_index.core import Document, VectorStoreIndex

    embed = _embedding_class()(model_name="hashing-256")
    documents = [Document(text=text, metadata={"file_path": path}) for path, text in _pages()]
    index = VectorStoreIndex.from_documents(documents, transformations=[parser], embed_model=embed)
    return index.as_retriever(similarity_top_k=3)


def llamaindex_sections() -> Any:
    """LlamaIndex: Markdown sections (MarkdownNodeParser), a vector index in memory."""
    from llama_index.core.node_parser import MarkdownNodeParser

    return _llamaindex(MarkdownNodeParser())


def llamaindex_small_chunks() -> Any:
    """The same index re-chunked: 40-word chunks, 10 words of overlap."""
    from llama_index.core.node_parser import SentenceSplitter

    # Words as tokens: the default tokenizer would fetch its vocabulary.
    return _llamaindex(SentenceSplitter(chunk_size=40, chunk_overlap=10, tokenizer=str.split))


def haystack_regressed(query: str, k: int) -> list[Any]:
    """A regression: the best-matching page is dropped from every answer."""
    documents = _shared_haystack().run(query=query, top_k=max(k, 20))["documents"]
    best = documents[0].meta["file_path"] if documents else None
    return [d for d in documents if d.meta["file_path"] != best][:k]


def search(query: str, k: int) -> list[Any]:
    """A plain function returning Haystack documents (the `search` contract)."""
    documents: list[Any] = _shared_haystack().run(query=query, top_k=k)["documents"]
    return documents
