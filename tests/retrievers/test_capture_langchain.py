"""LangChain: a real InMemoryVectorStore over the synthetic KB, captured through
its retriever (`invoke`) and the store itself (`similarity_search_with_score`)."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore

from cli_runner import without_latency
from recall_gate import capture
from recall_gate.cli import main
from recall_gate.core.records import RetrievedItem
from recall_gate.errors import InputError
from synthetic_kb import CASES, DOCS, embed, write_kb


class BagOfWords(Embeddings):
    """Deterministic word-hash embeddings (no model, no network)."""

    model = "bag-of-words-512"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [embed(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return embed(text)


def store(root: Path) -> InMemoryVectorStore:
    vectors = InMemoryVectorStore(embedding=BagOfWords())
    vectors.add_documents(
        [
            Document(
                id=f"chunk-{i}",
                page_content=text,
                metadata={"source": str(root / "docs" / name)},  # absolute paths, as loaders do
            )
            for i, (name, text) in enumerate(DOCS.items())
        ]
    )
    return vectors


def by_hand(vectors: InMemoryVectorStore, root: Path, k: int) -> dict[str, list[tuple[str, float]]]:
    """What a user's own glue script would capture: (card id, score) per case."""
    out = {}
    for ident, _, _, query, _ in CASES:
        hits = vectors.similarity_search_with_score(query, k=k)
        out[ident] = [
            (str(Path(d.metadata["source"]).relative_to(root / "docs").with_suffix("")), s)
            for d, s in hits
        ]
    return out


def test_a_vector_store_is_captured_with_card_ids_chunk_ids_and_scores(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    vectors = store(root)
    captured = capture(vectors, root / "cases.yaml", k=3, kb=root / "docs", label="lc")
    expected = by_hand(vectors, root, 3)
    assert [a.case_id for a in captured.artifacts] == [c[0] for c in CASES]
    for artifact in captured.artifacts:
        items = [i for i in artifact.retrieved if isinstance(i, RetrievedItem)]
        assert [(i.parent_id, i.score) for i in items] == expected[artifact.case_id]
        assert all(i.id.startswith("chunk-") for i in items)
    top = {a.case_id: a.ranked_card_ids()[0] for a in captured.artifacts}
    assert top == {ident: (gold or [top[ident]])[0] for ident, _, _, _, gold in CASES}
    assert captured.retriever.adapter == "langchain-vectorstore"
    assert captured.retriever.name == "langchain_core.vectorstores.in_memory.InMemoryVectorStore"
    assert captured.retriever.label == "lc"
    assert captured.retriever.params["embedder"] == (
        "test_capture_langchain.BagOfWords(bag-of-words-512)"
    )


def test_a_retriever_is_asked_for_k_documents_and_records_its_search_kwargs(
    tmp_path: Path,
) -> None:
    root = write_kb(tmp_path)
    retriever = store(root).as_retriever(search_kwargs={"k": 2})
    captured = capture(retriever, root / "cases.yaml", k=4, kb=root / "docs")
    assert all(len(a.retrieved) == 4 for a in captured.artifacts)  # k wins over search_kwargs
    assert retriever.search_kwargs == {"k": 2}  # the user's object is left as it was
    assert captured.retriever.adapter == "langchain-retriever"
    assert captured.retriever.params["search_kwargs"] == '{"k": 2}'
    assert captured.retriever.params["search_type"] == "similarity"
    assert captured.retriever.params["vectorstore"] == (
        "langchain_core.vectorstores.in_memory.InMemoryVectorStore"
    )


def test_capture_cli_scores_identically_to_the_same_retrieval_captured_by_hand(
    tmp_path: Path,
) -> None:
    root = write_kb(tmp_path)
    sys.modules.pop("app", None)
    (root / "app.py").write_text(
        "from pathlib import Path\n"
        "from test_capture_langchain import store\n"
        "def build_retriever():\n"
        "    return store(Path(__file__).parent)\n",
        encoding="utf-8",
    )
    (root / "recall-gate.yaml").write_text("k: 3\nkb: docs\ncases: cases.yaml\n", encoding="utf-8")
    # By hand: the 23-line glue script of the issue, in short.
    hand = [
        {
            "case_id": ident,
            "retrieved": [{"id": card, "score": score} for card, score in ranked],
        }
        for ident, ranked in by_hand(store(root), root, 3).items()
    ]
    (root / "hand.jsonl").write_text("".join(json.dumps(h) + "\n" for h in hand))
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(
        ["capture", "--retriever", "app:build_retriever", "--out", "cap.jsonl", "--json", "c.json"],
        environ={},
        stdout=stdout,
        stderr=stderr,
        cwd=root,
    )
    assert code == 0, stderr.getvalue()
    assert "with langchain_core.vectorstores.in_memory.InMemoryVectorStore" in stderr.getvalue()
    hand_out = io.StringIO()
    code = main(
        ["score", "--artifacts", "hand.jsonl", "--json", "h.json"],
        environ={},
        stdout=hand_out,
        stderr=io.StringIO(),
        cwd=root,
    )
    assert code == 0
    captured = json.loads((root / "c.json").read_text())
    handmade = json.loads((root / "h.json").read_text())
    assert captured["aggregates"] == handmade["aggregates"]
    assert [c["ranked_ids"] for c in captured["cases"]] == [
        c["ranked_ids"] for c in handmade["cases"]
    ]
    assert captured["aggregates"]["by_language"].keys() == {"de", "en", "es", "fr-CA"}
    # the same report, but for the capture's latency (the hand-made file has none)
    assert (
        without_latency(stdout.getvalue()).split("\n\n", 1)[1]
        == hand_out.getvalue().split("\n\n", 1)[1]
    )


def test_documents_whose_fields_map_to_no_card_name_the_case_and_the_fix(tmp_path: Path) -> None:
    root = write_kb(tmp_path)
    vectors = InMemoryVectorStore(embedding=BagOfWords())
    vectors.add_documents([Document(id="x", page_content="refill pills", metadata={"a": 1})])
    with pytest.raises(InputError) as caught:
        capture(vectors, root / "cases.yaml", k=1, kb=root / "docs")
    assert str(caught.value) == (
        "case 'en-1', document 1: no field maps to a KB card (tried metadata.card_id: absent; "
        "metadata.id: absent; metadata.source: absent; metadata.file_path: absent; "
        "metadata.path: absent; metadata.file_name: absent; ref_doc_id: absent; "
        "id: 'x' is no KB card)\n"
        "  fix: pass --id-from FIELD naming the field that holds the card id or file path "
        "(e.g. --id-from metadata.source), and set `kb:` so paths map to card ids"
    )
