"""The oracle that judges a run: the cases (or qrels, or a baseline's case
records) as the base revision has them, and what the pull request adds to them.

A pull request's own cases never label the verdict: the base's label each
captured line, the cases it adds are scored and reported beside the verdict,
and a base case the capture lacks (one the pull request deleted) is scored as
a miss. Without a base judge, the working tree's cases are the oracle."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from recall_gate.adapters.base_revision import load_cases_at
from recall_gate.adapters.baseline_store import read_baseline_in
from recall_gate.adapters.dataset import load_card_ids, load_cases
from recall_gate.adapters.scoring import score_capture
from recall_gate.core.base_judging import (
    CasePlan,
    NewCase,
    oracle_from_records,
    plan_cases,
    relabelled_as_cards,
    relabels,
)
from recall_gate.core.capture_line import with_fields
from recall_gate.core.integrity import duplicate_cases
from recall_gate.core.records import (
    Artifact,
    Case,
    CaseLabel,
)
from recall_gate.errors import InputError
from recall_gate.judging.kb_judging import (
    follow_located,
    pull_request_kb,
)
from recall_gate.judging.revision import JudgedSettings

L = TypeVar("L", bound=CaseLabel)


def unique_cases(located: Sequence[tuple[str, L]]) -> list[L]:
    dupes = duplicate_cases(located)
    if dupes:
        raise InputError(str(dupes[0]), fix="give each case a unique id")
    return [case for _, case in located]


def working_tree_cases(settings: JudgedSettings) -> list[tuple[str, Case]]:
    """The cases of the working tree. Judged at a base revision, a cases file
    the pull request deletes is no error: its cases are "removed", and judged."""
    paths = settings.cases
    if settings.base is not None:
        paths = tuple(p for p in paths if p.exists())
        if not paths:
            return []
    return load_cases(paths)


def judged_cases(
    settings: JudgedSettings, located: Sequence[tuple[str, Case]]
) -> tuple[list[tuple[str, Case]], CasePlan | None]:
    """The cases to evaluate (with where each is defined), and the plan of a
    run judged at the base revision: the base's cases as the base has them,
    plus the pull request's new ones. Without a base judge, or when the base
    has no cases yet, the working tree's cases and no plan."""
    base = settings.base
    if base is None:
        return list(located), None
    base_located = load_cases_at(base.tree, base.cases or settings.cases)
    if base_located is None:
        return list(located), None
    # A card the pull request renames is judged under its new id (the rename followed).
    diff = pull_request_kb(settings)
    base_located, located = follow_located(base_located, diff), follow_located(located, diff)
    plan = plan_cases(base=unique_cases(base_located), pull_request=unique_cases(located))
    if plan.relabelled and settings.kb is not None:
        # A gold id rewritten as its page's URL (or back) labels a case alike.
        try:
            card_ids = load_card_ids(settings.kb, settings.kb_files())
        except InputError:
            pass  # the KB's own read names the error, after this
        else:
            plan = relabelled_as_cards(plan, card_ids)
    added = {case.id for case in plan.added}
    return [*base_located, *((s, c) for s, c in located if c.id in added)], plan


def new_case_results(
    artifacts: Sequence[Artifact], cases: Sequence[Case] | None, *, k: int
) -> tuple[NewCase, ...]:
    """Hit or miss of each case a pull request adds (reported, not judged);
    ``cases`` None: the capture's lines label themselves."""
    if cases is None:
        return _self_labelled_new_case_results(artifacts, k=k)
    by_id = {a.case_id: a for a in artifacts}
    present = [c for c in cases if c.id in by_id]
    if not present:
        return ()
    scored = score_capture(
        ((n, _unlabelled(by_id[c.id])) for n, c in enumerate(present, start=1)),
        k=k,
        cases=[c.label() for c in present],
        artifacts_source="the new cases",
    )
    missed = {c.case_id for c in scored.missed}
    return tuple(
        NewCase(case_id=c.id, hit=(c.id not in missed) if c.gold_labelled else None)
        for c in present
    )


def _self_labelled_new_case_results(
    artifacts: Sequence[Artifact], *, k: int
) -> tuple[NewCase, ...]:
    if not artifacts:
        return ()
    scored = score_capture(
        enumerate(artifacts, start=1), k=k, cases=None, artifacts_source="the new cases"
    )
    missed = {c.case_id for c in scored.missed}
    return tuple(
        NewCase(case_id=a.case_id, hit=(a.case_id not in missed) if a.must_cite_one_of else None)
        for a in artifacts
    )


_LABEL_FIELDS = ("must_cite_one_of", "relevant_ids", "language", "case_type")


def _unlabelled(artifact: Artifact) -> Artifact:
    """The line without its case fields: the cases that judge it label it."""
    return with_fields(artifact, **dict.fromkeys(_LABEL_FIELDS))


def split_for_plan(
    artifacts: Iterable[tuple[int, Artifact]],
    plan: CasePlan,
    *,
    added: list[Artifact],
    not_captured: list[str],
) -> Iterator[tuple[int, Artifact]]:
    """A capture as the base judges it: the base's cases labelled by the base
    (a line's own fields are the pull request's), the new cases set aside in
    ``added``, and every base case the capture lacks scored as a miss (an
    empty line), its id noted in ``not_captured`` — a case deleted by the pull
    request never leaves the verdict."""
    judged = {case.id for case in plan.judged}
    new = {case.id for case in plan.added}
    seen: set[str] = set()
    last = 0
    for number, artifact in artifacts:
        last = number
        case_id = artifact.case_id
        if case_id in judged:
            seen.add(case_id)
            yield number, _unlabelled(artifact)
        elif case_id in new:
            added.append(artifact)
        else:
            yield number, artifact  # an unknown case: the labeller's error
    for case in plan.judged:
        if case.id not in seen:
            last += 1
            not_captured.append(case.id)
            yield last, Artifact(case_id=case.id, retrieved=())


def base_record_oracle(settings: JudgedSettings) -> tuple[tuple[CaseLabel, ...], str] | None:
    """Judged at a base revision with no cases file (a capture that labels
    itself), the base's oracle: the case records of the base's baseline, and
    how the report names them. ``None`` without a base judge, or when the base
    has no baseline (or one without records) yet."""
    base = settings.base
    if base is None:
        return None
    stored = read_baseline_in(base.tree, settings.baseline)
    if stored is None or not stored.baseline.cases:
        return None
    oracle = oracle_from_records(stored.baseline.cases, source=stored.source)
    return oracle, f"the case records of {base.tree.relative(settings.baseline)}"


def split_by_records(
    artifacts: Iterable[tuple[int, Artifact]],
    oracle: Sequence[CaseLabel],
    *,
    added: list[Artifact],
    relabelled: list[str],
    not_captured: list[str],
) -> Iterator[tuple[int, Artifact]]:
    """A capture that labels itself, as the base judges it: each base case
    labelled by its record (a line that states another label or query is noted
    in ``relabelled``), the new cases set aside in ``added``, and every base
    case the capture lacks — a case the pull request deleted — scored as a miss
    (an empty line), its id noted in ``not_captured``."""
    base = {case.id: case for case in oracle}
    seen: set[str] = set()
    last = 0
    for number, artifact in artifacts:
        last = number
        case = base.get(artifact.case_id)
        if case is None:
            added.append(artifact)
            continue
        if artifact.case_id not in seen and relabels(case, artifact):
            relabelled.append(artifact.case_id)
        seen.add(artifact.case_id)
        yield number, _unlabelled(artifact)
    for case in oracle:
        if case.id not in seen:
            last += 1
            not_captured.append(case.id)
            yield last, Artifact(case_id=case.id, retrieved=())
