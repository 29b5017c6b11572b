"""The label-free diff of real query traffic between two revisions (pure).

Each logged query's top-k card ids at the base (the snapshot) are compared with
its top-k at this revision (see :mod:`recall_gate.core.rank_overlap`): top-1
changed, Jaccard@k of the two sets, RBO_ext at persistence ``p``. Both rankings
are cut to ``k`` first, so a change below rank k is no change.

Aggregated overall and per language (``und`` for queries that name none), each
figure both **traffic-weighted** (each query counts its ``weight``) and
**unweighted** (each query counts once):

- ``top1_changed``: the share whose first card changed;
- ``moved``: the share whose top-k *set* changed (Jaccard@k < 1);
- ``rbo``: the mean RBO_ext; ``jaccard``: the mean Jaccard@k.

The biggest movers are ranked by ``weight × (1 − RBO)`` (ties: by id). A
query in the log but absent from the base snapshot (new since) or from this
capture (failed) is counted, not compared. A change is not a regression:
nothing here knows which answer is right.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.rank_overlap import DEFAULT_PERSISTENCE, jaccard_at_k, rbo_ext, top1_changed

__all__ = [
    "MOVERS",
    "OVERALL",
    "QueryMove",
    "TrafficDiff",
    "TrafficFigures",
    "diff_traffic",
]

OVERALL = "overall"
MOVERS = 10  # the biggest movers listed


@dataclass(frozen=True, kw_only=True)
class QueryMove:
    """One compared logged query: its figures and both top-k lists."""

    id: str
    query: str
    language: str
    weight: float
    before: tuple[str, ...]
    after: tuple[str, ...]
    top1_changed: bool
    jaccard: float
    rbo: float

    @property
    def moved(self) -> bool:
        """Whether the top-k set changed."""
        return self.jaccard < 1.0

    @property
    def impact(self) -> float:
        """How far this query moved, scaled by its traffic: ``weight × (1 − RBO)``."""
        return self.weight * (1.0 - self.rbo)


@dataclass(frozen=True, kw_only=True)
class TrafficFigures:
    """One group's figures, each a share (or mean) in [0, 1]."""

    n: int
    weight: float
    top1_changed: float
    moved: float
    rbo: float
    jaccard: float
    weighted_top1_changed: float
    weighted_moved: float
    weighted_rbo: float
    weighted_jaccard: float


def _figures(moves: Sequence[QueryMove]) -> TrafficFigures:
    n = len(moves)
    if not n:
        return TrafficFigures(
            n=0, weight=0.0, top1_changed=0.0, moved=0.0, rbo=1.0, jaccard=1.0,
            weighted_top1_changed=0.0, weighted_moved=0.0, weighted_rbo=1.0, weighted_jaccard=1.0,
        )  # fmt: skip
    # One pass: [count, weighted] sums of top-1 changed, moved, RBO and Jaccard.
    total = top1 = w_top1 = moved = w_moved = rbo = w_rbo = jaccard = w_jaccard = 0.0
    for m in moves:
        w = m.weight
        total += w
        rbo += m.rbo
        w_rbo += w * m.rbo
        jaccard += m.jaccard
        w_jaccard += w * m.jaccard
        if m.top1_changed:
            top1 += 1
            w_top1 += w
        if m.jaccard < 1.0:
            moved += 1
            w_moved += w
    return TrafficFigures(
        n=n,
        weight=total,
        top1_changed=top1 / n,
        moved=moved / n,
        rbo=rbo / n,
        jaccard=jaccard / n,
        weighted_top1_changed=w_top1 / total,
        weighted_moved=w_moved / total,
        weighted_rbo=w_rbo / total,
        weighted_jaccard=w_jaccard / total,
    )


@dataclass(frozen=True, kw_only=True)
class TrafficDiff:
    """The diff of a query log between the base snapshot and this capture."""

    k: int
    p: float
    # "overall" first, then each language by name.
    groups: Mapping[str, TrafficFigures]
    movers: tuple[QueryMove, ...]
    # Logged queries the base snapshot lacks (new since), or this capture lacks (failed).
    not_in_base: tuple[str, ...] = ()
    not_captured: tuple[str, ...] = ()
    # The traffic (summed weight) of the logged queries this capture lacks.
    not_captured_weight: float = 0.0

    @property
    def overall(self) -> TrafficFigures:
        return self.groups[OVERALL]


def diff_traffic(
    queries: Sequence[LoggedQuery],
    *,
    base: Mapping[str, Sequence[str]],
    current: Mapping[str, Sequence[str]],
    k: int,
    p: float = DEFAULT_PERSISTENCE,
    movers: int = MOVERS,
) -> TrafficDiff:
    """Each logged query's top ``k`` in ``base`` against ``current`` (query id →
    card ids, best first), aggregated overall and per language."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    moves: list[QueryMove] = []
    not_in_base: list[str] = []
    not_captured: list[str] = []
    not_captured_weight = 0.0
    for logged in queries:
        if logged.id not in base:
            not_in_base.append(logged.id)
            continue
        if logged.id not in current:
            not_captured.append(logged.id)
            not_captured_weight += logged.weight
            continue
        before = tuple(dict.fromkeys(base[logged.id]))[:k]
        after = tuple(dict.fromkeys(current[logged.id]))[:k]
        same = before == after  # most queries, most PRs: nothing to compute
        moves.append(
            QueryMove(
                id=logged.id,
                query=logged.query,
                language=logged.group,
                weight=logged.weight,
                before=before,
                after=after,
                top1_changed=False if same else top1_changed(before, after),
                jaccard=1.0 if same else jaccard_at_k(before, after, k=k),
                rbo=1.0 if same else rbo_ext(before, after, p=p),
            )
        )
    by_language: dict[str, list[QueryMove]] = {}
    for move in moves:
        by_language.setdefault(move.language, []).append(move)
    groups = {OVERALL: _figures(moves)}
    groups.update({name: _figures(by_language[name]) for name in sorted(by_language)})
    ranked = sorted((m for m in moves if m.rbo < 1.0), key=lambda m: (-m.impact, m.id))
    return TrafficDiff(
        k=k,
        p=p,
        groups=groups,
        movers=tuple(ranked[:movers]),
        not_in_base=tuple(not_in_base),
        not_captured=tuple(not_captured),
        not_captured_weight=not_captured_weight,
    )
