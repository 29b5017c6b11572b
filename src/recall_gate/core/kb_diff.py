"""The KB diff of a pull request (pure): which cards it adds, edits, renames
and deletes, and what that means for the labelled cases.

The adapter (:mod:`recall_gate.adapters.kb_revision`) reads the card files git
lists as changed between the base commit and the pull request's tree
(rename-aware) and parses each side with the KB reader; this module decides
what changed, on the cards as recall-gate reads them:

* **added** / **deleted**: a card on one side only;
* **renamed**: the same file as git follows it (``git mv``, or a move git
  detects by content) under another card id. Renames are *followed*: a case
  whose gold names the old id is judged on the new one, so a move never zeroes
  a metric. (A move git does not detect is a deletion and an addition.)
* **edited**: the same id, its text or title changed (``text``), or only what
  the front matter adds (tags, language, other keys): ``front matter only``.
  A file change that changes nothing recall-gate reads is no card change.

A deleted card that a base case still cites is an integrity error naming the
cases (:func:`deleted_gold`): its case would cap silently otherwise.

A card is (language, id) (core/card_language.py): a change to one language's
card of an id concerns the cases of that language, and those of a language
that has no card of that id (they are served that page), never the cases of a
language whose own card of the id is unchanged (``KbDiff.held``).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from recall_gate.core.coverage import cited_ids
from recall_gate.core.gates import new_cards_rule
from recall_gate.core.integrity import Problem
from recall_gate.core.records import Card, CaseLabel, CaseResult, Results

__all__ = [
    "REAUDIT_TURNOVER",
    "CardChange",
    "CardFile",
    "ChangeKind",
    "FileChange",
    "KbChanges",
    "KbDiff",
    "KbTurnover",
    "NewCardCoverage",
    "deleted_gold",
    "diff_kb",
    "follow_renames",
    "follow_renames_in_results",
    "kb_changes",
    "kb_turnover",
    "new_card_coverage",
]

ChangeKind = Literal["added", "edited", "renamed", "deleted"]
L = TypeVar("L", bound=CaseLabel)


@dataclass(frozen=True, kw_only=True)
class CardFile:
    """A card as one side of the diff has it, with its file's path as git names
    it (from the repository's root)."""

    card: Card
    path: str


@dataclass(frozen=True, kw_only=True)
class FileChange:
    """One file git lists as changed: its card at the base and in the pull
    request (``None`` where the file is no card, or absent)."""

    base: CardFile | None
    head: CardFile | None


@dataclass(frozen=True, kw_only=True)
class CardChange:
    """One changed card. ``card_id`` / ``path`` / ``title`` are the pull
    request's (the base's for a deletion); ``base_id`` the base's id."""

    kind: ChangeKind
    card_id: str
    base_id: str | None
    path: str
    title: str
    language: str
    text: bool  # title or body changed (added / deleted: always)

    @property
    def what(self) -> str:
        """How the report names the change (``edited: front matter only`` …)."""
        if self.kind == "edited":
            return "edited" if self.text else "edited: front matter only"
        if self.kind == "renamed":
            return f"renamed from {self.base_id}" + (", text edited" if self.text else "")
        return self.kind


def cites_change(
    case: CaseLabel, card_id: str, language: str, held: Mapping[str, frozenset[str]]
) -> bool:
    """Whether ``case`` cites ``language``'s card of ``card_id``: the id is among its
    gold or relevant ids, and the card is its language's, or its language has no
    card of that id in ``held`` (card id → the languages the KB holds it in; empty:
    not known, every case citing the id)."""
    if card_id not in cited_ids(case):
        return False
    return case.language == language or case.language not in held.get(card_id, ())


@dataclass(frozen=True, kw_only=True)
class KbDiff:
    """Every card change of a pull request, in path order; ``held``: the pull
    request's KB, card id → its languages (empty: not read)."""

    changes: tuple[CardChange, ...] = ()
    held: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def cites(self, case: CaseLabel, change: CardChange) -> bool:
        """Whether ``case`` cites the card ``change`` changes (by its id or its base id)."""
        return any(
            cites_change(case, ident, change.language, self.held)
            for ident in {change.card_id, change.base_id}
            if ident is not None
        )

    def of(self, kind: ChangeKind) -> tuple[CardChange, ...]:
        return tuple(c for c in self.changes if c.kind == kind)

    @property
    def renames(self) -> dict[str, str]:
        """Old card id → new card id, for every rename git followed."""
        return {c.base_id: c.card_id for c in self.of("renamed") if c.base_id is not None}

    @property
    def changed_ids(self) -> frozenset[str]:
        """The ids (base and new) of the cards the pull request edits or
        renames: a case citing one may move for this change."""
        changed = [c for c in self.changes if c.kind in ("edited", "renamed")]
        return frozenset({c.card_id for c in changed} | {c.base_id for c in changed if c.base_id})

    def new_cards(self, cases: Sequence[CaseLabel]) -> dict[str, tuple[str, ...]]:
        """Each card the pull request adds, with the cases citing it."""
        return {
            card.card_id: tuple(c.id for c in cases if self.cites(c, card))
            for card in self.of("added")
        }

    def cases_on_changed_cards(self, cases: Sequence[CaseLabel]) -> tuple[str, ...]:
        """The cases citing a card the pull request edits or renames."""
        changed = [c for c in self.changes if c.kind in ("edited", "renamed")]
        return tuple(case.id for case in cases if any(self.cites(case, c) for c in changed))

    def summary(self) -> str:
        """``3 edited, 2 added, 1 deleted`` (kinds with none left out)."""
        counts = [(len(self.of(kind)), kind) for kind in ("edited", "renamed", "added", "deleted")]
        return ", ".join(f"{n} {kind}" for n, kind in counts if n) or "no card changed"


def _change(base: CardFile | None, head: CardFile | None) -> CardChange | None:
    if head is None and base is None:
        return None
    if head is None:
        assert base is not None
        return CardChange(
            kind="deleted",
            card_id=base.card.id,
            base_id=base.card.id,
            path=base.path,
            title=base.card.title,
            language=base.card.language,
            text=True,
        )
    if base is None:
        kind: ChangeKind = "added"
        text = True
    else:
        text = (base.card.title, base.card.body) != (head.card.title, head.card.body)
        if base.card.id != head.card.id:
            kind = "renamed"
        elif text or base.card != head.card:
            kind = "edited"
        else:
            return None
    return CardChange(
        kind=kind,
        card_id=head.card.id,
        base_id=None if base is None else base.card.id,
        path=head.path,
        title=head.card.title,
        language=head.card.language,
        text=text,
    )


def diff_kb(files: Sequence[FileChange]) -> KbDiff:
    """The card changes of the changed files, in path order."""
    changes = [c for f in files if (c := _change(f.base, f.head)) is not None]
    return KbDiff(changes=tuple(sorted(changes, key=lambda c: (c.path, c.kind))))


def _named(change: CardChange, held: Mapping[str, frozenset[str]]) -> str:
    """A deleted card: ``'introduction'``, or ``'introduction' (zh)`` when the KB
    still holds that id in another language (it was a translation)."""
    return f"{change.card_id!r}" + (f" ({change.language})" if change.card_id in held else "")


def follow_renames(case: L, renames: Mapping[str, str]) -> L:
    """The case with every gold and relevant id a rename moved named by its new id."""
    if not renames or not any(i in renames for i in cited_ids(case)):
        return case
    gold = tuple(dict.fromkeys(renames.get(i, i) for i in case.must_cite_one_of))
    relevant = case.relevant_ids
    if relevant is not None:
        relevant = tuple(dict.fromkeys(renames.get(i, i) for i in relevant))
    return case.model_copy(update={"must_cite_one_of": gold, "relevant_ids": relevant})


R = TypeVar("R", bound=Results)


def _renamed(ids: Sequence[str], renames: Mapping[str, str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(renames.get(i, i) for i in ids))


def _result_renamed(case: CaseResult, renames: Mapping[str, str]) -> CaseResult:
    relevant, cited = case.relevant_ids, case.cited
    return case.model_copy(
        update={
            "must_cite_one_of": _renamed(case.must_cite_one_of, renames),
            "relevant_ids": None if relevant is None else _renamed(relevant, renames),
            "ranked_ids": tuple(renames.get(i, i) for i in case.ranked_ids),
            "cited": None if cited is None else _renamed(cited, renames),
        }
    )


def follow_renames_in_results(results: R, renames: Mapping[str, str]) -> R:
    """Results (a baseline) as if each renamed card had always had its new id:
    gold, relevant, ranked and cited ids. The baseline of a pull request that
    renames cards compares case by case with the run on the renamed KB."""
    if not renames:
        return results
    return results.model_copy(
        update={"cases": tuple(_result_renamed(c, renames) for c in results.cases)}
    )


def _likely_target(gone: CardChange, added: Sequence[CardChange]) -> CardChange | None:
    """The added card a deleted one most likely moved to: the same file name,
    else the closest title (a move git did not detect as a rename)."""
    name = gone.path.rsplit("/", 1)[-1]
    for card in added:
        if card.path.rsplit("/", 1)[-1] == name:
            return card
    titles = {card.title: card for card in added}
    near = difflib.get_close_matches(gone.title, list(titles), n=1, cutoff=0.6)
    return titles[near[0]] if near else None


def deleted_gold(diff: KbDiff, cases: Sequence[CaseLabel], *, ref: str) -> list[Problem]:
    """One integrity problem per card the pull request deletes that a case still
    cites (as gold or relevant id), naming every such case and, when an added
    card looks like its new place, that card."""
    added = diff.of("added")
    problems = []
    for gone in diff.of("deleted"):
        citing = [case.id for case in cases if diff.cites(case, gone)]
        if not citing:
            continue
        target = _likely_target(gone, added)
        if gone.card_id in diff.held:
            # A translation: its id still names the page in another language, which
            # is not the page these cases' readers asked for.
            moved = (
                "keep the translation, or remove those cases (or write them in a language "
                "that has the page)"
            )
        elif target is not None:
            moved = (
                f"if it moved to {target.card_id!r}, keep the move a rename git follows "
                "(`git mv`, the text mostly unchanged), or relabel them to that id"
            )
        else:
            moved = "relabel them to the card that now answers, or keep the card"
        # The base's cases judge a pull request: a relabel applies after its merge.
        moved += " in a pull request of its own first: the base's cases judge this one"
        problems.append(
            Problem(
                where=f"{ref}:{gone.path}",
                message=f"card {_named(gone, diff.held)} is deleted by this change but is "
                f"still cited by {len(citing)} case(s): {', '.join(citing)}",
                hint=moved,
            )
        )
    return problems


@dataclass(frozen=True, kw_only=True)
class KbChanges:
    """What the report says of a pull request's KB changes: each changed card
    with the judged cases citing it (by its base or its new id), the cases on
    edited or renamed cards (a group of their own in the comparison), and the
    new cards with the cases citing them."""

    changes: tuple[CardChange, ...]
    citing: Mapping[str, tuple[str, ...]]  # a change's card_id → case ids
    on_changed: tuple[str, ...]
    # False: the judged cases were not known (a capture that labels itself), so
    # "no case cites it" cannot be told and no gate reads ``citing``.
    cases_known: bool = True

    @property
    def new_cards(self) -> dict[str, tuple[str, ...]]:
        return {c.card_id: self.citing[c.card_id] for c in self.changes if c.kind == "added"}

    @property
    def renames(self) -> dict[str, str]:
        return KbDiff(changes=self.changes).renames


def kb_changes(diff: KbDiff, cases: Sequence[CaseLabel] | None) -> KbChanges:
    """The pull request's card changes with the cases citing each (``None``:
    the cases are not known)."""
    known = cases is not None
    cases = cases or ()
    citing: dict[str, tuple[str, ...]] = {}
    for change in diff.changes:  # a translated id's changes: their cases together
        cited = tuple(case.id for case in cases if diff.cites(case, change))
        citing[change.card_id] = tuple(dict.fromkeys((*citing.get(change.card_id, ()), *cited)))
    return KbChanges(
        changes=diff.changes,
        citing=citing,
        on_changed=diff.cases_on_changed_cards(cases),
        cases_known=known,
    )


@dataclass(frozen=True, kw_only=True)
class NewCardCoverage:
    """``gate.min_new_card_coverage`` applied: of the ``cards`` a pull request
    adds, ``cited`` have a case citing them; ``uncovered`` names the rest."""

    floor: float
    cited: int
    cards: int
    uncovered: tuple[str, ...]

    @property
    def share(self) -> float | None:
        return self.cited / self.cards if self.cards else None

    @property
    def failed(self) -> bool:
        """Below the floor; a pull request that adds no card has nothing to miss
        (:func:`~recall_gate.core.gates.new_cards_rule`)."""
        judged = new_cards_rule(
            {"min_new_card_coverage": self.floor}, {"cards": self.cards, "cited": self.cited}
        )
        return judged.outcome != "passes"


def new_card_coverage(
    new: Mapping[str, Sequence[str]], *, floor: float | None
) -> NewCardCoverage | None:
    """The floor on the share of new cards some case cites, applied to ``new``
    (each card a pull request adds → the cases citing it); ``None``: unset."""
    if floor is None:
        return None
    return NewCardCoverage(
        floor=floor,
        cited=sum(1 for cases in new.values() if cases),
        cards=len(new),
        uncovered=tuple(card for card, cases in new.items() if not cases),
    )


# Above this share of the KB changed since the baseline's commit, the report
# says the labels are worth re-auditing: gold written against pages that have
# since been rewritten, moved or removed is the first place recall rots.
REAUDIT_TURNOVER = 0.2


@dataclass(frozen=True, kw_only=True)
class KbTurnover:
    """Cards added, deleted, renamed or rewritten (text or title) since the
    baseline's commit ``ref``, out of every card either side had."""

    ref: str
    changed: int
    cards: int

    @property
    def share(self) -> float:
        return self.changed / self.cards if self.cards else 0.0

    @property
    def reaudit(self) -> bool:
        return self.share > REAUDIT_TURNOVER


def kb_turnover(diff: KbDiff, *, ref: str, cards_now: int) -> KbTurnover:
    """The turnover of a KB of ``cards_now`` cards since ``ref``; a change of
    front matter alone does not count (it changes no text a case was written
    against)."""
    changed = sum(1 for c in diff.changes if c.kind != "edited" or c.text)
    return KbTurnover(ref=ref, changed=changed, cards=cards_now + len(diff.of("deleted")))
