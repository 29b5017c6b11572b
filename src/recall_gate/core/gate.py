"""The gate, in one place: its settings and their defaults, absolute floors,
regression tolerances and their exemptions, and the verdict. Report-only by default.

Floors and tolerances are kept by metric key (:class:`Floors`,
:class:`Tolerances`); a metric without one is not gated by it. With neither set the
verdict is ``report-only``: the checks still run so the report can say what
*would* fail (report first: docs/decisions/retrieval-recall.md). Dataset
integrity is not a knob: it always fails.

A drop beyond its metric's tolerance fails only when it is not *exempt*: a group with
fewer than ``min-group-n`` compared cases is too small to gate (``small_n``),
and a drop the report-level noise test does not call likely real is noise
(``not_significant``, unless ``require-significance`` is off): the gated rows,
overall included, are tested together (``p_family``, see
:mod:`recall_gate.core.stats`), so a no-op pull request fails at most 5 % of
the time however many rows are gated. With ``require-significance`` off every
row is held to its tolerance, within noise or not. With an A/A measurement
(``capture --repeat 2``) of a non-deterministic retriever, a drop of any group
that is within what the retriever changed on its own is its own noise
(``own_noise``, a noise test too: off with ``require-significance``). Exempt
drops are kept and reported, with their reason, never silently dropped.

Each setting has one default, defined here (``min-group-n``: the noise tests'
:data:`~recall_gate.core.stats.MIN_GROUP_N`) and imported by the config
loader, the flags and the settings resolver. :func:`judge_comparison` applies
the gate to a :class:`~recall_gate.core.compare.Comparison`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import ClassVar, Literal

from recall_gate.core.compare import Comparison, Group, MetricDelta
from recall_gate.core.gates import (
    DEFAULT_MAX_UNANSWERED_SHARE,
    Outcome,
    Verdict,
    beyond_tolerance,
    floor_rule,
)
from recall_gate.core.gates import decide as decide_verdict
from recall_gate.core.kb_diff import NewCardCoverage, new_card_coverage
from recall_gate.core.metric_registry import METRIC_KEYS
from recall_gate.core.moves import CaseMove
from recall_gate.core.records import Aggregates
from recall_gate.core.self_agreement import SelfAgreement, within_own_noise
from recall_gate.core.stats import MIN_GROUP_N, MIN_MARGIN

__all__ = [
    "MIN_GROUP_N",
    "MIN_MARGIN",
    "REFERENCE_TOLERANCE",
    "REQUIRE_SIGNIFICANCE",
    "ComparisonVerdict",
    "Exemption",
    "FloorCheck",
    "Floors",
    "GateResult",
    "Regression",
    "SuggestedFloor",
    "Tolerances",
    "Verdict",
    "check_floors",
    "decide",
    "exemption",
    "find_regressions",
    "judge_comparison",
    "suggest_floors",
    "wilson_lower_bound",
]

# The defaults of the gate's settings (floors and max-regression: unset).
# require-significance: a drop fails only when the report-level noise test calls it likely real.
REQUIRE_SIGNIFICANCE = True
# Report-only mode says what would fail at this absolute drop (five points).
REFERENCE_TOLERANCE = 0.05

# Why a drop beyond the tolerance does not fail the gate.
Exemption = Literal["small_n", "not_significant", "own_noise"]


@dataclass(frozen=True)
class _ByMetric:
    """A value per gated metric key; a metric without one has none. Keys are
    the registry's gated metrics, kept in its order."""

    values: Mapping[str, float] = field(default_factory=dict)
    _what: ClassVar[str] = "value"

    def __post_init__(self) -> None:
        unknown = sorted(set(self.values) - set(METRIC_KEYS))
        if unknown:
            raise ValueError(f"no {self._what} for {', '.join(unknown)}: not a gated metric")
        # A private copy in registry order: the caller's dict cannot change it later.
        ordered = {key: self.values[key] for key in METRIC_KEYS if key in self.values}
        object.__setattr__(self, "values", MappingProxyType(ordered))

    def __hash__(self) -> int:
        return hash(tuple(self.values.items()))

    def by_metric(self) -> dict[str, float | None]:
        """Every gated metric → its value (``None``: none)."""
        return {key: self.values.get(key) for key in METRIC_KEYS}

    @property
    def active(self) -> bool:
        return bool(self.values)


class Floors(_ByMetric):
    """Absolute floors on the overall means, by metric key (``{HIT: 0.8}``);
    a metric without one has no floor."""

    _what: ClassVar[str] = "floor"


class Tolerances(_ByMetric):
    """The largest tolerated drop of a metric in any group, by metric key
    (``{HIT: 0.02, NDCG: 0.05}``); a metric without one is not tolerance-gated.
    One number for every metric is :meth:`every`."""

    _what: ClassVar[str] = "tolerance"

    @classmethod
    def every(cls, tolerance: float | None) -> Tolerances:
        """One tolerance for every gated metric (``None``: none)."""
        return cls({} if tolerance is None else dict.fromkeys(METRIC_KEYS, tolerance))

    @property
    def uniform(self) -> float | None:
        """The one tolerance when every gated metric has the same, else ``None``."""
        distinct = set(self.by_metric().values())
        if len(distinct) != 1:
            return None
        return distinct.pop()


@dataclass(frozen=True, kw_only=True)
class FloorCheck:
    """One metric's overall mean against its floor (``floor`` None = inactive)."""

    metric: str
    floor: float | None
    observed: float | None
    n: int

    @property
    def failed(self) -> bool:
        """Would fail if enforced: below the floor, or nothing scored at all
        (:func:`~recall_gate.core.gates.floor_rule`)."""
        if self.floor is None:
            return False
        return (
            floor_rule({"floor": self.floor}, {"mean": self.observed, "n": self.n}).outcome
            != "passes"
        )


@dataclass(frozen=True, kw_only=True)
class Regression:
    """A drop of one metric in one group, beyond the tolerance.

    ``exempt`` says why it does not fail the gate (``None``: it fails);
    ``significant`` is the report-level noise test's word on the drop
    (``None``: not tested), ``p_family`` its adjusted one-sided p;
    ``cases`` are the compared cases of the group whose value of the metric
    went down, largest drop first.
    """

    metric: str
    group: str
    baseline: float
    current: float
    n: int
    tolerance: float
    exempt: Exemption | None = None
    significant: bool | None = None
    min_group_n: int = MIN_GROUP_N
    cases: tuple[CaseMove, ...] = ()
    p_family: float | None = None

    @property
    def delta(self) -> float:
        return self.current - self.baseline


@dataclass(frozen=True, kw_only=True)
class GateResult:
    verdict: Verdict
    floor_checks: tuple[FloorCheck, ...]
    # Drops that fail the gate (when a tolerance is set) ...
    regressions: tuple[Regression, ...]
    # ... and drops beyond the tolerance that do not, each with its reason.
    exempt: tuple[Regression, ...] = ()
    # gate.min_new_card_coverage applied to the cards a pull request adds (None: unset,
    # or no KB diff with known cases to apply it to).
    new_cards: NewCardCoverage | None = None

    @property
    def enforced(self) -> bool:
        return self.verdict != "report-only"

    @property
    def failed_floors(self) -> tuple[FloorCheck, ...]:
        return tuple(c for c in self.floor_checks if c.failed)


@dataclass(frozen=True)
class _Judged:
    kind: str
    enforced: bool
    outcome: Outcome


def check_floors(aggregates: Aggregates, floors: Floors) -> tuple[FloorCheck, ...]:
    """Compare overall means to the floors; every metric is listed, set or not."""
    checks = []
    for metric, floor in floors.by_metric().items():
        summary = aggregates.overall.get(metric)
        checks.append(
            FloorCheck(
                metric=metric,
                floor=floor,
                observed=summary.mean if summary else None,
                n=summary.n if summary else 0,
            )
        )
    return tuple(checks)


def decide(
    aggregates: Aggregates,
    *,
    floors: Floors,
    regressions: Sequence[Regression] = (),
    tolerances: Tolerances | None = None,
) -> GateResult:
    """The metric gates' verdict, by :func:`~recall_gate.core.gates.decide`:
    ``fail`` on a missed set floor or a regression beyond its metric's set
    tolerance that is not exempt; ``report-only`` when no knob is set. Exempt
    regressions are kept apart in ``exempt``. The run's verdict adds the other
    gates (traffic, new cards, capture completeness, integrity) and is decided
    from its comparison document (:mod:`recall_gate.core.gate_list`)."""
    checks = check_floors(aggregates, floors)
    tolerated = tolerances is not None and tolerances.active
    failing = tuple(r for r in regressions if r.exempt is None)
    exempt = tuple(r for r in regressions if r.exempt is not None)
    # The metric gates alone, decided by the one verdict function; the run's
    # verdict is decided from every gate of its document (core/gate_list.py).
    gates = [
        _Judged("floor", c.floor is not None, "fails" if c.failed else "passes") for c in checks
    ]
    gates += [_Judged("tolerance", tolerated, "passes")]
    gates += [_Judged("tolerance", tolerated, "fails") for _ in failing]
    verdict = decide_verdict(gates)
    return GateResult(
        verdict=verdict,
        floor_checks=checks,
        regressions=failing,
        exempt=exempt,
    )


@dataclass(frozen=True, kw_only=True)
class SuggestedFloor:
    metric: str
    observed: float
    n: int
    margin: float
    floor: float


def wilson_lower_bound(mean: float, n: int, *, z: float = 2.0) -> float:
    """Lower end of the Wilson score interval of a proportion (z = 2 ≈ 95%).

    Exact in spirit for hit@k (a Bernoulli mean); for recall@k and nDCG@k,
    bounded in [0, 1], p(1 − p) bounds the variance, so it stays conservative.
    Unlike "mean − 2·SE" it does not collapse to the mean when the mean is 1.0.
    """
    if n <= 0:
        return 0.0
    p = min(max(mean, 0.0), 1.0)
    z2 = z * z
    centre = p + z2 / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, (centre - spread) / (1 + z2 / n))


def suggest_floors(
    aggregates: Aggregates, *, min_margin: float = MIN_MARGIN
) -> tuple[SuggestedFloor, ...]:
    """Evidence-based floors: observed − margin,
    rounded down to two decimals, where the margin reaches the Wilson lower
    bound of the observed mean (z = 2) and is at least ``min_margin``."""
    out = []
    for metric in METRIC_KEYS:
        summary = aggregates.overall.get(metric)
        if summary is None or summary.n == 0:
            continue
        margin = max(min_margin, summary.mean - wilson_lower_bound(summary.mean, summary.n))
        floor = max(0.0, math.floor((summary.mean - margin) * 100.0) / 100.0)
        out.append(
            SuggestedFloor(
                metric=metric, observed=summary.mean, n=summary.n, margin=margin, floor=floor
            )
        )
    return tuple(out)


def exemption(
    d: MetricDelta,
    *,
    min_group_n: int,
    require_significance: bool,
    cases: Sequence[CaseMove] = (),
    self_agreement: SelfAgreement | None = None,
) -> Exemption | None:
    """Why a drop beyond the tolerance does not fail the gate (``None``: it fails).

    Every group, overall included, needs the report-level test to call its drop
    likely real (``d.noise.drop_real``), unless ``require_significance`` is off.
    With ``self_agreement`` (A/A), a drop whose ``cases`` (the group's cases that
    went down) are within what the retriever changed on its own is its own
    noise (:func:`~recall_gate.core.self_agreement.within_own_noise`), in any group."""
    if d.n_compared < min_group_n:
        return "small_n"
    if require_significance and d.noise.drop_real is not True:
        return "not_significant"
    if (
        require_significance
        and self_agreement is not None
        and within_own_noise([m.case_id for m in cases], n=d.n_compared, agreement=self_agreement)
    ):
        return "own_noise"
    return None


def _cases_behind(comparison: Comparison, d: MetricDelta) -> tuple[CaseMove, ...]:
    """The group's compared cases whose value of the metric went down, largest drop first."""
    down = [m for m in comparison.moves if m.change(d.metric) < 0 and _in_group(m, d.group)]
    return tuple(sorted(down, key=lambda m: (m.change(d.metric), m.case_id)))


def _in_group(move: CaseMove, group: Group) -> bool:
    if group.kind == "overall":
        return True
    value = move.case_type if group.kind == "case_type" else move.language
    return value == group.name


def find_regressions(
    comparison: Comparison,
    *,
    tolerances: Tolerances,
    require_significance: bool = REQUIRE_SIGNIFICANCE,
    self_agreement: SelfAgreement | None = None,
) -> tuple[Regression, ...]:
    """Every metric × group whose delta is below minus its metric's tolerance
    (a metric without one is skipped; none if not comparable), each naming
    its cases and, when it does not fail the gate,
    why: fewer than ``comparison.min_group_n`` compared cases, (with
    ``require_significance``) a drop the report-level noise test does not call
    likely real, or (with ``self_agreement`` too) a drop within the retriever's
    own noise."""
    if not comparison.comparable:
        return ()
    out = []
    for d in comparison.deltas:
        delta = d.delta
        tolerance = tolerances.values.get(d.metric)
        if d.baseline is None or d.current is None or delta is None or tolerance is None:
            continue
        if beyond_tolerance(delta, tolerance):
            cases = _cases_behind(comparison, d)
            out.append(
                Regression(
                    metric=d.metric,
                    group=d.group.label,
                    baseline=d.baseline,
                    current=d.current,
                    n=d.n_compared,
                    tolerance=tolerance,
                    exempt=exemption(
                        d,
                        min_group_n=comparison.min_group_n,
                        require_significance=require_significance,
                        cases=cases,
                        self_agreement=self_agreement,
                    ),
                    significant=d.noise.drop_real,
                    p_family=d.noise.p_family,
                    min_group_n=comparison.min_group_n,
                    cases=cases,
                )
            )
    return tuple(out)


@dataclass(frozen=True, kw_only=True)
class ComparisonVerdict:
    """The enforced gate, and (report-only) what would fail at reference knobs.

    ``would_fail`` applies :data:`REFERENCE_TOLERANCE` (to every metric) and
    the floors suggested from the baseline (from this run when there is none)
    to the same run.
    """

    gate: GateResult
    floors: Floors
    tolerances: Tolerances
    suggested_floors: tuple[SuggestedFloor, ...]
    reference_tolerance: float
    would_fail: GateResult | None
    require_significance: bool = REQUIRE_SIGNIFICANCE
    # gate.max_unanswered_share: past it, the gates reading the unanswered
    # cases or logged queries could not be judged (core/gates.py).
    max_unanswered_share: float = DEFAULT_MAX_UNANSWERED_SHARE
    # gate.min_reader_language_share (None: unset): judged from the document.
    min_reader_language_share: float | None = None

    @property
    def would_fail_count(self) -> int:
        if self.would_fail is None:
            return 0
        return len(self.would_fail.regressions) + len(self.would_fail.failed_floors)


def _suggested_as_floors(suggested: Sequence[SuggestedFloor]) -> Floors:
    return Floors({s.metric: s.floor for s in suggested})


def judge_comparison(
    comparison: Comparison,
    *,
    floors: Floors,
    tolerances: Tolerances,
    require_significance: bool = REQUIRE_SIGNIFICANCE,
    reference_tolerance: float = REFERENCE_TOLERANCE,
    self_agreement: SelfAgreement | None = None,
    min_new_card_coverage: float | None = None,
    max_unanswered_share: float = DEFAULT_MAX_UNANSWERED_SHARE,
    min_reader_language_share: float | None = None,
) -> ComparisonVerdict:
    """The gate verdict of a comparison (via :func:`decide`).

    Floors apply to the current run's overall means on all its cases; each
    metric's tolerance to the compared cases, with the noise rule of
    :func:`find_regressions` (``self_agreement``: the retriever's A/A noise floor).
    Without a comparable baseline the tolerance has nothing to check: reported,
    not failed. ``min_new_card_coverage`` applies to the cards the pull request
    adds (its KB diff, the judged cases known) and ``max_unanswered_share`` to
    the cases the capture did not answer: both are recorded here and judged,
    with every other gate, from the comparison document
    (:mod:`recall_gate.core.gate_list`), whose verdict is the run's.
    """
    current = comparison.current.aggregates
    regressions = find_regressions(
        comparison,
        tolerances=tolerances,
        require_significance=require_significance,
        self_agreement=self_agreement,
    )
    gate = decide(current, floors=floors, regressions=regressions, tolerances=tolerances)
    kb = comparison.pull_request.kb if comparison.pull_request is not None else None
    if kb is not None and kb.cases_known:
        # Recorded here, judged with every other gate from the document (core/gate_list.py).
        gate = replace(gate, new_cards=new_card_coverage(kb.new_cards, floor=min_new_card_coverage))
    evidence: Aggregates = (
        comparison.baseline.aggregates
        if comparison.baseline is not None and comparison.comparable
        else current
    )
    suggested = suggest_floors(evidence)
    would_fail = None
    if gate.verdict == "report-only":
        reference = Tolerances.every(reference_tolerance)
        would_fail = decide(
            current,
            floors=_suggested_as_floors(suggested),
            regressions=find_regressions(
                comparison,
                tolerances=reference,
                require_significance=require_significance,
                self_agreement=self_agreement,
            ),
            tolerances=reference,
        )
    return ComparisonVerdict(
        gate=gate,
        floors=floors,
        tolerances=tolerances,
        suggested_floors=suggested,
        reference_tolerance=reference_tolerance,
        would_fail=would_fail,
        require_significance=require_significance,
        max_unanswered_share=max_unanswered_share,
        min_reader_language_share=min_reader_language_share,
    )
