"""The comparison report: sticky PR comment, job summary and stdout (pure).

Layout, top to bottom, so that a reviewer is done in ten seconds:

1. the hidden marker ``<!-- recall-gate:<profile> -->`` (Markdown only);
2. the verdict line, then the headline figures and the baseline it is
   compared with;
3. banners: no baseline yet, baseline edited by the PR, stale or not
   comparable baseline, case set changed, list truncated;
4. what failed (or, report-only, what *would* fail if enforced);
5. ONE table, metric × group, with n, baseline, current, Δ and a noise mark;
6. flipped cases and case-set changes, collapsed;
7. suggested floors (report-only), caveats, and metric definitions last.

All user text (case and card ids, reasons, paths, fingerprints) goes through
:func:`recall_gate.report.results.escape_markdown`. :func:`render_comment` takes a
``max_chars`` budget and shortens the case lists (never the verdict or the
table) with a pointer to the job summary, which gets the full report.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

from recall_gate.core.baseline import Baseline
from recall_gate.core.compare import Comparison, Group, MetricDelta, StaleReason
from recall_gate.core.gate import ComparisonVerdict, Exemption, FloorCheck, Regression
from recall_gate.core.github_limits import comment_length
from recall_gate.core.metric_registry import (
    GATED_METRICS,
    floor_flag,
    metric_label,
    shown_metrics,
)
from recall_gate.core.metrics import HIT, NDCG
from recall_gate.core.moves import CaseMove
from recall_gate.core.profile import comment_marker
from recall_gate.core.records import Aggregates, MetricSummary
from recall_gate.core.staleness import describe_embedder
from recall_gate.core.stats import BOOTSTRAP_RESAMPLES, CONFIDENCE, min_detectable_lost
from recall_gate.report.charts import ChartSeries, bar_and_line_chart
from recall_gate.report.markup import (
    Format,
    escape_markdown,
    plain_text,
    shorten,
    shorten_query,
    table,
)
from recall_gate.report.results import (
    LANGUAGE_CAVEAT,
    RECALL_CAVEAT,
    capture_notes,
    failures_note,
    latency_table,
    missed_table,
)

__all__ = [
    "JOB_SUMMARY_POINTER",
    "render_baseline_update",
    "render_comment",
    "render_comparison_text",
]

JOB_SUMMARY_POINTER = "the full report is in the job summary"
# A comment over budget shortens every user string to these lengths in turn.
USER_CHARS_STEPS = (300, 60)


@dataclass(frozen=True)
class _Style:
    fmt: Format
    limit: int | None  # at most this many items per case list; None = all
    # At most this many characters of any one user string (label, reason, path,
    # id, query); None = whole. The comment budget shortens these first.
    user_chars: int | None = None

    @property
    def md(self) -> bool:
        return self.fmt == "markdown"

    def user(self, text: str) -> str:
        """User text, inert."""
        text = shorten(text, self.user_chars)
        return escape_markdown(text) if self.md else plain_text(text)

    def literal(self, text: str) -> str:
        """Code-formatted when that is safe (no backtick, printable), else escaped."""
        text = shorten(text, self.user_chars)
        if self.md and "`" not in text and text.isprintable() and text.strip() == text and text:
            return f"`{text}`"
        return self.user(text)

    def bold(self, text: str) -> str:
        return f"**{text}**" if self.md else text

    def banner(self, kind: str, lines: Sequence[str]) -> str:
        if self.md:
            return "\n".join([f"> [!{kind}]", *(f"> {line}" for line in lines)])
        return f"{kind}: " + "\n  ".join(lines)

    def collapsed(self, summary: str, body: Sequence[str]) -> str:
        if self.md:
            return "\n\n".join([f"<details><summary>{summary}</summary>", *body, "</details>"])
        return "\n\n".join([f"{summary}\n{'-' * len(summary)}", *body])

    def mark(self, kind: str) -> str:
        if kind == "fail":
            return " ❌" if self.md else " [fail]"
        if kind == "exempt":
            return " ➖" if self.md else " [exempt]"
        return " ⚠️" if self.md else " [would fail]"


def _mean(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _signed(value: float | None) -> str:
    if value is None:
        return "—"
    if abs(value) < 0.0005:
        return "0.000"
    return f"{value:+.3f}".replace("-", "−")


def _rank(rank: int | None, k: int, returned: int | None = None) -> str:
    """A rank, or why there is none: a ranking of fewer than k cards did not
    retrieve the card at all, which "out of top k" would misstate."""
    if rank is not None:
        return str(rank)
    return f"out of top {k}" if returned is None else f"not retrieved ({returned} returned)"


def _query(query: str | None, style: _Style) -> str:
    short = shorten_query(query)
    return "—" if short is None else style.user(short)


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _group_name(group: Group) -> str:
    if group.kind == "overall":
        return "overall"
    if group.kind == "case_type":
        return f"type {group.name}"
    return f"language {group.name} †"


def _group_phrase(label: str) -> str:
    kind, _, name = label.partition(":")
    if kind == "case_type":
        return f"type {name}"
    if kind == "language":
        return f"language {name}"
    return "overall"


def _noise(d: MetricDelta, min_group_n: int) -> str:
    noise = d.noise
    if d.n_compared == 0:
        return "no common case"
    if noise.small_n:
        return f"n < {min_group_n}: not tested"
    word = "likely real" if noise.significant else "within noise"
    if noise.p_value is not None:
        if noise.lost == noise.gained == 0:
            return "no flip"
        return f"{word} ({_p(noise.p_value)}; {noise.lost} lost, {noise.gained} gained)"
    return _interval(noise.ci_low, noise.ci_high, word)


def _interval(low: float | None, high: float | None, word: str) -> str:
    if low is None or high is None:
        return "not tested"
    if low == high == 0.0:
        return "no change"
    return f"{word} ({round(CONFIDENCE * 100)}% CI {_signed(low)} … {_signed(high)})"


def _n_cell(d: MetricDelta) -> str:
    return str(d.n_compared) if d.n_compared == d.n_total else f"{d.n_compared} of {d.n_total}"


def _delta_table(
    comparison: Comparison,
    style: _Style,
    *,
    fail: Set[tuple[str, str]],
    would: Set[tuple[str, str]],
    exempt: Set[tuple[str, str]] = frozenset(),
    columns: tuple[str, str] = ("baseline", "current"),
) -> str:
    k = comparison.k
    rows: list[list[str]] = []
    last_group: Group | None = None
    for d in comparison.deltas:
        first = d.group != last_group
        last_group = d.group
        key = (d.metric, d.group.label)
        mark = (
            style.mark("fail")
            if key in fail
            else style.mark("would")
            if key in would
            else style.mark("exempt")
            if key in exempt
            else ""
        )
        name = style.user(_group_name(d.group))
        rows.append(
            [
                (style.bold(name) if d.group.kind == "overall" else name) if first else "",
                _n_cell(d) if first else "",
                metric_label(d.metric, k),
                _mean(d.baseline),
                _mean(d.current),
                _signed(d.delta) + mark,
                _noise(d, comparison.min_group_n),
            ]
        )
    header = ["group", "n", "metric", *columns, "Δ", "noise"]
    return table(header, rows, style.fmt)


def _chart_section(comparison: Comparison, style: _Style) -> str | None:
    """Baseline vs this run per metric, for overall and every group (Markdown only)."""
    if not style.md or not comparison.deltas:
        return None
    k = comparison.k
    groups = list(dict.fromkeys(d.group for d in comparison.deltas))
    labels = [g.name if g.kind != "overall" else "overall" for g in groups]
    charts = []
    for metric in shown_metrics(d.metric for d in comparison.deltas):
        by_group = {d.group: d for d in comparison.deltas if d.metric == metric}
        charts.append(
            bar_and_line_chart(
                title=f"{metric_label(metric, k)}: bars this run, line baseline",
                labels=labels,
                bars=ChartSeries(values=tuple(by_group[g].current for g in groups)),
                line=ChartSeries(values=tuple(by_group[g].baseline for g in groups)),
                y_label=metric_label(metric, k),
            )
        )
    summary = "Chart: baseline (line) vs this run (bars), per metric and group"
    return "\n\n".join([f"<details open><summary>{summary}</summary>", *charts, "</details>"])


def _current_table(aggregates: Aggregates, k: int, style: _Style) -> str:
    shown = shown_metrics(aggregates.overall)

    def row(name: str, group: dict[str, MetricSummary]) -> list[str]:
        n = max((s.n for m, s in group.items() if m in shown), default=0)
        return [
            style.user(name),
            str(n),
            *(_mean(s.mean if (s := group.get(m)) else None) for m in shown),
        ]

    rows = [row("overall", aggregates.overall)]
    rows += [row(f"type {g}", v) for g, v in aggregates.by_case_type.items() if v]
    rows += [row(f"language {g} †", v) for g, v in aggregates.by_language.items() if v]
    header = ["group", "n", *(metric_label(m, k) for m in shown)]
    return table(header, rows, style.fmt)


def _listed(items: Sequence[str], style: _Style) -> tuple[list[str], int]:
    shown = list(items) if style.limit is None else list(items[: style.limit])
    return [style.user(i) for i in shown], len(items) - len(shown)


def _more(hidden: int) -> str:
    return f"… and {hidden} more: {JOB_SUMMARY_POINTER}."


def _change(move: CaseMove, k: int) -> str:
    if move.direction in ("lost", "gained"):
        return f"hit@{k} {'1 → 0' if move.direction == 'lost' else '0 → 1'}"
    return f"nDCG@{k} {_mean(move.before.get(NDCG))} → {_mean(move.after.get(NDCG))}"


def _move_table(moves: Sequence[CaseMove], style: _Style, k: int) -> str:
    """Cases with query, language, type, the card shown and its rank before → after."""
    shown = list(moves) if style.limit is None else list(moves[: style.limit])
    rows = [
        [
            style.user(m.case_id),
            _query(m.query, style),
            style.user(m.language),
            style.user(m.case_type),
            style.user(m.card),
            f"{_rank(m.rank_before, k, m.returned_before)} → "
            f"{_rank(m.rank_after, k, m.returned_after)}",
            _change(m, k),
        ]
        for m in shown
    ]
    header = ["case", "query", "language", "type", "gold card", "rank before → after", "change"]
    text = table(header, rows, style.fmt)
    hidden = len(moves) - len(shown)
    return text + (f"\n\n{_more(hidden)}" if hidden else "")


def _flips_section(comparison: Comparison, style: _Style) -> str | None:
    if not comparison.comparable or comparison.baseline is None:
        return None
    lost, gained = comparison.lost, comparison.gained
    k = comparison.k
    down = tuple(m for m in comparison.rank_moves if m.direction == "down")
    up = tuple(m for m in comparison.rank_moves if m.direction == "up")
    if not lost and not gained and not down and not up:
        return f"No case flipped hit@{k} or moved rank."
    body = []
    for title, moves in (
        ("hit → miss", lost),
        ("miss → hit", gained),
        (f"ranked lower, still a hit (recall@{k} or nDCG@{k} down)", down),
        (f"ranked higher (recall@{k} or nDCG@{k} up)", up),
    ):
        if moves:
            body += [style.bold(f"{title} ({len(moves)})"), _move_table(moves, style, k)]
    summary = f"Flipped cases: {len(lost)} hit → miss, {len(gained)} miss → hit"
    if down or up:
        summary += f"; rank moves: {len(down)} lower, {len(up)} higher"
    return style.collapsed(summary, body)


def _missed_section(comparison: Comparison, style: _Style) -> str | None:
    """With no baseline to compare with, which cases miss now (hit@k = 0)."""
    if comparison.status != "missing":
        return None
    missed = missed_table(comparison.current.cases, comparison.k, style.fmt, limit=style.limit)
    if missed is None:
        return None
    text, count, hidden = missed
    body = [text + (f"\n\n{_more(hidden)}" if hidden else "")]
    return style.collapsed(f"Missed cases (hit@{comparison.k} = 0): {count}", body)


def _cases_section(comparison: Comparison, style: _Style) -> str | None:
    changes = comparison.cases
    if not changes.changed:
        return None
    body = []
    for word, note, items in (
        ("added", "", changes.added),
        ("removed", "", changes.removed),
        ("relabelled", ", gold changed: not compared", changes.relabelled),
    ):
        if not items:
            continue
        shown, hidden = _listed(items, style)
        line = f"{style.bold(f'{word} ({len(items)}{note})')}: " + ", ".join(shown)
        body.append(line + (f" {_more(hidden)}" if hidden else ""))
    summary = (
        f"Case set changes: {len(changes.added)} added, {len(changes.removed)} removed, "
        f"{len(changes.relabelled)} relabelled"
    )
    return style.collapsed(summary, body)


def _old_new(old: str | None, new: str | None, style: _Style) -> str:
    return (
        f"{style.literal(old) if old is not None else 'unset'} → "
        f"{style.literal(new) if new is not None else 'unset'}"
    )


_STALE_NAMES = {"k": "k", "embedder": "embedder", "retrieval_mode": "retrieval mode"}
_STALE_UNRECORDED = {
    "retriever": "the retriever that made the capture changed",
    "dataset": "the cases changed outside their ids and labels (queries or other fields)",
    "kb": "the knowledge base's card texts changed",
    "config": "the retrieval settings changed (the baseline predates recorded settings: "
    "refresh it and later reports name each one)",
}


def _stale_phrase(reason: StaleReason, comparison: Comparison, style: _Style) -> str:
    """What differs, in words: settings old → new, never a bare fingerprint."""
    what = reason.what
    if what in _STALE_NAMES:
        old, new = reason.baseline, reason.current
        if what == "embedder":
            old, new = describe_embedder(old, new)
        return f"{_STALE_NAMES[what]} {_old_new(old, new, style)}"
    c = comparison.cases
    if what == "dataset" and c.changed:
        return (
            f"cases: {len(c.added)} added, {len(c.removed)} removed, {len(c.relabelled)} relabelled"
        )
    if reason.changes:
        return "; ".join(
            f"{c.label} {_old_new(c.baseline, c.current, style)}" for c in reason.changes
        )
    if what == "queries":
        return f"queries: {_edited_queries(comparison)} edited"
    return _STALE_UNRECORDED[what]


def _edited_queries(comparison: Comparison) -> int:
    """Common cases whose query text differs (when both runs carry queries)."""
    if comparison.baseline is None:
        return 0
    before = {c.case_id: c.query for c in comparison.baseline.cases}
    return sum(
        1
        for c in comparison.current.cases
        if c.query is not None and before.get(c.case_id) not in (None, c.query)
    )


def _overall_change(old: Aggregates, new: Aggregates, k: int) -> str:
    parts = []
    for metric in shown_metrics(old.overall, new.overall):
        a, b = old.overall.get(metric), new.overall.get(metric)
        n = f" (n {a.n if a else 0} → {b.n if b else 0})" if metric == HIT else ""
        parts.append(
            f"{metric_label(metric, k)} {_mean(a.mean if a else None)} → "
            f"{_mean(b.mean if b else None)}{n}"
        )
    return " · ".join(parts)


def _baseline_ref(baseline: Baseline, style: _Style, *, reason: bool = True) -> str:
    sha = f"commit {style.literal(baseline.git_sha[:12])}" if baseline.git_sha else "commit unknown"
    why = ""
    if reason:
        why = (
            f", reason “{style.user(baseline.reason)}”" if baseline.reason else ", no reason given"
        )
    return f"made {baseline.created_at}, {sha}{why}"


def _ids(items: Sequence[str], style: _Style) -> str:
    shown, hidden = _listed(items, style)
    return ", ".join(style.literal(i) for i in shown) + (f" … and {hidden} more" if hidden else "")


def _pull_request_banners(comparison: Comparison, style: _Style) -> list[str]:
    """What a pull request judged at its base changes of its own gate and cases."""
    pr = comparison.pull_request
    if pr is None:
        return []
    out = []
    ref = style.literal(pr.ref[:12] if len(pr.ref) == 40 else pr.ref)
    if pr.gate:
        changed = "; ".join(
            f"{style.user(c.label)} {style.user(c.baseline or 'unset')} → "
            f"{style.user(c.current or 'unset')}"
            for c in pr.gate
        )
        where = f" ({style.literal(pr.config)})" if pr.config else ""
        base = (
            "the base's settings"
            if pr.config_at_base
            else "the default settings (the base has no config)"
        )
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold('This pull request changes the gate')}{where}: {changed}. "
                    f"It is judged by {base} at {ref}; the change applies after merge."
                ],
            )
        )
    lines = []
    if pr.removed:
        lines.append(f"removed: {_ids(pr.removed, style)}")
    if pr.relabelled:
        lines.append(f"relabelled (query or labels): {_ids(pr.relabelled, style)}")
    if lines:
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold('Cases removed / relabelled by this pull request')} "
                    f"(applies after merge): {'; '.join(lines)}. They are still judged as "
                    f"the base has them at {ref}."
                ],
            )
        )
    if pr.not_captured:
        out.append(
            style.banner(
                "WARNING",
                [
                    style.bold(f"{len(pr.not_captured)} case(s) of the base are not in the capture")
                    + f" and score as misses: {_ids(pr.not_captured, style)}. Capture every case "
                    "of the base branch (`recall-gate capture` does, in a pull request)."
                ],
            )
        )
    if pr.added:
        hits = [c.case_id for c in pr.added if c.hit]
        misses = [c.case_id for c in pr.added if c.hit is False]
        parts = []
        if hits:
            parts.append(f"hit: {_ids(hits, style)}")
        if misses:
            parts.append(f"missed: {_ids(misses, style)}")
        detail = f" — {'; '.join(parts)}" if parts else ""
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold(f'This pull request adds {len(pr.added)} case(s)')}, "
                    f"evaluated and reported, judged after merge{detail}."
                ],
            )
        )
    if not pr.cases_at_base:
        out.append(
            style.banner(
                "NOTE",
                [
                    f"The base ({ref}) has no cases file yet: this pull request's own cases "
                    "are evaluated."
                ],
            )
        )
    return out


def _banners(comparison: Comparison, style: _Style, profile: str, *, truncated: bool) -> list[str]:
    out = []
    path = comparison.baseline_path
    edit = comparison.edit
    k = comparison.k
    if edit is not None:
        where = style.literal(path)
        if edit.new is None:
            out.append(
                style.banner(
                    "IMPORTANT",
                    [
                        f"{style.bold('This pull request deletes the baseline')} {where}: "
                        "after merge, pull requests report “no baseline yet”."
                    ],
                )
            )
        else:
            new = edit.new
            reason = f"reason: “{style.user(new.reason)}”" if new.reason else "no reason given"
            verb = "adds the first baseline" if edit.old is None else "changes the baseline"
            lines = [
                f"{style.bold(f'This pull request {verb}')} {where} ({reason}). "
                + (
                    "This run is compared with the base branch's baseline; "
                    "the new one applies after merge."
                    if edit.old is not None
                    else "It applies after merge."
                )
            ]
            if edit.old is not None:
                lines.append(
                    "Overall, old → new: "
                    + _overall_change(edit.old.aggregates, new.aggregates, new.k)
                )
            out.append(style.banner("IMPORTANT", lines))
    out += _pull_request_banners(comparison, style)
    if comparison.status == "missing" and not (edit is not None and edit.old is None):
        command = (
            f"recall-gate baseline update --results results.json --out {path} "
            '--reason "first baseline"'
        )
        where = f" at {style.literal(comparison.baseline_ref)}" if comparison.baseline_ref else ""
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold('No baseline yet')} for profile {style.literal(profile)}: "
                    f"{style.literal(path)} does not exist{where}, so there is nothing to "
                    "compare with (reported, not failed).",
                    f"Create it from a run on the default branch: {style.literal(command)}, "
                    "then commit it (or run the update-baseline workflow).",
                ],
            )
        )
    if comparison.status == "not_comparable" and comparison.baseline is not None:
        lines = [
            f"{style.bold('Baseline not comparable')}: it was made at k = "
            f"{comparison.baseline.k} and this run uses k = {k}, so no delta, flip or "
            f"regression is computed. Refresh the baseline at k = {k}."
        ]
        lines += [
            _stale_phrase(r, comparison, style) + "." for r in comparison.stale if r.what != "k"
        ]
        out.append(style.banner("WARNING", lines))
    elif comparison.status == "stale":
        phrases = "; ".join(_stale_phrase(r, comparison, style) for r in comparison.stale)
        out.append(
            style.banner(
                "WARNING",
                [
                    f"{style.bold('Stale baseline')}: {phrases}.",
                    "The deltas include the effect of these changes. If they are intended, "
                    "refresh the baseline (`recall-gate baseline update`, or the "
                    "update-baseline workflow)."
                    if style.md
                    else "The deltas include the effect of these changes. If they are "
                    "intended, refresh the baseline (recall-gate baseline update).",
                ],
            )
        )
    changes = comparison.cases
    if comparison.comparable and changes.changed:
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold('The case set changed')} since the baseline: "
                    f"{len(changes.added)} added, {len(changes.removed)} removed, "
                    f"{len(changes.relabelled)} relabelled. Means and deltas are on the "
                    f"{changes.compared} scored cases present in both with the same labels."
                ],
            )
        )
    if truncated:
        out.append(
            style.banner(
                "NOTE",
                [f"Case lists are shortened to fit a GitHub comment: {JOB_SUMMARY_POINTER}."],
            )
        )
    return out


def _noise_word(r: Regression) -> str:
    if r.significant is None:
        return f"n < {r.min_group_n}, not tested"
    return "likely real" if r.significant else "within noise"


def _exemption_phrase(r: Regression) -> str:
    if r.exempt == "small_n":
        return f"exempt: n = {r.n} is below min-group-n {r.min_group_n}, too few cases to gate"
    return "exempt: not likely real by the noise test (require-significance)"


@dataclass(frozen=True)
class _DropLine:
    """The drops of one group that share a fate: failed (or would fail), or exempt."""

    would: bool  # report-only: at the reference tolerance
    group: str
    drops: tuple[Regression, ...]

    @property
    def exempt(self) -> Exemption | None:
        return self.drops[0].exempt

    @property
    def cases(self) -> tuple[CaseMove, ...]:
        """The cases behind the drops: flips first, then by the largest nDCG drop."""
        seen: dict[str, CaseMove] = {}
        for r in self.drops:
            for m in r.cases:
                seen.setdefault(m.case_id, m)
        order = {"lost": 0, "down": 1, "gained": 2, "up": 3}
        return tuple(
            sorted(seen.values(), key=lambda m: (order[m.direction], m.change(NDCG), m.case_id))
        )

    def mark(self, style: _Style) -> str:
        return style.mark("exempt" if self.exempt else "would" if self.would else "fail").strip()

    @property
    def fate(self) -> str:
        if self.exempt is None:
            return "would fail" if self.would else "failed"
        why = "n too small" if self.exempt == "small_n" else "not likely real"
        return f"{'would be ' if self.would else ''}exempt: {why}"


def _drop_groups(regressions: Sequence[Regression], *, would: bool) -> list[_DropLine]:
    grouped: dict[tuple[str, str | None], list[Regression]] = {}
    for r in regressions:
        grouped.setdefault((r.group, r.exempt), []).append(r)
    return [
        _DropLine(would=would, group=group, drops=tuple(drops))
        for (group, _), drops in grouped.items()
    ]


def _drop_lines_of(verdict: ComparisonVerdict) -> list[_DropLine]:
    """Every over-tolerance row: failed, then exempt; report-only: what would fail."""
    gate = verdict.gate
    lines = _drop_groups(gate.regressions, would=False) + _drop_groups(gate.exempt, would=False)
    if verdict.would_fail is not None:
        would = verdict.would_fail
        lines += _drop_groups(would.regressions, would=True)
        lines += _drop_groups(would.exempt, would=True)
    return lines


def _drop_text(line: _DropLine, k: int) -> str:
    """One line per group and fate: its metrics' drops, the noise verdict, the tolerance."""
    drops = line.drops
    moves = ", ".join(
        f"{metric_label(r.metric, k)} {r.baseline:.3f} → {r.current:.3f} "
        f"({_signed(r.delta)}, {_noise_word(r)})"
        for r in drops
    )
    tolerance = drops[0].tolerance
    if line.would:
        limit = f"would exceed a {tolerance:.3f} tolerance (max-regression)"
    else:
        limit = f"beyond the {tolerance:.3f} tolerance (max-regression)"
    if line.exempt is not None:
        limit += f", {'would be ' if line.would else ''}{_exemption_phrase(drops[0])}"
    n_cases = len(line.cases)
    behind = f"; {n_cases} case{'s' if n_cases != 1 else ''} behind it" if n_cases else ""
    return f"{_group_phrase(line.group)}: {moves} — n = {drops[0].n}, {limit}{behind}"


# Up to this many cases behind a drop are shown open; more are collapsed.
OPEN_CASES = 5


def _cases_behind_section(
    comparison: Comparison, verdict: ComparisonVerdict, style: _Style
) -> list[str]:
    """For every over-tolerance row, the cases behind it (collapsed when long)."""
    k = comparison.k
    out = []
    listed: dict[frozenset[str], str] = {}
    for line in _drop_lines_of(verdict):
        cases = line.cases
        if not cases:
            continue
        metrics = ", ".join(metric_label(r.metric, k) for r in line.drops)
        where = f"{_group_phrase(line.group)}, {metrics}"
        title = f"Cases behind {where} ({line.fate}): {len(cases)}"
        ids = frozenset(m.case_id for m in cases)
        if ids in listed:
            # The same cases again (e.g. all of a language's drops are overall's).
            out.append(
                f"Cases behind {where} ({line.fate}): the same {len(cases)} as {listed[ids]}."
            )
            continue
        listed[ids] = where
        body = _move_table(cases, style, k)
        if len(cases) > OPEN_CASES:
            out.append(style.collapsed(title, [body]))
        else:
            out.append(f"{style.bold(title)}\n\n{body}")
    return out


def _floor_line(c: FloorCheck, k: int, *, would: bool) -> str:
    observed = "nothing scored" if c.observed is None else f"{c.observed:.3f} (n = {c.n})"
    floor = c.floor if c.floor is not None else 0.0
    label, flag = metric_label(c.metric, k), floor_flag(c.metric)
    if would:
        return f"{label} {observed} would miss the suggested floor {floor:.2f} ({flag})"
    return f"{label} {observed} is below the floor {floor:.3f} ({flag})"


def _verdict_summary(comparison: Comparison, verdict: ComparisonVerdict) -> str:
    gate = verdict.gate
    k = comparison.k
    reasons = []
    exempt = len(gate.exempt)
    exempt_note = (
        f" ({exempt} beyond it exempt: too few cases or not likely real)" if exempt else ""
    )
    if gate.verdict == "fail":
        if gate.regressions:
            n = len(gate.regressions)
            tolerance = verdict.max_regression or 0.0
            reasons.append(
                f"{n} drop{'s' if n != 1 else ''} beyond the {tolerance:.3f} tolerance"
                + exempt_note
            )
        if gate.failed_floors:
            n = len(gate.failed_floors)
            reasons.append(f"{n} floor{'s' if n != 1 else ''} missed")
        return "Failed: " + "; ".join(reasons) + "."
    if gate.verdict == "pass":
        if verdict.max_regression is not None:
            reasons.append(
                f"no drop beyond the {verdict.max_regression:.3f} tolerance"
                + (f" fails the gate{exempt_note}" if exempt else "")
                if comparison.comparable
                else "the tolerance was not checked (no comparable baseline)"
            )
        set_floors = [c for c in gate.floor_checks if c.floor is not None]
        if set_floors:
            reasons.append(
                "floors met ("
                + ", ".join(f"{metric_label(c.metric, k)} ≥ {c.floor:.3f}" for c in set_floors)
                + ")"
            )
        return "Passed: " + "; ".join(reasons) + "."
    if not comparison.comparable:
        return "No floor or tolerance is set, so nothing is enforced."
    count = verdict.would_fail_count
    what = (
        f"{count} check{'s' if count != 1 else ''} would fail if enforced (below)"
        if count
        else "nothing would fail at the suggested floors and a "
        f"{verdict.reference_tolerance:.2f} tolerance"
    )
    return f"No floor or tolerance is set, so nothing is enforced; {what}."


def _verdict_block(
    comparison: Comparison, verdict: ComparisonVerdict, style: _Style, profile: str
) -> str:
    word = verdict.gate.verdict
    if style.md:
        icon = {"fail": "❌", "pass": "✅", "report-only": "📊"}[word]
        heading = f"### {icon} recall-gate {style.literal(profile)}: {style.bold(word)}"
    else:
        heading = f"recall-gate {profile}: {word.upper()}"
    return "\n\n".join(
        [heading, _verdict_summary(comparison, verdict), _headline(comparison, style)]
    )


def _headline(comparison: Comparison, style: _Style) -> str:
    k = comparison.k
    overall = comparison.current.aggregates.overall
    scored = sum(1 for c in comparison.current.cases if c.metrics)
    if not overall:
        return f"No case carries gold: nothing is scored ({len(comparison.current.cases)} cases)."
    same_set = comparison.comparable and not comparison.cases.changed
    parts = []
    for metric in shown_metrics(overall):
        summary = overall.get(metric)
        text = f"{metric_label(metric, k)} {style.bold(_mean(summary.mean if summary else None))}"
        delta = comparison.delta_for(metric)
        if same_set and delta is not None and delta.delta is not None:
            text += f" ({_signed(delta.delta)})"
        parts.append(text)
    line = " · ".join(parts) + f" · n = {scored}"
    baseline = comparison.baseline
    if baseline is not None:
        at = f" at {style.literal(comparison.baseline_ref)}" if comparison.baseline_ref else ""
        line += (
            f"\n\nBaseline: {style.literal(comparison.baseline_path)}{at} "
            f"({_baseline_ref(baseline, style)})."
        )
    return line


def _checks_block(comparison: Comparison, verdict: ComparisonVerdict, style: _Style) -> str | None:
    """What failed (❌), or in report-only mode what would fail if enforced (⚠️)."""
    k = comparison.k
    gate = verdict.gate
    fail, would = style.mark("fail").strip(), style.mark("would").strip()
    drop_lines = _drop_lines_of(verdict)
    lines = [f"{d.mark(style)} {_drop_text(d, k)}" for d in drop_lines if not d.would]
    lines += [f"{fail} {_floor_line(c, k, would=False)}" for c in gate.failed_floors]
    if verdict.would_fail is not None:
        lines += [f"{d.mark(style)} {_drop_text(d, k)}" for d in drop_lines if d.would]
        lines += [
            f"{would} {_floor_line(c, k, would=True)}" for c in verdict.would_fail.failed_floors
        ]
    return "\n".join(f"- {line}" for line in lines) if lines else None


def _suggestions(comparison: Comparison, verdict: ComparisonVerdict, style: _Style) -> str | None:
    if verdict.gate.verdict != "report-only" or not verdict.suggested_floors:
        return None
    source = (
        "the baseline" if comparison.baseline is not None and comparison.comparable else "this run"
    )
    items = ", ".join(
        f"{style.literal(f'{floor_flag(s.metric)}: {s.floor:.2f}')} "
        f"(observed {s.observed:.3f}, n = {s.n})"
        for s in verdict.suggested_floors
    )
    return (
        f"{style.bold('Suggested floors')} from {source} (observed − margin, down to the "
        f"Wilson 95% lower bound, at least 0.02): {items}. Write them into the config with "
        f"{style.literal('recall-gate floors suggest --write recall-gate.yaml')}."
    )


def _notes(comparison: Comparison, style: _Style, *, legend: Sequence[str]) -> str:
    k = comparison.k
    notes = list(legend)
    current = comparison.current
    for note in capture_notes(
        k=k,
        scored=sum(1 for c in current.cases if c.metrics),
        short_of_k=current.cases_short_of_k,
        gold_checked=current.provenance.kb_fingerprint is not None,
        outside_kb=current.outside_kb,
    ):
        notes.append(note if style.md else note.replace("`", "").replace("\\*", "*"))
    notes.append(RECALL_CAVEAT if style.md else RECALL_CAVEAT.replace("`", ""))
    notes.append(f"† {LANGUAGE_CAVEAT}")
    if comparison.deltas:
        notes.append(
            f"Noise: hit@{k} flips are tested with an exact two-sided McNemar test; "
            f"recall@{k} and nDCG@{k} deltas with a {round(CONFIDENCE * 100)}% paired "
            f"bootstrap interval ({BOOTSTRAP_RESAMPLES} resamples, fixed seed). "
            f"“likely real” = p < 0.05 or an interval that excludes 0; groups with "
            f"n < {comparison.min_group_n} are not tested."
        )
        overall = comparison.delta_for(HIT)
        if overall is not None and overall.n_compared >= comparison.min_group_n:
            n, least = overall.n_compared, min_detectable_lost()
            notes.append(
                f"Detectable drop: on {n} compared cases, hit@{k} is called likely real from "
                f"{least} lost hits with none gained (−{least / n:.3f}); a smaller drop, or one "
                "offset by gains, reads as noise. Subgroups need as many lost hits on fewer cases."
            )
    unscored = sum(1 for c in comparison.current.cases if not c.metrics)
    if unscored:
        notes.append(
            f"{unscored} case{' is' if unscored == 1 else 's are'} without gold (capability, "
            "no_match): not scored, by design: they have no card to find."
        )
    return "\n".join(f"- {n}" for n in notes)


def _definitions(style: _Style, shown: Sequence[str]) -> str:
    specs = [m for m in GATED_METRICS if m.key in shown]
    if style.md:
        items = [f"- `{m.key}`: {m.definition}" for m in specs]
    else:
        items = [f"- {m.key}: {m.definition.replace('`', '')}" for m in specs]
    return style.collapsed("Metric definitions", ["\n".join(items)])


def _capture_section(comparison: Comparison, style: _Style) -> str | None:
    """Cases the retriever could not answer, and the query latency against the
    baseline's when it has one (report-only)."""
    current = comparison.current
    parts = []
    if current.failed_cases:
        parts.append(failures_note(current.failed_cases, style.fmt))
    if current.latency is not None:
        before = comparison.baseline.latency if comparison.baseline is not None else None
        parts.append(latency_table(current.latency, style.fmt, baseline=before))
    if not parts:
        return None
    return (
        style.collapsed("Capture: failures and latency", parts) if style.md else "\n\n".join(parts)
    )


def _render(
    comparison: Comparison,
    verdict: ComparisonVerdict,
    *,
    profile: str,
    style: _Style,
    truncated: bool,
) -> str:
    parts = []
    if style.md:
        parts.append(comment_marker(profile))
    parts.append(_verdict_block(comparison, verdict, style, profile))
    parts += _banners(comparison, style, profile, truncated=truncated)
    checks = _checks_block(comparison, verdict, style)
    if checks:
        parts.append(checks)
    parts += _cases_behind_section(comparison, verdict, style)
    fail = {(r.metric, r.group) for r in verdict.gate.regressions}
    would = (
        {(r.metric, r.group) for r in verdict.would_fail.regressions}
        if verdict.would_fail is not None
        else set()
    )
    exempt = {(r.metric, r.group) for r in verdict.gate.exempt}
    if verdict.would_fail is not None:
        exempt |= {(r.metric, r.group) for r in verdict.would_fail.exempt}
    legend = []
    if comparison.deltas:
        parts.append(_delta_table(comparison, style, fail=fail, would=would, exempt=exempt))
        if fail:
            legend.append(f"{style.mark('fail').strip()} drop beyond the set tolerance.")
        if would:
            legend.append(
                f"{style.mark('would').strip()} drop that would exceed a "
                f"{verdict.reference_tolerance:.2f} tolerance if one were set."
            )
        if exempt:
            legend.append(
                f"{style.mark('exempt').strip()} drop beyond the tolerance that does not fail "
                f"the gate: fewer than {comparison.min_group_n} compared cases (min-group-n), "
                "or a subgroup drop the noise test does not call likely real "
                "(require-significance)."
            )
    else:
        parts.append(_current_table(comparison.current.aggregates, comparison.k, style))
    for section in (
        _chart_section(comparison, style),
        _flips_section(comparison, style),
        _cases_section(comparison, style),
        _missed_section(comparison, style),
        _capture_section(comparison, style),
    ):
        if section:
            parts.append(section)
    suggestions = _suggestions(comparison, verdict, style)
    if suggestions:
        parts.append(suggestions)
    parts.append(_notes(comparison, style, legend=legend))
    parts.append(
        _definitions(
            style,
            shown_metrics(
                comparison.current.aggregates.overall, (d.metric for d in comparison.deltas)
            ),
        )
    )
    return "\n\n".join(parts) + "\n"


def _longest_list(comparison: Comparison) -> int:
    c = comparison.cases
    return max(
        len(comparison.lost),
        len(comparison.gained),
        len(comparison.rank_moves),
        sum(1 for case in comparison.current.cases if case.metrics),
        len(c.added),
        len(c.removed),
        len(c.relabelled),
    )


def _hard_cut(text: str, max_chars: int) -> str:
    """Last resort when even empty case lists do not fit: cut at a line end."""
    tail = f"\n\n… truncated: {JOB_SUMMARY_POINTER}.\n"
    closing = "\n</details>"
    room = max(0, max_chars - comment_length(tail) - len(closing))
    cut = text[:room]
    while comment_length(cut) > room:
        cut = cut[: len(cut) - (comment_length(cut) - room)]
    cut = cut.rsplit("\n", 1)[0]
    if cut.count("<details") > cut.count("</details>"):
        cut += closing
    return cut + tail


def render_comment(
    comparison: Comparison,
    verdict: ComparisonVerdict,
    *,
    profile: str,
    max_chars: int | None = None,
) -> str:
    """The Markdown report; with ``max_chars``, case lists are shortened to fit
    (the verdict, banners and table always stay) and point to the job summary."""
    full = _render(
        comparison, verdict, profile=profile, style=_Style("markdown", None), truncated=False
    )
    if max_chars is None or comment_length(full) <= max_chars:
        return full
    # User strings first (a PR controls its retriever label, a reason can be
    # long), then the case lists; the verdict, the tables and the failing rows stay.
    for user_chars in USER_CHARS_STEPS:

        def attempt(limit: int | None, chars: int = user_chars) -> str:
            return _render(
                comparison,
                verdict,
                profile=profile,
                style=_Style("markdown", limit, chars),
                truncated=limit is not None,
            )

        text = attempt(None)
        if comment_length(text) <= max_chars:
            return text
        low, high = 0, _longest_list(comparison)
        best: str | None = None
        while low <= high:
            middle = (low + high) // 2
            text = attempt(middle)
            if comment_length(text) <= max_chars:
                best, low = text, middle + 1
            else:
                high = middle - 1
        if best is not None:
            return best
    return _hard_cut(attempt(0), max_chars)


def render_comparison_text(
    comparison: Comparison, verdict: ComparisonVerdict, *, profile: str
) -> str:
    """The same report as plain text, for a terminal (no marker, no HTML)."""
    return _render(
        comparison, verdict, profile=profile, style=_Style("text", None), truncated=False
    )


def render_baseline_update(
    comparison: Comparison, *, new: Baseline, path: str, fmt: Format = "markdown"
) -> str:
    """What a baseline update changes (the update-baseline PR body): reason,
    provenance, and old → new per metric and group with n."""
    style = _Style(fmt, None)
    k = new.k
    title = f"recall-gate baseline update: {path}"
    parts = [
        f"### {escape_markdown(title)}" if style.md else f"{title}\n{'=' * len(title)}",
        f"Reason: “{style.user(new.reason)}”." if new.reason else "No reason given (--reason).",
        f"New baseline: {_baseline_ref(new, style, reason=False)}; k = {k}, "
        f"{sum(1 for c in new.cases if c.metrics)} of {len(new.cases)} cases scored.",
    ]
    old = comparison.baseline
    if old is None:
        parts.append("No previous baseline: this is the first one.")
        parts.append(_current_table(new.aggregates, k, style))
    else:
        parts.append(f"Previous baseline: {_baseline_ref(old, style)}.")
        changed = [f"- {_stale_phrase(r, comparison, style)}" for r in comparison.stale]
        if changed:
            parts.append("What changed since the previous baseline:\n" + "\n".join(changed))
        if comparison.comparable:
            if comparison.cases.changed:
                c = comparison.cases
                parts.append(
                    f"Case set: {len(c.added)} added, {len(c.removed)} removed, "
                    f"{len(c.relabelled)} relabelled; old → new is on the {c.compared} "
                    "scored cases present in both."
                )
            parts.append(
                _delta_table(comparison, style, fail=set(), would=set(), columns=("old", "new"))
            )
            for section in (_flips_section(comparison, style), _cases_section(comparison, style)):
                if section:
                    parts.append(section)
        else:
            parts.append(
                "Overall, old → new: " + _overall_change(old.aggregates, new.aggregates, k)
            )
            parts.append(_current_table(new.aggregates, k, style))
    parts.append(_notes(comparison, style, legend=()))
    return "\n\n".join(parts) + "\n"
