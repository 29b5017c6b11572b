"""The one scorer of a capture: artifacts → labels → metrics → results, streamed.

Every command scores through :func:`score_capture`: ``score`` with or without
``--cases`` and ``--json``, and ``run``. Artifacts come one at a time (from
:func:`~recall_gate.adapters.dataset.iter_artifacts`, validated against the one
:class:`~recall_gate.core.records.Artifact` schema, or from the runner's
capture); each case is labelled (:class:`~recall_gate.core.labels.Labeller`),
scored (:class:`~recall_gate.core.evaluate.CaseScorer`) and, when a results
file is asked for, written to it at once (:class:`ResultsWriter`). Nothing per
case is held in memory but its metric values (8 bytes each, for the group
means): a self-labelled capture's case ids, line numbers and label texts go to
sorted runs on disk (:class:`_CaseIndex`), merged at the end to find a case's
second line and to digest the labels in id order (the dataset fingerprint).

Errors are those of the whole-capture checks, in their order: the file cannot
be read, then the first bad line, then the labelling errors (the first
duplicate, unknown case, missing cases, first bad label). A results file is
written only when there is none.
"""

from __future__ import annotations

import heapq
import itertools
import marshal
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from operator import itemgetter
from typing import IO, Any, Protocol

import orjson

from recall_gate.adapters.results_store import ResultsWriter
from recall_gate.core.evaluate import CaseScorer, classify_citation
from recall_gate.core.fingerprint import fingerprint_texts, label_text
from recall_gate.core.labels import Label, Labeller, second_artifact_error
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL, discounts
from recall_gate.core.records import FLOAT_DIGITS, Aggregates, Artifact, CaseLabel, CaseResult
from recall_gate.core.retrieved_detail import detail_data

__all__ = [
    "MISSED_KEPT",
    "CaseSink",
    "LineWatch",
    "MissedHook",
    "RetrievedCards",
    "ScoredCapture",
    "rounded_sink",
    "score_capture",
]

# Missed cases kept for the report's list (the results file has every case).
MISSED_KEPT = 1000


class CaseSink(Protocol):
    """Where case records go as they are scored: a results file
    (:class:`~recall_gate.adapters.results_store.ResultsWriter`)."""

    def add(self, record: Mapping[str, Any]) -> None: ...


class RetrievedCards:
    """A case sink that notes every card id some case's top k holds, per case
    language (a card is (language, id): see core.coverage.retrieved_cards), and
    passes each record on (to a results file, when there is one)."""

    def __init__(self, inner: CaseSink | None) -> None:
        self.inner = inner
        self.by_language: dict[str | None, set[str]] = {}
        self._pass_on = rounded_sink(inner)

    def _note(self, record: Mapping[str, Any]) -> None:
        ids = self.by_language.get(record["language"])
        if ids is None:
            ids = self.by_language[record["language"]] = set()
        ids.update(record["ranked_ids"])

    def add(self, record: Mapping[str, Any]) -> None:
        self._note(record)
        if self.inner is not None:
            self.inner.add(record)

    def add_rounded(self, record: Mapping[str, Any]) -> None:
        """:meth:`add` of a record whose metrics are rounded already (the one loop's)."""
        self._note(record)
        if self._pass_on is not None:
            self._pass_on(record)


def rounded_sink(sink: CaseSink | None) -> Callable[[Mapping[str, Any]], None] | None:
    """What takes ``sink``'s records whose metrics are rounded already (looked up
    once, not per record): its ``add_rounded``, else its ``add``; None for no sink."""
    if sink is None:
        return None
    rounded: Callable[[Mapping[str, Any]], None] | None = getattr(sink, "add_rounded", None)
    return sink.add if rounded is None else rounded


@dataclass(frozen=True)
class ScoredCapture:
    """What the report needs of a scored capture."""

    aggregates: Aggregates
    total: int  # cases (artifacts) scored or not
    scored: int  # of which carry gold
    outcomes: Counter[str]  # citation outcomes, when the capture has `cited`
    label_fingerprint: str | None  # of the capture's own labels, when asked for
    missed: tuple[CaseResult, ...]  # the first MISSED_KEPT missed cases (hit@k = 0)
    missed_total: int  # all of them
    short_of_k: int = 0  # scored cases holding fewer than k distinct cards


# Records a run holds before it is sorted and spilled: what a million-case capture
# keeps in memory at once (a few tens of MB), whatever its size.
_RUN = 1 << 15
_CHUNK = 1 << 12  # records per marshalled chunk of a spilled run


class _CaseIndex:
    """Each line's case id, line number and label text, sorted by id on disk: the
    capture's first second line of a case, and its labels' fingerprint (their
    canonical JSON in id order, as :func:`~recall_gate.core.fingerprint.fingerprint_labels`
    digests them), with no per-case object kept while the capture streams.

    Records are gathered in runs of :data:`_RUN`, each sorted by id (stably, so a
    case's lines stay in file order) and spilled to a temp file when full;
    :meth:`finish` merges them in one pass.
    """

    def __init__(self) -> None:
        self._run: list[tuple[str, int, bytes | None]] = []
        self._spilled: list[IO[bytes]] = []  # each a sorted run
        self._bounds: list[tuple[str, str]] = []  # each run's first and last id

    def add(self, number: int, case_id: str, text: bytes | None) -> None:
        """Line ``number`` of case ``case_id``: its label text, or None (no label)."""
        run = self._run
        run.append((case_id, number, text))
        if len(run) >= _RUN:
            self._spill()

    def _spill(self) -> None:
        run = self._run
        run.sort(key=itemgetter(0))
        out = tempfile.TemporaryFile(prefix="recall-gate-cases.")  # noqa: SIM115
        self._spilled.append(out)
        self._bounds.append((run[0][0], run[-1][0]))
        for i in range(0, len(run), _CHUNK):
            data = marshal.dumps(run[i : i + _CHUNK])
            out.write(len(data).to_bytes(8, "little") + data)
        run.clear()

    @staticmethod
    def _read(spilled: IO[bytes]) -> Iterator[tuple[str, int, bytes | None]]:
        spilled.seek(0)
        while size := spilled.read(8):
            # What this process wrote to its own unnamed temp file, read back whole
            # (marshal.load would read the file a value at a time).
            yield from marshal.loads(spilled.read(int.from_bytes(size, "little")))  # noqa: S302

    def finish(self) -> tuple[tuple[str, int, int] | None, str]:
        """The first second line (``case id, first line, second line``) or None, and
        the fingerprint of the first line's label of each case, in id order."""
        run = self._run
        if not self._spilled:
            run.sort(key=itemgetter(0))
            records: Iterator[tuple[str, int, bytes | None]] = iter(run)
        else:
            if run:
                self._spill()
            order = sorted(range(len(self._spilled)), key=lambda i: self._bounds[i])
            if all(self._bounds[a][1] < self._bounds[b][0] for a, b in itertools.pairwise(order)):
                # Runs whose ids do not interleave (a capture in id order, the usual
                # one) follow one another, with no merge.
                records = itertools.chain(*(self._read(self._spilled[i]) for i in order))
            else:  # merged in file order: a case's lines in the order of their numbers
                records = heapq.merge(*map(self._read, self._spilled), key=itemgetter(0))
        second: list[tuple[str, int, int]] = []

        def texts() -> Iterator[bytes]:
            last: str | None = None
            first = 0
            for case_id, number, text in records:
                if case_id == last:
                    if not second or number < second[0][2]:
                        second[:] = [(case_id, first, number)]
                    continue
                last, first = case_id, number
                if text is not None:
                    yield text

        fingerprint = fingerprint_texts(texts())
        return (second[0] if second else None), fingerprint

    def close(self) -> None:
        for spilled in self._spilled:
            spilled.close()
        self._run.clear()


def _label_text(case_id: str, label: Label) -> bytes:
    """:func:`~recall_gate.core.fingerprint.label_text` of a label, at orjson's speed."""
    language, case_type, gold, relevant = label
    try:  # its keys in sorted order, tuples as they are: label_text's bytes, copied
        # to their own size (orjson's bytes keep its 4 KB buffer: 4 GB a million)
        return memoryview(
            orjson.dumps(
                {
                    "case_type": case_type,
                    "id": case_id,
                    "language": language,
                    "must_cite_one_of": gold,
                    "relevant_ids": relevant,
                }
            )
        ).tobytes()
    except TypeError:  # lone surrogates: label_text's own fallback
        return label_text(case_id, *label)


class MissedHook(Protocol):
    """What is told of each scored case that misses at k (hit@k = 0): its id,
    gold and relevant ids, the cards of its top k and every card id its line
    holds (repeats kept), as the watch gave them."""

    def __call__(
        self,
        case_id: str,
        gold_ids: Sequence[str],
        relevant_ids: Sequence[str] | None,
        top: Sequence[str],
        ranked: Sequence[str],
    ) -> None: ...


class LineWatch(Protocol):
    """What watches each line as it is scored (a
    :class:`~recall_gate.adapters.artifacts.CaptureWatch`): the artifact to score
    and its ranked card ids; where it reads lines in their case's language (a
    translated KB), whether the line last seen found its gold in that language."""

    def see(self, number: int, line: Artifact) -> tuple[Artifact, Sequence[str]]: ...

    @property
    def reads_languages(self) -> bool: ...

    def reader_language(
        self, gold: frozenset[str], top: Sequence[str], hit: float
    ) -> float | None: ...


def score_capture(
    artifacts: Iterable[tuple[int, Artifact]],
    *,
    k: int,
    cases: Sequence[CaseLabel] | None = None,
    artifacts_source: str,
    cases_source: str = "the cases file",
    results: CaseSink | None = None,
    fingerprint: bool = False,
    metrics: Sequence[str] = DEFAULT_METRIC_KEYS,
    watch: LineWatch | None = None,
    on_missed: MissedHook | None = None,
) -> ScoredCapture:
    """Score numbered artifacts at ``k``, labelled by ``cases`` or by themselves.

    ``results`` receives every case record as it is scored (its caller
    finishes it: the provenance is its to give). ``fingerprint``: also digest
    the capture's own labels, as :func:`~recall_gate.core.fingerprint.fingerprint_labels`
    would (for a self-labelled capture). ``metrics``: the metric keys aggregated.
    ``watch``: sees each line before it is scored (and may map it).
    ``on_missed``: told of each case that misses at k, as it is scored.
    """
    # A self-labelled capture's lines are indexed on disk (its duplicates found at
    # the end); a cases file's are known to the labeller, which holds the cases.
    index = _CaseIndex() if cases is None or fingerprint else None
    labeller = Labeller(
        cases,
        artifacts_source=artifacts_source,
        cases_source=cases_source,
        keep_lines=cases is not None,
    )
    scorer = CaseScorer(k, keep_missed=MISSED_KEPT, metrics=metrics)
    loop = (
        _score_lines
        if k > 0 and (results is None or hasattr(results, "add_rounded"))
        else _score_each
    )
    try:
        loop(
            artifacts,
            labeller,
            scorer,
            watch=watch,
            results=results,  # type: ignore[arg-type]
            index=index,
            texts=fingerprint,
            on_missed=on_missed,
        )
        label_fingerprint = None
        if index is not None:
            second, label_fingerprint = index.finish()
            if second is not None and cases is None:
                raise second_artifact_error(artifacts_source, second[2], second[0], second[1])
        labeller.finish()
        return ScoredCapture(
            aggregates=scorer.aggregates(),
            total=scorer.total,
            scored=scorer.scored,
            outcomes=scorer.outcomes,
            label_fingerprint=label_fingerprint if fingerprint else None,
            missed=tuple(scorer.missed),
            missed_total=scorer.missed_total,
            short_of_k=scorer.short_of_k,
        )
    finally:
        if index is not None:
            index.close()


def _score_each(
    artifacts: Iterable[tuple[int, Artifact]],
    labeller: Labeller,
    scorer: CaseScorer,
    *,
    watch: LineWatch | None,
    results: CaseSink | None,
    index: _CaseIndex | None,
    texts: bool,
    on_missed: MissedHook | None = None,
) -> None:
    """The reference loop: each case through :meth:`CaseScorer.add` and the sink's ``add``;
    each line to the ``index`` (with its label text, if ``texts``)."""
    label_of = labeller.label
    add = scorer.add
    write = None if results is None else results.add
    reader = watch.reader_language if watch is not None and watch.reads_languages else None
    ranked: Sequence[str]
    for number, line in artifacts:
        if watch is None:
            artifact, ranked = line, line.ranked_card_ids()
        else:
            artifact, ranked = watch.see(number, line)
        label = label_of(number, artifact)
        if index is not None:
            index.add(
                number,
                artifact.case_id,
                None if label is None or not texts else _label_text(artifact.case_id, label),
            )
        if label is None:
            continue  # its error is due at finish()
        record = add(
            artifact.case_id,
            label,
            ranked,
            artifact.cited,
            query=artifact.query,
            items=artifact.retrieved,
            reader=reader,
        )
        metrics = record["metrics"]
        if on_missed is not None and metrics and not metrics[HIT]:
            on_missed(artifact.case_id, label[2], label[3], record["ranked_ids"], ranked)
        if write is not None:
            write(record)


# One loop by design: a helper called per case costs what the loop saves.
def _score_lines(  # noqa: PLR0912, PLR0915
    artifacts: Iterable[tuple[int, Artifact]],
    labeller: Labeller,
    scorer: CaseScorer,
    *,
    watch: LineWatch | None,
    results: ResultsWriter | None,
    index: _CaseIndex | None,
    texts: bool,
    on_missed: MissedHook | None = None,
) -> None:
    """:func:`_score_each` in one loop, for a results file or none: the same records,
    aggregates and counts (a test holds the two equal), with no call per case but
    the watch's and the labeller's. The rules are :mod:`recall_gate.core.metrics`':
    de-duplicated by first occurrence before the cut at k; no gold, no score; nDCG's
    ideal ranking cut at k; a card is its ``parent_id``, else its ``id``."""
    k = scorer.k
    label_of = labeller.label
    see = None if watch is None else watch.see
    reader = watch.reader_language if watch is not None and watch.reads_languages else None
    write = None if results is None else results.add_rounded
    index_add = None if index is None else index.add
    kernels = scorer.kernels
    metric_keys = scorer.metrics
    cell_of = scorer.cell
    cells: dict[tuple[str, str], tuple[Any, ...]] = {}
    outcomes = scorer.outcomes
    keep_missed = scorer.keep_missed
    missed = scorer.missed
    discount = discounts(k)
    ideal = [0.0, *accumulate(discount)]
    digits = FLOAT_DIGITS
    total = scored = short = missed_total = 0
    try:
        for number, line in artifacts:
            if see is None:
                artifact = line
                ranked: Sequence[str] = artifact.ranked_card_ids()
            else:
                artifact, ranked = see(number, line)
            label = label_of(number, artifact)
            case_id = artifact.case_id
            if index_add is not None:
                index_add(
                    number,
                    case_id,
                    None if label is None or not texts else _label_text(case_id, label),
                )
            if label is None:
                continue  # its error is due at finish()
            language, case_type, gold_ids, relevant_ids = label
            cited = artifact.cited
            top = list(dict.fromkeys(ranked))[:k]  # de-duplicated, then cut
            total += 1
            cell = cells.get((case_type, language))
            if cell is None:  # registers the group even if no case of it is scored
                cell = cells[(case_type, language)] = cell_of(case_type, language)
            outcome = None
            detail = None
            in_own: bool | None = None
            case_metrics: dict[str, float] = {}
            rounded: dict[str, float] = {}
            if gold_ids and (relevant_ids is None or relevant_ids):
                gold = frozenset(gold_ids)
                rel = gold if relevant_ids is None else frozenset(relevant_ids)
                found_cards = rel.intersection(top)
                found = len(found_cards)
                dcg = 0.0
                if found:
                    for i in sorted(map(top.index, found_cards)):  # summed in rank order
                        dcg += discount[i]
                n_rel = len(rel)
                hit = 1.0 if (found if rel is gold else not gold.isdisjoint(top)) else 0.0
                recall = found / n_rel
                ndcg = dcg / ideal[n_rel if n_rel < k else k]
                case_metrics = {HIT: hit, RECALL: recall, NDCG: ndcg}
                rounded = {HIT: hit, RECALL: round(recall, digits), NDCG: round(ndcg, digits)}
                for key, kernel in kernels:
                    value = case_metrics[key] = kernel(top, gold, rel, k)
                    rounded[key] = round(value, digits)
                scored += 1
                if len(top) < k:
                    short += 1
                for append, key in zip(cell, metric_keys, strict=False):
                    append(case_metrics[key])
                if cited is not None:
                    outcome = classify_citation(hit=hit, gold=gold, cited=cited)
                    outcomes[outcome] += 1
                    cell[-2](1.0 if outcome == "ok" else 0.0)
                if reader is not None:
                    in_language = reader(gold, top, hit)
                    if in_language is not None:
                        cell[-1](in_language)
                        in_own = in_language == 1.0
                if not hit:
                    missed_total += 1
                    if on_missed is not None:
                        on_missed(case_id, gold_ids, relevant_ids, top, ranked)
                    detail = detail_data(artifact.retrieved, top)
                    if len(missed) < keep_missed:
                        missed.append(
                            CaseResult(
                                case_id=case_id,
                                case_type=case_type,
                                citation_outcome=outcome,
                                cited=cited,
                                language=language,
                                metrics=case_metrics,
                                must_cite_one_of=gold_ids,
                                query=artifact.query,
                                ranked_ids=tuple(top),
                                relevant_ids=relevant_ids,
                                retrieved_detail=detail,
                                in_reader_language=in_own,
                            )
                        )
            if write is not None:
                record: dict[str, Any] = {
                    "case_id": case_id,
                    "case_type": case_type,
                    "citation_outcome": outcome,
                    "cited": cited,
                    "language": language,
                    "metrics": rounded,
                    "must_cite_one_of": gold_ids,
                    "query": artifact.query,
                    "ranked_ids": top,
                    "relevant_ids": relevant_ids,
                }
                if detail is not None:
                    record["retrieved_detail"] = detail
                if in_own is not None:
                    record["in_reader_language"] = in_own
                write(record)
    finally:
        scorer.count(total=total, scored=scored, short_of_k=short, missed_total=missed_total)
