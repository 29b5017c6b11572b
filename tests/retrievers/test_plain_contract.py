"""The `search(query, k)` return contract: ids, paths, dicts, (document, score)
pairs, or the LangChain / LlamaIndex / Haystack documents the adapters read;
anything else is refused naming the item and the contract, never blamed on
credentials or the network."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from recall_gate.core.records import MAX_ITEM_METADATA_BYTES
from recall_gate.errors import InputError
from recall_gate.retrievers import capture

CASES = [
    {"id": "q", "language": "en", "case_type": "golden", "query": "q", "must_cite_one_of": ["en/a"]}
]
KB = ["en/a", "en/b", "en/c"]


def ranked(function: Any) -> list[str]:
    return capture(function, CASES, k=2, kb=KB).artifacts[0].ranked_card_ids()


def test_ids_paths_and_dicts() -> None:
    assert ranked(lambda q, k: ["en/a", Path("docs/en/b.md")]) == ["en/a", "en/b"]
    assert ranked(lambda q, k: [{"metadata": {"source": "docs/en/c.md"}}, "en/a"]) == [
        "en/c",
        "en/a",
    ]


def test_document_and_score_pairs() -> None:
    assert ranked(lambda q, k: [({"id": "en/b"}, 0.9), ("en/a", 0.5)]) == ["en/b", "en/a"]


def test_haystack_documents() -> None:
    haystack = pytest.importorskip("haystack")
    docs = [
        haystack.Document(content="x", meta={"file_path": f"/srv/docs/en/{n}.md"}) for n in "ab"
    ]
    assert ranked(lambda q, k: docs) == ["en/a", "en/b"]


def test_llamaindex_nodes() -> None:
    schema = pytest.importorskip("llama_index.core.schema")
    nodes = [
        schema.NodeWithScore(
            node=schema.TextNode(text="x", metadata={"file_path": "docs/en/b.md"}), score=1.0
        ),
        schema.TextNode(text="y", metadata={"file_path": "docs/en/c.md"}),
    ]
    assert ranked(lambda q, k: nodes) == ["en/b", "en/c"]


def test_langchain_documents() -> None:
    documents = pytest.importorskip("langchain_core.documents")
    docs = [documents.Document(page_content="x", metadata={"source": "docs/en/c.md"})]
    assert ranked(lambda q, k: docs) == ["en/c"]


def test_anything_else_is_refused_naming_the_item_and_the_contract() -> None:
    with pytest.raises(InputError) as caught:
        ranked(lambda q, k: ["en/a", 42])
    message = str(caught.value)
    assert (
        "item 2 is a builtins.int, which is no retrieved document recall-gate can read" in message
    )
    assert "fix: return a list of card ids or file paths, dicts with an id field" in message
    assert "credentials" not in message


def test_the_retrievers_own_id_and_metadata_are_kept_beside_the_card() -> None:
    found = capture(
        lambda q, k: [
            {"id": "chroma-17", "metadata": {"source": "docs/en/b.md", "page": 3}},
            {"id": "/en/a/", "score": 0.5},
        ],
        CASES,
        k=2,
        kb=KB,
    )
    items = [
        item.model_dump(exclude_none=True)
        for item in found.artifacts[0].retrieved
        if not isinstance(item, str)
    ]
    assert items == [
        {"id": "chroma-17", "parent_id": "en/b", "metadata": {"source": "docs/en/b.md", "page": 3}},
        {"id": "/en/a/", "parent_id": "en/a", "score": 0.5},
    ]
    assert found.metadata_dropped == 0


def test_metadata_over_the_cap_is_left_out_and_counted() -> None:
    big = {"source": "docs/en/a.md", "text": "x" * MAX_ITEM_METADATA_BYTES}
    found = capture(lambda q, k: [{"metadata": big}, "en/b"], CASES, k=2, kb=KB)
    first = found.artifacts[0].retrieved[0]
    assert not isinstance(first, str)
    assert (first.card_id, first.metadata) == ("en/a", None)
    assert found.metadata_dropped == 1
    # Metadata that is no JSON (NaN) is left out too, never written as invalid JSON.
    found = capture(
        lambda q, k: [{"id": "en/a", "metadata": {"x": float("nan")}}], CASES, k=1, kb=KB
    )
    assert found.metadata_dropped == 1


def test_metadata_paths_inside_the_project_are_kept_relative_to_its_root(
    tmp_path: Path,
) -> None:
    project = tmp_path / "runner" / "app"
    (project / ".git").mkdir(parents=True)
    docs = project / "docs" / "en"
    docs.mkdir(parents=True)
    for name in ("a", "b"):
        (docs / f"{name}.md").write_text(f"# {name.upper()}\n\nText of {name}.\n", encoding="utf-8")
    metadata = {
        "source": str(docs / "b.md"),
        "elsewhere": "/etc/hosts",
        "page": 3,
        "nested": {"path": str(docs / "b.md")},
    }
    found = capture(
        lambda q, k: [{"id": "chroma-17", "metadata": metadata}],
        CASES,
        k=1,
        kb=project / "docs",
    )
    item = found.artifacts[0].retrieved[0]
    assert not isinstance(item, str)
    assert item.card_id == "en/b"
    assert item.metadata == {
        "source": "docs/en/b.md",
        "elsewhere": "/etc/hosts",  # outside the project: as the retriever gave it
        "page": 3,
        "nested": {"path": str(docs / "b.md")},  # top-level values only
    }
