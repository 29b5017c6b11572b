"""``run_pipeline()``: ingest a KB into Chroma, retrieve every case, record artifacts.

This is the built-in runner behind ``recall-gate run``. It writes exactly the
artifacts format that ``recall-gate score`` reads (one scoring path for both):
per case, the ranked cards after parent expansion, each as its best chunk
(``id`` = chunk id, ``parent_id`` = card id, ``score``), plus the case's own
fields, so a saved capture is self-contained. Every distinct card found among
the ``candidates`` chunks is kept, not only the top k, so a capture can be
re-scored at a larger k.

Stages, timed exclusively (:class:`~recall_gate.runner.timing.Stopwatch`):
``model_load`` (resolving the model identity, and loading models when
needed), ``chunk``, ``embed_kb``, ``ingest``, ``embed_queries``, ``retrieve``,
``rerank``. Per-case ``timings_ms`` hold ``embed_query`` (the batch's time
shared equally, since queries are embedded together), ``retrieve`` (the
batched dense search shared equally, plus the case's own BM25 and fusion)
and, when enabled, ``rerank`` (the case's own cross-encoder time).

Logged queries (a query log, ``queries:``) are asked with the cases, through
the same store and the same settings (embedding, hybrid, rerank, expansion):
their card ids come back in :attr:`PipelineRun.logged`, never as artifacts
(they have no labels and are never scored).

Output: progress bars (tqdm, on stderr) only when ``progress`` is true (the
CLI passes "stderr is a terminal"); a few summary lines through ``log``
either way, never a bar in CI logs.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from recall_gate.adapters.config import Config
from recall_gate.core.card_language import reader_ranking
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.records import Artifact, Card, Case, Chunk, RetrievedItem
from recall_gate.errors import InputError
from recall_gate.runner.bm25 import Bm25Index
from recall_gate.runner.cache import EmbeddingCache
from recall_gate.runner.chunking import chunk_cards
from recall_gate.runner.embedder import Embedder, EmbedResult, embed_texts
from recall_gate.runner.expansion import ScoredChunk, expand_to_parents
from recall_gate.runner.model_source import sha256_file
from recall_gate.runner.pace import Pace
from recall_gate.runner.rerank import Reranker
from recall_gate.runner.retrieval import fuse_hybrid
from recall_gate.runner.store import (
    ChunkStore,
    SyncOutcome,
    describe_store,
    open_client,
    store_errors,
)
from recall_gate.runner.timing import Stopwatch

__all__ = ["STAGES", "IngestReport", "PipelineRun", "run_pipeline"]

STAGES: tuple[str, ...] = (
    "model_load",
    "chunk",
    "embed_kb",
    "ingest",
    "embed_queries",
    "retrieve",
    "rerank",
)
_SCORE_DIGITS = 6
_TIMING_DIGITS = 3

T = TypeVar("T")


@dataclass(frozen=True)
class IngestReport:
    """How the KB reached the store (see :mod:`recall_gate.runner.store`).

    ``outcome``: ``created`` (new collection), ``reused`` (nothing written),
    ``updated`` (only changed cards re-ingested) or ``rebuilt`` (another
    embedder had built it). Chunk counts: ``chunks_written`` went into the
    store, of which ``chunks_embedded`` were encoded by the model and
    ``chunks_from_cache`` came from the embedding cache.
    """

    store: str
    collection: str
    outcome: SyncOutcome
    reason: str
    cards: int
    chunks: int
    cards_reingested: int
    cards_removed: int
    chunks_written: int
    chunks_deleted: int
    chunks_embedded: int
    chunks_from_cache: int

    @property
    def reused(self) -> bool:
        return self.outcome == "reused"


@dataclass(frozen=True)
class PipelineRun:
    """The result of :func:`capture`: artifacts plus how the run went."""

    artifacts: list[Artifact]
    embedder_id: str
    timings_ms: dict[str, float]
    ingest: IngestReport
    queries_embedded: int
    queries_from_cache: int
    model_loaded: bool
    # Each logged query's distinct card ids, best first (every candidate's card,
    # like an artifact's), in log order.
    logged: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Asked:
    """A query the run asks: a case's, or a logged query's (``language`` None:
    it names none, so ``same_language`` does not restrict it)."""

    id: str
    query: str
    language: str | None


def _check_unique(cards: Sequence[Card]) -> None:
    """A card is (language, id): translations share an id, one language may not."""
    seen = Counter((str(c.language), c.id) for c in cards)
    dupes = sorted(f"{ident} ({language})" for (language, ident), n in seen.items() if n > 1)
    if dupes:
        raise InputError(
            f"duplicate card id(s) in the KB: {', '.join(dupes[:5])}",
            fix="give each card of a language a unique id (`recall-gate check` lists them all)",
        )


def _store_keys(cards: Sequence[Card]) -> tuple[list[Card], dict[str, str]]:
    """The cards as the store keys them, and each key's card id.

    Translations that share an id (Docusaurus, Hugo ``page.<lang>.md``) are kept
    apart in the store as ``id@language``; everything the runner returns names
    the card id again, so a capture of a translated KB reads like any other."""
    languages_of: dict[str, set[str]] = {}
    for card in cards:
        languages_of.setdefault(card.id, set()).add(str(card.language))
    shared = {ident for ident, languages in languages_of.items() if len(languages) > 1}
    if not shared:
        return list(cards), {card.id: card.id for card in cards}
    keyed, card_of = [], {}
    for card in cards:
        key = f"{card.id}@{card.language}" if card.id in shared else card.id
        if key != card.id and key in languages_of:
            raise InputError(
                f"the KB has a card {key!r} and the {card.language} translation of "
                f"{card.id!r}, which the store would key alike",
                fix=f"rename the card {key!r}",
            )
        keyed.append(card if key == card.id else card.model_copy(update={"id": key}))
        card_of[key] = card.id
    return keyed, card_of


def _bar(
    items: Iterable[T], *, progress: bool, desc: str, total: int, pace: Pace | None = None
) -> Iterable[T]:
    if not progress:
        return items if pace is None else pace.each(items, desc, total, "cases")
    from tqdm import tqdm

    bar: Iterable[T] = tqdm(items, desc=desc, total=total, unit="case")
    return bar


def _item(chunk: ScoredChunk, card_of: dict[str, str]) -> RetrievedItem:
    # A capture's numbers are finite (a NaN distance, from a zero vector, is no score).
    raw = chunk.score
    score = round(raw, _SCORE_DIGITS) if raw is not None and math.isfinite(raw) else None
    parent = card_of.get(chunk.parent_id, chunk.parent_id)
    # A translation's store key is ``id@language``: the item names the card's language.
    language = chunk.parent_id.removeprefix(f"{parent}@") if chunk.parent_id != parent else None
    return RetrievedItem(id=chunk.chunk_id, parent_id=parent, score=score, language=language)


def _dense_search(
    store: ChunkStore,
    result: EmbedResult,
    cases: Sequence[_Asked],
    *,
    n: int,
    same_language: bool,
    progress: bool,
) -> list[list[ScoredChunk]]:
    if not same_language:
        return store.query(result.vectors, n=n, progress=progress)
    out: list[list[ScoredChunk]] = [[] for _ in cases]
    languages: set[str | None] = {c.language for c in cases}
    for language in sorted(languages, key=lambda lang: (lang is None, lang or "")):
        rows = [i for i, c in enumerate(cases) if c.language == language]
        found = store.query(result.vectors[rows], n=n, language=language, progress=progress)
        for row, hits in zip(rows, found, strict=True):
            out[row] = hits
    return out


def run_pipeline(
    config: Config,
    cards: Sequence[Card],
    cases: Sequence[Case],
    *,
    progress: bool,
    log: Callable[[str], object],
    embedder: Embedder | None = None,
    queries: Sequence[LoggedQuery] = (),
) -> PipelineRun:
    """Ingest ``cards`` into the configured Chroma store and retrieve every case
    (and every logged query of ``queries``, into :attr:`PipelineRun.logged`).

    ``embedder`` lets a caller share one loaded model across captures (its
    settings must equal ``config.embedder``); by default one is created and
    the model is loaded only if some text is missing from the cache.
    Raises :class:`InputError` for an unusable model, store or setting.
    """
    if embedder is not None and embedder.settings != config.embedder:
        raise ValueError("the shared embedder's settings differ from config.embedder")
    started = time.perf_counter()
    clock = Stopwatch()
    _check_unique(cards)
    keyed, card_of = _store_keys(cards)
    with clock.stage("chunk"):
        chunks = chunk_cards(keyed, config.chunking)
    languages = {card.id: str(card.language) for card in keyed}
    where_title = "every chunk" if config.chunking.title == "every" else "the first chunk"
    log(
        f"chunked {len(cards)} cards into {len(chunks)} chunks "
        f"(max {config.chunking.max_chars} chars, title on {where_title})"
    )
    with clock.stage("model_load"):
        embedder = embedder or Embedder(config.embedder)
        # Resolved now, loaded later: a bad reranker path fails before any work.
        reranker = (
            Reranker(config.reranker, device=config.embedder.device)
            if config.reranker.enabled
            else None
        )
    was_loaded = embedder.loaded
    cache = EmbeddingCache(config.cache.path) if config.cache.path is not None else None
    run = _Run(config, embedder, reranker, cache, clock, progress, log, card_of)
    try:
        return _capture(
            run, chunks, languages, cases, queries, started=started, was_loaded=was_loaded
        )
    finally:
        if cache is not None:
            cache.close()


@dataclass
class _Run:
    """What the stages of one capture share."""

    config: Config
    embedder: Embedder
    reranker: Reranker | None
    cache: EmbeddingCache | None
    clock: Stopwatch
    progress: bool
    log: Callable[[str], object]
    card_of: dict[str, str]  # the store's key of a card → its card id

    @property
    def pace(self) -> Pace | None:
        """Plain progress lines when there are no bars (CI logs)."""
        return None if self.progress else Pace(self.log)

    def embed(self, texts: Sequence[str], *, what: str) -> EmbedResult:
        pace = self.pace
        return embed_texts(
            texts,
            embedder=self.embedder,
            cache=self.cache,
            progress=self.progress,
            on_load=lambda load: self.clock.run("model_load", load),
            pace=None if pace is None else pace.track(what, len(texts), "texts"),
        )


def _ingest(
    run: _Run, chunks: Sequence[Chunk], languages: dict[str, str], *, embedder_id: str
) -> tuple[ChunkStore, IngestReport]:
    config = run.config
    kb_result: list[EmbedResult] = []

    def embed_chunks(to_write: Sequence[Chunk]) -> Any:
        with run.clock.stage("embed_kb"):
            prefix = config.embedder.document_prefix
            kb_result.append(
                run.embed([prefix + c.text for c in to_write], what="embedding the KB's chunks")
            )
        return kb_result[-1].vectors

    where = describe_store(config.store)
    with run.clock.stage("ingest"), store_errors(config.store):
        client = open_client(config.store)
        store = ChunkStore(
            client,
            config.store.collection,
            embedder_id=embedder_id,
            ef_search=config.store.ef_search,
        )
        sync = store.sync(chunks, languages, embed=embed_chunks, progress=run.progress)
    kb = kb_result[0] if kb_result else None
    report = IngestReport(
        store=where,
        collection=config.store.collection,
        outcome=sync.outcome,
        reason=sync.reason,
        cards=len(languages),
        chunks=len(chunks),
        cards_reingested=sync.cards_reingested,
        cards_removed=sync.cards_removed,
        chunks_written=sync.chunks_written,
        chunks_deleted=sync.chunks_deleted,
        chunks_embedded=kb.encoded if kb else 0,
        chunks_from_cache=kb.from_cache if kb else 0,
    )
    run.log(
        f"store: {sync.outcome} collection {config.store.collection!r} in {where} "
        f"({sync.reason}); {report.chunks_written} chunks written "
        f"({report.chunks_embedded} embedded by the model, {report.chunks_from_cache} from cache)"
    )
    return store, report


def _first_stage(
    run: _Run,
    store: ChunkStore,
    queries: EmbedResult,
    cases: Sequence[_Asked],
    *,
    chunks: Sequence[Chunk],
    languages: dict[str, str],
) -> tuple[list[list[ScoredChunk]], list[float]]:
    """Dense (or hybrid) chunk rankings per case, and each case's share of the time."""
    settings = run.config.retrieval
    with run.clock.stage("retrieve"):
        before = time.perf_counter()
        with store_errors(run.config.store):
            dense = _dense_search(
                store,
                queries,
                cases,
                n=settings.candidates,
                same_language=settings.same_language,
                progress=run.progress,
            )
        share = (time.perf_counter() - before) * 1000.0 / max(len(cases), 1)
        own = [share] * len(cases)
        if settings.mode == "dense":
            return dense, own
        bm25 = Bm25Index(chunks, languages, cache_dir=run.config.cache.path)
        if bm25.loaded:
            run.log("bm25: index loaded from the cache")
        fused = []
        for i, case in _bar(
            enumerate(cases), progress=run.progress, desc="hybrid", total=len(cases), pace=run.pace
        ):
            t = time.perf_counter()
            lexical = bm25.search(
                case.query,
                n=settings.candidates,
                language=case.language if settings.same_language else None,
                query_language=case.language,
            )
            fused.append(
                fuse_hybrid(dense[i], lexical, settings=settings.hybrid, limit=settings.candidates)
            )
            own[i] += (time.perf_counter() - t) * 1000.0
        return fused, own


def _rerank(
    run: _Run,
    reranker: Reranker,
    rankings: list[list[ScoredChunk]],
    cases: Sequence[_Asked],
    texts: dict[str, str],
) -> tuple[list[list[ScoredChunk]], list[float]]:
    """Cross-encoder re-ordered rankings and each case's rerank time."""
    with run.clock.stage("model_load"):
        reranker.load(progress=run.progress)
    out = []
    own = []
    with run.clock.stage("rerank"):
        for i, case in _bar(
            enumerate(cases), progress=run.progress, desc="rerank", total=len(cases), pace=run.pace
        ):
            t = time.perf_counter()
            out.append(reranker.rerank(case.query, rankings[i], texts))
            own.append((time.perf_counter() - t) * 1000.0)
    return out, own


def _artifact(
    case: Case,
    ranking: Sequence[ScoredChunk],
    timings: dict[str, float],
    card_of: dict[str, str],
) -> Artifact:
    return Artifact(
        case_id=case.id,
        retrieved=tuple(_item(c, card_of) for c in expand_to_parents(ranking)),
        must_cite_one_of=case.must_cite_one_of,
        relevant_ids=case.relevant_ids,
        language=case.language,
        case_type=case.case_type,
        query=case.query,
        timings_ms={k: round(v, _TIMING_DIGITS) for k, v in timings.items()},
    )


def _capture(
    run: _Run,
    chunks: Sequence[Chunk],
    languages: dict[str, str],
    cases: Sequence[Case],
    logged: Sequence[LoggedQuery],
    *,
    started: float,
    was_loaded: bool,
) -> PipelineRun:
    config, clock = run.config, run.clock
    with clock.stage("model_load"):
        digest = run.cache.file_digest if run.cache is not None else sha256_file
        embedder_id = run.embedder.identity(digest_file=digest, progress=run.progress)
    run.log(
        f"embedder {embedder_id}" + (f", cache {run.cache.path}" if run.cache is not None else "")
    )
    store, ingest = _ingest(run, chunks, languages, embedder_id=embedder_id)
    # The logged queries after the cases, through every stage with them.
    asked = [_Asked(c.id, c.query, str(c.language)) for c in cases]
    asked += [_Asked(q.id, q.query, q.language) for q in logged]

    with clock.stage("embed_queries"):
        queries = run.embed(
            [config.embedder.query_prefix + a.query for a in asked],
            what="embedding the queries",
        )
    run.log(
        f"queries: {len(cases)}"
        + (f" and {len(logged)} logged" if logged else "")
        + f" ({queries.encoded} embedded by the model, {queries.from_cache} from cache)"
    )
    rankings, retrieve_ms = _first_stage(
        run, store, queries, asked, chunks=chunks, languages=languages
    )
    rerank_ms: list[float] | None = None
    if run.reranker is not None:
        texts = {chunk.id: chunk.text for chunk in chunks}
        rankings, rerank_ms = _rerank(run, run.reranker, rankings, asked, texts)

    embed_share = clock.ms.get("embed_queries", 0.0) / max(len(asked), 1)
    artifacts = []
    for i, case in enumerate(cases):
        timings = {"embed_query": embed_share, "retrieve": retrieve_ms[i]}
        if rerank_ms is not None:
            timings["rerank"] = rerank_ms[i]
        artifacts.append(_artifact(case, rankings[i], timings, run.card_of))
    answers = {
        q.id: tuple(
            dict.fromkeys(
                reader_ranking(
                    (
                        (item.parent_id or item.id, item.language)
                        for item in (_item(c, run.card_of) for c in expand_to_parents(r))
                    ),
                    q.language,
                )
            )
        )
        for q, r in zip(logged, rankings[len(cases) :], strict=True)
    }
    timings_ms = {stage: round(clock.ms.get(stage, 0.0), _TIMING_DIGITS) for stage in STAGES}
    timings_ms["total"] = round((time.perf_counter() - started) * 1000.0, _TIMING_DIGITS)
    mode = config.retrieval.mode + ("+rerank" if config.reranker.enabled else "")
    run.log(
        f"retrieved {len(cases)} cases ({mode}, {config.retrieval.candidates} candidates); "
        f"total {timings_ms['total'] / 1000.0:.1f} s"
    )
    return PipelineRun(
        artifacts=artifacts,
        embedder_id=embedder_id,
        timings_ms=timings_ms,
        ingest=ingest,
        queries_embedded=queries.encoded,
        queries_from_cache=queries.from_cache,
        model_loaded=run.embedder.loaded and not was_loaded,
        logged=answers,
    )
