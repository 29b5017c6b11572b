"""The phrases of the report (pure): each thing is said by one function, so the
PR comment, the job summary, the terminal and the annotations say it alike.

Other modules call these through the module (``phrases.floor_phrase``), so a
test that swaps one sees every surface change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.core.comparison_json import (
    ComparisonDocument,
    DeltaRecord,
    FloorRecord,
    MoveRecord,
    RegressionRecord,
    SummaryRecord,
)
from recall_gate.core.metric_registry import (
    GATED_METRICS,
    METRIC_KEYS,
    floor_flag,
    floor_key,
    metric_label,
    metric_spec,
    shown_metrics,
)
from recall_gate.core.metrics import HIT
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.report.markup import shorten_query
from recall_gate.report.style import (
    Style,
    fmt_mean,
    fmt_p,
    fmt_rank,
    fmt_signed,
    plural,
)

__all__ = [
    "DropLine",
    "baseline_made",
    "baseline_scored",
    "case_phrase",
    "cases_changed",
    "delta_for",
    "drop_lines",
    "drop_phrase",
    "floor_phrase",
    "floor_setting",
    "floors_set",
    "group_name",
    "group_phrase",
    "id_list",
    "is_comparable",
    "made_phrase",
    "missing_baseline_phrase",
    "ndcg_change",
    "noise_cell",
    "not_comparable_phrase",
    "overall_change",
    "overall_means",
    "short_phrase",
    "short_rankings",
    "short_star",
    "tolerance_phrase",
]


def short_rankings(doc: ComparisonDocument) -> bool:
    """Whether a number of this report stands on rankings of fewer than k cards
    (this run's, or the compared baseline's)."""
    return bool(doc.run.short_of_k or (is_comparable(doc) and doc.baseline.short_of_k))


def short_star(doc: ComparisonDocument, style: Style) -> str:
    """The mark on a metric whose number stands on short rankings (see the notes)."""
    if not short_rankings(doc):
        return ""
    return "\\*" if style.md else "*"


def group_name(label: str) -> str:
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


def is_comparable(doc: ComparisonDocument) -> bool:
    return doc.baseline.status in ("ok", "stale")


def cases_changed(doc: ComparisonDocument) -> bool:
    c = doc.cases
    return bool(c.added or c.removed or c.relabelled)


def noise_cell(d: DeltaRecord, min_group_n: int) -> str:
    if d.n == 0:
        return "no common case"
    if d.small_n:
        return f"n < {min_group_n}: not tested"
    word = "likely real" if d.significant else "within noise"
    if d.p_value is not None:
        binary = metric_spec(d.metric).binary if d.metric in METRIC_KEYS else True
        if d.lost == d.gained == 0:
            return "no flip" if binary else "no change"
        if binary:
            return f"{word} ({fmt_p(d.p_value)}; {d.lost} lost, {d.gained} gained)"
        # The paired sign-flip test: how many cases went down and up.
        return f"{word} ({fmt_p(d.p_value)}; {d.lost} down, {d.gained} up)"
    return _interval(d.ci_low, d.ci_high, word)


def _interval(low: float | None, high: float | None, word: str) -> str:
    if low is None or high is None:
        return "not tested"
    if low == high == 0.0:
        return "no change"
    # A document written before the sign-flip test carries a 95% bootstrap interval.
    return f"{word} (95% CI {fmt_signed(low)} … {fmt_signed(high)})"


def ndcg_change(move: MoveRecord) -> float:
    return move.after.get("ndcg", 0.0) - move.before.get("ndcg", 0.0)


def case_phrase(move: MoveRecord, k: int, style: Style) -> str:
    """One case in a sentence: id, query, groups and the gold card's rank before → after."""
    query = shorten_query(move.query)
    said = f" “{style.user(query)}”" if query else ""
    return (
        f"{style.user(move.case_id)}{said} ({style.user(move.language)}, "
        f"{style.user(move.case_type)}) rank "
        f"{fmt_rank(move.rank_before, k, move.returned_before)} → "
        f"{fmt_rank(move.rank_after, k, move.returned_after)}"
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


def overall_change(old: dict[str, SummaryRecord], new: dict[str, SummaryRecord], k: int) -> str:
    """Overall means old → new; at ``k``, the edited baseline's (not always the document's)."""
    parts = []
    for metric in shown_metrics(old, new):
        a, b = old.get(metric), new.get(metric)
        n = f" (n {a.n if a else 0} → {b.n if b else 0})" if metric == HIT else ""
        parts.append(
            f"{metric_label(metric, k)} {fmt_mean(a.mean if a else None)} → "
            f"{fmt_mean(b.mean if b else None)}{n}"
        )
    return " · ".join(parts)


def made_phrase(
    created_at: str | None, git_sha: str | None, reason: str | None, style: Style, *, why: bool
) -> str:
    sha = f"commit {style.literal(git_sha[:12])}" if git_sha else "commit unknown"
    text = f"made {style.user(created_at or 'at an unknown time')}, {sha}"
    if why:
        text += f", reason “{style.user(reason)}”" if reason else ", no reason given"
    return text


def baseline_made(doc: ComparisonDocument, style: Style) -> str:
    b = doc.baseline
    return made_phrase(b.created_at, b.git_sha, b.reason, style, why=True)


def id_list(items: Sequence[str], style: Style) -> str:
    # The ids as written, each escaped once (by literal): listed_items' are escaped already.
    shown = list(items) if style.limit is None else list(items[: style.limit])
    hidden = len(items) - len(shown)
    return ", ".join(style.literal(i) for i in shown) + (f" … and {hidden} more" if hidden else "")


def _noise_word(r: RegressionRecord, min_group_n: int) -> str:
    if r.significant is None:
        return f"n < {min_group_n}, not tested"
    return "likely real" if r.significant else "within noise"


def _exemption_phrase(r: RegressionRecord, doc: ComparisonDocument) -> str:
    if r.status == "exempt_small_n":
        n = doc.gate.min_group_n
        return f"exempt: n = {r.n} is below min-group-n {n}, too few cases to gate"
    if r.status == "exempt_own_noise":
        return "exempt: " + _own_noise_phrase(r, doc.self_agreement)
    if r.p_family is not None:  # every gated row tested together: the gate's own p
        return (
            f"exempt: not likely real by the report-level noise test "
            f"({fmt_p(r.p_family)}, one-sided; require-significance)"
        )
    return "exempt: not likely real by the noise test (require-significance)"


def _failing_phrase(drops: Sequence[RegressionRecord], doc: ComparisonDocument) -> str:
    """Why a drop beyond the tolerance fails, in words: the noise test calls it
    likely real, or (only where the team chose it) it is held within noise."""
    real = [r for r in drops if r.significant]
    noisy = [r for r in drops if not r.significant]
    ps = [r.p_family for r in real if r.p_family is not None]
    likely = "likely real" + (f" ({fmt_p(min(ps))}, report-level)" if ps else "")
    off = "because require-significance is off"
    if not noisy:
        return f"fails: {likely}"
    if doc.gate.require_significance:
        return "fails"
    if not real:
        return f"fails within noise {off}"
    held = ", ".join(doc.label(r.metric) for r in noisy)
    return f"fails: {likely}; {held} within noise, held to it {off}"


def _own_noise_phrase(r: RegressionRecord, a: SelfAgreement | None) -> str:
    """Why a drop is the retriever's own noise: what the A/A captures changed."""
    behind = len({m.case_id for m in r.cases})
    if a is None:  # a document whose A/A part was removed: its verdict is refused anyway
        return "within the retriever's own noise (A/A)"
    changed = set(a.cases_changed)
    among = (
        "all among those"
        if {m.case_id for m in r.cases} <= changed
        else f"{behind / r.n * 100:.1f} % of n = {r.n}"
    )
    return (
        f"within the retriever's own noise (A/A: {a.runs} identical captures changed the top "
        f"{a.k} of {len(changed)} of {a.cases} cases, {a.case_share * 100:.1f} %; "
        f"{plural(behind, 'case')} behind this drop, {among})"
    )


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
            sorted(seen.values(), key=lambda m: (order[m.direction], ndcg_change(m), m.case_id))
        )

    def mark(self, style: Style) -> str:
        return style.mark("exempt" if self.exempt else "would" if self.would else "fail").strip()

    @property
    def fate(self) -> str:
        if not self.exempt:
            return "would fail" if self.would else "failed"
        why = {
            "exempt_small_n": "n too small",
            "exempt_own_noise": "the retriever's own noise",
        }.get(self.drops[0].status, "not likely real")
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
    min_group_n = doc.gate.min_group_n
    drops = line.drops
    moves = ", ".join(
        f"{doc.label(r.metric)} {r.baseline:.3f} → {r.current:.3f} "
        f"({fmt_signed(r.delta)}, {_noise_word(r, min_group_n)})"
        for r in drops
    )
    tolerances = {r.tolerance for r in drops}
    if len(tolerances) == 1:
        tolerance = f"{tolerances.pop():.3f} tolerance"
        limit = f"would exceed a {tolerance}" if line.would else f"beyond the {tolerance}"
        limit += " (max-regression)"
    else:
        each = ", ".join(f"{doc.label(r.metric)} {r.tolerance:.3f}" for r in drops)
        limit = f"beyond the tolerance of each metric ({each}; max-regression)"
    if line.exempt:
        limit += f", {'would be ' if line.would else ''}{_exemption_phrase(drops[0], doc)}"
    elif not line.would:
        limit += f", {_failing_phrase(drops, doc)}"
    n_cases = len(line.cases)
    behind = f"; {plural(n_cases, 'case')} behind it" if n_cases else ""
    return f"{group_phrase(line.group)}: {moves} — n = {drops[0].n}, {limit}{behind}"


def floor_phrase(item: FloorRecord, doc: ComparisonDocument, *, would: bool) -> str:
    """A missed floor (or, report-only, a suggested floor this run would miss)."""
    observed = "nothing scored" if item.observed is None else f"{item.observed:.3f} (n = {item.n})"
    floor = item.floor if item.floor is not None else 0.0
    label, flag = doc.label(item.metric), floor_flag(item.metric)
    if would:
        return f"{label} {observed} would miss the suggested floor {floor:.2f} ({flag})"
    return f"{label} {observed} is below the floor {floor:.3f} ({flag})"


def floor_setting(item: FloorRecord) -> str:
    """A floor as it is set, the one syntax every surface suggests: ``min-hit: 0.80``,
    a line for the action's ``with:`` (the CLI reads it as ``--min-hit 0.80``, the
    config as ``gate.floors``, which ``recall-gate floors suggest --write`` fills)."""
    return f"{floor_flag(item.metric)}: {item.floor or 0.0:.2f}"


def floors_set(doc: ComparisonDocument) -> list[tuple[str, float]]:
    """The floors that are set, as (metric key, floor), in registry order."""
    floors = doc.gate.floors
    return [(m.key, floors[floor_key(m.key)]) for m in GATED_METRICS if floor_key(m.key) in floors]


def tolerance_phrase(doc: ComparisonDocument) -> str:
    """The set tolerance. Every gated metric has one (one number, perhaps with
    a metric's own beside it): ``the 0.050 tolerance (0.020 for hit@5)``; else
    each metric's, naming the shown metrics that have none. Either way, a
    tolerance that could not be checked (the baseline or this run lacks its
    metric) is named."""
    tolerances = doc.gate.tolerances
    covered = all(m.name in tolerances for m in GATED_METRICS)
    shown = [
        m for m in GATED_METRICS if m.name in doc.metrics or (not covered and m.name in tolerances)
    ]
    notes = []
    if not covered:
        unset = [doc.label(m.key) for m in shown if m.name not in tolerances]
        if unset:
            notes.append(f"{', '.join(unset)} not tolerance-gated")
    if is_comparable(doc):
        gated = [m for m in shown if m.name in tolerances]
        unscored = [doc.label(m.key) for m in gated if doc.metrics.get(m.name) is None]
        unbased = [
            doc.label(m.key)
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
            f"{tolerances[m.name]:.3f} for {doc.label(m.key)}"
            for m in GATED_METRICS
            if tolerances[m.name] != common
        )
        notes = [own, *notes] if own else notes
        return f"the {common:.3f} tolerance" + (f" ({'; '.join(notes)})" if notes else "")
    each = ", ".join(
        f"{doc.label(m.key)} {tolerances[m.name]:.3f}" for m in shown if m.name in tolerances
    )
    return f"the tolerance of each metric ({'; '.join([each, *notes])})"


def short_phrase(short: int, scored: int, k: int, *, past: bool = False) -> str:
    """``3 of 20 scored cases hold fewer than 5 cards``."""
    verb = "held" if past else "holds" if short == 1 else "hold"
    cases = f"scored case{'' if scored == 1 else 's'}"
    return f"{short} of {scored} {cases} {verb} fewer than {k} cards"


def baseline_scored(doc: ComparisonDocument) -> int:
    overall = doc.baseline.overall
    return max((s.n for s in overall.values()), default=0)


def overall_means(doc: ComparisonDocument) -> dict[str, float]:
    overall = next((g for g in doc.run.groups if g.group == "overall"), None)
    return dict(overall.means) if overall is not None else {}


def delta_for(doc: ComparisonDocument, metric: str, group: str = "overall") -> DeltaRecord | None:
    return next((d for d in doc.deltas if d.metric == metric and d.group == group), None)
