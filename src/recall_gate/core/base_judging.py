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
* :class:`PullRequestChanges` is what the report says about it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.core.records import Case
from recall_gate.core.staleness import SettingChange

__all__ = ["CasePlan", "NewCase", "PullRequestChanges", "plan_cases"]


@dataclass(frozen=True, kw_only=True)
class CasePlan:
    """Which cases a pull request's run evaluates, and which of them it judges."""

    judged: tuple[Case, ...]  # the base's cases, as the base has them
    added: tuple[Case, ...]  # only in the pull request: evaluated, reported as new
    removed: tuple[str, ...]  # only in the base: still judged (the base's version)
    relabelled: tuple[str, ...]  # query, gold, language or type changed: judged as the base has it

    @property
    def evaluated(self) -> tuple[Case, ...]:
        return self.judged + self.added


def plan_cases(*, base: Sequence[Case], pull_request: Sequence[Case]) -> CasePlan:
    """The base's cases judged, the pull request's new ones reported (order kept)."""
    base_ids = {case.id for case in base}
    mine = {case.id: case for case in pull_request}
    return CasePlan(
        judged=tuple(base),
        added=tuple(case for case in pull_request if case.id not in base_ids),
        removed=tuple(case.id for case in base if case.id not in mine),
        relabelled=tuple(case.id for case in base if case.id in mine and mine[case.id] != case),
    )


@dataclass(frozen=True, kw_only=True)
class NewCase:
    """A case the pull request adds: evaluated, not judged until it is merged."""

    case_id: str
    hit: bool | None  # None: no gold to hit (capability / no_match)


@dataclass(frozen=True, kw_only=True)
class PullRequestChanges:
    """What a pull request changes of its own gate, judged at base revision ``ref``.

    ``gate``: settings the base's ``recall-gate.yaml`` has otherwise (base →
    pull request). ``removed`` / ``relabelled``: cases still judged by the
    base's version. ``not_captured``: base cases the scored capture lacks,
    scored as misses. ``added``: new cases, reported only.
    """

    ref: str
    config: str | None = None  # the config file's path, when there is one
    config_at_base: bool = True
    cases_at_base: bool = True
    gate: tuple[SettingChange, ...] = ()
    added: tuple[NewCase, ...] = ()
    removed: tuple[str, ...] = ()
    relabelled: tuple[str, ...] = ()
    not_captured: tuple[str, ...] = ()

    @property
    def changes_anything(self) -> bool:
        return bool(self.gate or self.added or self.removed or self.relabelled or self.not_captured)
