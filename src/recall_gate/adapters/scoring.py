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
from typing import IO, Any, Protocol

from recall_gate.core.evaluate import CaseScorer
from recall_gate.core.fingerprint import fingerprint_texts, label_text
from recall_gate.core.labels import Label, Labeller
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.records import Aggregates, Artifact, CaseLabel, CaseResult

__all__ = ["MISSED_KEPT", "CaseSink", "RetrievedCards", "ScoredCapture", "score_capture"]

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
) -> ScoredCapture:
    """Score numbered artifacts at ``k``, labelled by ``cases`` or by themselves.

    ``results`` receives every case record as it is scored (its caller
    finishes it: the provenance is its to give). ``fingerprint``: also digest
    the capture's own labels, as :func:`~recall_gate.core.fingerprint.fingerprint_labels`
    would (for a self-labelled capture). ``metrics``: the metric keys aggregated.
    """
    labeller = Labeller(cases, artifacts_source=artifacts_source, cases_source=cases_source)
    scorer = CaseScorer(k, keep_missed=MISSED_KEPT, metrics=metrics)
    texts = _LabelTexts() if fingerprint else None
    label_of = labeller.label
    add = scorer.add
    write = None if results is None else results.add
    try:
        for number, artifact in artifacts:
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
