"""Which logged queries to label next (pure): where a change moved real traffic
onto results no labelled case covers.

Each logged query compared with the base snapshot gets a priority::

    weight × (1 − RBO_ext) × unjudged

``unjudged`` is the share of the distinct cards of its two top-k lists (base
and current) that no labelled case names as gold (``must_cite_one_of`` or
``relevant_ids``): a query whose results the gold set already covers needs no
new label, one that did not move tells nothing about this change. Queries of
priority 0 are left out; ties go by id.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.rank_overlap import DEFAULT_PERSISTENCE, rbo_ext

__all__ = ["QueueEntry", "rank_for_labelling"]


@dataclass(frozen=True, kw_only=True)
class QueueEntry:
    query: LoggedQuery
    before: tuple[str, ...]
    after: tuple[str, ...]
    rbo: float
    unjudged: float

    @property
    def priority(self) -> float:
        return self.query.weight * (1.0 - self.rbo) * self.unjudged


def rank_for_labelling(
    queries: Sequence[LoggedQuery],
    *,
    base: Mapping[str, Sequence[str]],
    current: Mapping[str, Sequence[str]],
    gold: frozenset[str],
    k: int,
    top: int,
    p: float = DEFAULT_PERSISTENCE,
) -> list[QueueEntry]:
    """The ``top`` logged queries most worth labelling, highest priority first."""
    entries = []
    for logged in queries:
        if logged.id not in base or logged.id not in current:
            continue
        before = tuple(dict.fromkeys(base[logged.id]))[:k]
        after = tuple(dict.fromkeys(current[logged.id]))[:k]
        if before == after:
            continue
        cards = set(before) | set(after)
        entry = QueueEntry(
            query=logged,
            before=before,
            after=after,
            rbo=rbo_ext(before, after, p=p),
            unjudged=len(cards - gold) / len(cards),
        )
        if entry.priority > 0:
            entries.append(entry)
    entries.sort(key=lambda e: (-e.priority, e.query.id))
    return entries[:top]
