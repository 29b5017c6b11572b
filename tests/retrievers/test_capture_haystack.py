"""Haystack: a real InMemoryDocumentStore with its BM25 retriever component
(`run(query, top_k)` → documents) over the synthetic KB."""

from __future__ import annotations

from pathlib import Path

from haystack import Document
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

from recall_gate import capture
from recall_gate.core.records import RetrievedItem
from synthetic_kb import CASES, DOCS, write_kb


def retriever(root: Path) -> InMemoryBM25Retriever:
    store = InMemoryDocumentStore()
    store.write_documents(
        [Document(content=text, meta={"file_path": f"docs/{name}"}) for name, text in DOCS.items()]
    )
    return InMemoryBM25Retriever(document_store=store, top_k=2)


def test_a_bm25_retriever_component_is_captured_with_ids_and_scores(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    component = retriever(root)
    captured = capture(component, root / "cases.yaml", k=3, kb=root / "docs", label="hs")
    for (ident, _, _, query, gold), artifact in zip(CASES, captured.artifacts, strict=True):
        by_hand = component.run(query=query, top_k=3)["documents"]
        items = [i for i in artifact.retrieved if isinstance(i, RetrievedItem)]
        assert [(i.id, i.score) for i in items] == [(d.id, d.score) for d in by_hand]
        assert [i.parent_id for i in items] == [
            d.meta["file_path"].removeprefix("docs/").removesuffix(".md") for d in by_hand
        ]
        if gold:
            assert items[0].parent_id == gold[0], ident
    assert captured.retriever.adapter == "haystack"
    assert captured.retriever.name.endswith(".InMemoryBM25Retriever")
    assert captured.retriever.params["top_k"] == 2
    assert str(captured.retriever.params["document_store"]).endswith(".InMemoryDocumentStore")
