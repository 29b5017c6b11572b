"""The cases behind a change (pure): one record per compared case that moved.

A case *moves* when any metric differs between the baseline and this run:

* ``lost``: hit@k went 1 → 0 (the gold card fell out of the top k);
* ``gained``: hit@k went 0 → 1;
* ``down`` / ``up``: hit@k is unchanged but recall@k or nDCG@k went down / up
  (a rank move inside the top k, or another relevant card in or out).

``card`` is the card whose rank is shown: for a flip, the gold card found on
the hit side; for a rank move, the best-ranked relevant card of the baseline
(of this run when the baseline had none). ``None`` ranks mean "out of the top
k" — or, when that side's ranking held fewer than k distinct cards
(``returned_before`` / ``returned_after``), "not retrieved": a card missing
from a 3-card answer was never returned, not pushed out of the top 5. Every
verdict row names its cases from these records.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from recall_gate.core.metric_registry import METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import CaseResult, RetrievedDetail

__all__ = ["CaseMove", "Direction", "find_moves", "missed_cases", "returned_short"]

Direction = Literal["lost", "gained", "down", "up"]
# Per-case metric values are compared at stored precision; this absorbs float noise.
_EPSILON = 1e-9


@dataclass(frozen=True, kw_only=True)
class CaseMove:
    """One compared case whose scores changed, with what a reviewer needs to find it."""

    case_id: str
    language: str
    case_type: str
    query: str | None
    direction: Direction
    card: str
    rank_before: int | None
    rank_after: int | None
    before: Mapping[str, float] = field(default_factory=dict)
    after: Mapping[str, float] = field(default_factory=dict)
    # What this run retrieved instead: its top k card ids, best first.
    retrieved: tuple[str, ...] = ()
    # The distinct cards a side's ranking held when fewer than k (None: it held k).
    returned_before: int | None = None
    returned_after: int | None = None
    # What the retriever said of the cards of `retrieved` (chunk id, metadata), when anything.
    retrieved_detail: Mapping[str, RetrievedDetail] | None = None

    def change(self, metric: str) -> float:
        """This case's change of ``metric`` (current − baseline); 0 when one side
        lacks it (a baseline made before the metric existed)."""
        if metric not in self.before or metric not in self.after:
            return 0.0
        return self.after[metric] - self.before[metric]


def _rank(ranked_ids: Sequence[str], card: str, k: int) -> int | None:
    top = list(dict.fromkeys(ranked_ids))[:k]
    return top.index(card) + 1 if card in top else None


def returned_short(ranked_ids: Sequence[str], k: int) -> int | None:
    """The distinct cards of a ranking when they are fewer than k, else None."""
    held = len(dict.fromkeys(ranked_ids))
    return held if held < k else None


def _first_of(case: CaseResult, cards: Sequence[str], k: int) -> str | None:
    wanted = set(cards)
    for card in list(dict.fromkeys(case.ranked_ids))[:k]:
        if card in wanted:
            return card
    return None


def _relevance(case: CaseResult) -> tuple[str, ...]:
    return case.relevant_ids if case.relevant_ids is not None else case.must_cite_one_of


def _move(before: CaseResult, after: CaseResult, k: int) -> CaseMove | None:
    b, a = before.metrics, after.metrics
    if all(abs(b[m] - a[m]) <= _EPSILON for m in METRIC_KEYS if m in b and m in a):
        return None
    direction: Direction
    if b[HIT] != a[HIT]:
        direction = "lost" if b[HIT] > a[HIT] else "gained"
        hit_side = before if direction == "lost" else after
        card = _first_of(hit_side, hit_side.must_cite_one_of, k) or hit_side.must_cite_one_of[0]
    else:
        worse = (a[NDCG] - b[NDCG], a[RECALL] - b[RECALL]) < (0.0, 0.0)
        direction = "down" if worse else "up"
        relevant = _relevance(after)
        card = _first_of(before, relevant, k) or _first_of(after, relevant, k) or relevant[0]
    return CaseMove(
        case_id=after.case_id,
        language=after.language,
        case_type=after.case_type,
        query=after.query or before.query,
        direction=direction,
        card=card,
        rank_before=_rank(before.ranked_ids, card, k),
        rank_after=_rank(after.ranked_ids, card, k),
        before=dict(b),
        after=dict(a),
        retrieved=tuple(dict.fromkeys(after.ranked_ids))[:k],
        returned_before=returned_short(before.ranked_ids, k),
        returned_after=returned_short(after.ranked_ids, k),
        retrieved_detail=after.retrieved_detail,
    )


def find_moves(pairs: Sequence[tuple[CaseResult, CaseResult]], *, k: int) -> tuple[CaseMove, ...]:
    """Every scored (baseline, current) pair whose metrics differ, in the pairs' order."""
    out = []
    for before, after in pairs:
        if before.metrics and after.metrics:
            move = _move(before, after, k)
            if move is not None:
                out.append(move)
    return tuple(out)


def missed_cases(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """Scored cases with no gold card in the top k (hit@k = 0): the first report's list."""
    return tuple(c for c in cases if c.metrics and not c.metrics.get(HIT))
