"""How much of a capture maps to no KB card, per language and case type (pure).

A retriever whose ids do not map (URLs where card ids were expected, one
language's paths under another root) scores every miss as a retrieval failure:
a group where nothing maps reads 0.000, and a pull request that deletes that
group's pages passes. So a capture is refused, not scored, when in any group
with retrieved documents **none** maps to a card, or more than
:data:`MAX_OUTSIDE_SHARE` of them map to none. Pages outside the KB under that
share (a blog post, release notes in the same index) stay what they were:
non-relevant results at their rank.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["MAX_OUTSIDE_SHARE", "GroupTally", "OutsideTally"]

# An index may hold more than the KB (a blog, API pages, other products' docs),
# so a group may retrieve many pages outside it; more than 90 % outside is a
# mapping problem, not such an index.
MAX_OUTSIDE_SHARE = 0.9


@dataclass
class GroupTally:
    """One group's retrieved documents, those outside the KB, and three of them."""

    retrieved: int = 0
    outside: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def share(self) -> float:
        return self.outside / self.retrieved if self.retrieved else 0.0

    def unusable(self) -> bool:
        """Nothing maps, or more than the documented share does not."""
        return self.retrieved > 0 and (
            self.outside == self.retrieved or self.share > MAX_OUTSIDE_SHARE
        )


@dataclass
class OutsideTally:
    """Per-group tallies, keyed ``("language", "en")`` / ``("case type", "golden")``."""

    groups: dict[tuple[str, str], GroupTally] = field(default_factory=dict)

    def add(
        self,
        *,
        language: str | None,
        case_type: str | None,
        retrieved: int,
        outside: Sequence[str],
    ) -> None:
        for kind, name in (("language", language), ("case type", case_type)):
            if name is None:
                continue
            tally = self.groups.setdefault((kind, name), GroupTally())
            tally.retrieved += retrieved
            tally.outside += len(outside)
            for ident in outside:
                if len(tally.examples) < 3 and ident not in tally.examples:
                    tally.examples.append(ident)

    def shares(self, kind: str) -> dict[str, float]:
        """The outside-KB share of each group of ``kind``, rounded to 4 places."""
        return {
            name: round(tally.share, 4)
            for (k, name), tally in sorted(self.groups.items())
            if k == kind and tally.retrieved
        }

    def first_unusable(self) -> tuple[str, str, GroupTally] | None:
        """The first group (languages first) whose capture cannot be scored."""
        for (kind, name), tally in sorted(self.groups.items()):
            if tally.unusable():
                return kind, name, tally
        return None
