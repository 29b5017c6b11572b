"""The top of the report (pure): the verdict line, the headline figures with
the baseline they are compared with, and what failed or would fail."""

from __future__ import annotations

from collections.abc import Callable

from recall_gate.core.comparison_json import ComparisonDocument, new_card_check
from recall_gate.core.comparison_records import GateEntryRecord
from recall_gate.core.gates import METRIC_GATES
from recall_gate.core.metric_registry import shown_metrics
from recall_gate.report import phrases
from recall_gate.report.kb_changes import new_card_coverage_phrase
from recall_gate.report.style import Style, fmt_mean, fmt_signed
from recall_gate.report.traffic import traffic_failure_phrase

__all__ = [
    "checks_block",
    "gate_failure_phrase",
    "gate_failures",
    "verdict_block",
    "verdict_summary",
]


def verdict_summary(doc: ComparisonDocument) -> str:
    gate = doc.gate
    reasons = []
    exempt = len(gate.exempt)
    why = "too few cases or not likely real"
    if any(r.status == "exempt_own_noise" for r in gate.exempt):
        why += " or the retriever's own noise (A/A)"
    exempt_note = f" ({exempt} beyond it exempt: {why})" if exempt else ""
    comparable = phrases.is_comparable(doc)
    if doc.verdict == "fail":
        if gate.regressions:
            n = len(gate.regressions)
            reasons.append(
                f"{n} drop{'s' if n != 1 else ''} beyond {phrases.tolerance_phrase(doc)}"
                + exempt_note
            )
        if gate.failed_floors:
            n = len(gate.failed_floors)
            reasons.append(f"{n} floor{'s' if n != 1 else ''} missed")
        reasons += gate_failures(doc)
        if not reasons:  # a failing gate the document's own lists do not name
            reasons = [f"{g.kind} {g.subject}: {g.reason}" for g in _failing(doc)]
        return "Failed: " + "; ".join(reasons) + "."
    if doc.verdict == "pass":
        if gate.tolerances:
            reasons.append(
                f"no drop beyond {phrases.tolerance_phrase(doc)}"
                + (f" fails the gate{exempt_note}" if exempt else "")
                if comparable
                else "the tolerance was not checked (no comparable baseline)"
            )
        set_floors = phrases.floors_set(doc)
        if set_floors:
            reasons.append(
                "floors met ("
                + ", ".join(f"{doc.label(m)} ≥ {floor:.3f}" for m, floor in set_floors)
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


def _failing(doc: ComparisonDocument) -> list[GateEntryRecord]:
    return [g for g in doc.gates if g.enforced and g.outcome != "passes"]


def _share(value: float | int | bool | None) -> str:
    return f"{float(value or 0.0) * 100:.1f} %"


def gate_failure_phrase(
    gate: GateEntryRecord,
    doc: ComparisonDocument,
    name: Callable[[str], str] = str,
    limit: int | None = None,
) -> str:
    """Why one enforced gate besides the floors and tolerances did not pass: its
    own phrase where it failed, the gate list's reason where it could not be
    judged (``max_moved_share 20.0 % could not be judged: 30 of 30 logged
    queries not answered …``)."""
    if gate.kind == "traffic":
        if gate.outcome == "fails" and doc.traffic is not None:
            return traffic_failure_phrase(doc.traffic)
        return f"max_moved_share {_share(gate.setting.get('max_moved_share'))} {gate.reason}"
    if gate.kind == "new_cards":
        check = new_card_check(doc)
        if gate.outcome == "fails" and check is not None:
            return new_card_coverage_phrase(check, name, limit)
        return f"min_new_card_coverage {gate.setting.get('min_new_card_coverage')} {gate.reason}"
    if gate.kind == "capture":
        return f"the floors and tolerances {gate.reason}"
    return gate.reason


def gate_failures(
    doc: ComparisonDocument, name: Callable[[str], str] = str, limit: int | None = None
) -> list[str]:
    """:func:`gate_failure_phrase` of each enforced gate that did not pass, but
    the floors and tolerances (their lines say them, with their cases)."""
    return [
        gate_failure_phrase(g, doc, name, limit)
        for g in _failing(doc)
        if g.kind not in METRIC_GATES
    ]


def verdict_block(doc: ComparisonDocument, style: Style) -> str:
    word = doc.verdict
    if style.md:
        icon = {"fail": "❌", "pass": "✅", "report-only": "📊"}[word]
        heading = f"### {icon} recall-gate {style.literal(doc.profile)}: {style.bold(word)}"
    else:
        heading = f"recall-gate {doc.profile}: {word.upper()}"
    return "\n\n".join([heading, verdict_summary(doc), _headline(doc, style)])


def _headline(doc: ComparisonDocument, style: Style) -> str:
    k = doc.k
    means = phrases.overall_means(doc)
    if not means:
        return f"No case carries gold: nothing is scored ({doc.n_cases} cases)."
    same_set = phrases.is_comparable(doc) and not phrases.cases_changed(doc)
    star = phrases.short_star(doc, style)
    parts = []
    for metric in shown_metrics(means):
        text = f"{doc.label(metric)}{star} {style.bold(fmt_mean(means.get(metric)))}"
        delta = phrases.delta_for(doc, metric)
        if same_set and delta is not None and delta.delta is not None:
            text += f" ({fmt_signed(delta.delta)})"
        parts.append(text)
    line = " · ".join(parts) + f" · n = {doc.run.scored}"
    # A number on shorter lists than k is said where it stands, not only in a note.
    if doc.run.short_of_k:
        line += f" ({phrases.short_phrase(doc.run.short_of_k, doc.run.scored, k)}{star})"
    if doc.baseline.status != "missing":
        ref = doc.baseline.ref
        at = f" at {style.literal(ref)}" if ref else ""
        made = phrases.baseline_made(doc, style)
        line += f"\n\nBaseline: {style.literal(doc.baseline.path)}{at} ({made})."
        if phrases.is_comparable(doc) and doc.baseline.short_of_k:
            scored = phrases.baseline_scored(doc)
            line += (
                " In the baseline, "
                f"{phrases.short_phrase(doc.baseline.short_of_k, scored, k, past=True)}"
                f"{star}."
            )
    return line


def _one_per_group(
    lines: list[phrases.DropLine], doc: ComparisonDocument, style: Style
) -> list[str]:
    """The drop lines of one list, a group (a language) named once: a group whose
    drops fail and are exempt is one bullet, its failing drops first, marked as
    failing."""
    by_group: dict[str, list[phrases.DropLine]] = {}
    for line in lines:
        by_group.setdefault(line.group, []).append(line)
    out = []
    for group, same in by_group.items():
        prefix = phrases.group_phrase(group) + ": "
        texts = [phrases.drop_phrase(d, doc).removeprefix(prefix) for d in same]
        out.append(f"{same[0].mark(style)} {prefix}" + "; and ".join(texts))
    return out


def checks_block(doc: ComparisonDocument, style: Style) -> str | None:
    """What failed (❌), or in report-only mode what would fail if enforced (⚠️)."""
    fail, would = style.mark("fail").strip(), style.mark("would").strip()
    lines_ = phrases.drop_lines(doc)
    lines = _one_per_group([d for d in lines_ if not d.would], doc, style)
    lines += [f"{fail} {phrases.floor_phrase(c, doc, would=False)}" for c in doc.gate.failed_floors]
    lines += [f"{fail} {text}" for text in gate_failures(doc, style.literal, style.limit)]
    if doc.verdict == "report-only":
        lines += _one_per_group([d for d in lines_ if d.would], doc, style)
        lines += [
            f"{would} {phrases.floor_phrase(c, doc, would=True)}"
            for c in doc.would_fail_detail.failed_floors
        ]
    return "\n".join(f"- {line}" for line in lines) if lines else None
