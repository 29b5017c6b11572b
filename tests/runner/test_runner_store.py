"""The store's reuse / re-ingest policy: a pure diff, then real (embedded) Chroma.

No model: vectors come from a fixed function of the chunk text.
"""

from __future__ import annotations

import hashlib
import uuid
import warnings
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from recall_gate.adapters.config import StoreSettings
from recall_gate.core.records import Chunk
from recall_gate.errors import InputError
from recall_gate.runner.store import (
    ChunkStore,
    UpdatePlan,
    card_hashes,
    kb_fingerprint,
    open_client,
    plan_update,
    store_errors,
)

# --- the pure diff ------------------------------------------------------------


def test_unchanged_cards_are_left_alone() -> None:
    expected = {"a": ({"a#1", "a#2"}, "h1")}
    stored = {"a": ({"a#1", "a#2"}, {"h1"})}
    assert plan_update(expected, stored) == UpdatePlan(frozenset(), (), 0)


def test_a_changed_card_is_deleted_and_rewritten() -> None:
    expected = {"a": ({"a#1"}, "new"), "b": ({"b#1"}, "hb")}
    stored = {"a": ({"a#1", "a#2"}, {"old"}), "b": ({"b#1"}, {"hb"})}
    assert plan_update(expected, stored) == UpdatePlan(frozenset({"a"}), ("a#1", "a#2"), 0)


def test_a_new_card_is_written_and_a_removed_card_deleted() -> None:
    expected = {"new": ({"new#1"}, "h")}
    stored = {"gone": ({"gone#1", "gone#2"}, {"h"})}
    assert plan_update(expected, stored) == UpdatePlan(frozenset({"new"}), ("gone#1", "gone#2"), 1)


def test_a_half_written_card_is_rewritten() -> None:
    # Same digest, but one chunk missing (an interrupted add) or stray digests mixed in.
    expected = {"a": ({"a#1", "a#2"}, "h"), "b": ({"b#1"}, "h2")}
    stored = {"a": ({"a#1"}, {"h"}), "b": ({"b#1"}, {"h2", "old"})}
    plan = plan_update(expected, stored)
    assert plan.write_cards == {"a", "b"}
    assert plan.delete_ids == ("a#1", "b#1")


def test_card_hash_covers_text_ids_and_language() -> None:
    chunks = [Chunk(id="a#1", parent_id="a", text="x")]
    base = card_hashes(chunks, {"a": "en"})
    assert card_hashes([Chunk(id="a#1", parent_id="a", text="y")], {"a": "en"}) != base
    assert card_hashes([Chunk(id="a#2", parent_id="a", text="x")], {"a": "en"}) != base
    assert card_hashes(chunks, {"a": "pt-BR"}) != base
    assert kb_fingerprint(base) == kb_fingerprint(dict(base))


# --- real Chroma, in memory ----------------------------------------------------


def vectors(chunks: Sequence[Chunk]) -> npt.NDArray[np.float32]:
    """A fixed, distinct unit vector per text (no model)."""
    rows = []
    for chunk in chunks:
        seed = int.from_bytes(hashlib.sha256(chunk.text.encode()).digest()[:4], "little")
        rng = np.random.default_rng(seed)
        v = rng.standard_normal(8).astype(np.float32)
        rows.append(v / np.linalg.norm(v))
    return np.stack(rows)


class Recorder:
    """The ``embed`` callback: records which chunks had to be embedded."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, chunks: Sequence[Chunk]) -> npt.NDArray[np.float32]:
        self.calls.append([c.id for c in chunks])
        return vectors(chunks)


def kb(**texts: str) -> tuple[list[Chunk], dict[str, str]]:
    chunks = [
        Chunk(id=f"{card}#{n}", parent_id=card, text=part)
        for card, text in texts.items()
        for n, part in enumerate(text.split("|"), start=1)
    ]
    return chunks, dict.fromkeys(texts, "en")


@pytest.fixture
def client() -> object:
    return open_client(StoreSettings())


def store(client: object, name: str, embedder_id: str = "m@1") -> ChunkStore:
    return ChunkStore(client, name, embedder_id=embedder_id)


def unique() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


def test_create_reuse_update_rebuild(client: object) -> None:
    name = unique()
    chunks, langs = kb(a="a one|a two", b="b one", c="c one")

    embed = Recorder()
    first = store(client, name).sync(chunks, langs, embed=embed, progress=False)
    assert (first.outcome, first.chunks_written) == ("created", 4)
    assert embed.calls == [["a#1", "a#2", "b#1", "c#1"]]

    embed = Recorder()
    again = store(client, name).sync(chunks, langs, embed=embed, progress=False)
    assert (again.outcome, again.chunks_written, embed.calls) == ("reused", 0, [])

    # b changes, c is removed, d is new: only b and d are embedded.
    changed, langs = kb(a="a one|a two", b="b one, edited", d="d one")
    embed = Recorder()
    updated = store(client, name).sync(changed, langs, embed=embed, progress=False)
    assert updated.outcome == "updated"
    assert (updated.cards_reingested, updated.cards_removed) == (2, 1)
    assert (updated.chunks_written, updated.chunks_deleted) == (2, 2)
    assert embed.calls == [["b#1", "d#1"]]
    s = store(client, name)
    assert s.sync(changed, langs, embed=Recorder(), progress=False).outcome == "reused"
    assert s.count() == 4

    embed = Recorder()
    rebuilt = store(client, name, embedder_id="m@2").sync(
        changed, langs, embed=embed, progress=False
    )
    assert rebuilt.outcome == "rebuilt"
    assert "embedder changed (m@1 → m@2)" in rebuilt.reason
    assert len(embed.calls[0]) == 4


def test_an_updated_store_answers_like_a_fresh_one(client: object) -> None:
    old, langs = kb(a="apples|pears", b="boats", c="cars")
    new, new_langs = kb(a="apples|plums", b="boats", e="eels")
    updated = store(client, unique())
    updated.sync(old, langs, embed=Recorder(), progress=False)
    updated.sync(new, new_langs, embed=Recorder(), progress=False)
    fresh = store(client, unique())
    fresh.sync(new, new_langs, embed=Recorder(), progress=False)
    queries = vectors(new)
    got, want = updated.query(queries, n=10), fresh.query(queries, n=10)
    assert [[(h.chunk_id, h.parent_id) for h in hits] for hits in got] == [
        [(h.chunk_id, h.parent_id) for h in hits] for hits in want
    ]
    for g, w in zip(got, want, strict=True):
        assert [h.score for h in g] == pytest.approx([h.score for h in w], abs=1e-5)


def test_query_scores_are_cosine_similarities_best_first(client: object) -> None:
    chunks, langs = kb(a="apples|pears", b="boats")
    s = store(client, unique())
    s.sync(chunks, langs, embed=Recorder(), progress=False)
    hits = s.query(vectors(chunks[:1]), n=10)[0]
    assert hits[0].chunk_id == "a#1"
    assert hits[0].parent_id == "a"
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)
    scores = [h.score or 0.0 for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert len(hits) == 3  # n is capped at the collection size


def test_query_can_be_limited_to_one_language(client: object) -> None:
    chunks, _ = kb(en="apples", es="manzanas", pt="maçãs")
    langs = {"en": "en", "es": "es-419", "pt": "pt-BR"}
    s = store(client, unique())
    s.sync(chunks, langs, embed=Recorder(), progress=False)
    hits = s.query(vectors(chunks[:1]), n=10, language="es-419")[0]
    assert [h.parent_id for h in hits] == ["es"]


def test_a_collection_not_made_by_recall_gate_is_never_touched(client: object) -> None:
    name = unique()
    client.create_collection(name, embedding_function=None)  # type: ignore[attr-defined]
    chunks, langs = kb(a="x")
    with pytest.raises(InputError, match="was not created by recall-gate") as info:
        store(client, name).sync(chunks, langs, embed=Recorder(), progress=False)
    assert "store.collection" in info.value.fix


def test_a_persistent_store_survives_a_new_client(tmp_path: Path) -> None:
    from chromadb.api.shared_system_client import SharedSystemClient

    settings = StoreSettings(path=tmp_path / "chroma")
    chunks, langs = kb(a="apples|pears", b="boats")
    name = unique()
    store(open_client(settings), name).sync(chunks, langs, embed=Recorder(), progress=False)
    SharedSystemClient.clear_system_cache()  # drop the in-process client: reopen from disk
    embed = Recorder()
    report = store(open_client(settings), name).sync(chunks, langs, embed=embed, progress=False)
    assert (report.outcome, embed.calls) == ("reused", [])


def test_an_unreachable_server_is_an_input_error() -> None:
    settings = StoreSettings(kind="server", host="127.0.0.1", port=9)  # discard port: closed
    with pytest.raises(
        InputError, match=r"cannot open Chroma server at http://127\.0\.0\.1:9"
    ) as info:
        open_client(settings)
    assert "chroma run --path DIR --host 127.0.0.1 --port 9" in info.value.fix


def test_an_unusable_store_path_is_an_input_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(InputError, match="cannot open embedded Chroma at") as info:
        open_client(StoreSettings(path=blocker / "chroma"))
    assert "store.path" in info.value.fix


def ef_search(client: object, name: str) -> int:
    with warnings.catch_warnings():  # reading the config warns about the absent embedder
        warnings.simplefilter("ignore", DeprecationWarning)
        config = client.get_collection(name).configuration  # type: ignore[attr-defined]
    return int(config["hnsw"]["ef_search"])


def test_ef_search_is_set_on_create_and_updated_on_reuse(client: object) -> None:
    name = unique()
    chunks, langs = kb(a="apples")
    ChunkStore(client, name, embedder_id="m@1", ef_search=300).sync(
        chunks, langs, embed=Recorder(), progress=False
    )
    assert ef_search(client, name) == 300
    report = ChunkStore(client, name, embedder_id="m@1", ef_search=400).sync(
        chunks, langs, embed=Recorder(), progress=False
    )
    assert report.outcome == "reused"  # a search setting needs no re-ingest
    assert ef_search(client, name) == 400


def test_a_server_lost_mid_run_is_an_input_error() -> None:
    import httpx

    settings = StoreSettings(kind="server", host="127.0.0.1", port=8000)
    with (
        pytest.raises(
            InputError, match=r"Chroma server at .* failed during the run: refused"
        ) as info,
        store_errors(settings),
    ):
        raise httpx.ConnectError("refused")
    assert "still running" in info.value.fix
