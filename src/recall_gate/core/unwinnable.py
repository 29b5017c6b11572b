"""Unwinnable cases (pure): missed cases whose gold is at no depth the capture
recorded.

A case that misses at k is either ranked low (its gold is retrieved, deeper
than k: a ranking problem) or unwinnable (no card its labels name, gold or
relevant, is anywhere in what the retriever returned: the label names a card
the index cannot give for that query, or the index lost it — a labelling or
index problem, not a ranking one). Only a capture deeper than k can tell them
apart (``capture --k 50``, scored at ``--k 5``): a missed case whose capture
holds no more than k distinct cards is counted as *shallow*, not judged.
Reported, never gated.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from recall_gate.core.records import Unwinnable, UnwinnableCase

__all__ = ["UNWINNABLE_LISTED", "UnwinnableTally", "find_unwinnable"]

# The unwinnable cases listed by id; the rest are counted.
UNWINNABLE_LISTED = 50


class UnwinnableTally:
    """The unwinnable cases of a capture, one scored case at a time."""

    def __init__(self, *, k: int, listed: int = UNWINNABLE_LISTED) -> None:
        self.k = k
        self.listed = listed
        self.cases: list[tuple[str, int]] = []
        self.total = 0
        self.low = self.high = 0
        self.checked = 0
        self.shallow = 0

    def add(
        self,
        case_id: str,
        *,
        labelled: Collection[str],
        top: Collection[str],
        ranked: Iterable[str],
    ) -> None:
        """One scored case: ``labelled`` its gold and relevant ids, ``top`` the
        distinct cards of its top k, ``ranked`` every card id its capture holds
        (repeats allowed)."""
        if not labelled or any(card in labelled for card in top):
            return  # unlabelled, or a hit at k
        distinct = set(ranked)
        depth = len(distinct)
        if depth <= self.k:
            self.shallow += 1
            return
        self.checked += 1
        if distinct.isdisjoint(labelled):
            self.total += 1
            self.low = depth if self.total == 1 else min(self.low, depth)
            self.high = max(self.high, depth)
            if len(self.cases) < self.listed:
                self.cases.append((case_id, depth))

    def result(self) -> Unwinnable | None:
        """``None`` when no missed case was captured deeper than k (nothing told)."""
        if not self.checked:
            return None
        return Unwinnable(
            cases=tuple(UnwinnableCase(case_id=c, depth=d) for c, d in self.cases),
            total=self.total,
            depths=(self.low, self.high) if self.total else None,
            checked=self.checked,
            shallow=self.shallow,
        )


def find_unwinnable(
    cases: Iterable[tuple[str, Collection[str], Sequence[str]]],
    *,
    k: int,
    listed: int = UNWINNABLE_LISTED,
) -> Unwinnable | None:
    """:class:`UnwinnableTally` over ``(case id, labelled ids, ranked card ids)``."""
    tally = UnwinnableTally(k=k, listed=listed)
    for case_id, labelled, ranked in cases:
        top = list(dict.fromkeys(ranked))[:k]
        tally.add(case_id, labelled=labelled, top=top, ranked=ranked)
    return tally.result()
