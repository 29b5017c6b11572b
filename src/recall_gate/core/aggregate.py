"""Means with an honest n: overall, by case type and by language.

A mean is taken over the cases that carry the metric key, and its n counts
exactly those cases; a case with empty gold carries no key, so it moves
neither (no gold, no score: docs/decisions/retrieval-recall.md). Groups appear
in a fixed order (the contract's order of case types and languages) so that
serialised results are stable.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain

from recall_gate.core.card_language import READER_LANGUAGE
from recall_gate.core.metric_registry import CITATION_COVERAGE
from recall_gate.core.records import CASE_TYPES, LANGUAGES, Aggregates, CaseResult, MetricSummary

__all__ = ["CITATION_COVERAGE", "MetricAccumulator", "aggregate"]

# Share of gold-labelled cases whose citations include a gold card; present
# only when the capture carried `cited` ids.

# metric key -> the value columns that make up one group's mean
_Columns = dict[str, list["array[float]"]]


def _summaries(values: _Columns) -> dict[str, MetricSummary]:
    out = {}
    for key, columns in sorted(values.items()):
        n = sum(map(len, columns))
        if n:
            # fsum is exactly rounded, so the order of the columns does not matter.
            out[key] = MetricSummary(mean=math.fsum(chain.from_iterable(columns)) / n, n=n)
    return out


def _ordered(groups: Mapping[str, object], order: tuple[str, ...]) -> list[str]:
    known = [g for g in order if g in groups]
    return known + sorted(g for g in groups if g not in order)


class MetricAccumulator:
    """:func:`aggregate` one case at a time, keeping no per-case record.

    Values are stored per (case type, language) cell in compact float arrays
    (8 bytes a value), so a million cases cost a few tens of MB; the means are
    the same ``math.fsum`` means :func:`aggregate` reports.
    """

    __slots__ = ("_cells",)

    def __init__(self) -> None:
        self._cells: dict[tuple[str, str], dict[str, array[float]]] = {}

    def _cell(self, case_type: str, language: str) -> dict[str, array[float]]:
        cell = self._cells.get((case_type, language))
        if cell is None:
            cell = self._cells[(case_type, language)] = {}
        return cell

    def add(self, case_type: str, language: str, values: Mapping[str, float]) -> None:
        """One case: its groups and its metric values (``{}`` for a case without gold)."""
        cell = self._cell(case_type, language)
        for key, value in values.items():
            column = cell.get(key)
            if column is None:
                column = cell[key] = array("d")
            column.append(value)

    def appenders(
        self, case_type: str, language: str, keys: Sequence[str]
    ) -> tuple[Callable[[float], None], ...]:
        """Bound ``append`` of the cell's column for each key, for hot loops.

        Registers the group even if nothing is appended (a group with cases
        but no scored case is reported as ``{}``).
        """
        cell = self._cell(case_type, language)
        return tuple(cell.setdefault(key, array("d")).append for key in keys)

    def result(self) -> Aggregates:
        overall: _Columns = {}
        by_type: dict[str, _Columns] = {}
        by_lang: dict[str, _Columns] = {}
        for (case_type, language), cell in self._cells.items():
            type_bucket = by_type.setdefault(case_type, {})
            lang_bucket = by_lang.setdefault(language, {})
            for key, column in cell.items():
                overall.setdefault(key, []).append(column)
                type_bucket.setdefault(key, []).append(column)
                lang_bucket.setdefault(key, []).append(column)
        return Aggregates(
            overall=_summaries(overall),
            by_case_type={g: _summaries(by_type[g]) for g in _ordered(by_type, CASE_TYPES)},
            by_language={g: _summaries(by_lang[g]) for g in _ordered(by_lang, LANGUAGES)},
        )


def aggregate(results: Iterable[CaseResult]) -> Aggregates:
    """Aggregate per-case metrics into overall / by_case_type / by_language means.

    A group that has cases but no scored case maps to ``{}`` (shown as
    "not scored" rather than silently dropped).
    """
    acc = MetricAccumulator()
    for result in results:
        values: Mapping[str, float] = result.metrics
        if result.citation_outcome is not None:
            values = {**values, CITATION_COVERAGE: 1.0 if result.citation_outcome == "ok" else 0.0}
        if result.in_reader_language is not None and result.metrics:
            values = {**values, READER_LANGUAGE: 1.0 if result.in_reader_language else 0.0}
        acc.add(result.case_type, result.language, values)
    return acc.result()
