"""The embedding cache: keys, namespaces, persistence, and "cached → no model load"."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from recall_gate.adapters.config import EmbedderSettings
from recall_gate.runner.cache import CACHE_FILE, EmbeddingCache, cache_namespace, text_key
from recall_gate.runner.embedder import Embedder, embed_texts
from recall_gate.runner.model_source import sha256_file

ABC_SHA256 = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


class CountingEmbedder(Embedder):
    """A stand-in with no model: vectors from text length; counts loads and texts."""

    def __init__(self) -> None:
        super().__init__(EmbedderSettings())
        self.loads = 0
        self.encoded: list[str] = []

    @property
    def loaded(self) -> bool:
        return self.loads > 0

    def identity(self, **_: object) -> str:
        return "counting@v1"

    def load(self, *, progress: bool = False) -> None:
        self.loads += 1

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> npt.NDArray[np.float32]:
        if not self.loaded:
            self.load()
        self.encoded.extend(texts)
        return np.array([[len(t), 1.0, 0.5] for t in texts], dtype=np.float32)


def test_text_key_is_the_sha256_of_the_utf8_text() -> None:
    assert text_key("abc") == ABC_SHA256
    assert text_key("não") != text_key("nao")


def test_namespace_changes_with_the_model_and_normalisation() -> None:
    base = cache_namespace("m@sha256:1", normalize=True)
    assert base == "m@sha256:1|normalize=1"
    assert cache_namespace("m@sha256:2", normalize=True) != base
    assert cache_namespace("m@sha256:1", normalize=False) != base


def test_vectors_round_trip_exactly_and_persist(tmp_path: Path) -> None:
    vec = np.array([0.1, -2.5, 3.0e-8], dtype=np.float32)
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many("ns", [("k1", vec)])
        assert cache.get_many("ns", ["k1", "k2"]).keys() == {"k1"}
    with EmbeddingCache(tmp_path) as reopened:
        got = reopened.get_many("ns", ["k1"])["k1"]
    assert got.dtype == np.float32
    assert np.array_equal(got, vec)


def test_namespaces_do_not_see_each_other(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many("model-a", [("k", np.ones(3, dtype=np.float32))])
        assert cache.get_many("model-b", ["k"]) == {}


def test_lookups_beyond_sqlites_parameter_limit(tmp_path: Path) -> None:
    keys = [f"k{i}" for i in range(2500)]
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many("ns", [(k, np.full(2, i, dtype=np.float32)) for i, k in enumerate(keys)])
        got = cache.get_many("ns", keys)
    assert len(got) == 2500
    assert got["k2499"][0] == 2499


def test_a_cache_of_another_schema_version_is_dropped(tmp_path: Path) -> None:
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many("ns", [("k", np.ones(3, dtype=np.float32))])
    db = sqlite3.connect(tmp_path / CACHE_FILE)
    with db:
        db.execute("UPDATE meta SET value = '0' WHERE key = 'schema'")
    db.close()
    with EmbeddingCache(tmp_path) as cache:
        assert cache.get_many("ns", ["k"]) == {}


def test_file_digest_is_memoised_until_the_file_changes(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"v1")
    with EmbeddingCache(tmp_path / "cache") as cache:
        first = cache.file_digest(weights)
        assert first == sha256_file(weights)
        weights.write_bytes(b"v2-longer")
        os.utime(weights, ns=(1, 1))
        assert cache.file_digest(weights) == sha256_file(weights) != first


def test_embed_texts_encodes_each_distinct_text_once_then_serves_from_cache(
    tmp_path: Path,
) -> None:
    texts = ["alpha", "beta", "alpha"]
    embedder = CountingEmbedder()
    with EmbeddingCache(tmp_path) as cache:
        cold = embed_texts(texts, embedder=embedder, cache=cache, progress=False)
    assert embedder.encoded == ["alpha", "beta"]
    assert (cold.encoded, cold.from_cache) == (3, 0)
    assert cold.vectors[:, 0].tolist() == [5.0, 4.0, 5.0]

    fresh = CountingEmbedder()
    with EmbeddingCache(tmp_path) as cache:
        warm = embed_texts(texts, embedder=fresh, cache=cache, progress=False)
    assert fresh.loads == 0  # every text cached: the model is never loaded
    assert (warm.encoded, warm.from_cache) == (0, 3)
    assert np.array_equal(warm.vectors, cold.vectors)


def test_embed_texts_without_a_cache_always_encodes() -> None:
    embedder = CountingEmbedder()
    result = embed_texts(["a", "b"], embedder=embedder, cache=None, progress=False)
    assert (result.encoded, result.from_cache, embedder.loads) == (2, 0, 1)


def test_on_load_wraps_the_model_load(tmp_path: Path) -> None:
    calls: list[str] = []

    def on_load(load: object) -> None:
        calls.append("before")
        assert callable(load)
        load()
        calls.append("after")

    embedder = CountingEmbedder()
    with EmbeddingCache(tmp_path) as cache:
        embed_texts(["x"], embedder=embedder, cache=cache, progress=False, on_load=on_load)
        embed_texts(
            ["x"], embedder=CountingEmbedder(), cache=cache, progress=False, on_load=on_load
        )
    assert calls == ["before", "after"]  # the second call needed no model


def test_an_unwritable_cache_directory_is_an_input_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    from recall_gate.errors import InputError

    with pytest.raises(InputError, match="cannot open the embedding cache") as info:
        EmbeddingCache(blocker / "cache")
    assert "only a cache" in info.value.fix
