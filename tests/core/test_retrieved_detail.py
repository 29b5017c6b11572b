"""What the retriever said of a card it returned: its own chunk id and a short
metadata summary, bounded, for "what came back instead"."""

from __future__ import annotations

from recall_gate.core.records import RetrievedDetail, RetrievedItem
from recall_gate.core.retrieved_detail import SUMMARY_CHARS, detail_data, metadata_summary


def test_the_metadata_summary_puts_source_section_title_page_and_url_first() -> None:
    metadata = {"lang": "en", "url": "/docs/a/", "page": 3, "source": "docs/a.md", "title": "A"}
    assert metadata_summary(metadata) == (
        "source: docs/a.md, title: A, page: 3, url: /docs/a/, lang: en"
    )


def test_the_metadata_summary_keeps_scalars_only_on_one_line() -> None:
    metadata = {"tags": ["a", "b"], "menu": {"main": 1}, "blank": " ", "section": "Set\nup  now"}
    assert metadata_summary(metadata) == "section: Set up now"
    assert metadata_summary({"tags": ["a"]}) is None
    assert metadata_summary(None) is None


def test_a_huge_metadata_summary_is_cut_at_its_bound_with_an_ellipsis() -> None:
    summary = metadata_summary({"source": "s" * 5000, **{f"k{i}": i for i in range(1000)}})
    assert summary is not None
    assert len(summary) == SUMMARY_CHARS
    assert summary.startswith("source: sss")
    assert summary.endswith("…")


def test_a_chunk_id_is_kept_only_when_it_differs_from_the_card_id() -> None:
    items = [
        RetrievedItem(id="chroma-17", parent_id="en/b"),
        RetrievedItem(id="en/a", metadata={"source": "docs/en/a.md"}),
        "en/c",
    ]
    assert detail_data(items, ["en/b", "en/a", "en/c"]) == {
        "en/b": {"chunk_id": "chroma-17"},
        "en/a": {"metadata": "source: docs/en/a.md"},
    }


def test_a_card_s_first_document_speaks_for_it_and_only_top_k_cards_are_kept() -> None:
    items = [
        RetrievedItem(id="b#1", parent_id="en/b"),
        RetrievedItem(id="b#2", parent_id="en/b", metadata={"section": "Later"}),
        "en/a",
        RetrievedItem(id="a#9", parent_id="en/a"),  # not its first document
        RetrievedItem(id="c#1", parent_id="en/c"),  # beyond the top k
    ]
    assert detail_data(items, ["en/b", "en/a"]) == {"en/b": {"chunk_id": "b#1"}}
    assert detail_data(["en/a", "en/b"], ["en/a", "en/b"]) is None


def test_a_huge_chunk_id_is_cut_at_the_bound() -> None:
    detail = detail_data([RetrievedItem(id="x" * 10_000, parent_id="en/a")], ["en/a"])
    assert detail is not None
    chunk = detail["en/a"]["chunk_id"]
    assert len(chunk) == SUMMARY_CHARS
    assert chunk.endswith("…")


def test_a_detail_is_written_without_its_empty_fields() -> None:
    assert RetrievedDetail(chunk_id="c-1").model_dump(mode="json") == {"chunk_id": "c-1"}
