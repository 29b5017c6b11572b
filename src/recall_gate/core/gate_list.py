"""The list of gates a comparison is judged by, read from its document (pure).

:data:`GATES` holds one :class:`GateSpec` per kind of gate: its rule (in
:mod:`recall_gate.core.gates`) and the function that reads, from the
comparison document, each subject it applies to with its settings and
observed figures. :func:`gate_entries` applies every rule and
:func:`~recall_gate.core.gates.decide` the verdict; the command that judges a
run and ``actions-report`` (which re-reads the written document: untrusted
data) both go through them, so the verdict is decided once, from the figures
the document records and never from its ``verdict``, ``regressions`` or
``gates`` fields.

Adding a gate is one entry: write its rule in :mod:`recall_gate.core.gates`
(``(setting, observed) -> Judgement``), put the figures it reads in the
document, and add ``GateSpec(kind, rule, subjects)`` to :data:`GATES`, where
``subjects(doc)`` yields a :class:`Subject` per thing it judges (enforced when
the team configured it). For example, a gate on the share of cases answered in
the reader's language would read its per-language shares from the document's
coverage figures and its setting from ``doc.gate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, fields

from recall_gate.core.compare import OVERALL, Group, MetricDelta, Noise
from recall_gate.core.comparison_records import (
    ComparisonDocument,
    DeltaRecord,
    GateEntryRecord,
    RegressionRecord,
)
from recall_gate.core.gate import exemption
from recall_gate.core.gates import (
    DEFAULT_MAX_UNANSWERED_SHARE,
    Figures,
    Judgement,
    beyond_tolerance,
    capture_rule,
    floor_rule,
    integrity_rule,
    new_cards_rule,
    reader_language_rule,
    tolerance_rule,
    traffic_rule,
)
from recall_gate.core.metric_registry import GATED_METRICS, floor_key
from recall_gate.core.moves import CaseMove
from recall_gate.core.traffic_diff import OVERALL as TRAFFIC_OVERALL

__all__ = ["GATES", "GateSpec", "Subject", "gate_entries", "max_unanswered_share"]


@dataclass(frozen=True, kw_only=True)
class Subject:
    """One thing a gate judges, as the document records it."""

    subject: str
    enforced: bool
    setting: dict[str, float | int | bool | None]
    observed: dict[str, float | int | bool | str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class GateSpec:
    kind: str
    rule: Callable[[Figures, Figures], Judgement]
    subjects: Callable[[ComparisonDocument], Iterator[Subject]]


def max_unanswered_share(doc: ComparisonDocument) -> float:
    share = doc.gate.max_unanswered_share
    return DEFAULT_MAX_UNANSWERED_SHARE if share is None else share


def _metric_gates_set(doc: ComparisonDocument) -> bool:
    return bool(doc.gate.floors or doc.gate.tolerances)


def _integrity(doc: ComparisonDocument) -> Iterator[Subject]:
    # An integrity error stops the command before a comparison is written: a
    # document records none, and its gold was checked when it had a KB.
    yield Subject(
        subject="dataset",
        enforced=True,
        setting={},
        observed={"errors": 0, "gold_checked": doc.run.gold_checked},
    )


def _capture(doc: ComparisonDocument) -> Iterator[Subject]:
    unanswered = set(doc.run.failed_cases)
    if doc.pull_request is not None:
        unanswered |= set(doc.pull_request.not_captured)
    yield Subject(
        subject="cases",
        # It guards the metric gates: enforced with them.
        enforced=_metric_gates_set(doc),
        setting={"max_unanswered_share": max_unanswered_share(doc)},
        observed={"cases": doc.n_cases, "unanswered": len(unanswered)},
    )


def _floors(doc: ComparisonDocument) -> Iterator[Subject]:
    """Each gated metric's overall mean against its floor; an unset floor is
    judged, unenforced, at the floor suggested from the evidence."""
    listed = {c.metric for c in doc.gate.failed_floors}
    n = doc.run.scored
    for spec in GATED_METRICS:
        floor = doc.gate.floors.get(spec.name)
        enforced = floor is not None
        if floor is None:
            floor = doc.suggested_floors.get(spec.name)
            if floor is None or _metric_gates_set(doc):
                continue
        yield Subject(
            subject=spec.name,
            enforced=enforced,
            setting={"floor": floor},
            observed={
                "mean": doc.metrics.get(spec.name),
                "n": n,
                "listed_missed": enforced and spec.key in listed,
            },
        )


def _group(label: str) -> Group:
    if label == OVERALL.label:
        return OVERALL
    kind, _, name = label.partition(":")
    if kind == "language":
        return Group(kind="language", name=name)
    return Group(kind="case_type", name=name)


def _metric_delta(d: DeltaRecord) -> MetricDelta:
    """A recorded delta row as the noise rule reads it: its noise figures are
    the document's own (every :class:`Noise` field the record carries)."""
    noise = Noise(
        **{f.name: getattr(d, f.name) for f in fields(Noise) if f.name in DeltaRecord.model_fields}
    )
    return MetricDelta(
        metric=d.metric,
        group=_group(d.group),
        baseline=d.baseline,
        current=d.current,
        n_compared=d.n,
        n_baseline=d.n,
        n_current=d.n,
        n_total=d.n_total,
        noise=noise,
    )


def _cases(record: RegressionRecord | None) -> tuple[CaseMove, ...]:
    """The ids of a recorded drop's cases, as the own-noise rule reads them."""
    if record is None:
        return ()
    return tuple(
        CaseMove(
            case_id=m.case_id,
            language=m.language,
            case_type=m.case_type,
            query=m.query,
            direction=m.direction,
            card=m.card,
            rank_before=m.rank_before,
            rank_after=m.rank_after,
            before={},
            after={},
        )
        for m in record.cases
    )


def _drop_figures(
    doc: ComparisonDocument, d: DeltaRecord, tolerance: float, record: RegressionRecord | None
) -> dict[str, float | int | bool | str | None]:
    figures: dict[str, float | int | bool | str | None] = {
        "baseline": d.baseline,
        "current": d.current,
        "delta": d.delta,
        "n": d.n,
        "significant": d.significant,
        "p_value": d.p_value,
        "p_family": d.p_family,
        "ci_low": d.ci_low,
        "ci_high": d.ci_high,
    }
    if d.delta is not None and beyond_tolerance(d.delta, tolerance):
        figures["exempt"] = exemption(
            _metric_delta(d),
            min_group_n=doc.gate.min_group_n,
            require_significance=doc.gate.require_significance,
            cases=_cases(record),
            self_agreement=doc.self_agreement,
        )
    return figures


def _tolerances(doc: ComparisonDocument) -> Iterator[Subject]:
    """Each metric × group drop against its metric's tolerance (an unset one is
    judged, unenforced, at the report's reference tolerance). A drop the
    document lists but no delta row bears is judged from its own figures."""
    gate = doc.gate
    reference = doc.would_fail_detail.tolerance
    comparable = doc.baseline.status in ("ok", "stale")

    def setting(tolerance: float) -> dict[str, float | int | bool | None]:
        return {
            "max_regression": tolerance,
            "min_group_n": gate.min_group_n,
            "require_significance": gate.require_significance,
        }

    if not comparable:
        for name, tolerance in gate.tolerances.items():
            yield Subject(
                subject=name,
                enforced=True,
                setting=setting(tolerance),
                observed={"comparable": False, "baseline": doc.baseline.status},
            )
        return
    listed = {(r.metric, r.group): r for r in (*gate.regressions, *gate.exempt)}
    would = {
        (r.metric, r.group): r
        for r in (*doc.would_fail_detail.regressions, *doc.would_fail_detail.exempt)
    }
    seen: set[tuple[str, str]] = set()
    for d in doc.deltas:
        try:
            name = floor_key(d.metric)
        except (KeyError, ValueError):
            continue
        if d.delta is None:
            continue
        own = gate.tolerances.get(name)
        enforced = own is not None
        if own is None and _metric_gates_set(doc):
            continue
        tolerance = reference if own is None else own
        key = (d.metric, d.group)
        seen.add(key)
        record = listed.get(key) if enforced else would.get(key)
        yield Subject(
            subject=f"{name} · {d.group}",
            enforced=enforced,
            setting=setting(tolerance),
            observed=_drop_figures(doc, d, tolerance, record),
        )
    # A tolerance with no delta row to apply to (the baseline or this run lacks its
    # metric) is set, and said: not checked, reported, not failed.
    checked = {floor_key(metric) for metric, _ in seen}
    for name, tolerance in gate.tolerances.items():
        if name not in checked:
            yield Subject(
                subject=name,
                enforced=True,
                setting=setting(tolerance),
                observed={"delta": None},
            )
    for key, r in listed.items():
        name = floor_key(r.metric)
        listed_tolerance = gate.tolerances.get(name)
        if key in seen or listed_tolerance is None:
            continue
        row = DeltaRecord(
            metric=r.metric, group=r.group, baseline=r.baseline, current=r.current,
            delta=r.delta, n=r.n, n_total=r.n, p_value=None, ci_low=None, ci_high=None,
            small_n=False, significant=r.significant, lost=0, gained=0,
        )  # fmt: skip
        yield Subject(
            subject=f"{name} · {r.group}",
            enforced=True,
            setting=setting(listed_tolerance),
            observed=_drop_figures(doc, row, listed_tolerance, r),
        )


def _traffic(doc: ComparisonDocument) -> Iterator[Subject]:
    share = max_unanswered_share(doc)
    missing = doc.traffic_unanswered
    if missing is not None and missing.max_moved_share is not None:
        yield Subject(
            subject="logged queries",
            enforced=True,
            setting={"max_moved_share": missing.max_moved_share, "max_unanswered_share": share},
            observed={"answered": False},
        )
    traffic = doc.traffic
    if traffic is None or traffic.max_moved_share is None:
        return
    overall = traffic.groups.get(TRAFFIC_OVERALL)
    yield Subject(
        subject="logged queries",
        enforced=True,
        setting={"max_moved_share": traffic.max_moved_share, "max_unanswered_share": share},
        observed={
            "moved": overall.weighted.moved if overall is not None else None,
            "compared": overall.n if overall is not None else 0,
            "not_captured": traffic.not_captured,
            "not_captured_weight": traffic.not_captured_weight,
            "compared_weight": overall.weight if overall is not None else None,
            "not_in_base": traffic.not_in_base,
            "k": traffic.k,
            "k_asked": traffic.k_asked,
        },
    )


def _new_cards(doc: ComparisonDocument) -> Iterator[Subject]:
    floor = doc.gate.min_new_card_coverage
    if floor is None:
        return
    kb = doc.pull_request.kb if doc.pull_request is not None else None
    if kb is None:
        yield Subject(
            subject="new cards",
            enforced=True,
            setting={"min_new_card_coverage": floor},
            observed={"kb_read": False},
        )
        return
    added = [c for c in kb.cards if c.kind == "added"]
    yield Subject(
        subject="new cards",
        enforced=True,
        setting={"min_new_card_coverage": floor},
        observed={"cards": len(added), "cited": sum(1 for c in added if c.cases)},
    )


def _reader_language(doc: ComparisonDocument) -> Iterator[Subject]:
    """Each case language of a translated KB's run against
    ``min_reader_language_share`` (core/card_language.py), when it is set."""
    floor = doc.gate.min_reader_language_share
    if floor is None:
        return
    setting: dict[str, float | int | bool | None] = {"min_reader_language_share": floor}
    if not doc.run.reader_language:
        yield Subject(
            subject="reader language", enforced=True, setting=setting,
            observed={"translated": False},
        )  # fmt: skip
    for r in doc.run.reader_language:
        yield Subject(
            subject=f"reader language · language:{r.language}",
            enforced=True,
            setting=setting,
            observed={
                "language": r.language,
                "found": r.found,
                "in_language": r.in_language,
                "scored": r.scored,
            },
        )


GATES: tuple[GateSpec, ...] = (
    GateSpec("integrity", integrity_rule, _integrity),
    GateSpec("capture", capture_rule, _capture),
    GateSpec("floor", floor_rule, _floors),
    GateSpec("tolerance", tolerance_rule, _tolerances),
    GateSpec("traffic", traffic_rule, _traffic),
    GateSpec("new_cards", new_cards_rule, _new_cards),
    GateSpec("reader_language", reader_language_rule, _reader_language),
)


def gate_entries(doc: ComparisonDocument) -> tuple[GateEntryRecord, ...]:
    """Every gate of the document, judged by its rule from the document's figures."""
    out = []
    for spec in GATES:
        for s in spec.subjects(doc):
            judgement = spec.rule(s.setting, s.observed)
            out.append(
                GateEntryRecord(
                    kind=spec.kind,
                    subject=s.subject,
                    enforced=s.enforced,
                    setting=s.setting,
                    observed=s.observed,
                    outcome=judgement.outcome,
                    reason=judgement.reason,
                )
            )
    return tuple(out)
