"""Label rot (pure): gold whose card was rewritten since its case was written.

A case's gold was chosen against the card as it read then. When the card has
since been rewritten, the label may no longer hold: the answer moved to another
page, or the page now answers another question. recall-gate approximates "since
the case was written" by the last commit of the case's cases file, and "since"
by the card file's changes between that commit and the checked-out one: a card
whose words are less than :data:`REWRITE_SIMILARITY` alike (difflib's ratio over
the words of its title and text) is *rewritten*, and each case citing it (gold
or relevant id) is a label worth re-auditing. Reported, never gated.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.core.coverage import cited_ids
from recall_gate.core.kb_diff import FileChange
from recall_gate.core.records import Card, CaseLabel

__all__ = ["REWRITE_SIMILARITY", "RottenLabel", "card_similarity", "rotten_labels"]

# Below this share of words alike (difflib's ratio), a card is rewritten: half
# its words gone or replaced is more than a reworded paragraph.
REWRITE_SIMILARITY = 0.5


@dataclass(frozen=True, kw_only=True)
class RottenLabel:
    """A case citing a card rewritten since ``since`` (its cases file's last
    commit); ``similarity``: how alike the card's words are then and now."""

    case_id: str
    card_id: str
    similarity: float
    since: str


def _words(card: Card) -> list[str]:
    return [*card.title.split(), *card.body.split()]


def card_similarity(before: Card, after: Card) -> float:
    """difflib's ratio over the words of the title and text: 1.0 the same, 0.0
    nothing in common."""
    return difflib.SequenceMatcher(None, _words(before), _words(after), autojunk=False).ratio()


def rotten_labels(
    cases: Sequence[CaseLabel],
    changes: Sequence[FileChange],
    *,
    since: str,
    threshold: float = REWRITE_SIMILARITY,
) -> tuple[RottenLabel, ...]:
    """The cases citing a card whose file changed since ``since`` and whose words
    are less than ``threshold`` alike (a card added or deleted since is no rewrite:
    a gold id that no longer resolves is an integrity error of its own)."""
    rewritten: dict[str, float] = {}
    for change in changes:
        if change.base is None or change.head is None:
            continue
        similarity = card_similarity(change.base.card, change.head.card)
        if similarity < threshold:
            rewritten[change.base.card.id] = similarity
            rewritten[change.head.card.id] = similarity
    out = []
    for case in cases:
        for card_id in cited_ids(case):
            if card_id in rewritten:
                out.append(
                    RottenLabel(
                        case_id=case.id,
                        card_id=card_id,
                        similarity=rewritten[card_id],
                        since=since,
                    )
                )
    return tuple(out)
