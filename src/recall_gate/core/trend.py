"""The trend of a baseline across its committed versions (pure).

One :class:`TrendPoint` per version: when and why it was made, k, and each
metric's overall mean with its n. A k that changes along the way is kept and
shown: the points before and after measure different things.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from recall_gate.core.baseline import Baseline
from recall_gate.core.records import MetricSummary

__all__ = ["TrendPoint", "trend_point"]


@dataclass(frozen=True, kw_only=True)
class TrendPoint:
    """One version of a baseline; ``commit`` ``None``: not committed yet."""

    commit: str | None
    committed_at: str | None
    created_at: str
    reason: str
    k: int
    overall: dict[str, MetricSummary] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.commit[:7] if self.commit else "proposed"


def trend_point(baseline: Baseline, *, commit: str | None, committed_at: str | None) -> TrendPoint:
    return TrendPoint(
        commit=commit,
        committed_at=committed_at,
        created_at=baseline.created_at,
        reason=baseline.reason,
        k=baseline.k,
        overall=dict(baseline.aggregates.overall),
    )
