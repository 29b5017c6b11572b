"""The trend of a baseline across its committed versions (pure).

One :class:`TrendPoint` per version: when and why it was made, k, and the
baseline itself. :func:`trend_rows` reads one group (overall, a language, a
case type) along the versions: each metric's mean with its n, what changed
since the version before (:class:`VersionChanges`), and the change of each
mean (Δ) — only between two versions that measured the same thing.

A Δ across a change of the case set, of k or of the recorded provenance
(retriever, settings, knowledge base, queries: a stale fingerprint) would
read as a drop or a gain the retrieval never made, so it is not computed:
the change is named instead, and the means on each side stay visible.
A group's case set is its own: cases added in one language leave the
other languages' deltas alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from recall_gate.core.baseline import Baseline
from recall_gate.core.compare import (
    OVERALL,
    Group,
    StaleReason,
    case_label,
    ordered_groups,
    stale_reasons,
)
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult, MetricSummary

__all__ = [
    "CaseSetChange",
    "SkippedVersion",
    "TrendPoint",
    "TrendRow",
    "VersionChanges",
    "changes_between",
    "group_means",
    "trend_groups",
    "trend_point",
    "trend_rows",
]


@dataclass(frozen=True, kw_only=True)
class TrendPoint:
    """One version of a baseline; ``commit`` ``None``: not committed yet."""

    commit: str | None
    committed_at: str | None
    created_at: str
    reason: str
    k: int
    overall: dict[str, MetricSummary] = field(default_factory=dict)
    baseline: Baseline

    @property
    def label(self) -> str:
        return self.commit[:7] if self.commit else "proposed"


@dataclass(frozen=True, kw_only=True)
class SkippedVersion:
    """A committed version that is not a readable baseline, and why."""

    commit: str
    committed_at: str
    problem: str


def trend_point(baseline: Baseline, *, commit: str | None, committed_at: str | None) -> TrendPoint:
    return TrendPoint(
        commit=commit,
        committed_at=committed_at,
        created_at=baseline.created_at,
        reason=baseline.reason,
        k=baseline.k,
        overall=dict(baseline.aggregates.overall),
        baseline=baseline,
    )


def group_means(point: TrendPoint, group: Group) -> dict[str, MetricSummary]:
    """The means of ``group`` at this version (``{}``: it held no case of it)."""
    aggregates = point.baseline.aggregates
    if group.kind == "overall":
        return dict(aggregates.overall)
    by = aggregates.by_language if group.kind == "language" else aggregates.by_case_type
    return dict(by.get(group.name, {}))


@dataclass(frozen=True, kw_only=True)
class CaseSetChange:
    """Case ids added, removed, or kept with other groups or gold (relabelled)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    relabelled: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.relabelled)


@dataclass(frozen=True, kw_only=True)
class VersionChanges:
    """What differs between a version and the version shown before it, for one group.

    ``k`` is (before, after) when it changed; ``cases`` is the group's own case
    set; ``edited_queries`` counts the group's cases whose recorded query text
    changed; ``provenance`` lists every other recorded fingerprint or setting
    that differs (the same reasons that make ``compare`` call a baseline stale),
    without those the case set or the queries above already explain.
    """

    k: tuple[int, int] | None = None
    cases: CaseSetChange = field(default_factory=CaseSetChange)
    edited_queries: int = 0
    provenance: tuple[StaleReason, ...] = ()

    @property
    def comparable(self) -> bool:
        """True when both versions measured the same thing, so a Δ means something."""
        return (
            self.k is None
            and not self.cases.changed
            and not self.edited_queries
            and not self.provenance
        )


def _in_group(cases: Sequence[CaseResult], group: Group) -> dict[str, CaseResult]:
    return {c.case_id: c for c in cases if group.contains(c)}


def _case_set(before: Mapping[str, CaseResult], after: Mapping[str, CaseResult]) -> CaseSetChange:
    return CaseSetChange(
        added=tuple(i for i in after if i not in before),
        removed=tuple(i for i in before if i not in after),
        relabelled=tuple(
            i for i, c in after.items() if i in before and case_label(before[i]) != case_label(c)
        ),
    )


def _edited_queries(before: Mapping[str, CaseResult], after: Mapping[str, CaseResult]) -> int:
    """Cases in both whose query both versions recorded, and differently."""
    return sum(
        1
        for i, c in after.items()
        if i in before
        and c.query is not None
        and before[i].query is not None
        and " ".join(c.query.split()) != " ".join((before[i].query or "").split())
    )


def changes_between(before: Baseline, after: Baseline, group: Group = OVERALL) -> VersionChanges:
    """What changed from ``before`` to ``after``, as seen by ``group``."""
    reasons = stale_reasons(after, before)
    everywhere_before = _in_group(before.cases, OVERALL)
    everywhere_after = _in_group(after.cases, OVERALL)
    overall_cases = _case_set(everywhere_before, everywhere_after)
    overall_queries = _edited_queries(everywhere_before, everywhere_after)
    mine_before, mine_after = _in_group(before.cases, group), _in_group(after.cases, group)
    # The dataset fingerprint covers the case labels and the queries fingerprint the
    # queries: a change the case set or the per-case queries explain is named there
    # (group by group), not again as an unexplained fingerprint for every group.
    explained = set()
    if overall_cases.changed:
        explained.add("dataset")
    if overall_cases.changed or overall_queries:
        explained.add("queries")
    return VersionChanges(
        k=(before.k, after.k) if before.k != after.k else None,
        cases=_case_set(mine_before, mine_after),
        edited_queries=_edited_queries(mine_before, mine_after),
        provenance=tuple(r for r in reasons if r.what != "k" and r.what not in explained),
    )


@dataclass(frozen=True, kw_only=True)
class TrendRow:
    """One version as one group sees it.

    ``changes`` is ``None`` for the first version shown; ``deltas`` holds each
    metric's change since the version before, and is empty when there is
    none to compute (the first version, or a change that makes the two
    versions measure different things — ``changes`` names it).
    """

    point: TrendPoint
    means: dict[str, MetricSummary]
    changes: VersionChanges | None
    deltas: dict[str, float]

    @property
    def n(self) -> int:
        """The cases scored in this group at this version (those with gold)."""
        summary = self.means.get(HIT)
        if summary is not None:
            return summary.n
        return max((s.n for s in self.means.values()), default=0)


def trend_rows(points: Sequence[TrendPoint], group: Group = OVERALL) -> tuple[TrendRow, ...]:
    """Every version, oldest first, as ``group`` sees it."""
    rows: list[TrendRow] = []
    for i, point in enumerate(points):
        means = group_means(point, group)
        if i == 0:
            rows.append(TrendRow(point=point, means=means, changes=None, deltas={}))
            continue
        before = points[i - 1]
        changes = changes_between(before.baseline, point.baseline, group)
        previous = group_means(before, group)
        deltas = (
            {m: s.mean - previous[m].mean for m, s in means.items() if m in previous}
            if changes.comparable
            else {}
        )
        rows.append(TrendRow(point=point, means=means, changes=changes, deltas=deltas))
    return tuple(rows)


def trend_groups(points: Sequence[TrendPoint]) -> tuple[Group, ...]:
    """Overall, then every case type, then every language any version scored."""
    return tuple(
        ordered_groups(c for p in points for c in p.baseline.cases if c.metrics),
    )
