"""The traffic diff as the comparison document carries it (pure): the figures
of :mod:`recall_gate.core.traffic_diff`, the biggest movers with their cards'
titles, and the verdict of the optional ``max_moved_share`` gate.

Report-only unless ``gate.max_moved_share`` is set: then the gate fails when
the traffic-weighted share of logged queries whose top-k set changed is above
it, and cannot be judged (so fails) when it compared nothing or more than
``gate.max_unanswered_share`` of the logged queries went unanswered. A change
is not a regression: the gate says "more moved than we allow without a look",
not "it got worse".
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict

from recall_gate.core.gates import DEFAULT_MAX_UNANSWERED_SHARE, traffic_rule
from recall_gate.core.records import FLOAT_DIGITS
from recall_gate.core.traffic_diff import TrafficDiff, TrafficFigures

__all__ = [
    "MoverRecord",
    "ShareRecord",
    "TrafficGroupRecord",
    "TrafficRecord",
    "UnansweredLog",
    "traffic_record",
]

RBO_VARIANT = "RBO_ext (Webber, Moffat & Zobel 2010, Eq. 32)"


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ShareRecord(_Part):
    top1_changed: float
    moved: float
    rbo: float
    jaccard: float


class TrafficGroupRecord(_Part):
    n: int
    weight: float
    weighted: ShareRecord
    unweighted: ShareRecord


class MoverRecord(_Part):
    id: str
    query: str
    language: str
    weight: float
    rbo: float
    top1_changed: bool
    before: tuple[str, ...]
    after: tuple[str, ...]


class TrafficRecord(_Part):
    k: int
    rbo_variant: str
    p: float
    groups: dict[str, TrafficGroupRecord]  # "overall" first, then by language
    movers: tuple[MoverRecord, ...]
    titles: dict[str, str]  # card id → title, for the movers' cards the KB names
    not_in_base: int
    not_captured: int
    max_moved_share: float | None
    failed: bool
    # The top k the gate compares (the run's k, or the base snapshot's when
    # smaller); ``k`` is less when the capture's snapshot holds fewer. Absent in
    # older documents.
    k_asked: int | None = None
    # The traffic (summed weight) of the logged queries the capture did not
    # answer: with the compared weight, the unanswered share by traffic. Absent
    # in older documents.
    not_captured_weight: float | None = None
    # The pull request's own copy of the snapshot beside the baseline differs from
    # the base's ("changed") or is gone ("deleted"): the base's judges this run,
    # the pull request's after merge, so the report names it as it names a
    # baseline edit. None: unchanged, or no base revision judges.
    snapshot_edited_in_pr: Literal["changed", "deleted"] | None = None


class UnansweredLog(_Part):
    """The config names a query log, but the capture judged holds no answers to
    it (no snapshot beside it): the traffic diff cannot be made, and the report
    says why instead of leaving the section out."""

    queries: str  # the query log, as the config names it
    snapshot: str  # the snapshot looked for beside the capture
    # `gate.max_moved_share`, when set: a gate that cannot be judged fails (a
    # capture uploaded without its snapshot must not switch the gate off).
    max_moved_share: float | None = None


def _shares(f: TrafficFigures, *, weighted: bool) -> ShareRecord:
    def r(value: float) -> float:
        return round(value, FLOAT_DIGITS)

    if weighted:
        return ShareRecord(
            top1_changed=r(f.weighted_top1_changed),
            moved=r(f.weighted_moved),
            rbo=r(f.weighted_rbo),
            jaccard=r(f.weighted_jaccard),
        )
    return ShareRecord(
        top1_changed=r(f.top1_changed), moved=r(f.moved), rbo=r(f.rbo), jaccard=r(f.jaccard)
    )


def traffic_record(
    diff: TrafficDiff,
    *,
    titles: Mapping[str, str],
    max_moved_share: float | None,
    max_unanswered_share: float = DEFAULT_MAX_UNANSWERED_SHARE,
    k_asked: int | None = None,
    snapshot_edited_in_pr: Literal["changed", "deleted"] | None = None,
) -> TrafficRecord:
    """The diff as recorded, its gate judged by
    :func:`~recall_gate.core.gates.traffic_rule` (``failed``: it did not pass: the
    weighted moved share is above ``max_moved_share``, or what it compared could
    not judge it; never when that is unset). The verdict re-judges it from
    the recorded figures (core/gate_list.py), never from ``failed``."""
    cards = {card for m in diff.movers for card in (*m.before, *m.after)}
    moved = round(diff.overall.weighted_moved, FLOAT_DIGITS)
    judged = traffic_rule(
        {"max_moved_share": max_moved_share, "max_unanswered_share": max_unanswered_share},
        {
            "moved": moved,
            "compared": diff.overall.n,
            "not_captured": len(diff.not_captured),
            "not_captured_weight": round(diff.not_captured_weight, FLOAT_DIGITS),
            "compared_weight": round(diff.overall.weight, FLOAT_DIGITS),
            "not_in_base": len(diff.not_in_base),
            "k": diff.k,
            "k_asked": k_asked,
        },
    )
    return TrafficRecord(
        k=diff.k,
        rbo_variant=RBO_VARIANT,
        p=diff.p,
        groups={
            name: TrafficGroupRecord(
                n=f.n,
                weight=round(f.weight, FLOAT_DIGITS),
                weighted=_shares(f, weighted=True),
                unweighted=_shares(f, weighted=False),
            )
            for name, f in diff.groups.items()
        },
        movers=tuple(
            MoverRecord(
                id=m.id,
                query=m.query,
                language=m.language,
                weight=m.weight,
                rbo=round(m.rbo, FLOAT_DIGITS),
                top1_changed=m.top1_changed,
                before=m.before,
                after=m.after,
            )
            for m in diff.movers
        ),
        titles={card: titles[card] for card in sorted(cards) if card in titles},
        not_in_base=len(diff.not_in_base),
        not_captured=len(diff.not_captured),
        max_moved_share=max_moved_share,
        failed=max_moved_share is not None and judged.outcome != "passes",
        k_asked=k_asked,
        not_captured_weight=round(diff.not_captured_weight, FLOAT_DIGITS),
        snapshot_edited_in_pr=snapshot_edited_in_pr,
    )
