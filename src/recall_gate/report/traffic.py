"""The query log's section of the report: one collapsed section with the traffic
diff (the figures per group, the 10 biggest movers before → after, the gate)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from recall_gate.core.comparison_records import GateEntryRecord
from recall_gate.core.traffic_diff import OVERALL
from recall_gate.core.traffic_record import MoverRecord, TrafficRecord, UnansweredLog
from recall_gate.report.markup import table

if TYPE_CHECKING:  # comparison.py imports this module
    from recall_gate.report.style import Style

__all__ = [
    "traffic_failure_phrase",
    "traffic_section",
    "unanswered_note",
]


def _share(value: float) -> str:
    return f"{value * 100:.1f} %"


def _cards(cards: Sequence[str], titles: Mapping[str, str], style: Style) -> str:
    if not cards:
        return "(nothing)"
    return ", ".join(style.user(titles[c]) if c in titles else style.literal(c) for c in cards)


def _mover_row(m: MoverRecord, titles: Mapping[str, str], style: Style) -> list[str]:
    return [
        style.user(m.query),
        m.language,
        f"{m.weight:g}",
        f"{m.rbo:.3f}",
        f"{_cards(m.before, titles, style)} → {_cards(m.after, titles, style)}",
    ]


def traffic_failure_phrase(traffic: TrafficRecord) -> str:
    """Why the traffic gate failed, for the verdict line."""
    moved = traffic.groups[OVERALL].weighted.moved
    return (
        f"{_share(moved)} of logged traffic changed its top {traffic.k}, more than "
        f"max_moved_share {_share(traffic.max_moved_share or 0.0)}"
    )


def traffic_section(
    traffic: TrafficRecord | None, style: Style, gate: GateEntryRecord | None = None
) -> str | None:
    """The collapsed section, or None when the run has no traffic diff; ``gate``:
    the traffic gate as the verdict judged it (its outcome and reason)."""
    if traffic is None:
        return None
    overall = traffic.groups[OVERALL]
    k = traffic.k
    summary = (
        f"Query traffic: {_share(overall.weighted.moved)} of it changed its top {k}, "
        f"{_share(overall.weighted.top1_changed)} its top 1 "
        f"({overall.n:,} logged queries, label-free)"
    )
    rows = [
        [
            "all" if name == OVERALL else name,
            f"{g.n:,}",
            f"{_share(g.weighted.moved)} / {_share(g.unweighted.moved)}",
            f"{_share(g.weighted.top1_changed)} / {_share(g.unweighted.top1_changed)}",
            f"{g.weighted.rbo:.3f} / {g.unweighted.rbo:.3f}",
        ]
        # Overall first, then by language: a JSON file read back holds its keys sorted.
        for name, g in sorted(
            traffic.groups.items(), key=lambda item: (item[0] != OVERALL, item[0])
        )
    ]
    header = ["group", "n", f"top {k} changed", "top 1 changed", "mean RBO"]
    body = [
        "Each logged query's top "
        f"{k} against the base's snapshot; shares as traffic-weighted / unweighted.",
        table(header, rows, style.fmt),
    ]
    if traffic.movers:
        body.append(
            f"The {len(traffic.movers)} biggest movers (weight × (1 − RBO)), before → after:"
        )
        body.append(
            table(
                ["query", "language", "weight", "RBO", "before → after"],
                [_mover_row(m, traffic.titles, style) for m in traffic.movers],
                style.fmt,
            )
        )
    skipped = []
    if traffic.not_in_base:
        skipped.append(f"{traffic.not_in_base:,} not in the base's snapshot (new since)")
    if traffic.not_captured:
        skipped.append(f"{traffic.not_captured:,} not answered in this capture")
    if skipped:
        body.append("Not compared: " + "; ".join(skipped) + ".")
    if traffic.max_moved_share is None:
        line = "Report-only (set " + style.code("gate.max_moved_share") + " to gate on it)."
    elif gate is not None and gate.outcome == "unjudged":
        line = (
            f"Gate {style.code('max_moved_share')} = {_share(traffic.max_moved_share)}: "
            f"{style.bold('fails')}, {gate.reason}."
        )
    else:
        failed = gate.outcome != "passes" if gate is not None else traffic.failed
        word = "fails" if failed else "passes"
        line = (
            f"Gate {style.code('max_moved_share')} = {_share(traffic.max_moved_share)}: "
            f"{style.bold(word)} at {_share(overall.weighted.moved)}."
        )
    body.append(
        f"RBO is {traffic.rbo_variant} at p = {traffic.p:g}. {line} "
        "A change is not a regression: these figures do not know which answer is right."
    )
    return style.collapsed(summary, body)


def unanswered_note(missing: UnansweredLog, style: Style) -> str:
    """Why the report has no traffic diff though the config names a query log,
    and the fix: the capture's snapshot was not kept beside it (with the gate
    set, said as its failure first)."""
    gate = (
        f"Gate {style.code('max_moved_share')} = {_share(missing.max_moved_share)} fails: "
        "it cannot be judged without the answers. "
        if missing.max_moved_share is not None
        else ""
    )
    return gate + (
        f"No query traffic diff: the config names a query log ({style.literal(missing.queries)}), "
        f"but the capture holds no answers to it ({style.literal(missing.snapshot)} is not "
        "beside it). Keep the snapshot that "
        f"{style.code('recall-gate capture --out capture.jsonl')} writes beside the capture "
        f"({style.code('capture.queries.jsonl')}, or {style.code('.jsonl.gz')}) and upload both; "
        f"in the two-job PR check, upload the action's {style.code('capture-dir')} output (the "
        f"folder holding both), not {style.code('capture.jsonl')} alone."
    )
