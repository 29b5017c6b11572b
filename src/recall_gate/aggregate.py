"""Means with an honest n: overall, by case type and by language.

A mean is taken over the cases that carry the metric key, and its n counts
exactly those cases; a case with empty gold carries no key, so it moves
neither (ADR-0023 (B)). Groups appear in a fixed order (the contract's order
of case types and languages) so that serialised results are stable.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from recall_gate.models import CASE_TYPES, LANGUAGES, Aggregates, CaseResult, MetricSummary

__all__ = ["CITATION_COVERAGE", "aggregate"]

# Share of gold-labelled cases whose citations include a gold card; present
# only when the capture carried `cited` ids.
CITATION_COVERAGE = "citation_coverage"


def _summaries(values: dict[str, list[float]]) -> dict[str, MetricSummary]:
    return {
        key: MetricSummary(mean=math.fsum(vals) / len(vals), n=len(vals))
        for key, vals in sorted(values.items())
        if vals
    }


def _ordered(groups: dict[str, dict[str, list[float]]], order: tuple[str, ...]) -> list[str]:
    known = [g for g in order if g in groups]
    return known + sorted(g for g in groups if g not in order)


def aggregate(results: Iterable[CaseResult]) -> Aggregates:
    """Aggregate per-case metrics into overall / by_case_type / by_language means.

    A group that has cases but no scored case maps to ``{}`` (shown as
    "not scored" rather than silently dropped).
    """
    overall: dict[str, list[float]] = defaultdict(list)
    by_type: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    by_lang: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for result in results:
        values = dict(result.metrics)
        if result.citation_outcome is not None:
            values[CITATION_COVERAGE] = 1.0 if result.citation_outcome == "ok" else 0.0
        type_bucket = by_type[result.case_type]
        lang_bucket = by_lang[result.language]
        for key, value in values.items():
            overall[key].append(value)
            type_bucket[key].append(value)
            lang_bucket[key].append(value)
    return Aggregates(
        overall=_summaries(overall),
        by_case_type={g: _summaries(by_type[g]) for g in _ordered(by_type, CASE_TYPES)},
        by_language={g: _summaries(by_lang[g]) for g in _ordered(by_lang, LANGUAGES)},
    )
