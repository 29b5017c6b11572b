"""The retrieval-recall evaluator: one case's ranking → its metrics.

Rules (docs/decisions/retrieval-recall.md), each with a named test:

* Card identity is ``parent_id`` when present, else the item's ``id``
  (resolved by :meth:`Artifact.ranked_card_ids` before scoring).
* Metrics are computed on **retrieved** ids, never on cited ids.
* A case with empty ``must_cite_one_of`` yields ``{}``: it adds to no mean
  and no n (no gold, no score).
* Scoring is keyed on the presence of gold, not on the case type: an
  adversarial case that carries gold is scored (the denominator is "has gold").
* When the capture carries ``cited`` ids, a gold-labelled case is classified:
  ``retrieval_miss`` (no gold card in the top k), ``citation_miss`` (a gold
  card was retrieved but none was cited) or ``ok`` (a gold card was cited).

:class:`CaseScorer` is the one scorer: every command scores a case through
:meth:`CaseScorer.add`, which returns the case's record (a :class:`CaseResult`
as plain JSON data, for a results file written as it goes) and adds it to the
aggregates; it keeps no record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from recall_gate.core.aggregate import MetricAccumulator
from recall_gate.core.card_language import READER_LANGUAGE
from recall_gate.core.labels import Label
from recall_gate.core.metric_registry import (
    CITATION_COVERAGE,
    DEFAULT_METRIC_KEYS,
    GATED_METRICS,
    METRIC_KEYS,
)
from recall_gate.core.metrics import HIT, score_top
from recall_gate.core.records import Aggregates, Case, CaseLabel, CaseResult, CitationOutcome
from recall_gate.core.retrieved_detail import detail_data

__all__ = ["CaseScorer", "ReaderLanguage", "classify_citation", "score_case"]

# (gold, the top k card ids, hit@k) → 1.0 / 0.0 "answered in the reader's
# language", or None when no gold page is in the top k in any language.
ReaderLanguage = Callable[[frozenset[str], Sequence[str], float], float | None]


def classify_citation(*, hit: float, gold: frozenset[str], cited: Sequence[str]) -> CitationOutcome:
    """Tell a retrieval miss from a citation miss for one gold-labelled case."""
    if not hit:
        return "retrieval_miss"
    if gold.isdisjoint(cited):
        return "citation_miss"
    return "ok"


class CaseScorer:
    """Score cases one at a time at ``k``; the aggregates and counts of all of them.

    The first ``keep_missed`` missed cases (scored, hit@k = 0) are kept for the
    report's list of them; ``missed_total`` counts them all. ``metrics``: the
    metric keys scored besides the registry's default set (always scored).
    """

    def __init__(
        self, k: int, *, keep_missed: int = 0, metrics: Sequence[str] = DEFAULT_METRIC_KEYS
    ) -> None:
        unknown = sorted(set(metrics) - set(METRIC_KEYS))
        if unknown:
            raise ValueError(f"unknown metric keys: {', '.join(unknown)}")
        self.k = k
        # The default set is always scored (the ADR triad); ``metrics`` adds to it.
        chosen = {*DEFAULT_METRIC_KEYS, *metrics}
        self.metrics = tuple(key for key in METRIC_KEYS if key in chosen)
        # The aggregates' columns: the chosen retrieval metrics, then the citation
        # share, then "answered in the reader's language" (core.card_language).
        self._columns = (*self.metrics, CITATION_COVERAGE, READER_LANGUAGE)
        # The chosen metrics that the one pass of score_top does not compute.
        self.kernels = tuple(
            (m.key, m.kernel) for m in GATED_METRICS if m.kernel is not None and m.key in chosen
        )
        self.keep_missed = keep_missed
        self.missed: list[CaseResult] = []
        self.missed_total = 0
        self.total = 0  # cases scored or not
        self.scored = 0  # of which carry gold
        self.short_of_k = 0  # of which hold fewer than k distinct cards (honest depth)
        self.outcomes: Counter[str] = Counter()  # citation outcomes, when `cited` was captured
        self._acc = MetricAccumulator()
        self._cells: dict[tuple[str, str], tuple[Any, ...]] = {}

    def add(
        self,
        case_id: str,
        label: Label,
        ranked_card_ids: Sequence[str],
        cited: Sequence[str] | None = None,
        *,
        query: str | None = None,
        items: Sequence[Any] = (),
        reader: ReaderLanguage | None = None,
    ) -> dict[str, Any]:
        """One case: its record, shaped as ``CaseResult.model_dump(mode="json")``
        (tuples stand for lists). ``query`` is carried for reports only; so is,
        for a missed case, what the retriever said of its cards (``items``: the
        capture's retrieved ids and items; see :mod:`recall_gate.core.retrieved_detail`).
        ``reader``: whether the case found its gold in its reader's language
        (a translated KB's capture; see :mod:`recall_gate.core.card_language`)."""
        language, case_type, gold_ids, relevant_ids = label
        gold = frozenset(gold_ids)
        relevant = None if relevant_ids is None else frozenset(relevant_ids)
        top, metrics = score_top(ranked_card_ids, gold=gold, relevant=relevant, k=self.k)
        if metrics and self.kernels:
            rel = gold if relevant is None else relevant
            for key, kernel in self.kernels:
                metrics[key] = kernel(top, gold, rel, self.k)
        self.total += 1
        cell = self._cells.get((case_type, language))
        if cell is None:  # registers the group even if no case of it is scored
            cell = self._cells[(case_type, language)] = self.cell(case_type, language)
        outcome: CitationOutcome | None = None
        found: bool | None = None
        if metrics:
            self.scored += 1
            if len(top) < self.k:
                self.short_of_k += 1
            for append, key in zip(cell, self.metrics, strict=False):
                append(metrics[key])
            if cited is not None:
                outcome = classify_citation(hit=metrics[HIT], gold=gold, cited=cited)
                self.outcomes[outcome] += 1
                cell[-2](1.0 if outcome == "ok" else 0.0)
            if reader is not None:
                found = _found_in_language(reader, cell[-1], gold, top, metrics[HIT])
        record: dict[str, Any] = {
            "case_id": case_id,
            "case_type": case_type,
            "citation_outcome": outcome,
            "cited": None if cited is None else tuple(cited),
            "language": language,
            "metrics": metrics,
            "must_cite_one_of": gold_ids,
            "query": query,
            "ranked_ids": top,
            "relevant_ids": relevant_ids,
        }
        if found is not None:
            record["in_reader_language"] = found
        if metrics and not metrics[HIT]:
            detail = detail_data(items, top)
            if detail is not None:
                record["retrieved_detail"] = detail
            self.missed_total += 1
            if len(self.missed) < self.keep_missed:
                self.missed.append(CaseResult.model_validate(record))
        return record

    def cell(self, case_type: str, language: str) -> tuple[Callable[[float], None], ...]:
        """The group's appenders: one per metric of :attr:`metrics`, then the citation
        share's, then the reader's language share's (for a loop that scores cases
        itself, then :meth:`count` s them)."""
        return self._acc.appenders(case_type, language, self._columns)

    def count(self, *, total: int, scored: int, short_of_k: int, missed_total: int) -> None:
        """Add the counts of cases scored outside :meth:`add` (into :meth:`cell`)."""
        self.total += total
        self.scored += scored
        self.short_of_k += short_of_k
        self.missed_total += missed_total

    def aggregates(self) -> Aggregates:
        return self._acc.result()


def _found_in_language(
    reader: ReaderLanguage,
    append: Callable[[float], None],
    gold: frozenset[str],
    top: Sequence[str],
    hit: float,
) -> bool | None:
    """Whether a case found its gold page in its reader's language (its value added
    to the group's column), None when its top k holds no gold page in any language."""
    value = reader(gold, top, hit)
    if value is None:
        return None
    append(value)
    return value == 1.0


def score_case(
    case: CaseLabel,
    ranked_card_ids: Sequence[str],
    *,
    k: int,
    cited: Sequence[str] | None = None,
    query: str | None = None,
    items: Sequence[Any] = (),
) -> CaseResult:
    """Score one case's ranked card ids at k; ``{}`` metrics for empty gold.

    ``query`` is carried into the record for reports; a :class:`Case` brings its own.
    ``items`` (the capture's retrieved ids and items) tell what a missed case's
    cards were (:mod:`recall_gate.core.retrieved_detail`)."""
    label: Label = (case.language, case.case_type, case.must_cite_one_of, case.relevant_ids)
    query = case.query if isinstance(case, Case) else query
    return CaseResult.model_validate(
        CaseScorer(k).add(case.id, label, ranked_card_ids, cited, query=query, items=items)
    )
