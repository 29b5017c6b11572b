"""The comparison JSON (``--comparison-json`` of ``compare``, ``score`` and ``run``):
a typed, versioned document that the Actions step validates before it turns
it into outputs and annotations.

Top-level ``verdict``, ``regressions``, ``n`` and each entry of ``metrics``
(one per gated metric of the registry, by its short name: ``hit``, ``recall``,
``ndcg``) map one-to-one onto the action's outputs; the keys are documented in
docs/guide/baselines.md.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from recall_gate.core.base_judging import PullRequestChanges
from recall_gate.core.card_language import READER_LANGUAGE
from recall_gate.core.compare import BaselineEdit, Comparison, MetricDelta, StaleReason
from recall_gate.core.comparison_records import (
    COMPARISON_KIND,
    COMPARISON_SCHEMA_VERSION,
    BaselineRecord,
    CardChangeRecord,
    CasesRecord,
    CitationRecord,
    ComparisonDocument,
    DeltaRecord,
    EditRecord,
    FlipsRecord,
    FloorRecord,
    GateEntryRecord,
    GateRecord,
    GroupMeansRecord,
    KbChangesRecord,
    KbTurnoverRecord,
    MissedRecord,
    MoveRecord,
    NewCaseRecord,
    PullRequestRecord,
    ReaderLanguageRecord,
    RegressionRecord,
    RegressionStatus,
    RunRecord,
    SettingChangeRecord,
    StaleRecord,
    SummaryRecord,
    WouldFailRecord,
    metric_labels,
)
from recall_gate.core.gate import (
    ComparisonVerdict,
    Exemption,
    FloorCheck,
    Floors,
    Regression,
    Tolerances,
    judge_comparison,
)
from recall_gate.core.gate_calibration import calibration
from recall_gate.core.gate_list import gate_entries
from recall_gate.core.gates import METRIC_GATES, decide
from recall_gate.core.kb_diff import KbChanges, KbTurnover, NewCardCoverage, new_card_coverage
from recall_gate.core.metric_registry import GATED_METRICS, METRIC_KEYS, floor_key, shown_metrics
from recall_gate.core.metrics import HIT
from recall_gate.core.moves import CaseMove, missed_cases
from recall_gate.core.records import Aggregates, CaseResult, MetricSummary, Results
from recall_gate.core.staleness import SettingChange

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_SCHEMA_VERSION",
    "CardChangeRecord",
    "ComparisonDocument",
    "DeltaRecord",
    "FloorRecord",
    "GroupMeansRecord",
    "KbChangesRecord",
    "KbTurnoverRecord",
    "MissedRecord",
    "MoveRecord",
    "RegressionRecord",
    "RunTotals",
    "SettingChangeRecord",
    "StaleRecord",
    "SummaryRecord",
    "baseline_update_document",
    "comparison_document",
    "judged",
    "new_card_check",
    "stale_record",
]

_OUTPUTS = {m.key: m.output for m in GATED_METRICS if m.output is not None}
_OUTCOMES = ("ok", "retrieval_miss", "citation_miss")


@dataclass(frozen=True, kw_only=True)
class RunTotals:
    """The counts of a run whose cases were not all kept (the scorer streams them):
    ``total`` cases, ``scored`` of them carry gold, ``missed`` of those miss (the
    run's ``cases`` are the first of them), and the citation ``outcomes``."""

    total: int
    scored: int
    missed: int
    outcomes: Mapping[str, int]


def _citation(outcomes: Mapping[str, int]) -> CitationRecord | None:
    if not any(outcomes.get(o, 0) for o in _OUTCOMES):
        return None
    return CitationRecord(
        ok=outcomes.get("ok", 0),
        retrieval_miss=outcomes.get("retrieval_miss", 0),
        citation_miss=outcomes.get("citation_miss", 0),
    )


def new_card_check(doc: ComparisonDocument) -> NewCardCoverage | None:
    """``gate.min_new_card_coverage`` applied to the new cards the document's
    own KB changes list, each with the cases citing it (None: not applied)."""
    kb = doc.pull_request.kb if doc.pull_request is not None else None
    if kb is None:
        return None
    new = {c.card_id: c.cases for c in kb.cards if c.kind == "added"}
    return new_card_coverage(new, floor=doc.gate.min_new_card_coverage)


def _outcomes(gates: tuple[GateEntryRecord, ...]) -> list[tuple[str, str, bool, str]]:
    return [(g.kind, g.subject, g.enforced, g.outcome) for g in gates]


def judged(doc: ComparisonDocument) -> tuple[ComparisonDocument, bool]:
    """The document with its ``gates``, ``verdict`` and ``regressions``
    recomputed from its own figures, and whether its fields said otherwise.

    A comparison file is data a pull request could have edited: its
    ``verdict``, ``regressions`` and ``gates`` are never trusted. Every gate of
    :data:`~recall_gate.core.gate_list.GATES` is judged again by its rule from
    the figures the document records (the overall means, every delta row, the
    query-log diff, the KB changes, the run's unanswered cases), and the
    verdict decided by :func:`~recall_gate.core.gates.decide` — the same list
    and functions that judged the run. ``regressions`` counts the enforced
    tolerance gates that fail; ``would_fail`` the floors and tolerances that,
    unset, would fail at the suggested floors and the reference tolerance."""
    gates = gate_entries(doc)
    verdict = decide(gates)
    regressions = sum(
        1 for g in gates if g.kind == "tolerance" and g.enforced and g.outcome == "fails"
    )
    would_fail = sum(
        1 for g in gates if g.kind in METRIC_GATES and not g.enforced and g.outcome != "passes"
    )
    edited = (verdict, regressions) != (doc.verdict, doc.regressions) or (
        bool(doc.gates) and _outcomes(gates) != _outcomes(doc.gates)
    )
    update = {
        "verdict": verdict,
        "regressions": regressions,
        "would_fail": would_fail,
        "gates": gates,
    }
    return doc.model_copy(update=update), edited


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
        retrieved_detail=dict(move.retrieved_detail) if move.retrieved_detail else None,
    )


def _summaries(means: Mapping[str, MetricSummary]) -> dict[str, SummaryRecord]:
    return {m: SummaryRecord(mean=s.mean, n=s.n) for m, s in means.items() if m in METRIC_KEYS}


def reader_language_records(results: Results) -> tuple[ReaderLanguageRecord, ...]:
    """Per case language, answered in the reader's language (core/card_language.py):
    read from the results' aggregates column and counts; empty for a run whose KB
    holds each id in one language."""
    records = []
    for language, means in results.aggregates.by_language.items():
        share = means.get(READER_LANGUAGE)
        if share is None:
            continue
        scored = means[HIT].n if HIT in means else share.n
        records.append(
            ReaderLanguageRecord(
                language=language,
                scored=scored,
                found=share.n,
                in_language=round(share.mean * share.n),
                share=share.mean,
                from_other_language=results.answered_from_other_language.get(language, 0),
            )
        )
    return tuple(records)


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
        ci_low=None,
        ci_high=None,
        small_n=d.noise.small_n,
        significant=d.noise.significant,
        lost=d.noise.lost,
        gained=d.noise.gained,
        p_drop=d.noise.p_drop,
        p_family=d.noise.p_family,
        method=d.noise.method,
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
    "own_noise": "exempt_own_noise",
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
        p_family=r.p_family,
    )


def _floor(c: FloorCheck) -> FloorRecord:
    return FloorRecord(metric=c.metric, floor=c.floor, observed=c.observed, n=c.n)


def baseline_update_document(comparison: Comparison) -> ComparisonDocument:
    """A baseline update (the new baseline as this run, the previous one as the
    baseline) as the document its PR body is rendered from: nothing is gated."""
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    return comparison_document(comparison, verdict, profile="default")


def comparison_document(
    comparison: Comparison,
    verdict: ComparisonVerdict,
    *,
    profile: str,
    totals: RunTotals | None = None,
) -> ComparisonDocument:
    """The comparison and its verdict as the typed document, its gates judged
    from its own figures (:func:`judged`). ``totals``: the counts of a run
    whose ``cases`` are only its first missed ones."""
    current = comparison.current
    overall = current.aggregates.overall
    if totals is None:
        outcomes: Counter[str] = Counter(
            c.citation_outcome for c in current.cases if c.citation_outcome
        )
        totals = RunTotals(
            total=len(current.cases),
            scored=sum(1 for c in current.cases if c.metrics),
            missed=len(missed_cases(current.cases)),
            outcomes=outcomes,
        )
    scored = totals.scored
    missed = missed_cases(current.cases)
    baseline = comparison.baseline
    gate = verdict.gate
    would = verdict.would_fail
    # The default metrics always; mrr, precision when the run or the comparison carries them.
    shown = shown_metrics(overall, (d.metric for d in comparison.deltas))
    outputs = {key: name for key, name in _OUTPUTS.items() if key in shown}
    means = {name: (overall[key].mean if key in overall else None) for key, name in outputs.items()}
    doc = ComparisonDocument(
        kind=COMPARISON_KIND,
        schema_version=COMPARISON_SCHEMA_VERSION,
        profile=profile,
        k=comparison.k,
        verdict=gate.verdict,
        regressions=len(gate.regressions),
        would_fail=verdict.would_fail_count,
        n=overall[HIT].n if HIT in overall else 0,
        n_cases=totals.total,
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
            reader_language=reader_language_records(baseline) if baseline else (),
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
            min_new_card_coverage=gate.new_cards.floor if gate.new_cards else None,
            max_unanswered_share=verdict.max_unanswered_share,
            min_reader_language_share=verdict.min_reader_language_share,
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
                retrieved_detail=c.retrieved_detail,
            )
            for c in missed
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
            unscored=totals.total - scored,
            short_of_k=current.cases_short_of_k,
            gold_checked=current.provenance.kb_fingerprint is not None,
            edited_queries=_edited_queries(comparison),
            groups=_group_means(current.aggregates),
            failed_cases=current.failed_cases,
            latency=current.latency,
            outside_kb=current.outside_kb,
            kb_coverage=current.kb_coverage,
            kb_retrieved=current.kb_retrieved,
            reader_language=reader_language_records(current),
            unwinnable=current.unwinnable,
            citation=_citation(totals.outcomes),
            missed_total=totals.missed if totals.missed != len(missed) else None,
        ),
        labels=metric_labels(comparison.k),
        calibration=calibration(
            comparison,
            tolerances=verdict.tolerances.values,
            require_significance=verdict.require_significance,
        ),
    )
    # The verdict is the gate list's, decided from the document's own figures.
    return judged(doc)[0]
