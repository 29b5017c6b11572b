"""The report's tables (pure): metric × group with baseline, current, Δ and a
noise mark; this run's means; the cases that moved; the chart."""

from __future__ import annotations

from collections.abc import Sequence, Set

from recall_gate.core.comparison_json import ComparisonDocument, DeltaRecord, MoveRecord
from recall_gate.core.metric_registry import shown_metrics
from recall_gate.core.metrics import HIT, NDCG
from recall_gate.report import phrases
from recall_gate.report.charts import ChartSeries, bar_and_line_chart
from recall_gate.report.markup import table
from recall_gate.report.style import Style, fmt_mean, fmt_rank, fmt_signed, more_pointer, query_cell

__all__ = [
    "chart_section",
    "current_table",
    "delta_table",
    "move_table",
]


def _n_cell(d: DeltaRecord) -> str:
    return str(d.n) if d.n == d.n_total else f"{d.n} of {d.n_total}"


def delta_table(
    doc: ComparisonDocument,
    style: Style,
    *,
    fail: Set[tuple[str, str]],
    would: Set[tuple[str, str]],
    exempt: Set[tuple[str, str]] = frozenset(),
    columns: tuple[str, str] = ("baseline", "current"),
) -> str:
    rows: list[list[str]] = []
    last_group: str | None = None
    for d in doc.deltas:
        first = d.group != last_group
        last_group = d.group
        key = (d.metric, d.group)
        mark = (
            style.mark("fail")
            if key in fail
            else style.mark("would")
            if key in would
            else style.mark("exempt")
            if key in exempt
            else ""
        )
        name = style.user(phrases.group_name(d.group))
        rows.append(
            [
                (style.bold(name) if d.group == "overall" else name) if first else "",
                _n_cell(d) if first else "",
                doc.label(d.metric) + phrases.short_star(doc, style),
                fmt_mean(d.baseline),
                fmt_mean(d.current),
                fmt_signed(d.delta) + mark,
                phrases.noise_cell(d, doc.gate.min_group_n),
            ]
        )
    header = ["group", "n", "metric", *columns, "Δ", "noise"]
    return table(header, rows, style.fmt)


def chart_section(doc: ComparisonDocument, style: Style) -> str | None:
    """Baseline vs this run per metric, for overall and every group (Markdown only)."""
    if not style.md or not doc.deltas:
        return None
    groups = list(dict.fromkeys(d.group for d in doc.deltas))
    labels = [g.partition(":")[2] or g for g in groups]
    charts = []
    for metric in shown_metrics(d.metric for d in doc.deltas):
        by_group = {d.group: d for d in doc.deltas if d.metric == metric}
        charts.append(
            bar_and_line_chart(
                title=f"{doc.label(metric)}: bars this run, line baseline",
                labels=labels,
                bars=ChartSeries(values=tuple(by_group[g].current for g in groups)),
                line=ChartSeries(values=tuple(by_group[g].baseline for g in groups)),
                y_label=doc.label(metric),
            )
        )
    summary = "Chart: baseline (line) vs this run (bars), per metric and group"
    return "\n\n".join([f"<details open><summary>{summary}</summary>", *charts, "</details>"])


def current_table(doc: ComparisonDocument, style: Style) -> str:
    """This run's means per group, with n (no baseline to compare with)."""
    groups = doc.run.groups
    star = phrases.short_star(doc, style)
    shown = shown_metrics(*(g.means for g in groups if g.group == "overall"))
    rows = [
        [
            style.user(phrases.group_name(g.group)),
            str(g.n),
            *(fmt_mean(g.means.get(m)) for m in shown),
        ]
        for g in groups
    ]
    header = ["group", "n", *(doc.label(m) + star for m in shown)]
    return table(header, rows, style.fmt)


def _change(move: MoveRecord, doc: ComparisonDocument) -> str:
    if move.direction in ("lost", "gained"):
        return f"{doc.label(HIT)} {'1 → 0' if move.direction == 'lost' else '0 → 1'}"
    before, after = fmt_mean(move.before.get("ndcg")), fmt_mean(move.after.get("ndcg"))
    return f"{doc.label(NDCG)} {before} → {after}"


def move_table(moves: Sequence[MoveRecord], style: Style, doc: ComparisonDocument) -> str:
    """Cases with query, language, type, the card shown and its rank before → after."""
    shown = list(moves) if style.limit is None else list(moves[: style.limit])
    rows = [
        [
            style.user(m.case_id),
            query_cell(m.query, style),
            style.user(m.language),
            style.user(m.case_type),
            style.user(m.card),
            f"{fmt_rank(m.rank_before, doc.k, m.returned_before)} → "
            f"{fmt_rank(m.rank_after, doc.k, m.returned_after)}",
            _change(m, doc),
        ]
        for m in shown
    ]
    header = ["case", "query", "language", "type", "gold card", "rank before → after", "change"]
    text = table(header, rows, style.fmt)
    hidden = len(moves) - len(shown)
    return text + (f"\n\n{more_pointer(hidden)}" if hidden else "")
