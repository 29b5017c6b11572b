"""The KB as the judge reads it.

Every command reads the KB with what a user must hear about it: each
``kb_include`` / ``kb_exclude`` pattern that matched no file, and how many pages
are no card (drafts, link-only pages, pages without text).

The KB diff of a pull request: read once from git when a base revision judges
(:mod:`recall_gate.adapters.kb_revision`), and applied to the labelled cases
(:mod:`recall_gate.core.kb_diff`): renames followed, deleted gold named, new
cards without a case listed."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar
from weakref import WeakKeyDictionary

from recall_gate.adapters.case_files import load_cases
from recall_gate.adapters.dataset import Kb, KbFiles, read_kb
from recall_gate.adapters.git import BaseTree
from recall_gate.adapters.input_records import JSONL_SUFFIXES, YAML_SUFFIXES
from recall_gate.adapters.kb_revision import read_kb_diff, read_label_history
from recall_gate.console import Console
from recall_gate.core.base_judging import CasePlan
from recall_gate.core.comparison_records import LabelRotRecord
from recall_gate.core.coverage import cited_ids, languages_held
from recall_gate.core.integrity import Problem, gold_as_card_ids
from recall_gate.core.kb_diff import (
    KbDiff,
    KbTurnover,
    deleted_gold,
    follow_renames,
    kb_turnover,
    new_card_coverage,
)
from recall_gate.core.label_rot import rotten_labels
from recall_gate.core.records import CaseLabel
from recall_gate.errors import GateFailure, InputError
from recall_gate.judging.revision import JudgedSettings
from recall_gate.report.kb_changes import new_card_coverage_phrase, new_cards_line
from recall_gate.report.label_audit import SHALLOW_HISTORY, rotten_labels_line

__all__ = [
    "baseline_kb_turnover",
    "deleted_translations",
    "follow_located",
    "gold_read_as_cards",
    "judge_label_rot",
    "new_card_coverage_failure",
    "pull_request_kb",
    "read_kb_noted",
    "warn_unread",
    "write_kb_changes",
    "write_label_rot",
]

L = TypeVar("L", bound=CaseLabel)


def warn_unread(read: Kb, console: Console) -> None:
    """A warning per pattern that matched no file (a typo must not pass in silence),
    and the count of pages skipped, by reason."""
    for pattern in read.unmatched:
        console.stderr.write(
            f"recall-gate: warning: `{pattern}` matches no file of the KB "
            "(check the pattern's spelling and that it is relative to the KB folder)\n"
        )
    if read.skipped:
        reasons = Counter(s.reason for s in read.skipped)
        listed = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
        console.stderr.write(
            f"recall-gate: {len(read.skipped)} page(s) of the KB are no card ({listed}); "
            "list them with `recall-gate cards --skipped`\n"
        )


def read_kb_noted(path: Path, files: KbFiles, console: Console) -> Kb:
    """:func:`read_kb`, its warnings written to stderr."""
    read = read_kb(path, files)
    warn_unread(read, console)
    return read


# One read per base tree and KB: a command asks for the diff where it judges the
# cases and again where it reports.
_READ: WeakKeyDictionary[BaseTree, dict[tuple[Path, str], KbDiff | None]] = WeakKeyDictionary()


def pull_request_kb(settings: JudgedSettings) -> KbDiff | None:
    """The card changes of the pull request a base revision judges; ``None``
    without a base, or for a KB that is no folder of the repository."""
    if settings.base is None or settings.kb is None:
        return None
    tree, files = settings.base.tree, settings.kb_files()
    read = _READ.setdefault(tree, {})
    key = (settings.kb, repr(files))
    if key not in read:
        diff = read_kb_diff(tree, settings.kb, files)
        if diff is not None and diff.changes:
            # A card is (language, id): which language's cards the pull request's KB
            # holds tells whose cases a change to one translation concerns.
            held = languages_held(e.card for e in read_kb(settings.kb, files).cards)
            diff = dataclasses.replace(diff, held=held)
        read[key] = diff
    return read[key]


def deleted_translations(
    settings: JudgedSettings, cases: Sequence[CaseLabel], card_ids: frozenset[str]
) -> list[Problem]:
    """When a base revision judges: each translation the pull request deletes (its
    id still a card, in another language) that a case of its language still
    cites, as an integrity problem naming those cases. A card is (language, id):
    the page its reader asked for is gone, though the id still resolves (a card
    deleted outright is named by the gold check)."""
    if settings.base is None:
        return []
    diff = pull_request_kb(settings)
    if diff is None:
        return []
    gone = tuple(c for c in diff.of("deleted") if c.card_id in card_ids)
    if not gone:
        return []
    return deleted_gold(dataclasses.replace(diff, changes=gone), cases, ref=settings.base.ref)


def baseline_kb_turnover(
    settings: JudgedSettings, *, git_sha: str | None, cards_now: int | None
) -> KbTurnover | None:
    """How much of the KB changed since the baseline's commit (report-only):
    ``None`` when that cannot be told here (no KB folder, no commit recorded,
    no git, or the commit not in this checkout, as in a shallow clone)."""
    if settings.kb is None or not settings.kb.is_dir() or not git_sha or cards_now is None:
        return None
    try:
        tree = BaseTree(git_sha, cwd=settings.kb, given_as="the baseline's git_sha")
        diff = read_kb_diff(tree, settings.kb, settings.kb_files())
    except InputError:
        return None
    if diff is None:
        return None
    return kb_turnover(diff, ref=git_sha, cards_now=cards_now)


def follow_located(located: Sequence[tuple[str, L]], diff: KbDiff | None) -> list[tuple[str, L]]:
    """The cases with the gold a rename moved named by its new id."""
    if diff is None or not diff.renames:
        return list(located)
    return [(where, follow_renames(case, diff.renames)) for where, case in located]


def gold_read_as_cards(
    located: Sequence[tuple[str, L]],
    card_ids: frozenset[str],
    console: Console,
    *,
    plan: CasePlan | None = None,
) -> tuple[list[tuple[str, L]], CasePlan | None]:
    """The cases (and a base judge's plan) with every gold id written as the URL
    or path of a card's page read as that card's id (``core.integrity.gold_as_card_ids``),
    and one note saying how many were, before anything is checked, run or fingerprinted."""
    located, read = gold_as_card_ids(located, card_ids)
    if plan is not None and read:  # the plan's cases are among ``located``: counted once
        judged, _ = gold_as_card_ids([("", c) for c in plan.judged], card_ids)
        added, _ = gold_as_card_ids([("", c) for c in plan.added], card_ids)
        plan = dataclasses.replace(
            plan, judged=tuple(c for _, c in judged), added=tuple(c for _, c in added)
        )
    if read:
        names = dict(read)
        example = next(iter(names.items()))
        console.stderr.write(
            f"recall-gate: note: {len(read)} gold id(s) name a card by the URL or path its "
            f"site publishes ({len(names)} distinct), read as its card id (e.g. "
            f"{example[0]!r} → {example[1]!r}); `recall-gate cards` lists each card's URLs\n"
        )
    return located, plan


def new_card_coverage_failure(
    diff: KbDiff, *, floor: float | None, cases: Sequence[CaseLabel]
) -> GateFailure | None:
    """``gate.min_new_card_coverage``: the failure when fewer of the cards the pull
    request adds than ``floor`` are cited by some case (None: unset, no card
    added, or enough covered)."""
    check = new_card_coverage(diff.new_cards(cases), floor=floor)
    if check is None or not check.failed:
        return None
    return GateFailure(
        new_card_coverage_phrase(check),
        fix="add cases whose gold (must_cite_one_of or relevant_ids) names the new cards, "
        "or lower gate.min_new_card_coverage in recall-gate.yaml",
    )


def write_kb_changes(
    diff: KbDiff, *, ref: str, cases: Sequence[CaseLabel], console: Console
) -> None:
    """What ``check`` says of the pull request's KB changes: their count, each
    rename followed (with the cases that still name the old id, to relabel
    before merge), and the new cards no case cites."""
    if not diff.changes:
        return
    out = console.stdout
    out.write(f"recall-gate check: KB changes since {ref}: {diff.summary()}\n")
    for old, moved in diff.renames.items():
        naming = [c.id for c in cases if old in cited_ids(c)]
        if naming:
            console.stderr.write(
                f"recall-gate check: warning: card {old!r} is renamed to {moved!r} (followed); "
                f"relabel {', '.join(naming)} to {moved!r} before merge: on the merged branch "
                "there is no rename to follow\n"
            )
    new = diff.new_cards(cases)
    if new:
        out.write(f"recall-gate check: {new_cards_line(new)}\n")


def _case_files(paths: Sequence[Path]) -> list[Path]:
    """The cases files behind the configured paths (a folder: its cases files)."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out += sorted(
                p for p in path.iterdir() if p.suffix in (*YAML_SUFFIXES, *JSONL_SUFFIXES)
            )
        elif path.is_file():
            out.append(path)
    return out


def judge_label_rot(settings: JudgedSettings) -> LabelRotRecord | None:
    """The cases citing a card rewritten since their cases file's last commit
    (report-only); ``shallow`` in a clone whose history stops short; ``None``
    when it cannot be told at all (no KB folder, no cases file in a git work tree)."""
    if settings.kb is None or not settings.cases:
        return None
    files = _case_files(settings.cases)
    history = read_label_history(settings.kb, settings.kb_files(), files)
    if history is None:
        return None
    if history.shallow:
        return LabelRotRecord(shallow=True)
    return LabelRotRecord(
        labels=tuple(
            label
            for one in history.files
            for label in rotten_labels(
                [c for _, c in load_cases([one.path])], one.changes, since=one.since
            )
        )
    )


def write_label_rot(settings: JudgedSettings, console: Console) -> None:
    """What ``check`` says of label rot (:func:`judge_label_rot`)."""
    found = judge_label_rot(settings)
    if found is None:
        return
    if found.shallow:
        console.stdout.write(f"recall-gate check: {SHALLOW_HISTORY}\n")
    elif found.labels:
        console.stdout.write(f"recall-gate check: {rotten_labels_line(found.labels)}\n")
