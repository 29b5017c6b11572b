"""A Haystack retriever over the example docs: `recall-gate capture` runs it.

    cd examples/haystack
    recall-gate capture --retriever rag_haystack:build_retriever --out capture.jsonl

Haystack's in-memory BM25 retriever needs no model. In your app, return the
retriever component your pipeline uses (anything with `run(query, top_k)`).
"""

from __future__ import annotations

from pathlib import Path

from haystack import Document
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

DOCS = Path(__file__).resolve().parent.parent / "data" / "docs"


def build_retriever() -> InMemoryBM25Retriever:
    store = InMemoryDocumentStore()
    store.write_documents(
        [
            # `file_path` is what Haystack's file converters record; recall-gate maps it
            # to the card id (the path under the KB root, without extension).
            Document(content=path.read_text(encoding="utf-8"), meta={"file_path": str(path)})
            for path in sorted(DOCS.rglob("*.md"))
        ]
    )
    return InMemoryBM25Retriever(document_store=store, top_k=5)
