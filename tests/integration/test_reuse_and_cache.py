"""A persistent store is reused, a changed card is re-ingested alone, and a warm
embedding cache lets a run skip loading the model."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import StoreSettings
from recall_gate.runner import Embedder, chunk_card

from .helpers import Reference, config_for, ranked_chunks, run_capture, unique_collection

pytestmark = pytest.mark.integration


def reopen_from_disk() -> None:
    """Forget in-process Chroma clients, so the next client reads the files again."""
    from chromadb.api.shared_system_client import SharedSystemClient

    SharedSystemClient.clear_system_cache()


def test_persistent_store_is_reused_and_changed_cards_reingested(
    reference: Reference, shared_embedder: Embedder, embedding_cache: Path, tmp_path: Path
) -> None:
    store = StoreSettings(path=tmp_path / "chroma", collection=unique_collection("persist"))
    config = config_for(reference, embedding_cache, store=store)

    first = run_capture(config, reference, shared_embedder)
    assert first.ingest.outcome == "created"
    assert first.ingest.chunks_written == first.ingest.chunks

    reopen_from_disk()
    second = run_capture(config, reference, shared_embedder)
    assert second.ingest.outcome == "reused"
    assert (second.ingest.chunks_written, second.ingest.chunks_embedded) == (0, 0)
    assert ranked_chunks(second) == ranked_chunks(first)

    # Edit one card: exactly its chunks are deleted and re-ingested.
    target = reference.cards[0]
    edited = target.model_copy(update={"body": target.body + "\n\nNew: parking is validated."})
    cards = [edited, *reference.cards[1:]]
    reopen_from_disk()
    third = run_capture(config, reference, shared_embedder, cards=cards)
    assert third.ingest.outcome == "updated"
    assert (third.ingest.cards_reingested, third.ingest.cards_removed) == (1, 0)
    assert third.ingest.chunks_written == len(chunk_card(edited, config.chunking))
    assert third.ingest.chunks_deleted == len(chunk_card(target, config.chunking))
    # The updated store answers exactly like a fresh ingest of the edited KB.
    fresh = run_capture(
        config_for(reference, embedding_cache), reference, shared_embedder, cards=cards
    )
    assert ranked_chunks(third) == ranked_chunks(fresh)


def test_a_warm_cache_skips_loading_the_model(
    reference: Reference, shared_embedder: Embedder, embedding_cache: Path
) -> None:
    # Make sure every text is in the shared cache (a no-op if another test did it).
    run_capture(config_for(reference, embedding_cache), reference, shared_embedder)

    fresh = Embedder(reference.config.embedder)  # never loaded
    warm = run_capture(config_for(reference, embedding_cache), reference, fresh)
    assert not fresh.loaded
    assert not warm.model_loaded
    assert warm.ingest.chunks_embedded == 0
    assert warm.ingest.chunks_from_cache == warm.ingest.chunks
    assert (warm.queries_embedded, warm.queries_from_cache) == (0, len(reference.cases))
    assert warm.timings_ms["model_load"] < 1000  # identity from the memoised file digests
