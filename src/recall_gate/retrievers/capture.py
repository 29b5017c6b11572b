"""Run a user's retriever over the cases and record what it returned (the artifacts).

One code path for ``recall-gate capture`` and ``recall_gate.capture(...)``:
each case's query goes through the adapter of the retriever's framework
(:func:`ask_case`, or :func:`aask_case` for a natively async retriever), each
returned document is mapped to its KB card id, and every artifact line
carries its case's fields, so the capture is self-contained for ``score``.
The cases are scheduled by :mod:`~recall_gate.retrievers.executor` (bounded
concurrency, retries, timeout, ``max_qps``) and written back in case order.
Logged queries (a query log, see :mod:`recall_gate.core.logged_query`) are asked
in the same run, after the cases: only their top-k card ids are kept.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall_gate.adapters.artifacts import dump_artifacts, write_artifacts
from recall_gate.core.card_language import reader_ranking
from recall_gate.core.fingerprint import (
    fingerprint_labels,
    fingerprint_queries,
    fingerprint_settings,
)
from recall_gate.core.logged_query import UNDETERMINED, LoggedQuery
from recall_gate.core.records import Artifact, Case, Coverage, RetrievedItem, Retriever
from recall_gate.core.shards import SHARD_RULE, Shard, parse_shard
from recall_gate.errors import CaseFailed, InputError
from recall_gate.retrievers import haystack, langchain, llamaindex, plain
from recall_gate.retrievers.adapter import Adapter, class_name
from recall_gate.retrievers.case_context import asking
from recall_gate.retrievers.depth import Retrieved, aretrieve_case, retrieve_case
from recall_gate.retrievers.documents import IdMapper
from recall_gate.retrievers.executor import (
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT,
    Answer,
    Pacing,
    RetrieverExit,
    run_cases,
)
from recall_gate.retrievers.failures import EXIT_FIX

__all__ = [
    "NOT_A_RETRIEVER_FIX",
    "Capture",
    "Progress",
    "aask_case",
    "adapt",
    "ask_case",
    "capture",
    "fingerprint_case_set",
]

NOT_A_RETRIEVER_FIX = (
    "return a LangChain retriever or vector store, a LlamaIndex retriever or index, a "
    "Haystack retriever component (run(query, top_k)), or a function (query, k) -> list"
)


@dataclass(frozen=True)
class Capture:
    """What a retriever returned for every case, and which retriever it was."""

    artifacts: tuple[Artifact, ...]
    retriever: Retriever
    k: int
    # Set when the capture holds part of a case set (``--shard``).
    coverage: Coverage | None = None
    # The logged queries' top-k card ids, best first (query id → ids), in log order;
    # a logged query the retriever could not answer is absent.
    logged: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Documents whose metadata was left out (over MAX_ITEM_METADATA_BYTES, or not JSON).
    metadata_dropped: int = 0

    @property
    def failed(self) -> tuple[Artifact, ...]:
        """The cases the retriever could not answer (recorded under ``max_failures``)."""
        return tuple(a for a in self.artifacts if a.error is not None)

    def to_jsonl(self) -> str:
        """The artifacts file's text (the retriever recorded on its first line)."""
        return dump_artifacts(self.artifacts, retriever=self.retriever, coverage=self.coverage)

    def write(self, path: str | Path) -> None:
        """Write the artifacts file atomically (no partial file on failure)."""
        write_artifacts(
            Path(path), self.artifacts, retriever=self.retriever, coverage=self.coverage
        )


def fingerprint_case_set(cases: Sequence[Case]) -> str:
    """Of the whole case set (labels and queries): shards of one set share it."""
    return fingerprint_settings(
        {
            "labels": fingerprint_labels(c.label() for c in cases),
            "queries": fingerprint_queries((c.id, c.query) for c in cases),
        }
    )


def adapt(retriever: Any) -> Adapter:
    """The adapter of ``retriever``'s framework (checked by shape, never imported)."""
    for detect in (langchain.detect, llamaindex.detect, haystack.detect, plain.detect):
        adapter: Adapter | None = detect(retriever)
        if adapter is not None:
            return adapter
    raise InputError(
        f"{class_name(retriever)} is no retriever recall-gate can drive",
        fix=NOT_A_RETRIEVER_FIX,
    )


def _cases_of(cases: str | Path | Iterable[Case | Mapping[str, Any]]) -> list[Case]:
    if isinstance(cases, str | Path):
        from recall_gate.adapters.dataset import load_cases

        return [case for _, case in load_cases([Path(cases)])]
    out = [c if isinstance(c, Case) else Case.model_validate(c) for c in cases]
    seen: set[str] = set()
    for case in out:
        if case.id in seen:
            raise InputError(f"case {case.id!r} is given twice", fix="give each case a unique id")
        seen.add(case.id)
    return out


def _card_ids(kb: str | Path | Iterable[str] | None) -> frozenset[str] | None:
    if kb is None:
        return None
    if isinstance(kb, str | Path):
        from recall_gate.adapters.dataset import load_card_ids

        return load_card_ids(Path(kb))
    # A set of card ids may carry the site's URLs (core.site_urls.CardIds): kept.
    return kb if isinstance(kb, frozenset) else frozenset(kb)


def _anchors(kb: str | Path | Iterable[str] | None) -> tuple[str, ...]:
    """The KB folder and the repository that holds it, absolute, as posix paths."""
    if not isinstance(kb, str | Path):
        return ()
    from recall_gate.adapters.config import repository_root

    root = Path(kb).resolve()
    return tuple(dict.fromkeys(p.as_posix() for p in (root, repository_root(root))))


@dataclass(frozen=True)
class Progress:
    """How far a capture is: ``done`` of ``total`` cases answered (``failed`` of
    them recorded as failures), ``elapsed`` seconds since it started."""

    done: int
    total: int
    failed: int
    elapsed: float


def _refuse_all_outside(artifacts: tuple[Artifact, ...], mapper: IdMapper) -> tuple[Artifact, ...]:
    """Pages outside the KB keep their rank; but when no document of the whole
    capture maps to a card, the mapping is wrong, not the retriever."""
    items = [i for a in artifacts for i in a.retrieved if isinstance(i, RetrievedItem)]
    if items and all(i.outside_kb for i in items) and mapper.first_unmapped is not None:
        raise mapper.first_unmapped
    return artifacts


def ask_case(adapter: Adapter, mapper: IdMapper, case: Case, k: int) -> Retrieved:
    """One case: its query asked of the retriever, each document mapped to its card
    (a page outside the KB kept at its rank); deeper than k when the k documents
    hold fewer than k distinct cards (:func:`~recall_gate.retrievers.depth.retrieve_case`).
    The result carries the depth fetched, which the artifact records."""
    with asking(case):
        return retrieve_case(adapter, mapper, case.query, k=k, case_id=case.id)


async def aask_case(adapter: Adapter, mapper: IdMapper, case: Case, k: int) -> Retrieved:
    """:func:`ask_case` for a natively async retriever (awaited, no thread)."""
    with asking(case):
        return await aretrieve_case(adapter, mapper, case.query, k=k, case_id=case.id)


def _artifact(case: Case, answer: Answer[Retrieved]) -> Artifact:
    result = answer.result
    return Artifact(
        case_id=case.id,
        retrieved=result.items if result is not None else (),
        # The depth actually fetched (k, 2k … up to the cap); none for a failed case.
        depth=result.depth if result is not None else None,
        must_cite_one_of=case.must_cite_one_of,
        relevant_ids=case.relevant_ids,
        language=case.language,
        case_type=case.case_type,
        query=case.query,
        latency_ms=round(answer.latency_ms, 1),
        error=answer.error,
    )


def _as_case(logged: LoggedQuery) -> Case:
    """A logged query in the shape the executor asks (no gold: it is never scored)."""
    return Case(
        id=logged.id,
        language=logged.language or UNDETERMINED,
        case_type="capability",
        query=logged.query,
    )


def _card_ranking(result: Retrieved, k: int, *, reader: str | None) -> tuple[str, ...]:
    """The first ``k`` distinct cards of an answer (a page outside the KB by its id),
    another language's translation than the ``reader``'s as ``id@language``
    (:func:`~recall_gate.core.card_language.reader_ranking`)."""
    cards = reader_ranking(
        (
            (i.card_id, i.language) if isinstance(i, RetrievedItem) else (i, None)
            for i in result.items
        ),
        reader,
    )
    return tuple(dict.fromkeys(cards))[:k]


def _failure_message(answer: Answer[Any], *, max_failures: int, what: str = "case") -> InputError:
    case = answer.case
    tries = f"; {answer.attempts} attempts" if answer.attempts > 1 else ""
    budget = (
        f"; {max_failures} failure(s) allowed by --max-failures, this is one more"
        if max_failures
        else ""
    )
    return CaseFailed(
        f"{what} {case.id!r}: the retriever {answer.error} (query {case.query!r}{tries}{budget})",
        fix="make the retriever answer this query (credentials, network, index built?) and "
        "capture again (--resume asks only the cases not yet answered), or allow failures "
        "with --max-failures N (they score as misses); nothing was written",
        case_id=case.id,
        failure=(answer.error or "failed").removeprefix("raised "),
        what=what,
    )


def _run(coroutine_factory: Callable[[], Any]) -> None:
    """Run the capture's event loop here, or in a thread when this thread already has
    one (a notebook): ``capture()`` is a plain function wherever it is called."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        asyncio.run(coroutine_factory())
        return
    failure: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(coroutine_factory())
        except BaseException as exc:
            failure.append(exc)

    thread = threading.Thread(target=target, name="recall-gate-capture")
    thread.start()
    thread.join()
    if failure:
        raise failure[0]


def _provenance(adapter: Adapter, *, k: int, id_from: str | None, label: str | None) -> Retriever:
    params = {"k": k, **adapter.params()}
    if id_from:
        params["id_from"] = id_from
    return Retriever(adapter=adapter.kind, name=adapter.name, label=label, params=params)


def _checked_pacing(
    *,
    k: int,
    concurrency: int,
    retries: int,
    timeout: float | None,
    max_failures: int,
    max_qps: float | None,
    shard: Shard | str | None,
) -> tuple[Pacing, Shard | None]:
    """The capture's settings checked (one message each), the shard parsed."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}", fix="pass k=5 or similar")
    if isinstance(shard, str):
        try:
            shard = parse_shard(shard)
        except ValueError as exc:
            raise InputError(f"shard: {exc}", fix=f"write the shard as {SHARD_RULE}") from None
    try:
        # Shards run side by side share the rate: each takes its 1/N.
        rate = max_qps if max_qps is None or shard is None else max_qps / shard.count
        pacing = Pacing(concurrency=concurrency, retries=retries, timeout=timeout, max_qps=rate)
    except ValueError as exc:
        raise InputError(str(exc), fix="see the capture options in the docs") from None
    if max_failures < 0:
        raise InputError(f"max_failures must be 0 or more, got {max_failures}", fix="pass 0")
    return pacing, shard


def capture(
    retriever: Any,
    cases: str | Path | Iterable[Case | Mapping[str, Any]],
    *,
    k: int,
    id_from: str | None = None,
    label: str | None = None,
    kb: str | Path | Iterable[str] | None = None,
    kb_root: str | Path | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    retries: int = DEFAULT_RETRIES,
    timeout: float | None = DEFAULT_TIMEOUT,
    max_failures: int = 0,
    max_qps: float | None = None,
    queries: Sequence[LoggedQuery] = (),
    shard: Shard | str | None = None,
    answered: Mapping[str, Artifact] | None = None,
    on_artifact: Callable[[Artifact], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Capture:
    """Run every case's query through ``retriever`` and capture the top ``k`` card ids.

    ``retriever``: a LangChain retriever or vector store, a LlamaIndex retriever
    or index, a Haystack retriever component, or a function ``(query, k)``
    (``async def`` too) returning ids or dicts. ``cases``: a cases file, or
    case records / mappings. ``id_from``: the dotted field holding the card id
    (default: the common fields, see
    :data:`~recall_gate.retrievers.documents.DEFAULT_ID_FIELDS`). ``kb``: the KB
    (a path, or its card ids) to map file paths to card ids and refuse
    documents that are no card; ``kb_root``: the KB's folder when ``kb`` is its
    card ids, so pages outside the KB are named relative to it (or to its
    repository) rather than by an absolute path. ``label``: your name for this retriever,
    recorded in the provenance.

    A case whose ``k`` documents hold fewer than ``k`` distinct cards (a chunk
    or section retriever) is asked again, deeper: 2k, 4k … up to
    :data:`~recall_gate.retrievers.depth.MAX_DEPTH_FACTOR` × k documents; each
    artifact keeps the documents up to the k-th distinct card and records the
    ``depth`` fetched.

    ``concurrency`` cases are asked at once (async retrievers awaited, sync
    ones in threads); a transient failure is retried ``retries`` times with
    backoff; ``timeout`` seconds bound each attempt. Up to ``max_failures``
    cases that still fail are recorded (``error``, no documents: they score as
    misses); one more raises :class:`~recall_gate.errors.InputError` naming
    the case, as does retriever code that exits. ``max_qps``: at most that many
    requests a second across all lanes, retries included (a token bucket; with
    ``shard``, each of the N shards takes 1/N of it, so N shards run side by side
    stay under it). ``queries``: logged queries (a query log) asked in the same run
    after the cases, under the same settings and failure budget; their top-k card
    ids come back in :attr:`Capture.logged`. ``shard`` (``"2/3"``): capture
    only that deterministic part of the cases and logged queries (see
    :mod:`recall_gate.core.shards`), to be merged with the others. ``answered``: artifacts of
    cases already captured (a resumed capture), not asked again;
    ``on_artifact`` receives each new artifact as it completes (a journal).
    The artifacts come back in case order whatever the completion order.
    """
    pacing, shard = _checked_pacing(
        k=k,
        concurrency=concurrency,
        retries=retries,
        timeout=timeout,
        max_failures=max_failures,
        max_qps=max_qps,
        shard=shard,
    )
    adapter = adapt(retriever)
    all_cases = _cases_of(cases)
    gold = frozenset(g for c in all_cases for g in (*c.must_cite_one_of, *(c.relevant_ids or ())))
    mapper = IdMapper(
        id_from=id_from,
        card_ids=_card_ids(kb),
        gold_ids=gold,
        anchors=_anchors(kb_root if kb_root is not None else kb),
    )
    coverage = None
    if shard is not None:
        coverage = Coverage(
            shards=(shard.index,),
            of=shard.count,
            cases=len(all_cases),
            cases_fingerprint=fingerprint_case_set(all_cases),
        )
        all_cases = [c for c in all_cases if shard.holds(c.id)]
        queries = [q for q in queries if shard.holds(q.id)]
    # A resumed capture asks again the cases it could not answer before.
    done: dict[str, Artifact] = {
        c.id: answered[c.id]
        for c in all_cases
        if answered and c.id in answered and answered[c.id].error is None
    }
    todo = [c for c in all_cases if c.id not in done]
    # Logged queries come after the cases in one run (one rate, one budget); an
    # answer's index says which it is. They are not journaled: a resume asks them again.
    logged_cases = [_as_case(q) for q in queries]
    logged: dict[str, tuple[str, ...]] = {}
    failed: list[Artifact] = []
    started = time.perf_counter()
    total = len(all_cases) + len(logged_cases)

    def on_answer(answer: Answer[Retrieved]) -> None:
        if answer.index >= len(todo):
            on_logged(answer)
            return
        artifact = _artifact(answer.case, answer)
        if artifact.error is not None:
            failed.append(artifact)
            if len(failed) > max_failures:
                raise _failure_message(answer, max_failures=max_failures)
        done[artifact.case_id] = artifact
        if on_artifact is not None:
            on_artifact(artifact)
        report_progress()

    def on_logged(answer: Answer[Retrieved]) -> None:
        if answer.result is None:
            failed.append(_artifact(answer.case, answer))
            if len(failed) > max_failures:
                raise _failure_message(answer, max_failures=max_failures, what="logged query")
        else:
            language = answer.case.language
            logged[answer.case.id] = _card_ranking(
                answer.result, k, reader=None if language == UNDETERMINED else language
            )
        report_progress()

    def report_progress() -> None:
        if on_progress is not None:
            elapsed = time.perf_counter() - started
            on_progress(Progress(len(done) + len(logged), total, len(failed), elapsed))

    def ask(case: Case) -> Retrieved:
        return ask_case(adapter, mapper, case, k)

    async def aask(case: Case) -> Retrieved:
        return await aask_case(adapter, mapper, case, k)

    try:
        _run(
            lambda: run_cases(
                [*todo, *logged_cases],
                ask=ask,
                aask=aask if adapter.asearch is not None else None,
                pacing=pacing,
                on_answer=on_answer,
            )
        )
    except RetrieverExit as exc:
        raise InputError(
            f"case {exc.case.id!r}: the retriever {exc.what} (query {exc.case.query!r})",
            fix=EXIT_FIX,
        ) from None
    artifacts = _refuse_all_outside(tuple(done[c.id] for c in all_cases), mapper)
    return Capture(
        artifacts=artifacts,
        retriever=_provenance(adapter, k=k, id_from=id_from, label=label),
        k=k,
        coverage=coverage,
        logged={q.id: logged[q.id] for q in queries if q.id in logged},
        metadata_dropped=mapper.metadata_dropped,
    )
