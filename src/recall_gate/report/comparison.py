"""The comparison report: sticky PR comment, job summary and stdout (pure).

Every surface is rendered from ONE model, the comparison document
(:class:`~recall_gate.core.comparison_json.ComparisonDocument`), with ONE set
of phrases defined here: the PR comment and the job summary (Markdown), the
terminal (plain text) and the Actions annotations
(:mod:`recall_gate.report.actions`, which builds its messages from the phrase
functions of this module). A stale baseline, a missed floor or a drop is said
the same way everywhere because it is said by one function.

Layout, top to bottom, so that a reviewer is done in ten seconds:

1. the hidden marker ``<!-- recall-gate:<profile> -->`` (Markdown only);
2. the verdict line, then the headline figures and the baseline it is
   compared with;
3. banners: no baseline yet, baseline edited by the PR, stale (one line per
   change) or not comparable baseline, case set changed, list truncated;
4. what failed (or, report-only, what *would* fail if enforced), one line per
   group, and the cases behind each;
5. ONE table, metric × group, with n, baseline, current, Δ and a noise mark;
6. flipped cases, what came back instead of each lost or missed case, and
   case-set changes, collapsed;
7. suggested floors (report-only), notes, and metric definitions last.

All user text (case and card ids, queries, reasons, paths, labels) goes through
:func:`recall_gate.report.markup.escape_markdown`. :func:`render_comment` takes a
``max_chars`` budget: it shortens user strings first, then the case lists
(never the verdict, the table or the failing rows), with a pointer to the job
summary, which gets the full report.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from dataclasses import dataclass

from recall_gate.core.baseline import Baseline
from recall_gate.core.compare import Comparison
from recall_gate.core.comparison_json import (
    ComparisonDocument,
    DeltaRecord,
    FloorRecord,
    GroupMeansRecord,
    MoveRecord,
    RegressionRecord,
    SettingChangeRecord,
    StaleRecord,
    SummaryRecord,
    comparison_document,
)
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.github_limits import comment_length
from recall_gate.core.metric_registry import (
    GATED_METRICS,
    METRIC_KEYS,
    floor_flag,
    floor_key,
    metric_label,
    shown_metrics,
)
from recall_gate.core.metrics import HIT
from recall_gate.core.profile import comment_marker
from recall_gate.core.staleness import describe_embedder
from recall_gate.core.stats import BOOTSTRAP_RESAMPLES, CONFIDENCE, min_detectable_lost
from recall_gate.report.charts import ChartSeries, bar_and_line_chart
from recall_gate.report.config_after_merge import config_after_merge_sentence
from recall_gate.report.kb_changes import kb_changes_section, kb_turnover_note
from recall_gate.report.markup import (
    Format,
    escape_markdown,
    plain_text,
    shorten,
    shorten_query,
    table,
)
from recall_gate.report.noise_floor import self_agreement_section
from recall_gate.report.outside_kb import render_outside_share_changes
from recall_gate.report.results import (
    LANGUAGE_CAVEAT,
    RECALL_CAVEAT,
    capture_notes,
    failures_note,
    latency_table,
)
from recall_gate.report.traffic import traffic_failure_phrase, traffic_section

__all__ = [
    "JOB_SUMMARY_POINTER",
    "MARKDOWN",
    "TEXT",
    "DropLine",
    "Style",
    "case_phrase",
    "drop_lines",
    "drop_phrase",
    "floor_phrase",
    "group_phrase",
    "missing_baseline_phrase",
    "not_comparable_phrase",
    "render_baseline_update",
    "render_comment",
    "render_comparison_text",
    "stale_advice",
    "stale_changes",
    "stale_headline",
    "stale_reason_phrases",
]

JOB_SUMMARY_POINTER = "the full report is in the job summary"
# A comment over budget shortens every user string to these lengths in turn.
USER_CHARS_STEPS = (300, 60)


@dataclass(frozen=True)
class Style:
    """How a phrase is written: Markdown (inert user text, code spans) or plain text."""

    fmt: Format
    limit: int | None = None  # at most this many items per case list; None = all
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

    def code(self, text: str) -> str:
        """Our own command or flag: a code span in Markdown, as it is in text."""
        return f"`{text}`" if self.md else text

    def bold(self, text: str) -> str:
        return f"**{text}**" if self.md else text

    def banner(self, kind: str, lines: Sequence[str]) -> str:
        """An alert box; an empty line separates paragraphs, ``- `` lines are a list."""
        if self.md:
            return "\n".join([f"> [!{kind}]", *(f"> {line}" if line else ">" for line in lines)])
        return f"{kind}: " + "\n  ".join(line for line in lines if line)

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


MARKDOWN = Style("markdown")
TEXT = Style("text")


# --- numbers ---------------------------------------------------------------------------


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


def _short(doc: ComparisonDocument) -> bool:
    """Whether a number of this report stands on rankings of fewer than k cards
    (this run's, or the compared baseline's)."""
    return bool(doc.run.short_of_k or (_comparable(doc) and doc.baseline.short_of_k))


def _star(doc: ComparisonDocument, style: Style) -> str:
    """The mark on a metric whose number stands on short rankings (see the notes)."""
    if not _short(doc):
        return ""
    return "\\*" if style.md else "*"


def _held(retrieved: Sequence[str], k: int) -> int | None:
    return len(retrieved) if len(retrieved) < k else None


def _query(query: str | None, style: Style) -> str:
    short = shorten_query(query)
    return "—" if short is None else style.user(short)


def _p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --- groups ----------------------------------------------------------------------------


def _group_name(label: str) -> str:
    """A group in a table: ``overall``, ``type golden``, ``language en †``."""
    kind, _, name = label.partition(":")
    if kind == "case_type":
        return f"type {name}"
    if kind == "language":
        return f"language {name} †"
    return label


def group_phrase(label: str) -> str:
    """A group in a sentence: ``overall``, ``type golden``, ``language en``."""
    kind, _, name = label.partition(":")
    if kind == "case_type":
        return f"type {name}"
    if kind == "language":
        return f"language {name}"
    return label


def _comparable(doc: ComparisonDocument) -> bool:
    return doc.baseline.status in ("ok", "stale")


def _cases_changed(doc: ComparisonDocument) -> bool:
    c = doc.cases
    return bool(c.added or c.removed or c.relabelled)


# --- the metric table ------------------------------------------------------------------


def _noise(d: DeltaRecord, min_group_n: int) -> str:
    if d.n == 0:
        return "no common case"
    if d.small_n:
        return f"n < {min_group_n}: not tested"
    word = "likely real" if d.significant else "within noise"
    if d.p_value is not None:
        if d.lost == d.gained == 0:
            return "no flip"
        return f"{word} ({_p(d.p_value)}; {d.lost} lost, {d.gained} gained)"
    return _interval(d.ci_low, d.ci_high, word)


def _interval(low: float | None, high: float | None, word: str) -> str:
    if low is None or high is None:
        return "not tested"
    if low == high == 0.0:
        return "no change"
    return f"{word} ({round(CONFIDENCE * 100)}% CI {_signed(low)} … {_signed(high)})"


def _n_cell(d: DeltaRecord) -> str:
    return str(d.n) if d.n == d.n_total else f"{d.n} of {d.n_total}"


def _delta_table(
    doc: ComparisonDocument,
    style: Style,
    *,
    fail: Set[tuple[str, str]],
    would: Set[tuple[str, str]],
    exempt: Set[tuple[str, str]] = frozenset(),
    columns: tuple[str, str] = ("baseline", "current"),
) -> str:
    k = doc.k
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
        name = style.user(_group_name(d.group))
        rows.append(
            [
                (style.bold(name) if d.group == "overall" else name) if first else "",
                _n_cell(d) if first else "",
                metric_label(d.metric, k) + _star(doc, style),
                _mean(d.baseline),
                _mean(d.current),
                _signed(d.delta) + mark,
                _noise(d, doc.gate.min_group_n),
            ]
        )
    header = ["group", "n", "metric", *columns, "Δ", "noise"]
    return table(header, rows, style.fmt)


def _chart_section(doc: ComparisonDocument, style: Style) -> str | None:
    """Baseline vs this run per metric, for overall and every group (Markdown only)."""
    if not style.md or not doc.deltas:
        return None
    k = doc.k
    groups = list(dict.fromkeys(d.group for d in doc.deltas))
    labels = [g.partition(":")[2] or g for g in groups]
    charts = []
    for metric in shown_metrics(d.metric for d in doc.deltas):
        by_group = {d.group: d for d in doc.deltas if d.metric == metric}
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


def _current_table(
    groups: Sequence[GroupMeansRecord], k: int, style: Style, *, star: str = ""
) -> str:
    shown = shown_metrics(*(g.means for g in groups if g.group == "overall"))
    rows = [
        [
            style.user(_group_name(g.group)),
            str(g.n),
            *(_mean(g.means.get(m)) for m in shown),
        ]
        for g in groups
    ]
    header = ["group", "n", *(metric_label(m, k) + star for m in shown)]
    return table(header, rows, style.fmt)


# --- case lists ------------------------------------------------------------------------


def _listed(items: Sequence[str], style: Style) -> tuple[list[str], int]:
    shown = list(items) if style.limit is None else list(items[: style.limit])
    return [style.user(i) for i in shown], len(items) - len(shown)


def _more(hidden: int) -> str:
    return f"… and {hidden} more: {JOB_SUMMARY_POINTER}."


def _ndcg_change(move: MoveRecord) -> float:
    return move.after.get("ndcg", 0.0) - move.before.get("ndcg", 0.0)


def _change(move: MoveRecord, k: int) -> str:
    if move.direction in ("lost", "gained"):
        return f"hit@{k} {'1 → 0' if move.direction == 'lost' else '0 → 1'}"
    return f"nDCG@{k} {_mean(move.before.get('ndcg'))} → {_mean(move.after.get('ndcg'))}"


def _move_table(moves: Sequence[MoveRecord], style: Style, k: int) -> str:
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


def case_phrase(move: MoveRecord, k: int, style: Style) -> str:
    """One case in a sentence: id, query, groups and the gold card's rank before → after."""
    query = shorten_query(move.query)
    said = f" “{style.user(query)}”" if query else ""
    return (
        f"{style.user(move.case_id)}{said} ({style.user(move.language)}, "
        f"{style.user(move.case_type)}) rank {_rank(move.rank_before, k, move.returned_before)} → "
        f"{_rank(move.rank_after, k, move.returned_after)}"
    )


def _flips_section(doc: ComparisonDocument, style: Style) -> str | None:
    if not _comparable(doc):
        return None
    flips = doc.flips
    lost, gained = flips.hit_to_miss, flips.miss_to_hit
    k = doc.k
    down = tuple(m for m in flips.rank_moves if m.direction == "down")
    up = tuple(m for m in flips.rank_moves if m.direction == "up")
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


def _came_back(retrieved: Sequence[str], style: Style) -> str:
    if not retrieved:
        return "nothing retrieved"
    return " · ".join(f"{rank}: {style.user(card)}" for rank, card in enumerate(retrieved, 1))


def _instead_section(doc: ComparisonDocument, style: Style) -> str | None:
    """For every lost case (hit → miss), or with no baseline every missed case:
    the top k this run retrieved instead of the gold card, with ranks."""
    k = doc.k
    rows: list[tuple[str, str, Sequence[str], Sequence[str]]]
    if _comparable(doc):
        rows = [(m.case_id, m.query or "", (m.card,), m.retrieved) for m in doc.flips.hit_to_miss]
        which = "lost case"
    elif doc.baseline.status == "missing":
        rows = [(c.case_id, c.query or "", c.gold, c.retrieved) for c in doc.missed]
        which = "missed case"
    else:
        return None
    if not rows:
        return None
    shown = rows if style.limit is None else rows[: style.limit]
    hidden = len(rows) - len(shown)
    summary = f"What came back instead: the top {k} of this run for each {which} ({len(rows)})"
    if not shown:
        return style.collapsed(summary, [_more(hidden)])
    text = table(
        ["case", "query", "gold", f"came back instead (rank: card, top {k})"],
        [
            [
                style.user(case_id),
                _query(query or None, style),
                ", ".join(style.user(g) for g in gold),
                _came_back(retrieved, style),
            ]
            for case_id, query, gold, retrieved in shown
        ],
        style.fmt,
    )
    return style.collapsed(summary, [text + (f"\n\n{_more(hidden)}" if hidden else "")])


def _missed_section(doc: ComparisonDocument, style: Style) -> str | None:
    """With no baseline to compare with, which cases miss now (hit@k = 0)."""
    if doc.baseline.status != "missing" or not doc.missed:
        return None
    k = doc.k
    missed = doc.missed
    shown = missed if style.limit is None else missed[: style.limit]
    rows = [
        [
            style.user(c.case_id),
            _query(c.query, style),
            style.user(c.language),
            style.user(c.case_type),
            style.user(", ".join(c.gold)),
            _rank(None, k, _held(c.retrieved, k)),
        ]
        for c in shown
    ]
    header = ["case", "query", "language", "type", "gold cards", "rank"]
    hidden = len(missed) - len(shown)
    body = [table(header, rows, style.fmt) + (f"\n\n{_more(hidden)}" if hidden else "")]
    return style.collapsed(f"Missed cases (hit@{k} = 0): {len(missed)}", body)


def _cases_section(doc: ComparisonDocument, style: Style) -> str | None:
    changes = doc.cases
    if not _cases_changed(doc):
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


# --- the stale baseline: one line per real change --------------------------------------


def _old_new(old: str | None, new: str | None, style: Style) -> str:
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
# What identifies a retriever: when one of these differs, it was swapped.
_RETRIEVER_IDENTITY = ("retriever.adapter", "retriever.class")


def _setting_line(c: SettingChangeRecord, style: Style) -> str:
    return f"{c.label} {_old_new(c.baseline, c.current, style)}"


def _retriever_lines(changes: Sequence[SettingChangeRecord], style: Style) -> list[str]:
    """A retriever swapped for another (another framework or class) is ONE change:
    its label and settings belong to each side, not to a list of "… → unset"."""
    identity = [c for c in changes if c.setting in _RETRIEVER_IDENTITY]
    if not identity:
        return [_setting_line(c, style) for c in changes]
    old = " ".join(style.literal(c.baseline) for c in identity if c.baseline is not None)
    new = " ".join(style.literal(c.current) for c in identity if c.current is not None)
    line = f"retriever {old or 'unset'} → {new or 'unset'}"
    with_it = [c for c in changes if c.setting not in _RETRIEVER_IDENTITY]
    if with_it:
        line += f" (with its own label and settings: {_plural(len(with_it), 'difference')})"
    return [line]


def _stale_reason_lines(reason: StaleRecord, doc: ComparisonDocument, style: Style) -> list[str]:
    """What differs, in words (settings old → new, never a bare fingerprint), one
    line per real change."""
    c = doc.cases
    if reason.what == "dataset" and _cases_changed(doc):
        return [
            f"cases: {len(c.added)} added, {len(c.removed)} removed, {len(c.relabelled)} relabelled"
        ]
    if reason.what == "queries" and not reason.changes:
        return [f"queries: {doc.run.edited_queries} edited"]
    return stale_reason_phrases(reason, style)


def stale_reason_phrases(reason: StaleRecord, style: Style) -> list[str]:
    """What one stale reason changed, in words, one phrase per real change; the
    case set and the queries, which need both runs' cases, are said by the caller
    (this is the phrase when it cannot tell)."""
    what = reason.what
    if what in _STALE_NAMES:
        old, new = reason.baseline, reason.current
        if what == "embedder":
            old, new = describe_embedder(old, new)
        return [f"{_STALE_NAMES[what]} {_old_new(old, new, style)}"]
    if what == "retriever" and reason.changes:
        return _retriever_lines(reason.changes, style)
    if reason.changes:
        return [_setting_line(change, style) for change in reason.changes]
    if what == "config" and reason.settings_recorded:
        return ["the retrieval config changed in a way no recorded setting names"]
    return [_STALE_UNRECORDED.get(what, f"{what.replace('_', ' ')} changed")]


def stale_changes(doc: ComparisonDocument, style: Style, *, skip_k: bool = False) -> list[str]:
    """Every real change since the baseline was made, one phrase each."""
    return [
        line
        for reason in doc.baseline.stale
        if not (skip_k and reason.what == "k")
        for line in _stale_reason_lines(reason, doc, style)
    ]


def stale_headline(count: int) -> str:
    return f"Stale baseline: {_plural(count, 'change')} since it was made"


def stale_advice(style: Style) -> str:
    return (
        "The deltas include the effect of these changes. If they are intended, refresh the "
        f"baseline ({style.code('recall-gate baseline update')}, or the update-baseline workflow)."
    )


def missing_baseline_phrase(doc: ComparisonDocument, style: Style) -> str:
    where = f" at {style.literal(doc.baseline.ref)}" if doc.baseline.ref else ""
    return (
        f"{style.bold('No baseline yet')} for profile {style.literal(doc.profile)}: "
        f"{style.literal(doc.baseline.path)} does not exist{where}, so there is nothing to "
        "compare with (reported, not failed)."
    )


def not_comparable_phrase(doc: ComparisonDocument, style: Style) -> str:
    k = doc.k
    return (
        f"{style.bold('Baseline not comparable')}: it was made at k = "
        f"{doc.baseline.k} and this run uses k = {k}, so no delta, flip or "
        f"regression is computed. Refresh the baseline at k = {k}."
    )


def _overall_change(old: dict[str, SummaryRecord], new: dict[str, SummaryRecord], k: int) -> str:
    parts = []
    for metric in shown_metrics(old, new):
        a, b = old.get(metric), new.get(metric)
        n = f" (n {a.n if a else 0} → {b.n if b else 0})" if metric == HIT else ""
        parts.append(
            f"{metric_label(metric, k)} {_mean(a.mean if a else None)} → "
            f"{_mean(b.mean if b else None)}{n}"
        )
    return " · ".join(parts)


def _made(
    created_at: str | None, git_sha: str | None, reason: str | None, style: Style, *, why: bool
) -> str:
    sha = f"commit {style.literal(git_sha[:12])}" if git_sha else "commit unknown"
    text = f"made {style.user(created_at or 'at an unknown time')}, {sha}"
    if why:
        text += f", reason “{style.user(reason)}”" if reason else ", no reason given"
    return text


def _baseline_ref(doc: ComparisonDocument, style: Style) -> str:
    b = doc.baseline
    return _made(b.created_at, b.git_sha, b.reason, style, why=True)


def _ids(items: Sequence[str], style: Style) -> str:
    shown, hidden = _listed(items, style)
    return ", ".join(style.literal(i) for i in shown) + (f" … and {hidden} more" if hidden else "")


def _pull_request_banners(doc: ComparisonDocument, style: Style) -> list[str]:
    """What a pull request judged at its base changes of its own gate and cases."""
    pr = doc.pull_request
    if pr is None:
        return []
    out = []
    ref = style.literal(pr.ref[:12] if len(pr.ref) == 40 else pr.ref)
    if pr.config_after_merge:
        judging = style.literal(pr.config) if pr.config and pr.config_at_base else None
        added = config_after_merge_sentence(
            added=style.literal(pr.config_after_merge), judging=judging, ref=ref
        )
        out.append(style.banner("IMPORTANT", [f"{style.bold('This pull request')} {added}"]))
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
        oracle = f" ({style.user(pr.oracle)})" if pr.oracle else ""
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold('Cases removed / relabelled by this pull request')} "
                    f"(applies after merge): {'; '.join(lines)}. They are still judged as "
                    f"the base has them at {ref}{oracle}."
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


def _banners(doc: ComparisonDocument, style: Style, *, truncated: bool) -> list[str]:
    out = []
    baseline = doc.baseline
    path = baseline.path
    edit = baseline.edit
    k = doc.k
    if edit is not None:
        where = style.literal(path)
        if edit.action == "deleted":
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
            reason = f"reason: “{style.user(edit.reason)}”" if edit.reason else "no reason given"
            verb = "adds the first baseline" if edit.action == "added" else "changes the baseline"
            lines = [
                f"{style.bold(f'This pull request {verb}')} {where} ({reason}). "
                + (
                    "This run is compared with the base branch's baseline; "
                    "the new one applies after merge."
                    if edit.action == "changed"
                    else "It applies after merge."
                )
            ]
            if edit.action == "changed":
                lines.append(
                    "Overall, old → new: "
                    + _overall_change(edit.old_overall, edit.new_overall, edit.k or k)
                )
            out.append(style.banner("IMPORTANT", lines))
    out += _pull_request_banners(doc, style)
    if baseline.status == "missing" and not (edit is not None and edit.action == "added"):
        command = (
            f"recall-gate baseline update --results results.json --out {path} "
            '--reason "first baseline"'
        )
        out.append(
            style.banner(
                "NOTE",
                [
                    missing_baseline_phrase(doc, style),
                    f"Create it from a run on the default branch: {style.literal(command)}, "
                    "then commit it (or run the update-baseline workflow).",
                ],
            )
        )
    if baseline.status == "not_comparable":
        lines = [not_comparable_phrase(doc, style)]
        others = stale_changes(doc, style, skip_k=True)
        if others:
            lines += ["", "Also changed since it was made:", *(f"- {c}" for c in others)]
        out.append(style.banner("WARNING", lines))
    elif baseline.status == "stale":
        changes = stale_changes(doc, style)
        out.append(
            style.banner(
                "WARNING",
                [
                    style.bold(stale_headline(len(changes))) + ":",
                    *(f"- {c}" for c in changes),
                    "",
                    stale_advice(style),
                ],
            )
        )
    changes_ = doc.cases
    if _comparable(doc) and _cases_changed(doc):
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold('The case set changed')} since the baseline: "
                    f"{len(changes_.added)} added, {len(changes_.removed)} removed, "
                    f"{len(changes_.relabelled)} relabelled. Means and deltas are on the "
                    f"{changes_.compared} scored cases present in both with the same labels."
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


# --- what failed: one line per group and fate ------------------------------------------


def _noise_word(r: RegressionRecord, min_group_n: int) -> str:
    if r.significant is None:
        return f"n < {min_group_n}, not tested"
    return "likely real" if r.significant else "within noise"


def _exemption_phrase(r: RegressionRecord, min_group_n: int) -> str:
    if r.status == "exempt_small_n":
        return f"exempt: n = {r.n} is below min-group-n {min_group_n}, too few cases to gate"
    return "exempt: not likely real by the noise test (require-significance)"


@dataclass(frozen=True)
class DropLine:
    """The over-tolerance rows of one group that share a fate: failed (or would
    fail), or exempt. One line in the report, one annotation."""

    would: bool  # report-only: at the reference tolerance
    group: str
    drops: tuple[RegressionRecord, ...]

    @property
    def exempt(self) -> bool:
        return self.drops[0].status != "failed"

    @property
    def cases(self) -> tuple[MoveRecord, ...]:
        """The cases behind the drops: flips first, then by the largest nDCG drop."""
        seen: dict[str, MoveRecord] = {}
        for r in self.drops:
            for m in r.cases:
                seen.setdefault(m.case_id, m)
        order = {"lost": 0, "down": 1, "gained": 2, "up": 3}
        return tuple(
            sorted(seen.values(), key=lambda m: (order[m.direction], _ndcg_change(m), m.case_id))
        )

    def mark(self, style: Style) -> str:
        return style.mark("exempt" if self.exempt else "would" if self.would else "fail").strip()

    @property
    def fate(self) -> str:
        if not self.exempt:
            return "would fail" if self.would else "failed"
        why = "n too small" if self.drops[0].status == "exempt_small_n" else "not likely real"
        return f"{'would be ' if self.would else ''}exempt: {why}"


def _drop_groups(regressions: Sequence[RegressionRecord], *, would: bool) -> list[DropLine]:
    grouped: dict[tuple[str, str], list[RegressionRecord]] = {}
    for r in regressions:
        grouped.setdefault((r.group, r.status), []).append(r)
    return [
        DropLine(would=would, group=group, drops=tuple(drops))
        for (group, _), drops in grouped.items()
    ]


def drop_lines(doc: ComparisonDocument) -> list[DropLine]:
    """Every over-tolerance row, per group: failed, then exempt; report-only: what would fail."""
    gate = doc.gate
    lines = _drop_groups(gate.regressions, would=False) + _drop_groups(gate.exempt, would=False)
    if doc.verdict == "report-only":
        would = doc.would_fail_detail
        lines += _drop_groups(would.regressions, would=True)
        lines += _drop_groups(would.exempt, would=True)
    return lines


def drop_phrase(line: DropLine, doc: ComparisonDocument) -> str:
    """One line per group and fate: its metrics' drops, the noise verdict, the tolerance."""
    k, min_group_n = doc.k, doc.gate.min_group_n
    drops = line.drops
    moves = ", ".join(
        f"{metric_label(r.metric, k)} {r.baseline:.3f} → {r.current:.3f} "
        f"({_signed(r.delta)}, {_noise_word(r, min_group_n)})"
        for r in drops
    )
    tolerances = {r.tolerance for r in drops}
    if len(tolerances) == 1:
        tolerance = f"{tolerances.pop():.3f} tolerance"
        limit = f"would exceed a {tolerance}" if line.would else f"beyond the {tolerance}"
        limit += " (max-regression)"
    else:
        each = ", ".join(f"{metric_label(r.metric, k)} {r.tolerance:.3f}" for r in drops)
        limit = f"beyond the tolerance of each metric ({each}; max-regression)"
    if line.exempt:
        limit += f", {'would be ' if line.would else ''}{_exemption_phrase(drops[0], min_group_n)}"
    n_cases = len(line.cases)
    behind = f"; {_plural(n_cases, 'case')} behind it" if n_cases else ""
    return f"{group_phrase(line.group)}: {moves} — n = {drops[0].n}, {limit}{behind}"


# Up to this many cases behind a drop are shown open; more are collapsed.
OPEN_CASES = 5


def _cases_behind_section(doc: ComparisonDocument, style: Style) -> list[str]:
    """For every over-tolerance row, the cases behind it (collapsed when long)."""
    k = doc.k
    out = []
    listed: dict[frozenset[str], str] = {}
    for line in drop_lines(doc):
        cases = line.cases
        if not cases:
            continue
        metrics = ", ".join(metric_label(r.metric, k) for r in line.drops)
        where = f"{group_phrase(line.group)}, {metrics}"
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


def floor_phrase(item: FloorRecord, k: int, *, would: bool) -> str:
    observed = "nothing scored" if item.observed is None else f"{item.observed:.3f} (n = {item.n})"
    floor = item.floor if item.floor is not None else 0.0
    label, flag = metric_label(item.metric, k), floor_flag(item.metric)
    if would:
        return f"{label} {observed} would miss the suggested floor {floor:.2f} ({flag})"
    return f"{label} {observed} is below the floor {floor:.3f} ({flag})"


def _set_floors(doc: ComparisonDocument) -> list[tuple[str, float]]:
    """The floors that are set, as (metric key, floor), in registry order."""
    floors = doc.gate.floors
    return [(m.key, floors[floor_key(m.key)]) for m in GATED_METRICS if floor_key(m.key) in floors]


def tolerance_phrase(doc: ComparisonDocument) -> str:
    """The set tolerance. Every gated metric has one (one number, perhaps with
    a metric's own beside it): ``the 0.050 tolerance (0.020 for hit@5)``; else
    each metric's, naming the shown metrics that have none. Either way, a
    tolerance that could not be checked (the baseline or this run lacks its
    metric) is named."""
    tolerances, k = doc.gate.tolerances, doc.k
    covered = all(m.name in tolerances for m in GATED_METRICS)
    shown = [
        m for m in GATED_METRICS if m.name in doc.metrics or (not covered and m.name in tolerances)
    ]
    notes = []
    if not covered:
        unset = [metric_label(m.key, k) for m in shown if m.name not in tolerances]
        if unset:
            notes.append(f"{', '.join(unset)} not tolerance-gated")
    if _comparable(doc):
        gated = [m for m in shown if m.name in tolerances]
        unscored = [metric_label(m.key, k) for m in gated if doc.metrics.get(m.name) is None]
        unbased = [
            metric_label(m.key, k)
            for m in gated
            if doc.metrics.get(m.name) is not None and m.key not in doc.baseline.overall
        ]
        if unscored:
            notes.append(f"{', '.join(unscored)} not checked: this run did not score it")
        if unbased:
            notes.append(f"{', '.join(unbased)} not checked: the baseline lacks it")
    if covered:
        values = [tolerances[m.name] for m in GATED_METRICS]
        common = max(values, key=values.count)  # the first most frequent, in registry order
        own = ", ".join(
            f"{tolerances[m.name]:.3f} for {metric_label(m.key, k)}"
            for m in GATED_METRICS
            if tolerances[m.name] != common
        )
        notes = [own, *notes] if own else notes
        return f"the {common:.3f} tolerance" + (f" ({'; '.join(notes)})" if notes else "")
    each = ", ".join(
        f"{metric_label(m.key, k)} {tolerances[m.name]:.3f}" for m in shown if m.name in tolerances
    )
    return f"the tolerance of each metric ({'; '.join([each, *notes])})"


def _verdict_summary(doc: ComparisonDocument) -> str:
    gate = doc.gate
    k = doc.k
    reasons = []
    exempt = len(gate.exempt)
    exempt_note = (
        f" ({exempt} beyond it exempt: too few cases or not likely real)" if exempt else ""
    )
    comparable = _comparable(doc)
    if doc.verdict == "fail":
        if gate.regressions:
            n = len(gate.regressions)
            reasons.append(
                f"{n} drop{'s' if n != 1 else ''} beyond {tolerance_phrase(doc)}" + exempt_note
            )
        if gate.failed_floors:
            n = len(gate.failed_floors)
            reasons.append(f"{n} floor{'s' if n != 1 else ''} missed")
        if doc.traffic is not None and doc.traffic.failed:
            reasons.append(traffic_failure_phrase(doc.traffic))
        return "Failed: " + "; ".join(reasons) + "."
    if doc.verdict == "pass":
        if gate.tolerances:
            reasons.append(
                f"no drop beyond {tolerance_phrase(doc)}"
                + (f" fails the gate{exempt_note}" if exempt else "")
                if comparable
                else "the tolerance was not checked (no comparable baseline)"
            )
        set_floors = _set_floors(doc)
        if set_floors:
            reasons.append(
                "floors met ("
                + ", ".join(f"{metric_label(m, k)} ≥ {floor:.3f}" for m, floor in set_floors)
                + ")"
            )
        return "Passed: " + "; ".join(reasons) + "."
    if not comparable:
        return "No floor or tolerance is set, so nothing is enforced."
    count = doc.would_fail
    what = (
        f"{count} check{'s' if count != 1 else ''} would fail if enforced (below)"
        if count
        else "nothing would fail at the suggested floors and a "
        f"{doc.would_fail_detail.tolerance:.2f} tolerance"
    )
    return f"No floor or tolerance is set, so nothing is enforced; {what}."


def _verdict_block(doc: ComparisonDocument, style: Style) -> str:
    word = doc.verdict
    if style.md:
        icon = {"fail": "❌", "pass": "✅", "report-only": "📊"}[word]
        heading = f"### {icon} recall-gate {style.literal(doc.profile)}: {style.bold(word)}"
    else:
        heading = f"recall-gate {doc.profile}: {word.upper()}"
    return "\n\n".join([heading, _verdict_summary(doc), _headline(doc, style)])


def _overall_means(doc: ComparisonDocument) -> dict[str, float]:
    overall = next((g for g in doc.run.groups if g.group == "overall"), None)
    return dict(overall.means) if overall is not None else {}


def _delta_for(doc: ComparisonDocument, metric: str, group: str = "overall") -> DeltaRecord | None:
    return next((d for d in doc.deltas if d.metric == metric and d.group == group), None)


def _headline(doc: ComparisonDocument, style: Style) -> str:
    k = doc.k
    means = _overall_means(doc)
    if not means:
        return f"No case carries gold: nothing is scored ({doc.n_cases} cases)."
    same_set = _comparable(doc) and not _cases_changed(doc)
    star = _star(doc, style)
    parts = []
    for metric in shown_metrics(means):
        text = f"{metric_label(metric, k)}{star} {style.bold(_mean(means.get(metric)))}"
        delta = _delta_for(doc, metric)
        if same_set and delta is not None and delta.delta is not None:
            text += f" ({_signed(delta.delta)})"
        parts.append(text)
    line = " · ".join(parts) + f" · n = {doc.run.scored}"
    # A number on shorter lists than k is said where it stands, not only in a note.
    if doc.run.short_of_k:
        line += f" ({_short_phrase(doc.run.short_of_k, doc.run.scored, k)}{star})"
    if doc.baseline.status != "missing":
        ref = doc.baseline.ref
        at = f" at {style.literal(ref)}" if ref else ""
        line += (
            f"\n\nBaseline: {style.literal(doc.baseline.path)}{at} ({_baseline_ref(doc, style)})."
        )
        if _comparable(doc) and doc.baseline.short_of_k:
            scored = _baseline_scored(doc)
            line += (
                f" In the baseline, {_short_phrase(doc.baseline.short_of_k, scored, k, past=True)}"
                f"{star}."
            )
    return line


def _short_phrase(short: int, scored: int, k: int, *, past: bool = False) -> str:
    """``3 of 20 scored cases hold fewer than 5 cards``."""
    verb = "held" if past else "holds" if short == 1 else "hold"
    cases = f"scored case{'' if scored == 1 else 's'}"
    return f"{short} of {scored} {cases} {verb} fewer than {k} cards"


def _baseline_scored(doc: ComparisonDocument) -> int:
    overall = doc.baseline.overall
    return max((s.n for s in overall.values()), default=0)


def _checks_block(doc: ComparisonDocument, style: Style) -> str | None:
    """What failed (❌), or in report-only mode what would fail if enforced (⚠️)."""
    k = doc.k
    fail, would = style.mark("fail").strip(), style.mark("would").strip()
    lines_ = drop_lines(doc)
    lines = [f"{d.mark(style)} {drop_phrase(d, doc)}" for d in lines_ if not d.would]
    lines += [f"{fail} {floor_phrase(c, k, would=False)}" for c in doc.gate.failed_floors]
    if doc.verdict == "report-only":
        lines += [f"{d.mark(style)} {drop_phrase(d, doc)}" for d in lines_ if d.would]
        lines += [
            f"{would} {floor_phrase(c, k, would=True)}" for c in doc.would_fail_detail.failed_floors
        ]
    return "\n".join(f"- {line}" for line in lines) if lines else None


def _suggestions(doc: ComparisonDocument, style: Style) -> str | None:
    if doc.verdict != "report-only" or not doc.suggested_detail:
        return None
    source = "the baseline" if _comparable(doc) else "this run"
    items = ", ".join(
        f"{style.literal(f'{floor_flag(s.metric)}: {s.floor or 0.0:.2f}')} "
        f"(observed {s.observed or 0.0:.3f}, n = {s.n})"
        for s in doc.suggested_detail
    )
    return (
        f"{style.bold('Suggested floors')} from {source} (observed − margin, down to the "
        f"Wilson 95% lower bound, at least 0.02): {items}. Write them into the config with "
        f"{style.literal('recall-gate floors suggest --write recall-gate.yaml')}."
    )


def _language_note(doc: ComparisonDocument) -> str:
    """What the † on language rows means, true to what the table shows: each
    language's row is tested and gated like any group; languages are not
    compared with one another."""
    if not doc.deltas:
        return f"† {LANGUAGE_CAVEAT}"
    return (
        "† A language's row compares this run with the baseline on that language's cases, "
        "and is noise-tested and gated like any group. Differences between languages are "
        "indicative, not significance-tested: the per-language sets are small, unequal "
        "and independently written."
    )


def _notes(doc: ComparisonDocument, style: Style, *, legend: Sequence[str]) -> str:
    k = doc.k
    notes = list(legend)
    run = doc.run
    for note in capture_notes(
        k=k,
        scored=run.scored,
        short_of_k=run.short_of_k,
        gold_checked=run.gold_checked,
        outside_kb=run.outside_kb,
        fmt=style.fmt,
        kb_coverage=run.kb_coverage,
        kb_retrieved=run.kb_retrieved,
        baseline_retrieved=doc.baseline.kb_retrieved if _comparable(doc) else None,
    ):
        notes.append(note if style.md else note.replace("`", "").replace("\\*", "*"))
    if _comparable(doc) and doc.baseline.short_of_k:
        notes.append(
            f"{_star(doc, style)} Depth of the baseline: "
            f"{_short_phrase(doc.baseline.short_of_k, _baseline_scored(doc), k, past=True)}: "
            "a delta on those cases compares a shorter list with this run's."
        )
    turnover = kb_turnover_note(doc.baseline.kb_turnover, style)
    if turnover:
        notes.append(turnover)
    notes.append(RECALL_CAVEAT if style.md else RECALL_CAVEAT.replace("`", ""))
    notes.append(_language_note(doc))
    min_group_n = doc.gate.min_group_n
    if doc.deltas:
        notes.append(
            f"Noise: hit@{k} flips are tested with an exact two-sided McNemar test; "
            f"recall@{k} and nDCG@{k} deltas with a {round(CONFIDENCE * 100)}% paired "
            f"bootstrap interval ({BOOTSTRAP_RESAMPLES} resamples, fixed seed). "
            f"“likely real” = p < 0.05 or an interval that excludes 0; groups with "
            f"n < {min_group_n} are not tested."
        )
        overall = _delta_for(doc, HIT)
        if overall is not None and overall.n >= min_group_n:
            n, least = overall.n, min_detectable_lost()
            notes.append(
                f"Detectable drop: on {n} compared cases, hit@{k} is called likely real from "
                f"{least} lost hits with none gained (−{least / n:.3f}); a smaller drop, or one "
                "offset by gains, reads as noise. Subgroups need as many lost hits on fewer cases."
            )
    if run.unscored:
        notes.append(
            f"{run.unscored} case{' is' if run.unscored == 1 else 's are'} without gold "
            "(capability, no_match): not scored, by design: they have no card to find."
        )
    return "\n".join(f"- {n}" for n in notes)


def _definitions(style: Style, shown: Sequence[str]) -> str:
    specs = [m for m in GATED_METRICS if m.key in shown]
    if style.md:
        items = [f"- `{m.key}`: {m.definition}" for m in specs]
    else:
        items = [f"- {m.key}: {m.definition.replace('`', '')}" for m in specs]
    return style.collapsed("Metric definitions", ["\n".join(items)])


def _capture_section(doc: ComparisonDocument, style: Style) -> str | None:
    """Cases the retriever could not answer, and the query latency against the
    baseline's when it has one (report-only)."""
    run = doc.run
    parts = []
    if run.failed_cases:
        parts.append(failures_note(run.failed_cases, style.fmt))
    if run.latency is not None:
        parts.append(latency_table(run.latency, style.fmt, baseline=doc.baseline.latency))
    if not parts:
        return None
    return (
        style.collapsed("Capture: failures and latency", parts) if style.md else "\n\n".join(parts)
    )


def _render(doc: ComparisonDocument, *, style: Style, truncated: bool) -> str:
    parts = []
    if style.md:
        parts.append(comment_marker(doc.profile))
    parts.append(_verdict_block(doc, style))
    outside = render_outside_share_changes(
        doc.run.outside_kb, doc.baseline.outside_kb, markdown=style.md
    )
    if outside is not None:
        parts.append(outside if style.md else outside.replace("`", ""))
    parts += _banners(doc, style, truncated=truncated)
    checks = _checks_block(doc, style)
    if checks:
        parts.append(checks)
    parts += _cases_behind_section(doc, style)
    fail = {(r.metric, r.group) for r in doc.gate.regressions}
    exempt = {(r.metric, r.group) for r in doc.gate.exempt}
    would: set[tuple[str, str]] = set()
    if doc.verdict == "report-only":
        would = {(r.metric, r.group) for r in doc.would_fail_detail.regressions}
        exempt |= {(r.metric, r.group) for r in doc.would_fail_detail.exempt}
    legend = []
    if doc.deltas:
        parts.append(_delta_table(doc, style, fail=fail, would=would, exempt=exempt))
        if fail:
            legend.append(f"{style.mark('fail').strip()} drop beyond the set tolerance.")
        if would:
            legend.append(
                f"{style.mark('would').strip()} drop that would exceed a "
                f"{doc.would_fail_detail.tolerance:.2f} tolerance if one were set."
            )
        if exempt:
            legend.append(
                f"{style.mark('exempt').strip()} drop beyond the tolerance that does not fail "
                f"the gate: fewer than {doc.gate.min_group_n} compared cases (min-group-n), "
                "or a subgroup drop the noise test does not call likely real "
                "(require-significance)."
            )
    else:
        parts.append(_current_table(doc.run.groups, doc.k, style, star=_star(doc, style)))
    for section in (
        _chart_section(doc, style),
        _flips_section(doc, style),
        _missed_section(doc, style),
        _instead_section(doc, style),
        _cases_section(doc, style),
        kb_changes_section(
            doc.pull_request.kb if doc.pull_request else None,
            style,
            metric_name=lambda m: metric_label(m, doc.k),
            noise=lambda d: _noise(d, doc.gate.min_group_n),
        ),
        _capture_section(doc, style),
        traffic_section(doc.traffic, style),
        self_agreement_section(doc.self_agreement, style),
    ):
        if section:
            parts.append(section)
    suggestions = _suggestions(doc, style)
    if suggestions:
        parts.append(suggestions)
    parts.append(_notes(doc, style, legend=legend))
    parts.append(
        _definitions(style, shown_metrics(_overall_means(doc), (d.metric for d in doc.deltas)))
    )
    return "\n\n".join(parts) + "\n"


def _longest_list(doc: ComparisonDocument) -> int:
    c = doc.cases
    return max(
        len(doc.flips.hit_to_miss),
        len(doc.flips.miss_to_hit),
        len(doc.flips.rank_moves),
        len(doc.missed),
        doc.run.scored,
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


def render_comment(doc: ComparisonDocument, *, max_chars: int | None = None) -> str:
    """The Markdown report (PR comment, job summary). With ``max_chars``, user
    strings are shortened first (a PR controls its retriever label, a reason can
    be long), then the case lists, pointing to the job summary; the verdict,
    the banners, the failing rows and the metric table always stay."""
    full = _render(doc, style=MARKDOWN, truncated=False)
    if max_chars is None or comment_length(full) <= max_chars:
        return full
    last = full
    for user_chars in USER_CHARS_STEPS:

        def attempt(limit: int | None, chars: int = user_chars) -> str:
            return _render(doc, style=Style("markdown", limit, chars), truncated=limit is not None)

        text = attempt(None)
        if comment_length(text) <= max_chars:
            return text
        low, high = 0, _longest_list(doc)
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
        last = attempt(0)
    return _hard_cut(last, max_chars)


def render_comparison_text(doc: ComparisonDocument) -> str:
    """The same report as plain text, for a terminal (no marker, no HTML)."""
    return _render(doc, style=TEXT, truncated=False)


def render_baseline_update(
    comparison: Comparison, *, new: Baseline, path: str, fmt: Format = "markdown"
) -> str:
    """What a baseline update changes (the update-baseline PR body): reason,
    provenance, and old → new per metric and group with n."""
    style = Style(fmt)
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    doc = comparison_document(comparison, verdict, profile="default")
    k = new.k
    title = f"recall-gate baseline update: {path}"
    parts = [
        f"### {escape_markdown(title)}" if style.md else f"{title}\n{'=' * len(title)}",
        f"Reason: “{style.user(new.reason)}”." if new.reason else "No reason given (--reason).",
        f"New baseline: {_made(new.created_at, new.git_sha, None, style, why=False)}; "
        f"k = {k}, {sum(1 for c in new.cases if c.metrics)} of {len(new.cases)} cases scored"
        + (
            f" ({_short_phrase(doc.run.short_of_k, doc.run.scored, k)}{_star(doc, style)})."
            if doc.run.short_of_k
            else "."
        ),
    ]
    if doc.baseline.status == "missing":
        parts.append("No previous baseline: this is the first one.")
        parts.append(_current_table(doc.run.groups, k, style, star=_star(doc, style)))
    else:
        parts.append(f"Previous baseline: {_baseline_ref(doc, style)}.")
        changed = [f"- {c}" for c in stale_changes(doc, style)]
        if changed:
            parts.append("What changed since the previous baseline:\n" + "\n".join(changed))
        if _comparable(doc):
            if _cases_changed(doc):
                c = doc.cases
                parts.append(
                    f"Case set: {len(c.added)} added, {len(c.removed)} removed, "
                    f"{len(c.relabelled)} relabelled; old → new is on the {c.compared} "
                    "scored cases present in both."
                )
            parts.append(_delta_table(doc, style, fail=set(), would=set(), columns=("old", "new")))
            for section in (
                _flips_section(doc, style),
                _instead_section(doc, style),
                _cases_section(doc, style),
            ):
                if section:
                    parts.append(section)
        else:
            new_overall = {
                m: SummaryRecord(mean=s.mean, n=s.n)
                for m, s in new.aggregates.overall.items()
                if m in METRIC_KEYS
            }
            parts.append(
                "Overall, old → new: " + _overall_change(doc.baseline.overall, new_overall, k)
            )
            parts.append(_current_table(doc.run.groups, k, style, star=_star(doc, style)))
    parts.append(_notes(doc, style, legend=()))
    return "\n\n".join(parts) + "\n"
