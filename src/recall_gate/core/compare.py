"""Compare a run with its baseline (pure): deltas, flips, staleness, noise.

Rules, each with a named test:

* **Paired on common cases.** Means on both sides are recomputed from the
  per-case records, restricted to the scored cases present in both runs *with
  the same label* (language, case type, gold, relevant ids). A case whose gold
  changed is "relabelled", not compared: its two scores answer different
  questions. Added, removed and relabelled cases are listed; a group shows
  "n compared of n total" when the sets differ.
* **Groups**: overall, each case type and each language, for every metric of
  the metric triad; a group with no scored case on either side has no row.
* **Flips and rank moves**: a common case whose hit@k went 1 → 0 (lost) or
  0 → 1 (gained), or whose recall@k / nDCG@k moved without a flip, with the
  card shown and its rank before → after (``None`` when outside the top k);
  see :mod:`recall_gate.core.moves`.
* **Noise**: per row, the exact McNemar test on the hit flips and a paired
  sign-flip permutation test on the other metrics (two-sided p shown,
  one-sided p of a drop kept); groups with fewer than ``min_group_n``
  (default :data:`MIN_GROUP_N`) compared cases are marked and not tested.
  The rows the gate may fail on (the ``family``: each gated metric × group
  with the n, the on-changed-cards rows excepted) are tested together too,
  by the report-level step-down max-T sign-flip test
  (:func:`~recall_gate.core.stats.family_drop_p`): a row's ``p_family`` is
  its adjusted one-sided p of a drop, called likely real below
  :data:`~recall_gate.core.stats.FAMILY_LEVEL`, so a no-op pull request fails
  at most that often however many rows are gated. See :mod:`recall_gate.core.stats`.
* **Staleness**: a different dataset, KB or retrieval-config fingerprint (or
  embedder, or retrieval mode) makes the baseline *stale*: deltas are still
  computed (they then measure the change too) and said so loudly. A different
  k makes it *not comparable*: no delta, no flip, no regression.

The gate that judges a comparison (regressions, their exemptions, the
verdict) lives in :mod:`recall_gate.core.gate`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from recall_gate.core.base_judging import PullRequestChanges
from recall_gate.core.baseline import Baseline
from recall_gate.core.kb_diff import KbTurnover
from recall_gate.core.metric_registry import GATED_METRICS, METRIC_KEYS, shown_metrics
from recall_gate.core.moves import CaseMove, find_moves
from recall_gate.core.records import (
    CASE_TYPES,
    FLOAT_DIGITS,
    LANGUAGES,
    CaseResult,
    Provenance,
    Results,
)
from recall_gate.core.staleness import SettingChange, SettingValue, diff_settings
from recall_gate.core.stats import (
    FAMILY_LEVEL,
    MIN_GROUP_N,
    PERMUTATION_SEED,
    SIGNIFICANCE,
    FamilyCell,
    Method,
    family_drop_p,
    mcnemar_drop_p,
    mcnemar_exact_p,
    sign_flip_test,
)

__all__ = [
    "ON_CHANGED_CARDS",
    "OVERALL",
    "BaselineEdit",
    "BaselineStatus",
    "CaseChanges",
    "Comparison",
    "FamilyRecord",
    "Group",
    "MetricDelta",
    "Noise",
    "StaleReason",
    "case_label",
    "compare_to_baseline",
    "ordered_groups",
    "stale_reasons",
]

GroupKind = Literal["overall", "case_type", "language", "kb"]
BaselineStatus = Literal["ok", "stale", "not_comparable", "missing"]


@dataclass(frozen=True, kw_only=True)
class Group:
    """A slice of the cases: all of them, one case type or one language."""

    kind: GroupKind
    name: str

    @property
    def label(self) -> str:
        """Stable machine name: ``overall``, ``case_type:golden``, ``language:en``."""
        return "overall" if self.kind == "overall" else f"{self.kind}:{self.name}"

    def contains(self, case: CaseResult) -> bool:
        if self.kind == "overall":
            return True
        if self.kind == "kb":  # its cases are named by id, not by a field of theirs
            return False
        value = case.case_type if self.kind == "case_type" else case.language
        return value == self.name


OVERALL = Group(kind="overall", name="all")
# The cases citing a card the pull request edits or renames: a row of the KB
# changes section, tested like any group, never gated (report-only).
ON_CHANGED_CARDS = Group(kind="kb", name="cases on changed cards")


@dataclass(frozen=True, kw_only=True)
class Noise:
    """How much a delta can be told from a wobble.

    ``p_value``: the row's own two-sided test (exact McNemar on the hit flips,
    ``lost``/``gained``; the paired sign-flip test on the other metrics, whose
    ``lost``/``gained`` count the cases that went down/up), ``p_drop`` its
    one-sided p of a drop, ``method`` how the sign-flip p was computed.
    ``p_family``: the adjusted one-sided p of a drop when the row is one of the
    gated rows tested together (None: not in that family). ``small_n``: too
    few compared cases, nothing tested.
    """

    small_n: bool
    p_value: float | None = None
    p_drop: float | None = None
    p_family: float | None = None
    method: Method | None = None
    lost: int = 0
    gained: int = 0

    @property
    def significant(self) -> bool | None:
        """``None`` when untested; else whether the row's own test finds a change
        in either direction unlikely under no change (what its row says)."""
        if self.small_n or self.p_value is None:
            return None
        return self.p_value < SIGNIFICANCE

    @property
    def drop_real(self) -> bool | None:
        """Whether the report-level test calls a drop of this row likely real
        (what the gate reads); ``None`` when the row is untested or not gated."""
        if self.small_n or self.p_family is None:
            return None
        return self.p_family < FAMILY_LEVEL


@dataclass(frozen=True, kw_only=True)
class MetricDelta:
    """One metric in one group: means on the compared cases, and the counts."""

    metric: str
    group: Group
    baseline: float | None
    current: float | None
    n_compared: int
    n_baseline: int
    n_current: int
    n_total: int
    noise: Noise

    @property
    def delta(self) -> float | None:
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline


@dataclass(frozen=True, kw_only=True)
class StaleReason:
    """One provenance field that differs between the baseline and this run.

    ``changes`` say what differs in words when both runs recorded their
    settings: for ``config``, each retrieval setting old → new (minus those
    another reason already names: k, embedder, retrieval mode); for ``kb``,
    the card count.
    """

    what: Literal[
        "k", "dataset", "queries", "kb", "config", "embedder", "retrieval_mode", "retriever"
    ]
    baseline: str
    current: str
    changes: tuple[SettingChange, ...] = ()
    # False: the baseline recorded no settings, so a changed fingerprint has no words.
    settings_recorded: bool = True


@dataclass(frozen=True, kw_only=True)
class CaseChanges:
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    relabelled: tuple[str, ...] = ()
    compared: int = 0

    @property
    def changed(self) -> bool:
        return bool(self.added or self.removed or self.relabelled)


@dataclass(frozen=True, kw_only=True)
class BaselineEdit:
    """The pull request changes the baseline file: ``old`` (the base's) → ``new``.

    ``None`` on one side: the PR adds the first baseline, or deletes it.
    """

    old: Baseline | None
    new: Baseline | None


@dataclass(frozen=True, kw_only=True)
class FamilyRecord:
    """The report-level test of the gated rows: how many ``cells`` (metric ×
    group) it tested together, how it drew its null distribution, and the
    ``critical`` standardised drop (−Σd / √Σd²) a row must exceed to be called
    likely real when it is the largest; ``None`` when no row changed."""

    cells: int
    method: Method
    critical: float | None


@dataclass(frozen=True, kw_only=True)
class Comparison:
    """Everything a report needs about this run against its baseline."""

    k: int
    current: Results
    baseline: Baseline | None
    baseline_path: str
    baseline_ref: str | None = None
    stale: tuple[StaleReason, ...] = ()
    deltas: tuple[MetricDelta, ...] = ()
    # hit@k flips (lost / gained), and moves of recall@k / nDCG@k without one.
    flips: tuple[CaseMove, ...] = ()
    rank_moves: tuple[CaseMove, ...] = ()
    cases: CaseChanges = field(default_factory=CaseChanges)
    edit: BaselineEdit | None = None
    # Groups with fewer compared cases are neither tested nor gated.
    min_group_n: int = MIN_GROUP_N
    # Judged at the base revision: what the pull request changes of its own gate.
    pull_request: PullRequestChanges | None = None
    # The cases on the cards the pull request changes (ON_CHANGED_CARDS), report-only.
    kb_deltas: tuple[MetricDelta, ...] = ()
    # How much of the KB changed since the baseline's commit (None: not known here).
    kb_turnover: KbTurnover | None = None
    # The report-level test of the gated rows (None: nothing compared or gated).
    family: FamilyRecord | None = None

    @property
    def baseline_source(self) -> str:
        """Where the baseline was read: ``path``, or ``ref:path`` at a git revision."""
        return (
            f"{self.baseline_ref}:{self.baseline_path}" if self.baseline_ref else self.baseline_path
        )

    @property
    def status(self) -> BaselineStatus:
        if self.baseline is None:
            return "missing"
        if any(s.what == "k" for s in self.stale):
            return "not_comparable"
        return "stale" if self.stale else "ok"

    @property
    def comparable(self) -> bool:
        return self.status in ("ok", "stale")

    @property
    def lost(self) -> tuple[CaseMove, ...]:
        return tuple(f for f in self.flips if f.direction == "lost")

    @property
    def gained(self) -> tuple[CaseMove, ...]:
        return tuple(f for f in self.flips if f.direction == "gained")

    @property
    def moves(self) -> tuple[CaseMove, ...]:
        """Every compared case that moved: flips, then rank moves."""
        return self.flips + self.rank_moves

    def delta_for(self, metric: str, group: Group = OVERALL) -> MetricDelta | None:
        for d in self.deltas:
            if d.metric == metric and d.group == group:
                return d
        return None


def case_label(case: CaseResult) -> tuple[object, ...]:
    """What a case is judged by (groups and gold): another value is a relabelled case."""
    relevant = None if case.relevant_ids is None else frozenset(case.relevant_ids)
    return (case.language, case.case_type, frozenset(case.must_cite_one_of), relevant)


def stale_reasons(current: Results, baseline: Baseline) -> tuple[StaleReason, ...]:
    """Every recorded provenance field (and k) that differs, in words where settings
    say how, each change once: a setting that a reason of its own names (k, the
    embedder, the retrieval mode) is not repeated under ``config``, and the
    built-in runner's retriever params, which mirror its recorded settings, are
    not repeated under ``retriever``."""
    out = []
    if current.k != baseline.k:
        out.append(StaleReason(what="k", baseline=str(baseline.k), current=str(current.k)))
    now, then = current.provenance, baseline.provenance
    pairs: list[tuple[Any, str | None, str | None]] = [
        ("embedder", then.embedder, now.embedder),
        ("retrieval_mode", then.retrieval_mode, now.retrieval_mode),
    ]
    # A field unknown on one side (a `score` run has no KB) cannot be compared.
    named = [
        StaleReason(what=what, baseline=old, current=new)
        for what, old, new in pairs
        if old is not None and new is not None and old != new
    ]
    recorded = bool(then.settings) and bool(now.settings)
    said = {s.what for s in [*out, *named]}
    settings = diff_settings(then.settings or {}, now.settings or {}) if recorded else ()
    unnamed = tuple(c for c in settings if _NAMED_BY.get(c.setting) not in said)
    words = {
        "kb": tuple(c for c in unnamed if c.setting.startswith("kb.")),
        "config": tuple(c for c in unnamed if not c.setting.startswith("kb.")),
    }
    fingerprints: list[tuple[Any, str | None, str | None]] = [
        ("dataset", then.dataset_fingerprint, now.dataset_fingerprint),
        ("queries", then.queries_fingerprint, now.queries_fingerprint),
        ("kb", then.kb_fingerprint, now.kb_fingerprint),
        ("config", then.config_fingerprint, now.config_fingerprint),
    ]
    for what, old, new in fingerprints:
        if old is None or new is None or old == new:
            continue
        if what == "config" and recorded and not words["config"] and len(unnamed) < len(settings):
            continue  # every setting that differs is named by a reason of its own
        out.append(
            StaleReason(
                what=what,
                baseline=old,
                current=new,
                changes=words.get(what, ()),
                settings_recorded=bool(then.settings),
            )
        )
    out.extend(named)
    old_r, new_r = then.retriever, now.retriever
    if old_r is not None and new_r is not None and old_r != new_r:
        mirrored = recorded and old_r.adapter == new_r.adapter == BUILTIN_ADAPTER
        if not mirrored:
            old_fields, new_fields = old_r.differences(new_r)
            out.append(
                StaleReason(
                    what="retriever",
                    baseline=old_fields,
                    current=new_fields,
                    changes=diff_settings(_retriever_settings(then), _retriever_settings(now)),
                )
            )
    return tuple(out)


def _retriever_settings(provenance: Provenance) -> dict[str, SettingValue]:
    r = provenance.retriever
    if r is None:
        return {}
    flat: dict[str, SettingValue] = {
        "retriever.adapter": r.adapter,
        "retriever.class": r.name,
        "retriever.label": r.label,
    }
    flat.update({f"retriever.params.{key}": value for key, value in r.params.items()})
    return flat


# Settings that a stale reason of their own names (when that reason is present).
_NAMED_BY = {"k": "k", "embedder.model": "embedder", "retrieval.mode": "retrieval_mode"}
# The built-in runner's retriever: its params mirror its recorded settings.
BUILTIN_ADAPTER = "builtin"


def ordered_groups(cases: Iterable[CaseResult]) -> list[Group]:
    """Overall, then each case type, then each language the cases hold (reference order first)."""
    types: set[str] = set()
    languages: set[str] = set()
    for case in cases:
        types.add(case.case_type)
        languages.add(case.language)

    def ordered(found: set[str], order: tuple[str, ...]) -> list[str]:
        return [g for g in order if g in found] + sorted(found - set(order))

    return [
        OVERALL,
        *(Group(kind="case_type", name=g) for g in ordered(types, CASE_TYPES)),
        *(Group(kind="language", name=g) for g in ordered(languages, LANGUAGES)),
    ]


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values)


def _group_deltas(
    group: Group,
    pairs: Sequence[tuple[CaseResult, CaseResult]],
    *,
    n_baseline: int,
    n_current: int,
    n_total: int,
    seed: str,
    min_group_n: int,
) -> list[MetricDelta]:
    # A metric is compared on the pairs that carry it on both sides: a baseline
    # made before a metric was added has no value of it.
    having = {
        m.key: [(b, c) for b, c in pairs if m.key in b.metrics and m.key in c.metrics]
        for m in GATED_METRICS
    }
    noises: dict[str, Noise] = {}
    for spec in GATED_METRICS:
        metric, both = spec.key, having[spec.key]
        if not both:
            continue
        small = len(both) < min_group_n
        if spec.binary:  # flips are counted even where they are not tested
            lost = sum(1 for b, c in both if b.metrics[metric] > c.metrics[metric])
            gained = sum(1 for b, c in both if b.metrics[metric] < c.metrics[metric])
            noises[metric] = Noise(
                small_n=small,
                p_value=None if small else mcnemar_exact_p(lost=lost, gained=gained),
                p_drop=None if small else mcnemar_drop_p(lost=lost, gained=gained),
                method=None if small else "exact",
                lost=lost,
                gained=gained,
            )
        elif small:
            noises[metric] = Noise(small_n=True)
        else:
            test = sign_flip_test(
                [c.metrics[metric] - b.metrics[metric] for b, c in both],
                seed=f"{seed}:{group.label}:{metric}",
            )
            noises[metric] = Noise(
                small_n=False,
                p_value=test.p_value,
                p_drop=test.p_drop,
                method=test.method,
                lost=test.down,
                gained=test.up,
            )
    out = []
    # A metric outside the default set is compared when a case of the group carries it.
    carried = {m for b, c in pairs for m in (*b.metrics, *c.metrics)}
    for metric in shown_metrics(carried):
        both = having[metric]
        n = len(both)
        out.append(
            MetricDelta(
                metric=metric,
                group=group,
                baseline=_mean([b.metrics[metric] for b, _ in both]) if n else None,
                current=_mean([c.metrics[metric] for _, c in both]) if n else None,
                n_compared=n,
                n_baseline=n_baseline,
                n_current=n_current,
                n_total=n_total,
                noise=noises.get(metric, Noise(small_n=True)),
            )
        )
    return out


def _tested_together(
    deltas: Sequence[MetricDelta],
    pairs: Sequence[tuple[CaseResult, CaseResult]],
    *,
    metrics: set[str],
    seed: str,
) -> tuple[list[MetricDelta], FamilyRecord | None]:
    """The rows of ``metrics`` with the n, tested together by the report-level
    test: each gets its ``p_family``. A case is flipped in every such row at
    once; its atom is its case type × language (the groups are unions of atoms)."""
    gated = [i for i, d in enumerate(deltas) if d.metric in metrics and not d.noise.small_n]
    if not gated:
        return list(deltas), None
    keys = [m for m in METRIC_KEYS if any(deltas[i].metric == m for i in gated)]
    atom_of: dict[tuple[str, str], int] = {}
    atoms = [atom_of.setdefault((c.case_type, c.language), len(atom_of)) for _, c in pairs]
    columns = [
        [
            c.metrics[m] - b.metrics[m] if m in b.metrics and m in c.metrics else 0.0
            for b, c in pairs
        ]
        for m in keys
    ]
    cells = []
    for i in gated:
        group = deltas[i].group
        held = frozenset(
            atom
            for (case_type, language), atom in atom_of.items()
            if group.kind == "overall"
            or (group.kind == "case_type" and case_type == group.name)
            or (group.kind == "language" and language == group.name)
        )
        cells.append(FamilyCell(metric=keys.index(deltas[i].metric), atoms=held))
    test = family_drop_p(columns, atoms, cells, seed=f"{seed}:family")
    out = list(deltas)
    for i, p in zip(gated, test.p_drop, strict=True):
        out[i] = replace(out[i], noise=replace(out[i].noise, p_family=p))
    critical = None if math.isinf(test.critical) else test.critical
    return out, FamilyRecord(cells=len(cells), method=test.method, critical=critical)


def _at_stored_precision(case: CaseResult) -> CaseResult:
    rounded = {key: round(value, FLOAT_DIGITS) for key, value in case.metrics.items()}
    return case if rounded == case.metrics else case.model_copy(update={"metrics": rounded})


def compare_to_baseline(
    *,
    current: Results,
    baseline: Baseline | None,
    baseline_path: str,
    baseline_ref: str | None = None,
    edit: BaselineEdit | None = None,
    seed: str = PERMUTATION_SEED,
    min_group_n: int = MIN_GROUP_N,
    pull_request: PullRequestChanges | None = None,
    kb_turnover: KbTurnover | None = None,
    family: Iterable[str] | None = None,
) -> Comparison:
    """Compare ``current`` with ``baseline`` (``None``: no baseline yet).

    ``baseline_path`` (and ``baseline_ref``, when read at a git revision) say
    where the baseline lives, for the report; ``edit`` records that the pull
    request changes it. Groups with fewer than ``min_group_n`` compared cases
    are not tested (nor gated). ``family``: the metric keys the gate holds to
    a tolerance (None or empty: every gated metric, as report-only mode's
    reference tolerance does); their rows are tested together.
    """
    if min_group_n < 1:
        raise ValueError(f"min_group_n must be at least 1, got {min_group_n}")
    # What every outcome states; the checks below add what they found.
    outline = Comparison(
        k=current.k,
        current=current,
        baseline=baseline,
        baseline_path=baseline_path,
        baseline_ref=baseline_ref,
        edit=edit,
        min_group_n=min_group_n,
        pull_request=pull_request,
        kb_turnover=kb_turnover,
    )
    if baseline is None:
        return outline
    stale = stale_reasons(current, baseline)
    # Compare at the stored precision: a baseline file keeps FLOAT_DIGITS, so
    # the run it was made from must compare equal to it, not "changed" by 1e-7.
    base_by_id = {c.case_id: _at_stored_precision(c) for c in baseline.cases}
    cur_by_id = {c.case_id: c for c in current.cases}
    changes = CaseChanges(
        added=tuple(c.case_id for c in current.cases if c.case_id not in base_by_id),
        removed=tuple(c.case_id for c in baseline.cases if c.case_id not in cur_by_id),
        relabelled=tuple(
            c.case_id
            for c in current.cases
            if c.case_id in base_by_id and case_label(base_by_id[c.case_id]) != case_label(c)
        ),
    )
    if any(s.what == "k" for s in stale):
        return replace(outline, stale=stale, cases=changes)
    relabelled = set(changes.relabelled)
    current_cases = [_at_stored_precision(c) for c in current.cases]
    pairs = [
        (base_by_id[c.case_id], c)
        for c in current_cases
        if c.case_id in base_by_id
        and c.case_id not in relabelled
        and c.metrics
        and base_by_id[c.case_id].metrics
    ]
    scored_base = [c for c in base_by_id.values() if c.metrics]
    scored_cur = [c for c in current_cases if c.metrics]
    deltas: list[MetricDelta] = []
    for group in ordered_groups([*scored_base, *scored_cur]):
        in_base = {c.case_id for c in scored_base if group.contains(c)}
        in_cur = {c.case_id for c in scored_cur if group.contains(c)}
        deltas += _group_deltas(
            group,
            [(b, c) for b, c in pairs if group.contains(c)],
            n_baseline=len(in_base),
            n_current=len(in_cur),
            n_total=len(in_base | in_cur),
            seed=seed,
            min_group_n=min_group_n,
        )
    moves = find_moves(pairs, k=current.k)
    on_changed = frozenset(pull_request.kb.on_changed) if pull_request and pull_request.kb else ()
    kb_deltas: list[MetricDelta] = []
    if on_changed:
        in_base = {c.case_id for c in scored_base if c.case_id in on_changed}
        in_cur = {c.case_id for c in scored_cur if c.case_id in on_changed}
        kb_deltas = _group_deltas(
            ON_CHANGED_CARDS,
            [(b, c) for b, c in pairs if c.case_id in on_changed],
            n_baseline=len(in_base),
            n_current=len(in_cur),
            n_total=len(in_base | in_cur),
            seed=seed,
            min_group_n=min_group_n,
        )
    deltas, tested = _tested_together(
        deltas, pairs, metrics=set(family or ()) or set(METRIC_KEYS), seed=seed
    )
    return replace(
        outline,
        family=tested,
        kb_deltas=tuple(kb_deltas),
        stale=stale,
        deltas=tuple(deltas),
        flips=tuple(m for m in moves if m.direction in ("lost", "gained")),
        rank_moves=tuple(m for m in moves if m.direction in ("down", "up")),
        cases=replace(changes, compared=len(pairs)),
    )
