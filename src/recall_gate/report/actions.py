"""What a comparison becomes in GitHub Actions: step outputs and annotations (pure).

Read from the validated comparison document, never from an untyped dict. Every
message is built from the report's own phrase functions
(:mod:`recall_gate.report.phrases` and :mod:`recall_gate.report.stale_banner`,
called through the module): an
annotation cannot word a floor, a drop or a stale baseline differently from
the PR comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from recall_gate.core.annotations import Annotation, AnnotationLevel
from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.core.gates import METRIC_GATES
from recall_gate.core.github_limits import MAX_ANNOTATIONS_PER_LEVEL
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.report import phrases, stale_banner
from recall_gate.report.style import TEXT
from recall_gate.report.verdict_phrases import gate_failure_phrase

__all__ = ["Annotation", "AnnotationLevel", "comparison_annotations", "comparison_outputs"]


_FLOOR_INPUTS: Final = " / ".join(f"{m.floor_flag}" for m in GATED_METRICS)


def _number(value: float | int | str | None) -> str:
    """An output value: a float to 6 decimals (as the results file), else as given."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{round(value, 6):.6g}" if value else "0"
    return str(value)


def comparison_outputs(doc: ComparisonDocument) -> dict[str, str]:
    """The action's outputs from the comparison: one key each, same names; plus the
    profile, which names the sticky comment."""
    return {
        "verdict": doc.verdict,
        **{name: _number(mean) for name, mean in doc.metrics.items()},
        "n": _number(doc.n),
        "regressions": _number(doc.regressions),
        "profile": doc.profile,
    }


# The title of a failed gate's annotation, beside the floors' and the drops'.
_GATE_TITLES: Final = {
    "new_cards": "recall-gate: new cards without a case",
    "traffic": "recall-gate: query traffic moved",
}

# Cases named in one annotation; the job summary lists them all.
_CASES_SHOWN: Final = 5


def _drop_texts(lines: Sequence[phrases.DropLine], doc: ComparisonDocument) -> list[str]:
    """Each group's drops as the report's line says them, then the cases behind
    them; cases already named for an earlier group are not repeated."""
    out = []
    listed: dict[frozenset[str], str] = {}
    for line in lines:
        text = phrases.drop_phrase(line, doc)
        cases = line.cases
        ids = frozenset(c.case_id for c in cases)
        if not cases:
            out.append(text)
        elif ids in listed:
            out.append(f"{text}: the same cases as {listed[ids]}")
        else:
            listed[ids] = phrases.group_phrase(line.group)
            shown = "; ".join(phrases.case_phrase(c, doc.k, TEXT) for c in cases[:_CASES_SHOWN])
            hidden = len(cases) - _CASES_SHOWN
            out.append(text + f": {shown}" + (f"; and {hidden} more" if hidden > 0 else ""))
    return out


_WOULD_FAIL_SHOWN: Final = 3


def _capped(items: Sequence[Annotation]) -> list[Annotation]:
    out: list[Annotation] = []
    for level in ("error", "warning", "notice"):
        same = [a for a in items if a.level == level]
        if len(same) > MAX_ANNOTATIONS_PER_LEVEL:
            rest = len(same) - (MAX_ANNOTATIONS_PER_LEVEL - 1)
            same = [
                *same[: MAX_ANNOTATIONS_PER_LEVEL - 1],
                Annotation(
                    level=same[0].level,
                    title="recall-gate",
                    message=f"… and {rest} more: see the job summary",
                ),
            ]
        out += same
    return out


def comparison_annotations(doc: ComparisonDocument) -> list[Annotation]:
    """Errors for what fails the gate, one per floor and one per failing group;
    notices for exempt groups; one warning with what would fail in report-only
    mode; a warning for a stale baseline, a notice when there is none. Every
    message is the report's own phrase (:mod:`recall_gate.report.phrases`)."""
    out: list[Annotation] = [
        Annotation(
            level="error",
            title="recall-gate: floor",
            message=phrases.floor_phrase(item, doc, would=False),
        )
        for item in doc.gate.failed_floors
    ]
    out += [
        Annotation(
            level="error",
            title=_GATE_TITLES.get(gate.kind, f"recall-gate: {gate.kind.replace('_', ' ')}")
            if gate.outcome == "fails"
            else "recall-gate: gate could not be judged",
            message=gate_failure_phrase(gate, doc, limit=_CASES_SHOWN * 2),
        )
        for gate in doc.gates
        if gate.enforced and gate.outcome != "passes" and gate.kind not in METRIC_GATES
    ]
    enforced = [line for line in phrases.drop_lines(doc) if not line.would]
    out += [
        Annotation(
            level="notice" if line.exempt else "error",
            title="recall-gate: drop beyond the tolerance, exempt"
            if line.exempt
            else "recall-gate: regression",
            message=text,
        )
        for line, text in zip(enforced, _drop_texts(enforced, doc), strict=True)
    ]
    if doc.verdict == "report-only":
        would = [line for line in phrases.drop_lines(doc) if line.would and not line.exempt]
        items = [
            phrases.floor_phrase(i, doc, would=True) for i in doc.would_fail_detail.failed_floors
        ]
        items += _drop_texts(would, doc)
        if items:
            shown = " | ".join(items[:_WOULD_FAIL_SHOWN])
            more = (
                f" | and {len(items) - _WOULD_FAIL_SHOWN} more"
                if len(items) > _WOULD_FAIL_SHOWN
                else ""
            )
            out.append(
                Annotation(
                    level="warning",
                    title="recall-gate (report-only): would fail if enforced",
                    message=f"{len(items)} check(s) would fail at the suggested floors and a "
                    f"{doc.would_fail_detail.tolerance:.2f} tolerance: {shown}{more}. "
                    f"Set {_FLOOR_INPUTS} or max-regression to enforce.",
                )
            )
    baseline = doc.baseline
    if baseline.status == "missing":
        out.append(
            Annotation(
                level="notice",
                title="recall-gate: no baseline yet",
                message=phrases.missing_baseline_phrase(doc, TEXT)
                + " Run the update-baseline workflow (or recall-gate baseline update) "
                "to create it.",
            )
        )
    elif baseline.status == "stale":
        changes = stale_banner.stale_changes(doc, TEXT)
        out.append(
            Annotation(
                level="warning",
                title="recall-gate: baseline stale",
                message=f"{stale_banner.stale_headline(len(changes))} ({baseline.source}): "
                + "; ".join(changes)
                + ". "
                + stale_banner.stale_advice(TEXT),
            )
        )
    elif baseline.status == "not_comparable":
        out.append(
            Annotation(
                level="warning",
                title="recall-gate: baseline not comparable",
                message=phrases.not_comparable_phrase(doc, TEXT),
            )
        )
    return _capped(out)
