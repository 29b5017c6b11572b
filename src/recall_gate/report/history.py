"""The trend report of a baseline (pure): plain text for a terminal, Markdown
(Mermaid line charts per metric, then tables) for a file, and its JSON document
(``history --json``).

One table per group shown (overall; each case type; each language), one row
per version with each metric's mean, its n and its Δ since the version before.
Where the two versions measured different things (the group's case set, k, or
the recorded retriever, settings, knowledge base or queries changed) the Δ is
"—" and the row names the change, in the words of the stale-baseline banner.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any

from recall_gate.core.compare import OVERALL, Group
from recall_gate.core.comparison_json import stale_record
from recall_gate.core.metric_registry import (
    CITATION_COVERAGE,
    GATED_METRICS,
    metric_label,
    metric_spec,
    shown_metrics,
)
from recall_gate.core.trend import SkippedVersion, Trend, TrendPoint, TrendRow, VersionChanges
from recall_gate.report.charts import ChartSeries, line_chart
from recall_gate.report.markup import Format, table
from recall_gate.report.phrases import group_phrase
from recall_gate.report.stale_banner import stale_reason_phrases
from recall_gate.report.style import MARKDOWN, TEXT, Style
from recall_gate.report.trend_groups import GROUP_SELECTIONS, GroupSelection

__all__ = [
    "GROUP_SELECTIONS",
    "HISTORY_KIND",
    "GroupSelection",
    "change_phrases",
    "history_json",
    "render_history",
]

HISTORY_KIND = "recall-gate-history"
# Sentences on a terminal are wrapped to this width (tables are as wide as they are).
TEXT_WIDTH = 88
# 2: per group (overall, case types, languages) with n, Δ and what changed
#    between versions; versions skipped as unreadable are listed.
HISTORY_SCHEMA_VERSION = 2

_OUTPUT_KEYS = {m.key: m.output for m in GATED_METRICS if m.output is not None}
_KIND_WORDS = {"case_type": "case type", "language": "language"}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _mean(row: TrendRow, metric: str) -> str:
    summary = row.means.get(metric)
    return "—" if summary is None else f"{summary.mean:.3f}"


def _signed(value: float | None) -> str:
    if value is None:
        return "—"
    if abs(value) < 0.0005:
        return "0.000"
    return f"{value:+.3f}".replace("-", "−")


def _header(metric: str, ks: Sequence[int]) -> str:
    """``hit@5``; ``hit@k`` when k changed along the way (each row says its k)."""
    if len(ks) == 1 or metric == CITATION_COVERAGE:
        return metric_label(metric, ks[0])
    return f"{metric_spec(metric).label}@k"


def change_phrases(changes: VersionChanges, style: Style) -> list[str]:
    """What changed since the version before, one phrase per real change."""
    out = []
    if changes.k is not None:
        out.append(f"k {changes.k[0]} → {changes.k[1]}")
    c = changes.cases
    if c.changed:
        parts = []
        if c.added or c.removed:
            parts.append(f"+{len(c.added)} −{len(c.removed)}")
        if c.relabelled:
            parts.append(f"{len(c.relabelled)} relabelled")
        out.append("case set changed: " + ", ".join(parts))
    if changes.edited_queries:
        out.append(f"queries edited: {changes.edited_queries}")
    for reason in changes.provenance:
        if reason.what == "queries":
            out.append(
                "queries fingerprint changed, though no recorded query did"
                if changes.queries_recorded
                else "queries changed (not recorded case by case in both versions)"
            )
            continue
        phrases = stale_reason_phrases(stale_record(reason), style)
        if reason.what == "retriever" and reason.changes:
            said = ", ".join(p.removeprefix("retriever ") for p in phrases)
            phrases = [f"retriever changed: {said}"]
        out.extend(phrases)
    return out


_CODE_SPAN = re.compile(r"`[^`]*`")


def _cell(phrases: Sequence[str], md: bool) -> str:
    text = "; ".join(phrases)
    # A pipe ends a Markdown table cell even inside a code span unless escaped
    # (escape_markdown already escapes those of plain user text).
    return _CODE_SPAN.sub(lambda m: m.group(0).replace("|", "\\|"), text) if md else text


def _changes_cell(row: TrendRow, style: Style) -> str:
    if row.changes is None:
        return ""
    return _cell(change_phrases(row.changes, style), style.md)


def _metric_cells(row: TrendRow, shown: Sequence[str]) -> list[str]:
    cells = []
    for metric in shown:
        cells.append(_mean(row, metric))
        cells.append(_signed(row.deltas.get(metric)) if row.deltas else "—")
    return cells


# A terminal row stays readable: the reason is cut there (whole in Markdown and JSON).
REASON_CHARS = 60


def _reason(reason: str, style: Style) -> str:
    if not reason:
        return "—"
    if not style.md and len(reason) > REASON_CHARS:
        reason = reason[: REASON_CHARS - 1].rstrip() + "…"
    return style.user(reason)


def _committed(point: TrendPoint) -> str:
    return point.committed_at[:10] if point.committed_at else "not committed"


def _table(
    rows: Sequence[TrendRow], group: Group, shown: Sequence[str], ks: Sequence[int], style: Style
) -> str:
    overall = group == OVERALL
    header = ["version"]
    if overall:
        header += ["committed", "k"]
    header.append("n")
    for metric in shown:
        header += [_header(metric, ks), "Δ"]
    if overall:
        header.append("reason")
    header.append("changes since the version before")
    body = []
    for row in rows:
        p = row.point
        cells = [style.user(p.label)]
        if overall:
            cells += [_committed(p), str(p.k)]
        cells.append(str(row.n))
        cells += _metric_cells(row, shown)
        if overall:
            cells.append(_reason(p.reason, style))
        cells.append(_changes_cell(row, style))
        body.append(cells)
    return table(header, body, style.fmt)


def _chart_label(row: TrendRow) -> str:
    changed = row.changes is not None and not row.changes.comparable
    return f"{row.point.label} n={row.n}" + (" changed" if changed else "")


def _charts(rows: Sequence[TrendRow], shown: Sequence[str], ks: Sequence[int]) -> list[str]:
    labels = [_chart_label(r) for r in rows]
    return [
        line_chart(
            title=f"{_header(metric, ks)} (overall) per baseline version",
            labels=labels,
            line=ChartSeries(
                values=tuple(s.mean if (s := r.means.get(metric)) else None for r in rows)
            ),
            y_label=_header(metric, ks),
        )
        for metric in shown
    ]


def _selected(groups: Sequence[Group], by: GroupSelection) -> list[Group]:
    return [g for g in groups if g == OVERALL or by in ("all", g.kind)]


def _other_groups(groups: Sequence[Group], by: GroupSelection, style: Style) -> str | None:
    """Where the groups not shown are: ``by language (en, pt-BR): recall-gate history --by
    language``."""
    hidden = [
        kind
        for kind in ("case_type", "language")
        # One group of a kind is the overall table again.
        if by not in ("all", kind) and sum(g.kind == kind for g in groups) > 1
    ]
    if not hidden:
        return None
    listed = "; ".join(
        f"by {_KIND_WORDS[kind]} ("
        + ", ".join(style.user(g.name) for g in groups if g.kind == kind)
        + f"): {style.code(f'recall-gate history --by {kind}')}"
        for kind in hidden
    )
    both = f"; both: {style.code('--by all')}" if len(hidden) > 1 else ""
    return f"Also {listed}{both}."


def _skipped_note(skipped: Sequence[SkippedVersion], style: Style) -> str | None:
    if not skipped:
        return None
    lines = [
        f"Skipped {_plural(len(skipped), 'committed version')} that "
        f"{'is' if len(skipped) == 1 else 'are'} not a readable baseline (the trend "
        "goes from the version before to the version after):"
    ]
    lines += [
        f"- {style.literal(s.commit[:7])} ({s.committed_at[:10]}): {style.user(s.problem)}"
        for s in skipped
    ]
    return "\n".join(lines)


def render_history(
    points: Sequence[TrendPoint],
    *,
    path: str,
    fmt: Format = "markdown",
    heading: bool = True,
    by: GroupSelection = "overall",
    skipped: Sequence[SkippedVersion] = (),
) -> str:
    """Charts (Markdown only) and a table per group shown, every version, oldest first."""
    style = MARKDOWN if fmt == "markdown" else TEXT
    md = style.md
    ks = sorted({p.k for p in points})
    shown = shown_metrics(*(p.overall for p in points))
    trend = Trend(points)
    groups = trend.groups
    parts = []
    if heading:
        title = f"recall-gate history: {path}"
        parts.append(f"### {style.user(title)}" if md else f"{title}\n{'=' * len(title)}")
    count = len(points)
    intro = (
        f"{_plural(count, 'version')} of {style.user(path)}, oldest first, with n (the cases "
        "scored) per version. Δ is the change since the version before, computed only when "
        "both measured the same cases at the same k with the same recorded retriever and "
        "settings; across a change it is — and the row names the change."
    )
    parts.append(intro if md else textwrap.fill(intro, width=TEXT_WIDTH, break_on_hyphens=False))
    note = _skipped_note(skipped, style)
    if note:
        parts.append(note)
    overall_rows = trend.rows(OVERALL)
    if md:
        parts += _charts(overall_rows, shown, ks)
    selected = _selected(groups, by)
    for group in selected:
        rows = overall_rows if group == OVERALL else trend.rows(group)
        section = _table(rows, group, shown, ks, style)
        if len(selected) > 1:
            name = group_phrase(group.label)
            section = (f"#### {style.user(name)}" if md else f"{name}\n{'-' * len(name)}") + (
                "\n\n" + section
            )
        parts.append(section)
    hint = _other_groups(groups, by, style)
    if hint:
        parts.append(hint if md else textwrap.fill(hint, width=TEXT_WIDTH))
    return "\n\n".join(parts) + "\n"


def _means_json(row: TrendRow, shown: Sequence[str]) -> dict[str, float | None]:
    return {
        _OUTPUT_KEYS[m]: (s.mean if (s := row.means.get(m)) is not None else None) for m in shown
    }


def _changes_json(changes: VersionChanges | None) -> dict[str, Any] | None:
    if changes is None:
        return None
    return {
        "comparable": changes.comparable,
        "k": None if changes.k is None else {"before": changes.k[0], "after": changes.k[1]},
        "cases": {
            "added": list(changes.cases.added),
            "removed": list(changes.cases.removed),
            "relabelled": list(changes.cases.relabelled),
        },
        "edited_queries": changes.edited_queries,
        "provenance": [stale_record(r).model_dump(mode="json") for r in changes.provenance],
        "phrases": change_phrases(changes, TEXT),
    }


def _group_json(group: Group, row: TrendRow, shown: Sequence[str]) -> dict[str, Any]:
    return {
        "group": group.label,
        "n": row.n,
        "means": _means_json(row, shown),
        "delta": {_OUTPUT_KEYS[m]: row.deltas.get(m) for m in shown} if row.deltas else None,
        "changes": _changes_json(row.changes),
    }


def history_json(
    points: Sequence[TrendPoint],
    *,
    profile: str,
    path: str,
    skipped: Sequence[SkippedVersion] = (),
) -> dict[str, Any]:
    """The trend as data: one entry per version, oldest first, with every group.

    The overall means stay at the top of each point (``hit``, ``recall``, …,
    ``n``) as in schema 1; ``groups`` holds overall, each case type and each
    language with n, means, ``delta`` (``null`` where none is computed) and
    ``changes`` since the version before (``null`` for the first)."""
    shown = shown_metrics(*(q.overall for q in points))
    trend = Trend(points)
    groups = trend.groups
    by_group = {g: trend.rows(g) for g in groups}
    return {
        "kind": HISTORY_KIND,
        "schema_version": HISTORY_SCHEMA_VERSION,
        "profile": profile,
        "path": path,
        "points": [
            {
                "commit": p.commit,
                "committed_at": p.committed_at,
                "created_at": p.created_at,
                "reason": p.reason,
                "k": p.k,
                "n": by_group[OVERALL][i].n,
                **_means_json(by_group[OVERALL][i], shown),
                "groups": [_group_json(g, by_group[g][i], shown) for g in groups],
            }
            for i, p in enumerate(points)
        ],
        "skipped": [
            {"commit": s.commit, "committed_at": s.committed_at, "problem": s.problem}
            for s in skipped
        ],
    }
