"""Latency of a capture: p50, p95 and max of the queries' wall times, overall and per
group (report-only: no gate reads them).

Percentiles are nearest-rank (the smallest value with at least p % of the
values at or below it), so each is a latency some query really had.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence

from recall_gate.core.records import Latency, LatencyStats

__all__ = ["nearest_rank", "summarize_latency"]


def nearest_rank(ordered: Sequence[float], percent: float) -> float:
    """The nearest-rank ``percent`` percentile of sorted, non-empty ``ordered``."""
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def _stats(values: list[float]) -> LatencyStats:
    ordered = sorted(values)
    return LatencyStats(
        p50_ms=nearest_rank(ordered, 50),
        p95_ms=nearest_rank(ordered, 95),
        max_ms=ordered[-1],
        n=len(ordered),
    )


def summarize_latency(timed: Iterable[tuple[str | None, str | None, float]]) -> Latency | None:
    """``(language, case_type, latency_ms)`` of each timed case → the summary, or
    None when no case carries a latency."""
    overall: list[float] = []
    by_language: defaultdict[str, list[float]] = defaultdict(list)
    by_case_type: defaultdict[str, list[float]] = defaultdict(list)
    for language, case_type, ms in timed:
        overall.append(ms)
        if language is not None:
            by_language[language].append(ms)
        if case_type is not None:
            by_case_type[case_type].append(ms)
    if not overall:
        return None
    return Latency(
        overall=_stats(overall),
        by_case_type={group: _stats(v) for group, v in sorted(by_case_type.items())},
        by_language={group: _stats(v) for group, v in sorted(by_language.items())},
    )
