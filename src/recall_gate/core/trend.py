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

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

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
from recall_gate.core.records import MetricSummary

__all__ = [
    "CaseSetChange",
    "SkippedVersion",
    "Trend",
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

    @cached_property
    def _cases(self) -> _CaseIndex:
        """Its cases indexed once, however many trends and groups read them."""
        return _index(self.baseline)


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
    # Every case both versions hold records its query on both sides: a queries
    # fingerprint that changed with no edited query changed its recipe, not a query.
    queries_recorded: bool = True
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


@dataclass(frozen=True)
class _CaseIndex:
    """One version's cases, indexed once: their order, what each is judged by,
    its recorded query, and the ids in each group."""

    order: tuple[str, ...]
    labels: dict[str, tuple[object, ...]]
    queries: dict[str, str]
    members: dict[Group, frozenset[str]]


def _index(baseline: Baseline) -> _CaseIndex:
    members: dict[Group, set[str]] = {OVERALL: set()}
    for c in baseline.cases:
        members[OVERALL].add(c.case_id)
        members.setdefault(Group(kind="case_type", name=c.case_type), set()).add(c.case_id)
        members.setdefault(Group(kind="language", name=c.language), set()).add(c.case_id)
    return _CaseIndex(
        order=tuple(c.case_id for c in baseline.cases),
        labels={c.case_id: case_label(c) for c in baseline.cases},
        queries={c.case_id: " ".join(c.query.split()) for c in baseline.cases if c.query},
        members={g: frozenset(ids) for g, ids in members.items()},
    )


@dataclass(frozen=True)
class _Step:
    """What changed from one version to the next, for every group at once."""

    before: _CaseIndex
    after: _CaseIndex
    k: tuple[int, int] | None
    relabelled: frozenset[str]
    edited: frozenset[str]
    queries_recorded: bool
    provenance: tuple[StaleReason, ...]

    def seen_by(self, group: Group) -> VersionChanges:
        mine_before = self.before.members.get(group, frozenset())
        mine_after = self.after.members.get(group, frozenset())
        added, removed = mine_after - mine_before, mine_before - mine_after
        both = mine_before & mine_after
        return VersionChanges(
            k=self.k,
            cases=CaseSetChange(
                added=tuple(i for i in self.after.order if i in added) if added else (),
                removed=tuple(i for i in self.before.order if i in removed) if removed else (),
                relabelled=tuple(i for i in self.after.order if i in self.relabelled and i in both),
            ),
            edited_queries=len(self.edited & both),
            queries_recorded=self.queries_recorded,
            provenance=self.provenance,
        )


def _step(before: Baseline, after: Baseline, was: _CaseIndex, now: _CaseIndex) -> _Step:
    common = was.labels.keys() & now.labels.keys()
    relabelled = frozenset(i for i in common if was.labels[i] != now.labels[i])
    edited = frozenset(
        i
        for i in common
        if i in was.queries and i in now.queries and was.queries[i] != now.queries[i]
    )
    # The dataset fingerprint covers the case labels and the queries fingerprint the
    # queries: a change the case set or the per-case queries explain is named there
    # (group by group), not again as an unexplained fingerprint for every group.
    cases_changed = bool(relabelled) or was.labels.keys() != now.labels.keys()
    explained = {"k"}
    if cases_changed:
        explained.add("dataset")
    if cases_changed or edited:
        explained.add("queries")
    return _Step(
        before=was,
        after=now,
        k=(before.k, after.k) if before.k != after.k else None,
        relabelled=relabelled,
        edited=edited,
        queries_recorded=all(i in was.queries and i in now.queries for i in common),
        provenance=tuple(r for r in stale_reasons(after, before) if r.what not in explained),
    )


def changes_between(before: Baseline, after: Baseline, group: Group = OVERALL) -> VersionChanges:
    """What changed from ``before`` to ``after``, as seen by ``group``."""
    return _step(before, after, _index(before), _index(after)).seen_by(group)


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


class Trend:
    """The versions of a baseline, oldest first, read group by group.

    Each version's cases are indexed once and each step between two versions
    is worked out once, whatever the number of groups read."""

    def __init__(self, points: Sequence[TrendPoint]) -> None:
        self.points = tuple(points)
        self._steps = [
            _step(a.baseline, b.baseline, a._cases, b._cases)
            for a, b in itertools.pairwise(self.points)
        ]
        self.groups = trend_groups(self.points)

    def rows(self, group: Group = OVERALL) -> tuple[TrendRow, ...]:
        """Every version, oldest first, as ``group`` sees it."""
        rows: list[TrendRow] = []
        previous: dict[str, MetricSummary] = {}
        for i, point in enumerate(self.points):
            means = group_means(point, group)
            changes = self._steps[i - 1].seen_by(group) if i else None
            deltas = (
                {m: s.mean - previous[m].mean for m, s in means.items() if m in previous}
                if changes is not None and changes.comparable
                else {}
            )
            rows.append(TrendRow(point=point, means=means, changes=changes, deltas=deltas))
            previous = means
        return tuple(rows)


def trend_rows(points: Sequence[TrendPoint], group: Group = OVERALL) -> tuple[TrendRow, ...]:
    """Every version, oldest first, as ``group`` sees it."""
    return Trend(points).rows(group)


def trend_groups(points: Sequence[TrendPoint]) -> tuple[Group, ...]:
    """Overall, then every case type, then every language any version scored."""
    return tuple(ordered_groups(c for p in points for c in p.baseline.cases if c.metrics))
