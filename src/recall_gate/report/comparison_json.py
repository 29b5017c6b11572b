"""The comparison JSON (``compare --json``, ``run/score --comparison-json``):
a typed, versioned document that the Actions step validates before it turns
it into outputs and annotations.

Top-level ``verdict``, ``regressions``, ``hit``, ``recall``, ``ndcg`` and ``n``
map one-to-one onto the action's outputs; the keys are documented in the
README.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from recall_gate.core.compare import (
    BaselineStatus,
    Comparison,
    ComparisonVerdict,
    Flip,
)
from recall_gate.core.gate import FloorCheck, Regression, Verdict
from recall_gate.core.metric_registry import GATED_METRICS, floor_key
from recall_gate.core.metrics import HIT

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_SCHEMA_VERSION",
    "ComparisonDocument",
    "comparison_document",
]

COMPARISON_KIND = "recall-gate-comparison"
COMPARISON_SCHEMA_VERSION = 1


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FlipRecord(_Part):
    case_id: str
    language: str
    case_type: str
    card: str
    rank_before: int | None
    rank_after: int | None


class RegressionRecord(_Part):
    metric: str
    group: str
    baseline: float
    current: float
    delta: float
    n: int
    tolerance: float


class FloorRecord(_Part):
    metric: str
    floor: float | None
    observed: float | None
    n: int


class StaleRecord(_Part):
    what: str
    baseline: str
    current: str


class BaselineRecord(_Part):
    status: BaselineStatus
    source: str
    path: str
    ref: str | None
    created_at: str | None
    git_sha: str | None
    reason: str | None
    k: int | None
    stale: tuple[StaleRecord, ...]
    edited_in_pr: bool


class GateRecord(_Part):
    max_regression: float | None
    min_hit: float | None
    min_recall: float | None
    min_ndcg: float | None
    failed_floors: tuple[FloorRecord, ...]
    regressions: tuple[RegressionRecord, ...]


class WouldFailRecord(_Part):
    tolerance: float
    regressions: tuple[RegressionRecord, ...]
    failed_floors: tuple[FloorRecord, ...]


class DeltaRecord(_Part):
    metric: str
    group: str
    baseline: float | None
    current: float | None
    delta: float | None
    n: int
    n_total: int
    p_value: float | None
    ci_low: float | None
    ci_high: float | None
    small_n: bool
    significant: bool | None


class FlipsRecord(_Part):
    hit_to_miss: tuple[FlipRecord, ...]
    miss_to_hit: tuple[FlipRecord, ...]
    rank_moves: int


class CasesRecord(_Part):
    compared: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    relabelled: tuple[str, ...]


class ComparisonDocument(_Part):
    """The whole comparison, as written to disk."""

    kind: Literal["recall-gate-comparison"]
    schema_version: Literal[1]
    profile: str
    k: int
    verdict: Verdict
    regressions: int
    would_fail: int
    n: int
    n_cases: int
    hit: float | None
    recall: float | None
    ndcg: float | None
    delta: dict[str, float | None]
    baseline: BaselineRecord
    gate: GateRecord
    would_fail_detail: WouldFailRecord
    suggested_floors: dict[str, float]
    deltas: tuple[DeltaRecord, ...]
    flips: FlipsRecord
    cases: CasesRecord


def _flip(flip: Flip) -> FlipRecord:
    return FlipRecord(
        case_id=flip.case_id,
        language=flip.language,
        case_type=flip.case_type,
        card=flip.card,
        rank_before=flip.rank_before,
        rank_after=flip.rank_after,
    )


def _regression(r: Regression) -> RegressionRecord:
    return RegressionRecord(
        metric=r.metric,
        group=r.group,
        baseline=r.baseline,
        current=r.current,
        delta=r.delta,
        n=r.n,
        tolerance=r.tolerance,
    )


def _floor(c: FloorCheck) -> FloorRecord:
    return FloorRecord(metric=c.metric, floor=c.floor, observed=c.observed, n=c.n)


def comparison_document(
    comparison: Comparison, verdict: ComparisonVerdict, *, profile: str
) -> ComparisonDocument:
    """The comparison and its verdict as the typed document."""
    overall = comparison.current.aggregates.overall
    baseline = comparison.baseline
    gate = verdict.gate
    would = verdict.would_fail
    outputs = {m.key: m.output for m in GATED_METRICS if m.output is not None}
    means = {name: (overall[key].mean if key in overall else None) for key, name in outputs.items()}
    return ComparisonDocument(
        kind=COMPARISON_KIND,
        schema_version=COMPARISON_SCHEMA_VERSION,
        profile=profile,
        k=comparison.k,
        verdict=gate.verdict,
        regressions=len(gate.regressions),
        would_fail=verdict.would_fail_count,
        n=overall[HIT].n if HIT in overall else 0,
        n_cases=len(comparison.current.cases),
        hit=means["hit"],
        recall=means["recall"],
        ndcg=means["ndcg"],
        delta={
            name: (d.delta if (d := comparison.delta_for(key)) is not None else None)
            for key, name in outputs.items()
        },
        baseline=BaselineRecord(
            status=comparison.status,
            source=comparison.baseline_source,
            path=comparison.baseline_path,
            ref=comparison.baseline_ref,
            created_at=baseline.created_at if baseline else None,
            git_sha=baseline.git_sha if baseline else None,
            reason=baseline.reason if baseline else None,
            k=baseline.k if baseline else None,
            stale=tuple(
                StaleRecord(what=s.what, baseline=s.baseline, current=s.current)
                for s in comparison.stale
            ),
            edited_in_pr=comparison.edit is not None,
        ),
        gate=GateRecord(
            max_regression=verdict.max_regression,
            min_hit=verdict.floors.min_hit,
            min_recall=verdict.floors.min_recall,
            min_ndcg=verdict.floors.min_ndcg,
            failed_floors=tuple(_floor(c) for c in gate.failed_floors),
            regressions=tuple(_regression(r) for r in gate.regressions),
        ),
        would_fail_detail=WouldFailRecord(
            tolerance=verdict.reference_tolerance,
            regressions=tuple(_regression(r) for r in would.regressions) if would else (),
            failed_floors=tuple(_floor(c) for c in would.failed_floors) if would else (),
        ),
        suggested_floors={floor_key(s.metric): s.floor for s in verdict.suggested_floors},
        deltas=tuple(
            DeltaRecord(
                metric=d.metric,
                group=d.group.label,
                baseline=d.baseline,
                current=d.current,
                delta=d.delta,
                n=d.n_compared,
                n_total=d.n_total,
                p_value=d.noise.p_value,
                ci_low=d.noise.ci_low,
                ci_high=d.noise.ci_high,
                small_n=d.noise.small_n,
                significant=d.noise.significant,
            )
            for d in comparison.deltas
        ),
        flips=FlipsRecord(
            hit_to_miss=tuple(_flip(f) for f in comparison.lost),
            miss_to_hit=tuple(_flip(f) for f in comparison.gained),
            rank_moves=comparison.rank_moves,
        ),
        cases=CasesRecord(
            compared=comparison.cases.compared,
            added=tuple(comparison.cases.added),
            removed=tuple(comparison.cases.removed),
            relabelled=tuple(comparison.cases.relabelled),
        ),
    )
