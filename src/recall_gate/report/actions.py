"""What a comparison becomes in GitHub Actions: step outputs and annotations (pure).

Read from the validated comparison document, never from an untyped dict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from recall_gate.core.annotations import Annotation, AnnotationLevel
from recall_gate.core.comparison_json import (
    CasesRecord,
    ComparisonDocument,
    FloorRecord,
    MoveRecord,
    RegressionRecord,
    StaleRecord,
)
from recall_gate.core.github_limits import MAX_ANNOTATIONS_PER_LEVEL
from recall_gate.core.metric_registry import GATED_METRICS, floor_flag, metric_label
from recall_gate.core.staleness import describe_embedder
from recall_gate.report.markup import shorten_query

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


def _floor_text(item: FloorRecord, k: int) -> str:
    seen = "nothing scored" if item.observed is None else f"{item.observed:.3f}"
    return (
        f"{metric_label(item.metric, k)} is {seen} (n={item.n}), "
        f"below the floor {item.floor or 0:.3f} ({floor_flag(item.metric)})"
    )


# Cases named in one annotation; the job summary lists them all.
_CASES_SHOWN: Final = 5
_EXEMPT_TEXT: Final = {
    "exempt_small_n": "exempt: too few compared cases (min-group-n)",
    "exempt_not_significant": "exempt: not likely real by the noise test (require-significance)",
}


def _rank_text(rank: int | None, k: int, returned: int | None = None) -> str:
    if rank is not None:
        return str(rank)
    return f"out of top {k}" if returned is None else f"not retrieved ({returned} returned)"


def _case_text(case: MoveRecord, k: int) -> str:
    query = shorten_query(case.query)
    said = f" “{query}”" if query else ""
    return (
        f"{case.case_id}{said} ({case.language}, {case.case_type}) "
        f"rank {_rank_text(case.rank_before, k, case.returned_before)} → "
        f"{_rank_text(case.rank_after, k, case.returned_after)}"
    )


def _cases_text(item: RegressionRecord, k: int) -> str:
    if not item.cases:
        return ""
    shown = "; ".join(_case_text(c, k) for c in item.cases[:_CASES_SHOWN])
    hidden = len(item.cases) - _CASES_SHOWN
    more = f"; and {hidden} more" if hidden > 0 else ""
    return f"; cases: {shown}{more}"


def _regression_text(item: RegressionRecord, k: int) -> str:
    exempt = _EXEMPT_TEXT.get(item.status)
    return (
        f"{metric_label(item.metric, k)} ({item.group}): "
        f"{item.baseline:.3f} → {item.current:.3f} "
        f"({item.delta:+.3f}, n={item.n}), beyond the tolerance {item.tolerance:.3f}"
        + (f", {exempt}" if exempt else "")
        + _cases_text(item, k)
    )


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


_STALE_FALLBACK: Final = {
    "kb": "the knowledge base's card texts changed",
    "config": "the retrieval settings changed (not recorded in the baseline)",
    "dataset": "the cases changed",
    "queries": "the cases' queries changed",
}


def _stale_text(reason: StaleRecord, cases: CasesRecord) -> str:
    """One stale reason in words (settings old → new), as the report says it."""
    if reason.changes:
        return "; ".join(
            f"{c.label} {c.baseline or 'unset'} → {c.current or 'unset'}" for c in reason.changes
        )
    if reason.what == "dataset" and (cases.added or cases.removed or cases.relabelled):
        return (
            f"cases: {len(cases.added)} added, {len(cases.removed)} removed, "
            f"{len(cases.relabelled)} relabelled"
        )
    if reason.what in _STALE_FALLBACK:
        return _STALE_FALLBACK[reason.what]
    old, new = reason.baseline, reason.current
    if reason.what == "embedder":
        old, new = describe_embedder(old, new)
    return f"{reason.what.replace('_', ' ')} {old} → {new}"


def comparison_annotations(doc: ComparisonDocument) -> list[Annotation]:
    """Errors for what fails the gate; warnings for what would fail in
    report-only mode and for a stale baseline; a notice when there is none."""
    k = doc.k
    gate = doc.gate
    out: list[Annotation] = []
    out += [
        Annotation(level="error", title="recall-gate: floor", message=_floor_text(item, k))
        for item in gate.failed_floors
    ]
    out += [
        Annotation(
            level="error", title="recall-gate: regression", message=_regression_text(item, k)
        )
        for item in gate.regressions
    ]
    out += [
        Annotation(
            level="notice",
            title="recall-gate: drop beyond the tolerance, exempt",
            message=_regression_text(item, k),
        )
        for item in gate.exempt
    ]
    if doc.verdict == "report-only":
        would = doc.would_fail_detail
        items = [_floor_text(i, k) for i in would.failed_floors]
        items += [_regression_text(i, k) for i in would.regressions]
        if items:
            shown = "; ".join(items[:_WOULD_FAIL_SHOWN])
            more = (
                f"; and {len(items) - _WOULD_FAIL_SHOWN} more"
                if len(items) > _WOULD_FAIL_SHOWN
                else ""
            )
            out.append(
                Annotation(
                    level="warning",
                    title="recall-gate (report-only): would fail if enforced",
                    message=f"{len(items)} check(s) would fail at the suggested floors and a "
                    f"{would.tolerance:.2f} tolerance: {shown}{more}. "
                    f"Set {_FLOOR_INPUTS} or max-regression to enforce.",
                )
            )
    baseline = doc.baseline
    source = baseline.source or "the baseline"
    if baseline.status == "missing":
        out.append(
            Annotation(
                level="notice",
                title="recall-gate: no baseline yet",
                message=f"no baseline at {source}: nothing to compare with; run the "
                "update-baseline workflow (or `recall-gate baseline update`) to create it",
            )
        )
    elif baseline.status in ("stale", "not_comparable"):
        reasons = "; ".join(_stale_text(s, doc.cases) for s in baseline.stale)
        stale = baseline.status == "stale"
        what = "is stale" if stale else "is not comparable (another k)"
        out.append(
            Annotation(
                level="warning",
                title="recall-gate: baseline " + ("stale" if stale else "not comparable"),
                message=f"the baseline {source} {what}: {reasons}; refresh it with the "
                "update-baseline workflow",
            )
        )
    return _capped(out)
