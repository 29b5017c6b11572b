"""Retrieval metrics over ranked id sequences (docs/decisions/retrieval-recall.md).

Conventions, shared by every function here:

* A ranking is a sequence of card ids, best first. It is de-duplicated by
  first occurrence **before** the cut at ``k``: a stray duplicate can neither
  count twice nor push a later card out of the top k.
* ``gold`` is a set of card ids. Every function assumes it is non-empty; the
  evaluator never scores a case with empty gold (no gold, no score).
* Relevance is binary: every gold card has gain 1.

Definitions (``top`` = the first ``k`` distinct ids of the ranking):

* ``retrieval_hit_at_k``    = 1.0 if ``gold ∩ top`` is non-empty, else 0.0.
  Matches trec_eval ``success_k``.
* ``retrieval_recall_at_k`` = ``|gold ∩ top| / |gold|``. A conservative lower
  bound under disjunctive gold. Matches trec_eval ``recall_k``.
* ``retrieval_ndcg_at_k``   = ``DCG / IDCG`` with ``DCG = Σ 1/log2(rank+1)``
  over gold cards at 1-based ``rank ≤ k`` and ``IDCG`` the same sum over the
  ideal ranking cut at ``k``, i.e. over ranks ``1..min(|gold|, k)``; so the
  value never exceeds 1.0. Matches trec_eval ``ndcg_cut_k`` (binary qrels).

On request (``metrics:``), over the relevance set ``relevant`` (``relevant_ids``
if set, else gold):

* ``retrieval_mrr_at_k``       = ``1 / rank`` of the first relevant card in
  ``top``, else 0.0. Matches trec_eval ``recip_rank`` computed on the top k.
* ``retrieval_precision_at_k`` = ``|relevant ∩ top| / k``: divided by k even
  when fewer than k cards came back. Matches trec_eval ``P_k``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence, Set
from itertools import accumulate, islice

__all__ = [
    "DEFAULT_K",
    "HIT",
    "MRR",
    "NDCG",
    "PRECISION",
    "RECALL",
    "dedupe_first",
    "discounts",
    "ideal_dcg",
    "precision_at_k",
    "reciprocal_rank_at_k",
    "score_ranking",
    "score_top",
    "top_k",
]

HIT = "retrieval_hit_at_k"
RECALL = "retrieval_recall_at_k"
NDCG = "retrieval_ndcg_at_k"
MRR = "retrieval_mrr_at_k"
PRECISION = "retrieval_precision_at_k"
# The cut-off when neither a flag nor the config sets k.
DEFAULT_K = 5

# Discount 1/log2(rank+1) for 0-based position i (rank = i + 1) and its
# prefix sums (the ideal DCG of n relevant cards); grown on demand for large k.
_DISCOUNT: list[float] = []
_IDEAL: list[float] = [0.0]


def _grow(n: int) -> None:
    start = len(_DISCOUNT)
    if n <= start:
        return
    new = [1.0 / math.log2(i + 2) for i in range(start, max(n, 2 * start, 64))]
    _DISCOUNT.extend(new)
    _IDEAL.extend(accumulate(new, initial=_IDEAL[-1]))
    del _IDEAL[start + 1]  # accumulate repeats the initial value


def discounts(n: int) -> list[float]:
    """The rank discounts ``1/log2(rank+1)`` of ranks 1..n (0-based positions), as
    :func:`score_top` sums them; their prefix sums from 0.0 are the ideal DCGs."""
    _grow(n)
    return _DISCOUNT[:n]


def dedupe_first(ids: Iterable[str]) -> list[str]:
    """Ids in first-occurrence order, later duplicates dropped."""
    return list(dict.fromkeys(ids))


def top_k(ranking: Iterable[str], k: int) -> list[str]:
    """The first ``k`` distinct ids of ``ranking`` (de-duplicated before the cut)."""
    if k <= 0:
        raise ValueError(f"k must be a positive integer, got {k}")
    return list(islice(dict.fromkeys(ranking), k))


def ideal_dcg(n_relevant: int, k: int) -> float:
    """DCG of the ideal ranking cut at k: ranks 1..min(n_relevant, k)."""
    n = min(n_relevant, k)
    _grow(n)
    return _IDEAL[n]


def score_ranking(
    ranking: Sequence[str],
    *,
    gold: Set[str],
    relevant: Set[str] | None = None,
    k: int,
) -> dict[str, float]:
    """The metric triad for one ranking in one pass.

    ``gold`` is the disjunctive citation field (``must_cite_one_of``): hit@k is
    computed on it. ``relevant`` (``relevant_ids``, when a case carries it) is
    the relevance set for recall@k and nDCG@k; it defaults to ``gold``.
    Returns ``{}`` when the relevance set is empty (no gold, no score).
    """
    return score_top(ranking, gold=gold, relevant=relevant, k=k)[1]


def score_top(
    ranking: Sequence[str],
    *,
    gold: Set[str],
    relevant: Set[str] | None = None,
    k: int,
) -> tuple[list[str], dict[str, float]]:
    """:func:`top_k` of the ranking and :func:`score_ranking`'s metrics, in one pass."""
    rel = gold if relevant is None else relevant
    if k <= 0:
        if gold and rel:
            top_k(ranking, k)  # raises the ValueError
        return [], {}
    # Hot loop (the scorer calls this per case): inlined top_k/ideal_dcg.
    top = list(dict.fromkeys(ranking))[:k]
    if not gold or not rel:
        return top, {}
    if len(top) > len(_DISCOUNT):
        _grow(len(top))
    # The relevant cards in the top k (a C-level intersection for the usual frozenset).
    found_cards = (
        rel.intersection(top) if isinstance(rel, frozenset | set) else {c for c in top if c in rel}
    )
    found = len(found_cards)
    dcg = 0.0
    if found:
        discount = _DISCOUNT
        for i in sorted(map(top.index, found_cards)):  # summed in rank order
            dcg += discount[i]
    n_rel = len(rel)
    n_ideal = n_rel if n_rel < k else k
    if n_ideal >= len(_IDEAL):
        _grow(n_ideal)
    # With no separate relevance set, a relevant card found is a gold card found.
    hit_found = found if rel is gold else not gold.isdisjoint(top)
    return top, {
        HIT: 1.0 if hit_found else 0.0,
        RECALL: found / n_rel,
        NDCG: dcg / _IDEAL[n_ideal],
    }


def reciprocal_rank_at_k(top: Sequence[str], gold: Set[str], relevant: Set[str], k: int) -> float:
    """``retrieval_mrr_at_k`` of one case: 1/rank of the first relevant card in ``top``
    (the first k distinct cards), else 0."""
    for rank, card in enumerate(top[:k], start=1):
        if card in relevant:
            return 1.0 / rank
    return 0.0


def precision_at_k(top: Sequence[str], gold: Set[str], relevant: Set[str], k: int) -> float:
    """``retrieval_precision_at_k`` of one case: relevant cards in ``top`` divided by k."""
    return sum(1 for card in top[:k] if card in relevant) / k
