"""The records of the comparison document (:mod:`recall_gate.core.comparison_json`
builds it): what the JSON holds, and everything every report surface reads.

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

from recall_gate.core.compare import BaselineStatus
from recall_gate.core.gate import Verdict
from recall_gate.core.gates import Outcome
from recall_gate.core.kb_diff import ChangeKind
from recall_gate.core.label_rot import RottenLabel
from recall_gate.core.metric_registry import GATED_METRICS, METRICS, metric_label
from recall_gate.core.moves import Direction
from recall_gate.core.records import (
    KbCoverageCounts,
    Latency,
    OutsideKb,
    RetrievedDetail,
    Unwinnable,
    without_none,
)
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.traffic_record import TrafficRecord, UnansweredLog

__all__ = [
    "COMPARISON_KIND",
    "COMPARISON_SCHEMA_VERSION",
    "BaselineRecord",
    "CalibrationRecord",
    "CitationRecord",
    "ComparisonDocument",
    "DeltaRecord",
    "FloorRecord",
    "GateEntryRecord",
    "GroupMeansRecord",
    "LabelRotRecord",
    "MissedRecord",
    "MoveRecord",
    "ReaderLanguageRecord",
    "RegressionRecord",
    "RunRecord",
    "SettingChangeRecord",
    "StaleRecord",
    "SummaryRecord",
    "metric_labels",
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
#    Later, optional too: `labels` (metric key → "hit@5", built once here),
#    `run.citation` (the citation outcomes), `run.missed_total` (when only the
#    first missed cases are listed), `baseline.stale[].settings_recorded`,
#    `traffic_unanswered` (a query log the capture holds no answers to),
#    `run.unwinnable`, `gate.min_new_card_coverage`, `label_rot`,
#    `retrieved_detail` of a moved or missed case (chunk ids, metadata summaries),
#    `gates` (every gate judged: kind, subject, settings, figures, outcome, reason;
#    recomputed, never trusted, when the document is read back),
#    `gate.max_unanswered_share`, a delta's `p_drop` / `p_family` / `method` and a
#    regression's `p_family` (the sign-flip and report-level tests), `calibration`.
COMPARISON_SCHEMA_VERSION = 5


RegressionStatus = Literal["failed", "exempt_small_n", "exempt_not_significant", "exempt_own_noise"]


class _Part(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _CameBack(_Part):
    """A case record with "what came back instead": ``retrieved_detail`` is
    written only when there is some, so documents without it keep their bytes."""

    @model_serializer(mode="wrap")
    def _omit_no_detail(self, handler: SerializerFunctionWrapHandler) -> Any:
        return without_none(handler(self), "retrieved_detail")


class MoveRecord(_CameBack):
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
    # What the retriever said of those cards: card id → its chunk id (when it
    # differs from the card id) and a metadata summary; absent when nothing.
    retrieved_detail: dict[str, RetrievedDetail] | None = None


class MissedRecord(_CameBack):
    """A scored case with no gold card in the top k."""

    case_id: str
    language: str
    case_type: str
    query: str | None
    gold: tuple[str, ...]
    retrieved: tuple[str, ...]  # what came back instead: the top k card ids, best first
    retrieved_detail: dict[str, RetrievedDetail] | None = None  # as MoveRecord's


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
    # The report-level test's adjusted one-sided p of this drop (absent: older documents).
    p_family: float | None = None


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


class CitationRecord(_Part):
    """The citation outcomes of the gold-labelled cases whose citations were captured:
    cited a gold card (ok), retrieved none (retrieval miss), retrieved one but cited
    none (citation miss). A retrieval miss no longer hides behind a citation miss."""

    ok: int
    retrieval_miss: int
    citation_miss: int


class ReaderLanguageRecord(_Part):
    """One case language of a run on a KB that holds some id in several languages
    (core/card_language.py): of its ``scored`` cases, the ``found`` whose gold page
    is in the top k in some language, the ``in_language`` of those that found it in
    their reader's language (``share`` = in_language / found; None: none found), and
    the ``from_other_language`` met only by another language's page, where theirs
    has none of that id."""

    language: str
    scored: int
    found: int
    in_language: int
    share: float | None
    from_other_language: int = 0


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
    unwinnable: Unwinnable | None = None  # missed cases with gold at no captured depth
    citation: CitationRecord | None = None  # absent: no case's citations were captured
    # Every missed case, when ``missed`` lists only the first of them (None: all listed).
    missed_total: int | None = None
    # Per case language, answered in the reader's language (a translated KB; else empty).
    reader_language: tuple[ReaderLanguageRecord, ...] = ()


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
    # The baseline's own answered-in-the-reader's-language figures (see RunRecord).
    reader_language: tuple[ReaderLanguageRecord, ...] = ()


class LabelRotRecord(_Part):
    """Label rot (core/label_rot.py): the cases citing a card rewritten since
    their cases file's last commit; ``shallow``: not told, the clone's history
    stops short."""

    shallow: bool = False
    labels: tuple[RottenLabel, ...] = ()


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
    # gate.min_new_card_coverage, when it was applied to the pull request's new
    # cards (``pull_request.kb``); None: unset, or nothing to apply it to.
    min_new_card_coverage: float | None = None
    # Past this share of unanswered cases or logged queries, the gates reading
    # them could not be judged (absent in older documents: the default).
    max_unanswered_share: float | None = None
    # gate.min_reader_language_share: per case language, the least share of the
    # cases that found their gold page that found it in their own language.
    min_reader_language_share: float | None = None


class GateEntryRecord(_Part):
    """One gate of the verdict (core/gates.py): its kind and subject, the settings
    its rule applied, the figures it read, and what it said. ``enforced``: the
    team configured it (or it is no knob, like integrity); an unenforced gate is
    judged at reference settings and counts only as "would fail"."""

    kind: str  # floor, tolerance, traffic, new_cards, integrity, capture, …
    subject: str  # "hit", "hit · language:en", "logged queries", "new cards", "cases"
    enforced: bool
    setting: dict[str, float | int | bool | None]
    observed: dict[str, float | int | bool | str | None]
    outcome: Outcome
    reason: str


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
    p_value: float | None  # two-sided: McNemar (hit@k), the paired sign-flip test (others)
    ci_low: float | None  # always None since the sign-flip test replaced the bootstrap
    ci_high: float | None
    small_n: bool
    significant: bool | None
    # hit@k: the flips behind the McNemar test; other metrics: the cases down and up.
    lost: int
    gained: int
    # One-sided p of a drop, and the report-level test's adjusted one (gated rows only);
    # how the sign-flip p was computed (exact, monte_carlo, normal, none).
    p_drop: float | None = None
    p_family: float | None = None
    method: str | None = None


class CalibrationRecord(_Part):
    """How often this gate fails a no-op pull request, and the smallest drop it
    catches, at this run's n, k and tolerance (core/gate_calibration.py)."""

    cells: int  # the gated rows tested together
    method: str  # how the report-level test drew its null distribution
    # A no-op pull request fails at most this often (None: require-significance off,
    # every drop beyond the tolerance fails, noise or not).
    false_fail: float | None
    critical: float | None  # standardised drop the largest row must exceed (None: no change)
    fewest_lost: int  # hit@k lost hits, none gained, the test calls likely real in a row
    tolerance: float | None  # hit@k's tolerance the drops are also held to
    # group label → the smallest hit@k drop caught 80 % of the time (None: never at this n)
    smallest_drop: dict[str, float | None]


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
    # The config names a query log but the capture holds no answers to it: said why.
    traffic_unanswered: UnansweredLog | None = None
    # capture --repeat N: what the retriever changed between identical runs (A/A).
    self_agreement: SelfAgreement | None = None
    # Labels worth re-auditing (absent: no KB folder and cases files in a git work tree).
    label_rot: LabelRotRecord | None = None
    # Metric key → its label at this k ("hit@5"): every surface reads it from here.
    labels: dict[str, str] = {}
    # The gate's own false-fail rate and the drops it can see (absent: nothing compared).
    calibration: CalibrationRecord | None = None
    # Every gate the verdict was decided from (core/gate_list.py), in order.
    gates: tuple[GateEntryRecord, ...] = ()

    def label(self, metric: str) -> str:
        """A metric's label (``hit@5``) as the document carries it."""
        return self.labels.get(metric) or metric_label(metric, self.k)

    @model_serializer(mode="wrap")
    def _without_absent_parts(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        for part in ("traffic", "traffic_unanswered", "self_agreement", "label_rot", "calibration"):
            if isinstance(data, dict) and data.get(part, ...) is None:
                del data[part]
        return data

    @model_validator(mode="before")
    @classmethod
    def _labelled(cls, data: Any) -> Any:
        """A document written before it carried its labels gets them from its k."""
        if isinstance(data, Mapping) and "labels" not in data and isinstance(data.get("k"), int):
            return {**data, "labels": metric_labels(data["k"])}
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


def metric_labels(k: int) -> dict[str, str]:
    """Every metric's label at ``k``, built once per document."""
    return {m.key: metric_label(m.key, k) for m in METRICS}
