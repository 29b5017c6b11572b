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

__all__ = ["UnwinnableTally", "find_unwinnable"]


class UnwinnableTally:
    """The unwinnable cases of a capture, one scored case at a time."""

    def __init__(self, *, k: int) -> None:
        self.k = k
        self.cases: list[UnwinnableCase] = []
        self.checked = 0
        self.shallow = 0

    def add(self, case_id: str, *, labelled: Collection[str], ranked: Sequence[str]) -> None:
        """One scored case: ``labelled`` its gold and relevant ids, ``ranked``
        every card id its capture holds, in rank order (repeats allowed)."""
        if not labelled:
            return
        distinct = list(dict.fromkeys(ranked))
        if any(card in labelled for card in distinct[: self.k]):
            return  # a hit at k
        if len(distinct) <= self.k:
            self.shallow += 1
            return
        self.checked += 1
        if not any(card in labelled for card in distinct):
            self.cases.append(UnwinnableCase(case_id=case_id, depth=len(distinct)))

    def result(self) -> Unwinnable | None:
        """``None`` when no missed case was captured deeper than k (nothing told)."""
        if not self.checked:
            return None
        return Unwinnable(cases=tuple(self.cases), checked=self.checked, shallow=self.shallow)


def find_unwinnable(
    cases: Iterable[tuple[str, Collection[str], Sequence[str]]], *, k: int
) -> Unwinnable | None:
    """:class:`UnwinnableTally` over ``(case id, labelled ids, ranked card ids)``."""
    tally = UnwinnableTally(k=k)
    for case_id, labelled, ranked in cases:
        tally.add(case_id, labelled=labelled, ranked=ranked)
    return tally.result()
