"""The comparison JSON (``--comparison-json`` of ``compare``, ``score`` and ``run``):
a typed, versioned document that the Actions step validates before it turns
it into outputs and annotations.

Top-level ``verdict``, ``regressions``, ``n`` and each entry of ``metrics``
(one per gated metric of the registry, by its short name: ``hit``, ``recall``,
``ndcg``) map one-to-one onto the action's outputs; the keys are documented in
docs/guide/baselines.md.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from recall_gate.core.compare import BaselineStatus, Comparison
from recall_gate.core.gate import ComparisonVerdict, Exemption, FloorCheck, Regression, Verdict
from recall_gate.core.metric_registry import GATED_METRICS, floor_key, shown_metrics
from recall_gate.core.metrics import HIT
from recall_gate.core.moves import CaseMove, Direction, missed_cases

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_SCHEMA_VERSION",
    "ComparisonDocument",
    "comparison_document",
]

COMPARISON_KIND = "recall-gate-comparison"
# 2: rank moves, regression cases and exempt drops are typed lists.
# 3: the overall means (`metrics`) and the floors (`gate.floors`) are keyed by
#    the registry's metric names, so a new metric needs no schema change.
COMPARISON_SCHEMA_VERSION = 3


RegressionStatus = Literal["failed", "exempt_small_n", "exempt_not_significant"]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MoveRecord(_Part):
    """A compared case whose scores changed: a hit flip or a rank move."""

    case_id: str
    language: str
    case_type: str
    query: str | None
    direction: Direction
    card: str
    rank_before: int | None
    rank_after: int | None
    before: dict[str, float]  # output name (hit, recall, ndcg) → value
    after: dict[str, float]
    # Distinct cards returned when fewer than k (a short answer), else absent.
    returned_before: int | None = None
    returned_after: int | None = None


class MissedRecord(_Part):
    """A scored case with no gold card in the top k."""

    case_id: str
    language: str
    case_type: str
    query: str | None
    gold: tuple[str, ...]


class RegressionRecord(_Part):
    metric: str
    group: str
    baseline: float
    current: float
    delta: float
    n: int
    tolerance: float
    status: RegressionStatus
    significant: bool | None
    cases: tuple[MoveRecord, ...]


class FloorRecord(_Part):
    metric: str
    floor: float | None
    observed: float | None
    n: int


class SettingChangeRecord(_Part):
    setting: str
    label: str
    baseline: str | None
    current: str | None


class StaleRecord(_Part):
    what: str
    baseline: str
    current: str
    changes: tuple[SettingChangeRecord, ...]


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
    min_group_n: int
    require_significance: bool
    floors: dict[str, float]  # metric name → floor, for the floors that are set
    failed_floors: tuple[FloorRecord, ...]
    regressions: tuple[RegressionRecord, ...]
    exempt: tuple[RegressionRecord, ...]


class WouldFailRecord(_Part):
    tolerance: float
    regressions: tuple[RegressionRecord, ...]
    exempt: tuple[RegressionRecord, ...]
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
    hit_to_miss: tuple[MoveRecord, ...]
    miss_to_hit: tuple[MoveRecord, ...]
    rank_moves: tuple[MoveRecord, ...]


class CasesRecord(_Part):
    compared: int
    added: tuple[str, ...]
    removed: tuple[str, ...]
    relabelled: tuple[str, ...]


class ComparisonDocument(_Part):
    """The whole comparison, as written to disk."""

    kind: Literal["recall-gate-comparison"]
    schema_version: Literal[3]
    profile: str
    k: int
    verdict: Verdict
    regressions: int
    would_fail: int
    n: int
    n_cases: int
    metrics: dict[str, float | None]  # metric name → overall mean (None: nothing scored)
    delta: dict[str, float | None]
    baseline: BaselineRecord
    gate: GateRecord
    would_fail_detail: WouldFailRecord
    suggested_floors: dict[str, float]
    deltas: tuple[DeltaRecord, ...]
    flips: FlipsRecord
    missed: tuple[MissedRecord, ...]
    cases: CasesRecord


_OUTPUTS = {m.key: m.output for m in GATED_METRICS if m.output is not None}


def _move(move: CaseMove) -> MoveRecord:
    return MoveRecord(
        case_id=move.case_id,
        language=move.language,
        case_type=move.case_type,
        query=move.query,
        direction=move.direction,
        card=move.card,
        rank_before=move.rank_before,
        rank_after=move.rank_after,
        before={_OUTPUTS[m]: v for m, v in move.before.items() if m in _OUTPUTS},
        after={_OUTPUTS[m]: v for m, v in move.after.items() if m in _OUTPUTS},
        returned_before=move.returned_before,
        returned_after=move.returned_after,
    )


_STATUS: dict[Exemption | None, RegressionStatus] = {
    None: "failed",
    "small_n": "exempt_small_n",
    "not_significant": "exempt_not_significant",
}


def _regression(r: Regression) -> RegressionRecord:
    return RegressionRecord(
        metric=r.metric,
        group=r.group,
        baseline=r.baseline,
        current=r.current,
        delta=r.delta,
        n=r.n,
        tolerance=r.tolerance,
        status=_STATUS[r.exempt],
        significant=r.significant,
        cases=tuple(_move(m) for m in r.cases),
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
    # The default metrics always; mrr, precision when the run or the comparison carries them.
    shown = shown_metrics(overall, (d.metric for d in comparison.deltas))
    outputs = {key: name for key, name in _OUTPUTS.items() if key in shown}
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
        metrics=means,
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
                StaleRecord(
                    what=s.what,
                    baseline=s.baseline,
                    current=s.current,
                    changes=tuple(
                        SettingChangeRecord(
                            setting=c.setting, label=c.label, baseline=c.baseline, current=c.current
                        )
                        for c in s.changes
                    ),
                )
                for s in comparison.stale
            ),
            edited_in_pr=comparison.edit is not None,
        ),
        gate=GateRecord(
            max_regression=verdict.max_regression,
            min_group_n=comparison.min_group_n,
            require_significance=verdict.require_significance,
            floors={floor_key(metric): floor for metric, floor in verdict.floors.values.items()},
            failed_floors=tuple(_floor(c) for c in gate.failed_floors),
            regressions=tuple(_regression(r) for r in gate.regressions),
            exempt=tuple(_regression(r) for r in gate.exempt),
        ),
        would_fail_detail=WouldFailRecord(
            tolerance=verdict.reference_tolerance,
            regressions=tuple(_regression(r) for r in would.regressions) if would else (),
            exempt=tuple(_regression(r) for r in would.exempt) if would else (),
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
            hit_to_miss=tuple(_move(f) for f in comparison.lost),
            miss_to_hit=tuple(_move(f) for f in comparison.gained),
            rank_moves=tuple(_move(m) for m in comparison.rank_moves),
        ),
        missed=tuple(
            MissedRecord(
                case_id=c.case_id,
                language=c.language,
                case_type=c.case_type,
                query=c.query,
                gold=tuple(c.must_cite_one_of),
            )
            for c in missed_cases(comparison.current.cases)
        ),
        cases=CasesRecord(
            compared=comparison.cases.compared,
            added=tuple(comparison.cases.added),
            removed=tuple(comparison.cases.removed),
            relabelled=tuple(comparison.cases.relabelled),
        ),
    )
