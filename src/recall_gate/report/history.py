"""The trend report of a baseline (pure): a Mermaid line chart per metric with
n per point, then a table; and its JSON document (``history --json``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recall_gate.core.metric_registry import GATED_METRICS, metric_label, shown_metrics
from recall_gate.core.metrics import HIT
from recall_gate.core.trend import TrendPoint
from recall_gate.report.charts import ChartSeries, line_chart
from recall_gate.report.markup import Format, escape_markdown, table

__all__ = ["HISTORY_KIND", "history_json", "render_history"]

HISTORY_KIND = "recall-gate-history"

_OUTPUT_KEYS = {m.key: m.output for m in GATED_METRICS if m.output is not None}


def _n(point: TrendPoint) -> int:
    summary = point.overall.get(HIT)
    return summary.n if summary else 0


def _mean(point: TrendPoint, metric: str) -> str:
    summary = point.overall.get(metric)
    return "—" if summary is None else f"{summary.mean:.3f}"


def render_history(
    points: Sequence[TrendPoint], *, path: str, fmt: Format = "markdown", heading: bool = True
) -> str:
    """Charts (Markdown only) and a table of every version, oldest first."""
    md = fmt == "markdown"

    def user(text: str) -> str:
        return escape_markdown(text) if md else " ".join(text.split())

    ks = sorted({p.k for p in points})
    k = ks[-1]
    shown = shown_metrics(*(p.overall for p in points))
    parts = []
    if heading:
        title = f"recall-gate history: {path}"
        parts.append(f"### {user(title)}" if md else f"{title}\n{'=' * len(title)}")
    count = len(points)
    parts.append(
        f"{count} version{'s' if count != 1 else ''} of {user(path)}, oldest first; "
        "overall means with n per point."
        + (
            f" k changed along the way ({', '.join(map(str, ks))}): points at another k "
            "measure something else."
            if len(ks) > 1
            else ""
        )
    )
    if md:
        labels = [f"{p.label} n={_n(p)}" for p in points]
        parts += [
            line_chart(
                title=f"{metric_label(metric, k)} (overall) per baseline version",
                labels=labels,
                line=ChartSeries(
                    values=tuple(
                        s.mean if (s := p.overall.get(metric)) is not None else None for p in points
                    )
                ),
                y_label=metric_label(metric, k),
            )
            for metric in shown
        ]
    rows = [
        [
            user(p.label),
            user(p.committed_at or "not committed"),
            str(p.k),
            str(_n(p)),
            *(_mean(p, m) for m in shown),
            user(p.reason) if p.reason else "—",
        ]
        for p in points
    ]
    header = ["version", "committed", "k", "n", *(metric_label(m, k) for m in shown)]
    parts.append(table([*header, "reason"], rows, fmt))
    return "\n\n".join(parts) + "\n"


def history_json(points: Sequence[TrendPoint], *, profile: str, path: str) -> dict[str, Any]:
    """The trend as data: one entry per version, oldest first."""
    return {
        "kind": HISTORY_KIND,
        "schema_version": 1,
        "profile": profile,
        "path": path,
        "points": [
            {
                "commit": p.commit,
                "committed_at": p.committed_at,
                "created_at": p.created_at,
                "reason": p.reason,
                "k": p.k,
                "n": _n(p),
                **{
                    _OUTPUT_KEYS[m]: (s.mean if (s := p.overall.get(m)) is not None else None)
                    for m in shown_metrics(*(q.overall for q in points))
                },
            }
            for p in points
        ],
    }
