"""The metric definitions of the decision record, written the plain way, one metric at a
time: the oracle the one-pass ``score_ranking`` is checked against."""

from __future__ import annotations

import math
from collections.abc import Iterable, Set


def top(ranking: Iterable[str], k: int) -> list[str]:
    """The first k distinct ids, duplicates dropped by first occurrence before the cut."""
    return list(dict.fromkeys(ranking))[:k]


def hit_at_k(ranking: Iterable[str], gold: Set[str], k: int) -> float:
    return 1.0 if any(card in gold for card in top(ranking, k)) else 0.0


def recall_at_k(ranking: Iterable[str], gold: Set[str], k: int) -> float:
    return sum(1 for card in top(ranking, k) if card in gold) / len(gold)


def ndcg_at_k(ranking: Iterable[str], gold: Set[str], k: int) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, card in enumerate(top(ranking, k)) if card in gold)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(gold), k)))
    return dcg / ideal
