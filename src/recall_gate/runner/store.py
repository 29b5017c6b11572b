"""The Chroma store: where chunk vectors live, and when they can be reused.

Clients: embedded in memory (``store.kind: embedded``, no ``path``), embedded
on disk (``path``), or a Chroma server (``kind: server``, ``host``/``port``,
started with ``chroma run``). Each client gets a fresh ``Settings`` with
telemetry off. Vectors are always passed in (collections are created without
an embedding function: Chroma's default one downloads a model), in cosine
space, so a score is ``1 - distance`` = cosine similarity. Chroma searches an
HNSW graph; ``store.ef_search`` (default 256, Chroma's is 100) widens the
search so that the whole candidate list, not just its head, is the same from
one build of the index to the next (embedded or server alike).

Reuse and re-ingest policy (per card, recorded in the store itself):

* The collection's metadata holds the layout version, the embedder identity
  and a KB fingerprint (a digest of every card's chunks). Each chunk's
  metadata holds its ``parent_id``, ``language`` and its card's digest
  (``card_hash``, over the card's chunk ids and texts, so a chunking change
  shows up too).
* Same embedder and same KB fingerprint and chunk count → **reused**: nothing
  is embedded or written.
* Same embedder, different KB → **updated**: only the cards whose digest or
  chunk ids differ are re-ingested (their old chunks deleted, new ones added);
  removed cards' chunks are deleted; unchanged cards are untouched. The
  fingerprint is cleared before the first write and set after the last, so an
  interrupted update is never mistaken for a complete one.
* Different embedder identity or layout → **rebuilt**: every vector is from
  another model, so the collection is dropped and created again.
* A collection of that name not made by recall-gate is never touched: that is
  an input error.
"""

from __future__ import annotations

import hashlib
import json
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from recall_gate.adapters.config import StoreSettings
from recall_gate.core.records import Chunk
from recall_gate.errors import InputError
from recall_gate.runner.expansion import ScoredChunk

__all__ = [
    "LAYOUT_VERSION",
    "ChunkStore",
    "SyncReport",
    "UpdatePlan",
    "card_hashes",
    "describe_store",
    "kb_fingerprint",
    "open_client",
    "plan_update",
    "store_errors",
]

LAYOUT_VERSION = 1
_MARKER = "recall_gate_layout"
_QUERY_BATCH = 256
_GET_PAGE = 2000

_INSTALL_FIX = "install the runner's extra: pip install 'recall-gate[retrieval]'"

SyncOutcome = Literal["created", "reused", "updated", "rebuilt"]


def describe_store(settings: StoreSettings) -> str:
    """Where the store is, for log lines and messages."""
    if settings.kind == "server":
        return f"Chroma server at http://{settings.host}:{settings.port}"
    if settings.path is None:
        return "embedded Chroma (in memory)"
    return f"embedded Chroma at {settings.path}"


def open_client(settings: StoreSettings) -> Any:
    """A Chroma client for the settings, or an :class:`InputError` saying why not."""
    try:
        import chromadb
        from chromadb.config import Settings
    except ImportError:
        raise InputError(
            "the built-in runner needs chromadb, which is not installed", fix=_INSTALL_FIX
        ) from None
    chroma_settings = Settings(anonymized_telemetry=False)
    try:
        if settings.kind == "server":
            return chromadb.HttpClient(
                host=settings.host, port=settings.port, settings=chroma_settings
            )
        if settings.path is None:
            return chromadb.EphemeralClient(settings=chroma_settings)
        settings.path.mkdir(parents=True, exist_ok=True)
        return chromadb.PersistentClient(path=str(settings.path), settings=chroma_settings)
    except Exception as exc:  # connection refused, unwritable path, conflicting client
        detail = _first_line(exc)
        if settings.kind == "server":
            fix = (
                f"start the server (`chroma run --path DIR --host {settings.host} "
                f"--port {settings.port}`), check store.host / store.port, "
                "or use `store: {kind: embedded}`"
            )
        else:
            fix = "make store.path a writable directory, or omit it for an in-memory store"
        raise InputError(f"cannot open {describe_store(settings)}: {detail}", fix=fix) from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


@contextmanager
def store_errors(settings: StoreSettings) -> Iterator[None]:
    """Turn a Chroma failure in the middle of a run (a server that went away, a
    full disk) into one :class:`InputError` naming the store."""
    import httpx
    from chromadb.errors import ChromaError

    try:
        yield
    except (ChromaError, httpx.HTTPError) as exc:
        fix = (
            "check that the Chroma server is still running and reachable"
            if settings.kind == "server"
            else "check the store path's disk space and permissions"
        )
        raise InputError(
            f"{describe_store(settings)} failed during the run: {_first_line(exc)}", fix=fix
        ) from None


def _digest(payload: Any) -> str:
    blob = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def card_hashes(chunks: Sequence[Chunk], languages: Mapping[str, str]) -> dict[str, str]:
    """Per card: a digest of its language and its chunks' ids and texts, in order."""
    by_card: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for chunk in chunks:
        by_card[chunk.parent_id].append((chunk.id, chunk.text))
    return {card: _digest([languages[card], parts]) for card, parts in by_card.items()}


def kb_fingerprint(hashes: Mapping[str, str]) -> str:
    """A digest of every card's digest: equal iff the chunked KB is equal."""
    return _digest(sorted(hashes.items()))


@dataclass(frozen=True)
class UpdatePlan:
    """What an incremental sync does: cards to (re)write and chunk ids to delete."""

    write_cards: frozenset[str]
    delete_ids: tuple[str, ...]
    removed_cards: int


def plan_update(
    expected: Mapping[str, tuple[set[str], str]],
    stored: Mapping[str, tuple[set[str], set[str]]],
) -> UpdatePlan:
    """Diff the KB against the store, card by card (pure).

    ``expected``: card → (its chunk ids, its digest) for the KB of this run.
    ``stored``: card → (chunk ids found, digests found on them) in the store.
    A card is rewritten when it is new, when its digest differs, or when its
    stored chunks are not exactly its expected ones (an interrupted write);
    its stored chunks are deleted first. A stored card no longer in the KB is
    deleted. Everything else is left untouched.
    """
    write: set[str] = {card for card in expected if card not in stored}
    delete: list[str] = []
    removed = 0
    for card, (ids_found, digests_found) in stored.items():
        if card not in expected:
            removed += 1
            delete.extend(ids_found)
            continue
        ids_expected, digest = expected[card]
        if digests_found != {digest} or ids_found != ids_expected:
            write.add(card)
            delete.extend(ids_found)
    return UpdatePlan(frozenset(write), tuple(sorted(delete)), removed)


@dataclass(frozen=True)
class SyncReport:
    """What :meth:`ChunkStore.sync` did."""

    outcome: SyncOutcome
    cards_reingested: int
    cards_removed: int
    chunks_written: int
    chunks_deleted: int
    reason: str


class ChunkStore:
    """One Chroma collection of chunk vectors, synced to a KB (module docstring)."""

    def __init__(self, client: Any, name: str, *, embedder_id: str, ef_search: int = 256) -> None:
        self._client = client
        self.name = name
        self._embedder_id = embedder_id
        self._ef_search = ef_search
        self._collection: Any = None

    def _metadata(self, fingerprint: str, chunks: int) -> dict[str, Any]:
        return {
            _MARKER: LAYOUT_VERSION,
            "embedder": self._embedder_id,
            "kb_fingerprint": fingerprint,
            "chunks": chunks,
            "ef_search": self._ef_search,
        }

    def _create(self) -> Any:
        return self._client.create_collection(
            self.name,
            metadata=self._metadata("", 0),
            configuration={"hnsw": {"space": "cosine", "ef_search": self._ef_search}},
            embedding_function=None,
        )

    def _existing(self) -> Any:
        from chromadb.errors import NotFoundError

        try:
            return self._client.get_collection(self.name, embedding_function=None)
        except NotFoundError:
            return None

    def _tune(self, collection: Any, meta: dict[str, Any]) -> None:
        """Apply ``ef_search`` to a reused collection (a search setting: no re-ingest).

        The value is mirrored in the metadata: reading Chroma's configuration
        back warns about our (deliberately absent) embedding function.
        """
        if meta.get("ef_search") != self._ef_search:
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "legacy embedding function config")
                collection.modify(
                    metadata={**meta, "ef_search": self._ef_search},
                    configuration={"hnsw": {"ef_search": self._ef_search}},
                )

    def _existing_cards(self, collection: Any) -> dict[str, tuple[set[str], set[str]]]:
        """card id → (its chunk ids, the card hashes found on them), paged."""
        cards: dict[str, tuple[set[str], set[str]]] = defaultdict(lambda: (set(), set()))
        offset = 0
        while True:
            page = collection.get(include=["metadatas"], limit=_GET_PAGE, offset=offset)
            ids = page["ids"]
            if not ids:
                return dict(cards)
            for ident, stored in zip(ids, page["metadatas"], strict=True):
                meta = stored or {}
                ids_of, hashes_of = cards[str(meta.get("parent_id", ""))]
                ids_of.add(ident)
                hashes_of.add(str(meta.get("card_hash", "")))
            offset += len(ids)

    def sync(
        self,
        chunks: Sequence[Chunk],
        languages: Mapping[str, str],
        *,
        embed: Callable[[Sequence[Chunk]], npt.NDArray[np.float32]],
        progress: bool,
    ) -> SyncReport:
        """Make the collection hold exactly ``chunks`` (policy: module docstring).

        ``embed`` is called at most once, with only the chunks to be written.
        """
        hashes = card_hashes(chunks, languages)
        fingerprint = kb_fingerprint(hashes)
        collection = self._existing()
        everything = UpdatePlan(frozenset(hashes), (), 0)
        if collection is None:
            outcome: SyncOutcome = "created"
            reason = "new collection"
            collection, plan = self._create(), everything
        else:
            meta = collection.metadata or {}
            if _MARKER not in meta:
                raise InputError(
                    f"Chroma collection {self.name!r} exists but was not created by recall-gate",
                    fix="set store.collection to another name; recall-gate never "
                    "modifies a collection it did not create",
                )
            self._tune(collection, meta)
            if meta.get(_MARKER) != LAYOUT_VERSION or meta.get("embedder") != self._embedder_id:
                outcome = "rebuilt"
                reason = (
                    f"embedder changed ({meta.get('embedder')} → {self._embedder_id})"
                    if meta.get("embedder") != self._embedder_id
                    else "store layout changed"
                )
                self._client.delete_collection(self.name)
                collection, plan = self._create(), everything
            elif meta.get("kb_fingerprint") == fingerprint and collection.count() == len(chunks):
                self._collection = collection
                return SyncReport("reused", 0, 0, 0, 0, "KB, chunking and embedder unchanged")
            else:
                outcome = "updated"
                # Cleared first: an interrupted update must not look complete.
                collection.modify(metadata=self._metadata("", int(meta.get("chunks", 0))))
                expected: dict[str, tuple[set[str], str]] = {
                    card: (set(), digest) for card, digest in hashes.items()
                }
                for chunk in chunks:
                    expected[chunk.parent_id][0].add(chunk.id)
                plan = plan_update(expected, self._existing_cards(collection))
                reason = (
                    f"{len(plan.write_cards)} card(s) new or changed, {plan.removed_cards} removed"
                )
        self._collection = collection
        to_write = self._apply(
            collection,
            plan,
            chunks=chunks,
            hashes=hashes,
            languages=languages,
            embed=embed,
            progress=progress,
        )
        collection.modify(metadata=self._metadata(fingerprint, len(chunks)))
        return SyncReport(
            outcome,
            cards_reingested=len(plan.write_cards) if outcome == "updated" else 0,
            cards_removed=plan.removed_cards,
            chunks_written=to_write,
            chunks_deleted=len(plan.delete_ids),
            reason=reason,
        )

    def _apply(
        self,
        collection: Any,
        plan: UpdatePlan,
        *,
        chunks: Sequence[Chunk],
        hashes: Mapping[str, str],
        languages: Mapping[str, str],
        embed: Callable[[Sequence[Chunk]], npt.NDArray[np.float32]],
        progress: bool,
    ) -> int:
        """Delete the plan's stale chunks, then embed and add its cards' chunks."""
        batch = int(self._client.get_max_batch_size())
        for start in range(0, len(plan.delete_ids), batch):
            collection.delete(ids=list(plan.delete_ids[start : start + batch]))
        to_write = [c for c in chunks if c.parent_id in plan.write_cards]
        if to_write:
            vectors = embed(to_write)
            starts: Iterable[int] = range(0, len(to_write), batch)
            if progress:
                from tqdm import tqdm

                starts = tqdm(starts, desc="ingest", unit="batch")
            for start in starts:
                part = to_write[start : start + batch]
                collection.add(
                    ids=[c.id for c in part],
                    embeddings=vectors[start : start + batch],
                    metadatas=[
                        {
                            "parent_id": c.parent_id,
                            "card_hash": hashes[c.parent_id],
                            "language": languages[c.parent_id],
                        }
                        for c in part
                    ],
                )
        return len(to_write)

    def count(self) -> int:
        return int(self._require().count())

    def _require(self) -> Any:
        if self._collection is None:
            raise RuntimeError("ChunkStore.sync() must run before queries")
        return self._collection

    def query(
        self,
        vectors: npt.NDArray[np.float32],
        *,
        n: int,
        language: str | None = None,
        progress: bool = False,
    ) -> list[list[ScoredChunk]]:
        """Top ``n`` chunks per query vector, best first; score = cosine similarity.

        ``language`` restricts the search to chunks of cards in that language.
        Queries go to Chroma in batches (one round trip each for a server).
        """
        collection = self._require()
        n = min(n, collection.count())
        if n == 0 or len(vectors) == 0:
            return [[] for _ in range(len(vectors))]
        where = {"language": language} if language is not None else None
        out: list[list[ScoredChunk]] = []
        starts: Iterable[int] = range(0, len(vectors), _QUERY_BATCH)
        if progress:
            from tqdm import tqdm

            starts = tqdm(starts, desc="search", unit="batch")
        for start in starts:
            result = collection.query(
                query_embeddings=vectors[start : start + _QUERY_BATCH],
                n_results=n,
                where=where,
                include=["metadatas", "distances"],
            )
            for ids, metas, distances in zip(
                result["ids"], result["metadatas"], result["distances"], strict=True
            ):
                out.append(
                    [
                        ScoredChunk(ident, str((meta or {})["parent_id"]), 1.0 - float(dist))
                        for ident, meta, dist in zip(ids, metas, distances, strict=True)
                    ]
                )
        return out
