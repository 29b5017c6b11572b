"""The base branch judges a pull request (pure).

In a pull request the gate's settings and its labelled cases are the test
oracle, so they come from the base revision: a pull request that edits them
(raises k, lowers a floor, deletes or relabels the cases it regresses) is told
what it changes and judged by the base's version; its changes apply after
merge.

* :func:`plan_cases` pairs the base's cases with the pull request's: the base's
  cases (query and gold as the base has them) are evaluated and judged; cases
  the pull request adds are evaluated and reported as new, not judged; cases
  it removes or relabels are listed, and still judged by the base's version.
* :func:`oracle_from_records` is the base's oracle when there is no cases file
  (a capture that labels itself): the case records of the base's baseline. A
  capture line that states another label than its record is relabelled
  (:func:`relabels`); a record with no line is removed.
* :class:`PullRequestChanges` is what the report says about it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from recall_gate.core.integrity import gold_as_card_ids
from recall_gate.core.kb_diff import KbChanges
from recall_gate.core.records import Artifact, Case, CaseLabel, CaseResult
from recall_gate.core.staleness import SettingChange
from recall_gate.errors import InputError

__all__ = [
    "CasePlan",
    "NewCase",
    "PullRequestChanges",
    "oracle_from_records",
    "plan_cases",
    "relabelled_as_cards",
    "relabels",
]


@dataclass(frozen=True, kw_only=True)
class CasePlan:
    """Which cases a pull request's run evaluates, and which of them it judges."""

    judged: tuple[Case, ...]  # the base's cases, as the base has them
    added: tuple[Case, ...]  # only in the pull request: evaluated, reported as new
    removed: tuple[str, ...]  # only in the base: still judged (the base's version)
    relabelled: tuple[str, ...]  # query, gold, language or type changed: judged as the base has it
    # The pull request's own version of each relabelled case (in that order): what
    # it changed, told apart from a gold id merely written another way (a URL).
    pull_request_versions: tuple[Case, ...] = ()

    @property
    def evaluated(self) -> tuple[Case, ...]:
        return self.judged + self.added


def plan_cases(*, base: Sequence[Case], pull_request: Sequence[Case]) -> CasePlan:
    """The base's cases judged, the pull request's new ones reported (order kept)."""
    base_ids = {case.id for case in base}
    mine = {case.id: case for case in pull_request}
    relabelled = tuple(case.id for case in base if case.id in mine and mine[case.id] != case)
    return CasePlan(
        judged=tuple(base),
        added=tuple(case for case in pull_request if case.id not in base_ids),
        removed=tuple(case.id for case in base if case.id not in mine),
        relabelled=relabelled,
        pull_request_versions=tuple(mine[case_id] for case_id in relabelled),
    )


def relabelled_as_cards(plan: CasePlan, card_ids: frozenset[str]) -> CasePlan:
    """The plan with a case the pull request only rewrote (a gold URL as the card
    id it names, or back) no longer listed as relabelled: each side's gold read
    as card ids (:func:`~recall_gate.core.integrity.gold_as_card_ids`) before they
    are compared."""
    if not plan.relabelled:
        return plan
    base = {case.id: case for case in plan.judged}
    ours, _ = gold_as_card_ids([("", base[c]) for c in plan.relabelled], card_ids)
    theirs, _ = gold_as_card_ids([("", c) for c in plan.pull_request_versions], card_ids)
    kept = [(mine, pr) for (_, mine), (_, pr) in zip(ours, theirs, strict=True) if mine != pr]
    return dataclasses.replace(
        plan,
        relabelled=tuple(case.id for case, _ in kept),
        pull_request_versions=tuple(pr for _, pr in kept),
    )


def oracle_from_records(records: Sequence[CaseResult], *, source: str) -> tuple[CaseLabel, ...]:
    """The base's cases as its baseline recorded them: each record's labels, with
    its query when the record has one (``source`` names the baseline in errors)."""
    oracle: list[CaseLabel] = []
    for record in records:
        fields = {
            "id": record.case_id,
            "language": record.language,
            "case_type": record.case_type,
            "must_cite_one_of": record.must_cite_one_of,
            "relevant_ids": record.relevant_ids,
        }
        try:
            if record.query:
                oracle.append(Case(**fields, query=record.query))
            else:
                oracle.append(CaseLabel(**fields))
        except ValidationError as exc:
            reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
            raise InputError(
                f"{source}: the record of case {record.case_id!r}: {reasons}",
                fix="restore the baseline on the base branch (`recall-gate baseline update` "
                "writes valid records)",
            ) from None
    return tuple(oracle)


def relabels(base: CaseLabel, artifact: Artifact) -> bool:
    """Whether a capture line states another label (or query) for a case than the
    base's record. A field the line leaves out states nothing; gold is a set."""
    for field in ("language", "case_type"):
        stated = getattr(artifact, field)
        if stated is not None and stated != getattr(base, field):
            return True
    for field in ("must_cite_one_of", "relevant_ids"):
        stated = getattr(artifact, field)
        recorded = getattr(base, field)
        if stated is not None and (recorded is None or set(stated) != set(recorded)):
            return True
    query = base.query if isinstance(base, Case) else None
    return artifact.query is not None and query is not None and artifact.query != query


@dataclass(frozen=True, kw_only=True)
class NewCase:
    """A case the pull request adds: evaluated, not judged until it is merged."""

    case_id: str
    hit: bool | None  # None: no gold to hit (capability / no_match)


@dataclass(frozen=True, kw_only=True)
class PullRequestChanges:
    """What a pull request changes of its own gate, judged at base revision ``ref``.

    ``gate``: settings the base's ``recall-gate.yaml`` has otherwise (base →
    pull request). ``config_after_merge``: a config nearer the working
    directory that only the pull request has; it never judges. ``removed`` /
    ``relabelled``: cases still judged by the base's version.
    ``not_captured``: base cases the scored capture lacks, scored as misses.
    ``added``: new cases, reported only. ``oracle``: where the base's cases
    come from when not from a cases file (a capture that labels itself is
    judged by the case records of the base's baseline). ``kb``: the KB's
    changes (``None`` when its diff is not read).
    """

    ref: str
    config: str | None = None  # the config file's path, when there is one
    config_at_base: bool = True
    config_after_merge: str | None = None
    cases_at_base: bool = True
    gate: tuple[SettingChange, ...] = ()
    added: tuple[NewCase, ...] = ()
    removed: tuple[str, ...] = ()
    relabelled: tuple[str, ...] = ()
    not_captured: tuple[str, ...] = ()
    oracle: str | None = None
    kb: KbChanges | None = None  # the cards it adds, edits, renames, deletes

    @property
    def changes_anything(self) -> bool:
        return bool(
            self.gate
            or self.config_after_merge
            or self.added
            or self.removed
            or self.relabelled
            or self.not_captured
        )
