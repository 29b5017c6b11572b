"""LlamaIndex: a real VectorStoreIndex (simple in-memory vector store) over the
synthetic KB, with a deterministic embedding model; captured through its
retriever (`retrieve` → NodeWithScore) and through the index itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding

from recall_gate import capture
from recall_gate.core.records import RetrievedItem
from synthetic_kb import CASES, DOCS, embed, write_kb


class BagOfWords(BaseEmbedding):
    """Deterministic word-hash embeddings (no model, no network)."""

    model_name: str = "bag-of-words-512"

    def _get_query_embedding(self, query: str) -> list[float]:
        return embed(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return embed(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return embed(text)


def index(root: Path) -> Any:
    documents = [
        Document(text=text, metadata={"file_path": str(root / "docs" / name)})
        for name, text in DOCS.items()
    ]
    return VectorStoreIndex.from_documents(documents, embed_model=BagOfWords())


def test_a_retriever_is_captured_with_node_ids_and_scores(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    vectors = index(root)
    retriever = vectors.as_retriever(similarity_top_k=2)
    captured = capture(retriever, root / "cases.yaml", k=3, kb=root / "docs", label="li")
    assert retriever.similarity_top_k == 2  # asked for k = 3, then restored
    hand = vectors.as_retriever(similarity_top_k=3)
    for (ident, _, _, query, gold), artifact in zip(CASES, captured.artifacts, strict=True):
        by_hand = hand.retrieve(query)
        items = [i for i in artifact.retrieved if isinstance(i, RetrievedItem)]
        assert [(i.id, i.score) for i in items] == [(r.node.node_id, r.score) for r in by_hand]
        if gold:
            assert items[0].parent_id == gold[0], ident
    assert captured.retriever.adapter == "llamaindex"
    assert captured.retriever.name.endswith(".VectorIndexRetriever")
    assert captured.retriever.params["embedder"] == (
        "test_capture_llamaindex.BagOfWords(bag-of-words-512)"
    )


def test_an_index_is_captured_through_its_retriever(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    captured = capture(index(root), root / "cases.yaml", k=2, kb=root / "docs")
    assert captured.artifacts[0].ranked_card_ids()[0] == "en/refills"
    assert str(captured.retriever.params["index"]).endswith(".VectorStoreIndex")
