"""The one scorer of a capture: artifacts → labels → metrics → results, streamed.

Every command scores through :func:`score_capture`: ``score`` with or without
``--cases`` and ``--json``, and ``run``. Artifacts come one at a time (from
:func:`~recall_gate.adapters.dataset.iter_artifacts`, validated against the one
:class:`~recall_gate.core.records.Artifact` schema, or from the runner's
capture); each case is labelled (:class:`~recall_gate.core.labels.Labeller`),
scored (:class:`~recall_gate.core.evaluate.CaseScorer`) and, when a results
file is asked for, written to it at once (:class:`ResultsWriter`). Nothing per
case is held but its id (for the duplicate check) and, for a self-labelled
capture, its label's canonical JSON in a temp file (for the dataset
fingerprint, which sorts the labels by id).

Errors are those of the whole-capture checks, in their order: the file cannot
be read, then the first bad line, then the labelling errors (the first
duplicate, unknown case, missing cases, first bad label). A results file is
written only when there is none.
"""

from __future__ import annotations

import mmap
import tempfile
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import IO, Any, Protocol

import orjson

from recall_gate.adapters.results_store import ResultsWriter
from recall_gate.core.evaluate import CaseScorer, classify_citation
from recall_gate.core.fingerprint import fingerprint_texts, label_text
from recall_gate.core.labels import Label, Labeller
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL, discounts
from recall_gate.core.records import FLOAT_DIGITS, Aggregates, Artifact, CaseLabel, CaseResult

__all__ = [
    "MISSED_KEPT",
    "CaseSink",
    "LineWatch",
    "RetrievedCards",
    "ScoredCapture",
    "score_capture",
]

# Missed cases kept for the report's list (the results file has every case).
MISSED_KEPT = 1000


class CaseSink(Protocol):
    """Where case records go as they are scored: a results file
    (:class:`~recall_gate.adapters.results_store.ResultsWriter`)."""

    def add(self, record: Mapping[str, Any]) -> None: ...


class RetrievedCards:
    """A case sink that notes every card id some case's top k holds, and passes
    each record on (to a results file, when there is one)."""

    def __init__(self, inner: CaseSink | None) -> None:
        self.inner = inner
        self.ids: set[str] = set()

    def add(self, record: Mapping[str, Any]) -> None:
        self.ids.update(record["ranked_ids"])
        if self.inner is not None:
            self.inner.add(record)


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


class _LabelTexts:
    """The canonical JSON of each label, spilled to a temp file; digested in id order.

    Texts are found by the line number of their case (the labeller's
    ``first_line`` maps every labelled id to it): per line, 8 bytes of offset.
    """

    def __init__(self) -> None:
        self._file: IO[bytes] = tempfile.TemporaryFile(prefix="recall-gate-labels.")  # noqa: SIM115
        self._pending: list[bytes] = []
        self._ends = array("q", [0])  # _ends[n]: where line n's text ends (n's start: _ends[n - 1])
        self._size = 0

    def add(self, number: int, case_id: str, label: Label) -> None:
        language, case_type, gold, relevant = label
        try:  # label_text's bytes: its keys in sorted order, tuples as they are
            text = orjson.dumps(
                {
                    "case_type": case_type,
                    "id": case_id,
                    "language": language,
                    "must_cite_one_of": gold,
                    "relevant_ids": relevant,
                }
            )
        except TypeError:  # lone surrogates: label_text's own fallback
            text = label_text(case_id, *label)
        self._pending.append(text)
        if len(self._pending) >= 512:
            self._file.write(b"".join(self._pending))
            self._pending.clear()
        ends = self._ends
        if number < len(ends):
            raise ValueError(f"line {number} comes after line {len(ends) - 1}: lines go in order")
        if len(ends) < number:  # lines without a text (blank, repeated) are empty spans
            ends.extend([self._size] * (number - len(ends)))
        self._size += len(text)
        ends.append(self._size)

    def fingerprint(self, first_line: Mapping[str, int]) -> str:
        self._file.write(b"".join(self._pending))
        self._pending.clear()
        self._file.flush()
        if not self._size:
            return fingerprint_texts(())
        ends = self._ends
        with mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ) as view:

            def texts() -> Iterator[bytes]:
                for case_id in sorted(first_line):
                    number = first_line[case_id]
                    yield view[ends[number - 1] : ends[number]]

            return fingerprint_texts(texts())

    def close(self) -> None:
        self._file.close()


class LineWatch(Protocol):
    """What watches each line as it is scored (a
    :class:`~recall_gate.adapters.artifacts.CaptureWatch`): the artifact to score
    and its ranked card ids."""

    def see(self, number: int, line: Artifact) -> tuple[Artifact, Sequence[str]]: ...


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
) -> ScoredCapture:
    """Score numbered artifacts at ``k``, labelled by ``cases`` or by themselves.

    ``results`` receives every case record as it is scored (its caller
    finishes it: the provenance is its to give). ``fingerprint``: also digest
    the capture's own labels, as :func:`~recall_gate.core.fingerprint.fingerprint_labels`
    would (for a self-labelled capture). ``metrics``: the metric keys aggregated.
    ``watch``: sees each line before it is scored (and may map it).
    """
    labeller = Labeller(cases, artifacts_source=artifacts_source, cases_source=cases_source)
    scorer = CaseScorer(k, keep_missed=MISSED_KEPT, metrics=metrics)
    texts = _LabelTexts() if fingerprint else None
    try:
        if k > 0 and (results is None or isinstance(results, ResultsWriter)):
            _score_lines(artifacts, labeller, scorer, watch=watch, results=results, texts=texts)
        else:
            _score_each(artifacts, labeller, scorer, watch=watch, results=results, texts=texts)
        labeller.finish()
        return ScoredCapture(
            aggregates=scorer.aggregates(),
            total=scorer.total,
            scored=scorer.scored,
            outcomes=scorer.outcomes,
            label_fingerprint=None if texts is None else texts.fingerprint(labeller.first_line),
            missed=tuple(scorer.missed),
            missed_total=scorer.missed_total,
            short_of_k=scorer.short_of_k,
        )
    finally:
        if texts is not None:
            texts.close()


def _score_each(
    artifacts: Iterable[tuple[int, Artifact]],
    labeller: Labeller,
    scorer: CaseScorer,
    *,
    watch: LineWatch | None,
    results: CaseSink | None,
    texts: _LabelTexts | None,
) -> None:
    """The reference loop: each case through :meth:`CaseScorer.add` and the sink's ``add``."""
    label_of = labeller.label
    add = scorer.add
    write = None if results is None else results.add
    for number, line in artifacts:
        artifact = line if watch is None else watch.see(number, line)[0]
        label = label_of(number, artifact)
        if label is None:
            continue  # its error is due at finish()
        record = add(
            artifact.case_id,
            label,
            artifact.ranked_card_ids(),
            artifact.cited,
            query=artifact.query,
        )
        if write is not None:
            write(record)
        if texts is not None:
            texts.add(number, artifact.case_id, label)


# One loop by design: a helper called per case costs what the loop saves.
def _score_lines(  # noqa: PLR0912, PLR0915
    artifacts: Iterable[tuple[int, Artifact]],
    labeller: Labeller,
    scorer: CaseScorer,
    *,
    watch: LineWatch | None,
    results: ResultsWriter | None,
    texts: _LabelTexts | None,
) -> None:
    """:func:`_score_each` in one loop, for a results file or none: the same records,
    aggregates and counts (a test holds the two equal), with no call per case but
    the watch's and the labeller's. The rules are :mod:`recall_gate.core.metrics`':
    de-duplicated by first occurrence before the cut at k; no gold, no score; nDCG's
    ideal ranking cut at k; a card is its ``parent_id``, else its ``id``."""
    k = scorer.k
    label_of = labeller.label
    see = None if watch is None else watch.see
    write = None if results is None else results.add_rounded
    add_text = None if texts is None else texts.add
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
            if label is None:
                continue  # its error is due at finish()
            language, case_type, gold_ids, relevant_ids = label
            case_id = artifact.case_id
            cited = artifact.cited
            top = list(dict.fromkeys(ranked))[:k]  # de-duplicated, then cut
            total += 1
            cell = cells.get((case_type, language))
            if cell is None:  # registers the group even if no case of it is scored
                cell = cells[(case_type, language)] = cell_of(case_type, language)
            outcome = None
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
                    cell[-1](1.0 if outcome == "ok" else 0.0)
                if not hit:
                    missed_total += 1
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
                            )
                        )
            if write is not None:
                write(
                    {
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
                )
            if add_text is not None:
                add_text(number, case_id, label)
    finally:
        scorer.count(total=total, scored=scored, short_of_k=short, missed_total=missed_total)
