"""A Chroma server (`chroma run` on 127.0.0.1) ranks exactly like embedded Chroma."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import StoreSettings
from recall_gate.runner import Embedder

from .helpers import Reference, config_for, ranked_chunks, run_capture, unique_collection

pytestmark = pytest.mark.integration


def test_server_and_embedded_give_identical_rankings(
    reference: Reference,
    shared_embedder: Embedder,
    embedding_cache: Path,
    chroma_server: StoreSettings,
) -> None:
    embedded = run_capture(config_for(reference, embedding_cache), reference, shared_embedder)
    server_store = chroma_server.model_copy(update={"collection": unique_collection("srv")})
    on_server = run_capture(
        config_for(reference, embedding_cache, store=server_store), reference, shared_embedder
    )
    assert on_server.ingest.store == f"Chroma server at http://127.0.0.1:{chroma_server.port}"
    assert on_server.ingest.outcome == "created"
    assert ranked_chunks(on_server) == ranked_chunks(embedded)
    for a, b in zip(on_server.artifacts, embedded.artifacts, strict=True):
        scores_a = [getattr(item, "score", None) for item in a.retrieved]
        scores_b = [getattr(item, "score", None) for item in b.retrieved]
        assert scores_a == pytest.approx(scores_b, abs=1e-5)

    # A second run against the server reuses the collection: nothing re-ingested.
    again = run_capture(
        config_for(reference, embedding_cache, store=server_store), reference, shared_embedder
    )
    assert (again.ingest.outcome, again.ingest.chunks_written) == ("reused", 0)
    assert ranked_chunks(again) == ranked_chunks(embedded)
