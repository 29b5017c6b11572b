"""The comparison JSON (``--comparison-json`` of ``compare``, ``score`` and ``run``):
a typed, versioned document that the Actions step validates before it turns
it into outputs and annotations.

Top-level ``verdict``, ``regressions``, ``n`` and each entry of ``metrics``
(one per gated metric of the registry, by its short name: ``hit``, ``recall``,
``ndcg``) map one-to-one onto the action's outputs; the keys are documented in
docs/guide/baselines.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)

from recall_gate.core.base_judging import PullRequestChanges
from recall_gate.core.compare import (
    BaselineEdit,
    BaselineStatus,
    Comparison,
    MetricDelta,
    StaleReason,
)
from recall_gate.core.gate import ComparisonVerdict, Exemption, FloorCheck, Regression, Verdict
from recall_gate.core.kb_diff import ChangeKind, KbChanges, KbTurnover
from recall_gate.core.metric_registry import GATED_METRICS, METRIC_KEYS, floor_key, shown_metrics
from recall_gate.core.metrics import HIT
from recall_gate.core.moves import CaseMove, Direction, missed_cases
from recall_gate.core.records import (
    Aggregates,
    CaseResult,
    KbCoverageCounts,
    Latency,
    MetricSummary,
    OutsideKb,
)
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.staleness import SettingChange
from recall_gate.core.traffic_record import TrafficRecord

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_SCHEMA_VERSION",
    "ComparisonDocument",
    "comparison_document",
    "judged",
    "stale_record",
]

COMPARISON_KIND = "recall-gate-comparison"
# 2: rank moves, regression cases and exempt drops are typed lists.
# 3: the overall means (`metrics`) and the floors (`gate.floors`) are keyed by
#    the registry's metric names, so a new metric needs no schema change.
# 4: everything the report says is in the document (it is rendered from it):
#    what came back instead per moved or missed case, flips per noise test,
#    this run's group means and capture notes, the baseline's edit in the PR,
#    suggested floors with their evidence, what the pull request changes of
#    its own gate and cases.
# 5: the tolerance is keyed by metric like the floors (`gate.tolerances`, by
#    metric name, for the metrics that have one) instead of one
#    `gate.max_regression`; a version-4 document still reads (its one
#    tolerance applies to every gated metric). Optional, absent in older
#    documents: a case's `returned_before` / `returned_after` (fewer than k
#    cards), `run.outside_kb`, `baseline.short_of_k`,
#    `pull_request.config_after_merge`.
COMPARISON_SCHEMA_VERSION = 5


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
    retrieved: tuple[str, ...]  # this run's top k card ids, best first
    # The distinct cards a side's ranking held when fewer than k (a short
    # answer: the card was "not retrieved", not "out of the top k"); else None.
    returned_before: int | None = None
    returned_after: int | None = None


class MissedRecord(_Part):
    """A scored case with no gold card in the top k."""

    case_id: str
    language: str
    case_type: str
    query: str | None
    gold: tuple[str, ...]
    retrieved: tuple[str, ...]  # what came back instead: the top k card ids, best first


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
    # False: the baseline recorded no settings (a changed fingerprint without words).
    settings_recorded: bool = True


class SummaryRecord(_Part):
    mean: float
    n: int


class GroupMeansRecord(_Part):
    """This run's means of one group (metric key → mean), with its n."""

    group: str
    n: int
    means: dict[str, float]


class EditRecord(_Part):
    """The pull request adds, changes or deletes the baseline file."""

    action: Literal["added", "changed", "deleted"]
    reason: str | None
    k: int | None
    old_overall: dict[str, SummaryRecord]  # metric key → mean and n; empty when added
    new_overall: dict[str, SummaryRecord]  # empty when deleted


class RunRecord(_Part):
    """This run, as the report describes it."""

    scored: int
    unscored: int
    short_of_k: int
    gold_checked: bool
    edited_queries: int  # common cases whose query text differs from the baseline's
    groups: tuple[GroupMeansRecord, ...]
    failed_cases: tuple[str, ...]  # cases the retriever could not answer (scored as misses)
    latency: Latency | None  # query latency of the capture (report-only)
    # Retrieved documents that map to no KB card, counted with examples (None: none).
    outside_kb: OutsideKb | None = None
    kb_coverage: KbCoverageCounts | None = None  # absent: no KB or no cases to tell
    kb_retrieved: KbCoverageCounts | None = None  # the cards some case's top k holds


class NewCaseRecord(_Part):
    case_id: str
    hit: bool | None  # None: no gold to hit


class CardChangeRecord(_Part):
    """One card a pull request changes, with the judged cases citing it."""

    kind: ChangeKind
    card_id: str
    base_id: str | None
    path: str
    title: str
    language: str
    text: bool  # title or body changed (False: front matter only)
    cases: tuple[str, ...]


class KbChangesRecord(_Part):
    """The KB changes of a pull request: the changed cards, and the cases on
    edited or renamed cards base → pull request (``deltas``, report-only)."""

    cards: tuple[CardChangeRecord, ...]
    on_changed: tuple[str, ...]
    deltas: tuple[DeltaRecord, ...]


class PullRequestRecord(_Part):
    """What a pull request judged at its base revision changes of its own gate and
    cases (see :class:`~recall_gate.core.base_judging.PullRequestChanges`)."""

    ref: str
    config: str | None
    config_at_base: bool
    cases_at_base: bool
    gate: tuple[SettingChangeRecord, ...]
    added: tuple[NewCaseRecord, ...]
    removed: tuple[str, ...]
    relabelled: tuple[str, ...]
    not_captured: tuple[str, ...]
    oracle: str | None = None  # the base's cases, when not from a cases file
    # A nearer config only the pull request has (absent in older documents).
    config_after_merge: str | None = None
    kb: KbChangesRecord | None = None  # absent: the KB diff was not read


class KbTurnoverRecord(_Part):
    """Cards added, deleted, renamed or rewritten since the baseline's commit
    ``ref``, of every card either side had (``reaudit``: above the share at which
    the report calls the labels worth re-auditing)."""

    ref: str
    changed: int
    cards: int
    share: float
    reaudit: bool


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
    edit: EditRecord | None
    overall: dict[str, SummaryRecord]  # the baseline's own means (metric key), all its cases
    latency: Latency | None
    # The baseline's scored cases that held fewer than k distinct cards.
    short_of_k: int = 0
    kb_turnover: KbTurnoverRecord | None = None  # absent: not known where it ran
    kb_retrieved: KbCoverageCounts | None = None  # the baseline's own (its KB's)
    # The baseline's retrieved documents that mapped to no KB card (None: none).
    outside_kb: OutsideKb | None = None


class GateRecord(_Part):
    # Metric name → the largest tolerated drop, for the metrics that have one
    # (one number in the config or the flags gives every gated metric the same).
    tolerances: dict[str, float]
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
    lost: int  # hit@k flips behind the McNemar test (hit rows only; else 0)
    gained: int


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
    schema_version: Literal[5]
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
    suggested_detail: tuple[FloorRecord, ...]  # each with the observed mean and n behind it
    deltas: tuple[DeltaRecord, ...]
    flips: FlipsRecord
    missed: tuple[MissedRecord, ...]
    cases: CasesRecord
    run: RunRecord
    pull_request: PullRequestRecord | None
    # The query log's label-free diff against the base snapshot (docs/query-logs.md);
    # absent from the JSON of a run without a query log.
    traffic: TrafficRecord | None = None
    # capture --repeat N: what the retriever changed between identical runs (A/A).
    self_agreement: SelfAgreement | None = None

    @model_serializer(mode="wrap")
    def _without_absent_parts(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for part in ("traffic", "self_agreement"):
            if isinstance(data, dict) and data.get(part, ...) is None:
                del data[part]
        return data

    @model_validator(mode="before")
    @classmethod
    def _from_version_4(cls, data: Any) -> Any:
        """A version-4 document's one ``gate.max_regression`` applies to every gated metric."""
        if not isinstance(data, Mapping) or data.get("schema_version") != 4:
            return data
        gate = data.get("gate")
        if not isinstance(gate, Mapping) or "tolerances" in gate:
            return data
        gate = dict(gate)
        tolerance = gate.pop("max_regression", None)
        gate["tolerances"] = {} if tolerance is None else {m.name: tolerance for m in GATED_METRICS}
        return {**data, "schema_version": 5, "gate": gate}


_OUTPUTS = {m.key: m.output for m in GATED_METRICS if m.output is not None}


def _exemption_holds(record: RegressionRecord, gate: GateRecord) -> bool:
    """Whether an exempt drop's stated reason is true of its own numbers."""
    if record.status == "exempt_small_n":
        return record.n < gate.min_group_n
    if record.status == "exempt_not_significant":
        return gate.require_significance and record.significant is not True
    return False


def judged(doc: ComparisonDocument) -> tuple[ComparisonDocument, bool]:
    """The document with its ``verdict`` and ``regressions`` recomputed from its
    own checks, and whether the file's fields said otherwise.

    A comparison file is data a pull request could have edited: its top-level
    ``verdict`` is never trusted. It fails when a set floor is missed by the
    overall mean the document records (or its ``gate.failed_floors`` lists
    one), or, with a tolerance set, when a drop is listed in
    ``gate.regressions`` or listed as exempt for a reason its own numbers do
    not bear out. Dataset integrity needs no field: an integrity failure stops
    the command before a comparison is written."""
    gate = doc.gate
    floors_missed = bool(gate.failed_floors) or any(
        (observed := doc.metrics.get(name)) is None or observed < floor
        for name, floor in gate.floors.items()
    )
    failing = len(gate.regressions) + sum(1 for r in gate.exempt if not _exemption_holds(r, gate))
    verdict: Verdict
    if floors_missed or (gate.tolerances and failing):
        verdict = "fail"
    elif gate.floors or gate.tolerances:
        verdict = "pass"
    else:
        verdict = "report-only"
    regressions = failing
    edited = (verdict, regressions) != (doc.verdict, doc.regressions)
    return doc.model_copy(update={"verdict": verdict, "regressions": regressions}), edited


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
        retrieved=move.retrieved,
        returned_before=move.returned_before,
        returned_after=move.returned_after,
    )


def _summaries(means: Mapping[str, MetricSummary]) -> dict[str, SummaryRecord]:
    return {m: SummaryRecord(mean=s.mean, n=s.n) for m, s in means.items() if m in METRIC_KEYS}


def _group_means(aggregates: Aggregates) -> tuple[GroupMeansRecord, ...]:
    groups = [("overall", aggregates.overall)]
    groups += [(f"case_type:{g}", v) for g, v in aggregates.by_case_type.items() if v]
    groups += [(f"language:{g}", v) for g, v in aggregates.by_language.items() if v]
    return tuple(
        GroupMeansRecord(
            group=label,
            n=max((s.n for m, s in means.items() if m in METRIC_KEYS), default=0),
            means={m: s.mean for m, s in means.items() if m in METRIC_KEYS},
        )
        for label, means in groups
    )


def _edit(edit: BaselineEdit | None) -> EditRecord | None:
    if edit is None:
        return None
    new = edit.new
    return EditRecord(
        action="deleted" if new is None else "added" if edit.old is None else "changed",
        reason=(new.reason or None) if new is not None else None,
        k=new.k if new is not None else None,
        old_overall=_summaries(edit.old.aggregates.overall) if edit.old is not None else {},
        new_overall=_summaries(new.aggregates.overall) if new is not None else {},
    )


def _setting_change(c: SettingChange) -> SettingChangeRecord:
    return SettingChangeRecord(
        setting=c.setting, label=c.label, baseline=c.baseline, current=c.current
    )


def stale_record(reason: StaleReason) -> StaleRecord:
    """One stale reason as the document records it (and the renderer reads it)."""
    return StaleRecord(
        what=reason.what,
        baseline=reason.baseline,
        current=reason.current,
        changes=tuple(_setting_change(c) for c in reason.changes),
        settings_recorded=reason.settings_recorded,
    )


def _turnover(turnover: KbTurnover | None) -> KbTurnoverRecord | None:
    if turnover is None:
        return None
    return KbTurnoverRecord(
        ref=turnover.ref,
        changed=turnover.changed,
        cards=turnover.cards,
        share=turnover.share,
        reaudit=turnover.reaudit,
    )


def _delta(d: MetricDelta) -> DeltaRecord:
    return DeltaRecord(
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
        lost=d.noise.lost,
        gained=d.noise.gained,
    )


def _kb_changes(kb: KbChanges | None, deltas: tuple[MetricDelta, ...]) -> KbChangesRecord | None:
    if kb is None:
        return None
    return KbChangesRecord(
        cards=tuple(
            CardChangeRecord(
                kind=c.kind,
                card_id=c.card_id,
                base_id=c.base_id,
                path=c.path,
                title=c.title,
                language=c.language,
                text=c.text,
                cases=kb.citing.get(c.card_id, ()),
            )
            for c in kb.changes
        ),
        on_changed=kb.on_changed,
        deltas=tuple(_delta(d) for d in deltas),
    )


def _pull_request(
    pr: PullRequestChanges | None, kb_deltas: tuple[MetricDelta, ...] = ()
) -> PullRequestRecord | None:
    if pr is None:
        return None
    return PullRequestRecord(
        kb=_kb_changes(pr.kb, kb_deltas),
        ref=pr.ref,
        config=pr.config,
        config_at_base=pr.config_at_base,
        config_after_merge=pr.config_after_merge,
        cases_at_base=pr.cases_at_base,
        gate=tuple(_setting_change(c) for c in pr.gate),
        added=tuple(NewCaseRecord(case_id=c.case_id, hit=c.hit) for c in pr.added),
        removed=pr.removed,
        relabelled=pr.relabelled,
        not_captured=pr.not_captured,
        oracle=pr.oracle,
    )


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


def _top(case: CaseResult, k: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(case.ranked_ids))[:k]


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
    current = comparison.current
    overall = current.aggregates.overall
    scored = sum(1 for c in current.cases if c.metrics)
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
            stale=tuple(stale_record(s) for s in comparison.stale),
            edited_in_pr=comparison.edit is not None,
            edit=_edit(comparison.edit),
            overall=_summaries(baseline.aggregates.overall) if baseline else {},
            latency=baseline.latency if baseline else None,
            short_of_k=baseline.cases_short_of_k if baseline else 0,
            kb_turnover=_turnover(comparison.kb_turnover),
            kb_retrieved=baseline.kb_retrieved if baseline else None,
            outside_kb=baseline.outside_kb if baseline else None,
        ),
        gate=GateRecord(
            tolerances={floor_key(metric): t for metric, t in verdict.tolerances.values.items()},
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
        suggested_detail=tuple(
            FloorRecord(metric=s.metric, floor=s.floor, observed=s.observed, n=s.n)
            for s in verdict.suggested_floors
        ),
        deltas=tuple(_delta(d) for d in comparison.deltas),
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
                retrieved=_top(c, comparison.k),
            )
            for c in missed_cases(comparison.current.cases)
        ),
        cases=CasesRecord(
            compared=comparison.cases.compared,
            added=tuple(comparison.cases.added),
            removed=tuple(comparison.cases.removed),
            relabelled=tuple(comparison.cases.relabelled),
        ),
        pull_request=_pull_request(comparison.pull_request, comparison.kb_deltas),
        run=RunRecord(
            scored=scored,
            unscored=len(current.cases) - scored,
            short_of_k=current.cases_short_of_k,
            gold_checked=current.provenance.kb_fingerprint is not None,
            edited_queries=_edited_queries(comparison),
            groups=_group_means(current.aggregates),
            failed_cases=current.failed_cases,
            latency=current.latency,
            outside_kb=current.outside_kb,
            kb_coverage=current.kb_coverage,
            kb_retrieved=current.kb_retrieved,
        ),
    )
