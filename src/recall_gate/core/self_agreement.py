"""A/A: how much a retriever disagrees with itself (pure).

``capture --repeat 2`` asks every case and logged query twice, with nothing
changed in between. Whatever differs between the two captures is the
retriever's own noise: an approximate index built with another seed, a query
rewriter that samples, ties broken at random. A retriever whose top k differs
on any case or logged query is named non-deterministic in the report, with the
share measured, so a flip rate it shows on itself is not read as a regression.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.records import FLOAT_DIGITS

__all__ = ["SelfAgreement", "measure_self_agreement", "within_own_noise"]


class SelfAgreement(BaseModel):
    """Two captures of one revision compared: what changed between them."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    runs: int
    k: int
    cases: int
    cases_changed: tuple[str, ...]  # ids whose top-k cards differ between the runs
    logged: int
    logged_changed: int
    # The traffic-weighted share of the logged queries whose top k changed (order too).
    logged_moved_share: float

    @property
    def deterministic(self) -> bool:
        return not self.cases_changed and not self.logged_changed

    @property
    def case_share(self) -> float:
        return len(self.cases_changed) / self.cases if self.cases else 0.0


def _top(ranking: Sequence[str], k: int) -> tuple[str, ...]:
    return tuple(dict.fromkeys(ranking))[:k]


def measure_self_agreement(
    cases: Sequence[tuple[Mapping[str, Sequence[str]], Mapping[str, Sequence[str]]]],
    *,
    queries: Sequence[LoggedQuery],
    logged: Sequence[tuple[Mapping[str, Sequence[str]], Mapping[str, Sequence[str]]]],
    k: int,
) -> SelfAgreement:
    """The first capture against each repeat: ``cases`` and ``logged`` hold one
    (first, repeat) pair of rankings (id → card ids) per repeat. A case or a
    logged query counts as changed when any repeat's top k (its order too: a tie
    broken otherwise is noise) differs from the first's."""
    changed: set[str] = set()
    for first, again in cases:
        changed.update(i for i in first if i in again and _top(first[i], k) != _top(again[i], k))
    logged_changed = {
        q.id
        for first, again in logged
        for q in queries
        if q.id in first and q.id in again and _top(first[q.id], k) != _top(again[q.id], k)
    }
    answered = [q for q in queries if any(q.id in f and q.id in a for f, a in logged)]
    total = sum(q.weight for q in answered)
    moved = sum(q.weight for q in answered if q.id in logged_changed)
    share = moved / total if total else 0.0
    compared = {i for first, again in cases for i in first if i in again}
    return SelfAgreement(
        runs=len(cases) + 1,
        k=k,
        cases=len(compared),
        cases_changed=tuple(sorted(changed)),
        logged=len(answered),
        logged_changed=len(logged_changed),
        logged_moved_share=round(share, FLOAT_DIGITS),
    )


def within_own_noise(dropped: Collection[str], *, n: int, agreement: SelfAgreement) -> bool:
    """Whether a drop is no more than the retriever's own noise, as the A/A
    captures measured it: every case behind the drop (``dropped``: the ids of the
    group's cases whose value went down) is one whose top k changed between the
    identical captures, or the drop's flip rate (those cases' share of the
    group's ``n`` compared cases) is at most the share of cases the retriever
    changed on its own. A deterministic retriever has no such noise."""
    if agreement.deterministic or not dropped or n <= 0:
        return False
    if set(dropped) <= set(agreement.cases_changed):
        return True
    # Cross-multiplied: 3 of 30 is within 4 of 40 without a float's last bit.
    return len(set(dropped)) * agreement.cases <= len(agreement.cases_changed) * n
