"""The metric triad of the decision record: hand-computed tables and one test per rule.

Discounts used in the comments (rank r → 1/log2(r+1)):
r1 = 1, r2 = 0.6309, r3 = 0.5, r4 = 0.4307, r5 = 0.3869.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

import pytest

from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import (
    HIT,
    NDCG,
    RECALL,
    dedupe_first,
    ideal_dcg,
    score_ranking,
    top_k,
)

TOL = 5e-5  # the tables carry 4 decimals


def hit_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return score_ranking(ranking, gold=gold, k=k)[HIT]


def recall_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return score_ranking(ranking, gold=gold, k=k)[RECALL]


def ndcg_at_k(ranking: Sequence[str], gold: AbstractSet[str], k: int) -> float:
    return score_ranking(ranking, gold=gold, k=k)[NDCG]


# --- hand-computed tables -----------------------------------------------------

HIT_TABLE = [
    # ranking, gold, k, expected
    (("a",), {"a"}, 1, 1.0),  # a at rank 1 ≤ k
    (("x", "a"), {"a"}, 1, 0.0),  # a at rank 2 > k = 1
    (("x", "a"), {"a"}, 2, 1.0),  # a at rank 2 ≤ k = 2
    (("x", "x", "a"), {"a"}, 2, 1.0),  # dedupe → x, a: a at rank 2 ≤ k
    (("x", "y", "z"), {"a", "b"}, 3, 0.0),  # no gold card retrieved
    ((), {"a"}, 5, 0.0),  # nothing retrieved
    (("b",), {"a", "b"}, 1, 1.0),  # disjunctive gold: one of two cards is enough
    (("x", "y", "z", "w", "v", "a"), {"a"}, 5, 0.0),  # a at rank 6 > k = 5
]

RECALL_TABLE = [
    # ranking, gold, k, expected
    (("a", "x", "b"), {"a", "b"}, 3, 1.0),  # |{a, b}| / |{a, b}| = 2/2
    (("a", "x", "b"), {"a", "b"}, 2, 0.5),  # top 2 = a, x: 1/2
    (("x", "y"), {"a"}, 2, 0.0),  # 0/1
    (("a", "b"), {"a", "b", "c"}, 2, 0.6667),  # |gold| > k: 2/3, cannot reach 1 (trec_eval)
    (("a", "a", "b"), {"a", "b"}, 2, 1.0),  # dedupe → a, b: 2/2
    (("b", "c", "a"), {"a", "b", "c", "d"}, 3, 0.75),  # 3/4
    ((), {"a"}, 5, 0.0),  # nothing retrieved: 0/1
    (("a",), {"a", "b"}, 5, 0.5),  # disjunctive gold, contract met: still 1/2 (lower bound)
]

NDCG_TABLE = [
    # ranking, gold, k, expected
    # DCG = 1/log2(2) = 1; IDCG(1) = 1; 1/1 = 1.0
    (("a", "b", "c"), {"a"}, 3, 1.0),
    # DCG = 1/log2(3) = 0.6309; IDCG(1) = 1; 0.6309/1 = 0.6309
    (("x", "a", "c"), {"a"}, 3, 0.6309),
    # DCG = 1/log2(2) + 1/log2(4) = 1.5; IDCG(2) = 1 + 1/log2(3) = 1.6309; 1.5/1.6309 = 0.9197
    (("a", "x", "b"), {"a", "b"}, 3, 0.9197),
    # DCG = 1/log2(3) + 1/log2(5) = 0.6309 + 0.4307 = 1.0616; IDCG(2) = 1.6309; 0.6509
    (("x", "a", "y", "b"), {"a", "b"}, 4, 0.6509),
    # DCG = 1/log2(3) + 1/log2(4) = 1.1309; IDCG(3) = 1 + 0.6309 + 0.5 = 2.1309; 0.5307
    (("x", "a", "b"), {"a", "b", "c"}, 3, 0.5307),
    # |gold| = 3 > k = 2: IDCG cut at k = IDCG(2) = 1.6309 = DCG(a, b); 1.0
    (("a", "b"), {"a", "b", "c"}, 2, 1.0),
    # |gold| = 5 > k = 2: IDCG(min(5, 2)) = 1.6309 = DCG(a, c); 1.0
    (("a", "c"), {"a", "b", "c", "d", "e"}, 2, 1.0),
    # DCG = 1/log2(4) = 0.5; IDCG(3) = 2.1309; 0.5/2.1309 = 0.2346
    (("x", "y", "a"), {"a", "b", "c"}, 3, 0.2346),
    # ranking shorter than k: DCG = 1; IDCG(min(2, 5)) = 1.6309; 1/1.6309 = 0.6131
    (("a",), {"a", "b"}, 5, 0.6131),
    # nothing retrieved: DCG = 0; 0.0
    ((), {"a"}, 5, 0.0),
    # a at rank 2 > k = 1: DCG = 0; 0.0
    (("x", "a"), {"a"}, 1, 0.0),
    # dedupe → a, b: DCG = 1 + 0.6309 = 1.6309 = IDCG(2); 1.0 (a counted once)
    (("a", "a", "b"), {"a", "b"}, 2, 1.0),
    # dedupe → x, a: DCG = 1/log2(3) = 0.6309; IDCG(1) = 1; 0.6309 (a not pushed out)
    (("x", "x", "a"), {"a"}, 2, 0.6309),
    # dedupe → x, a, b: DCG = 0.6309 + 0.5 = 1.1309; IDCG(2) = 1.6309; 0.6934
    (("x", "a", "x", "b", "a"), {"a", "b"}, 3, 0.6934),
]


@pytest.mark.parametrize(("ranking", "gold", "k", "expected"), HIT_TABLE)
def test_hit_at_k_table(ranking: tuple[str, ...], gold: set[str], k: int, expected: float) -> None:
    assert hit_at_k(ranking, gold, k) == expected
    assert score_ranking(ranking, gold=frozenset(gold), k=k)[HIT] == expected


@pytest.mark.parametrize(("ranking", "gold", "k", "expected"), RECALL_TABLE)
def test_recall_at_k_table(
    ranking: tuple[str, ...], gold: set[str], k: int, expected: float
) -> None:
    assert recall_at_k(ranking, gold, k) == pytest.approx(expected, abs=TOL)
    assert score_ranking(ranking, gold=frozenset(gold), k=k)[RECALL] == pytest.approx(
        expected, abs=TOL
    )


@pytest.mark.parametrize(("ranking", "gold", "k", "expected"), NDCG_TABLE)
def test_ndcg_at_k_table(ranking: tuple[str, ...], gold: set[str], k: int, expected: float) -> None:
    assert ndcg_at_k(ranking, gold, k) == pytest.approx(expected, abs=TOL)
    assert score_ranking(ranking, gold=frozenset(gold), k=k)[NDCG] == pytest.approx(
        expected, abs=TOL
    )


# --- one named test per rule --------------------------------------------------


def test_dedup_before_cut_duplicate_cannot_double_count_gain() -> None:
    # Without de-duplication "a" would earn gain at ranks 1, 2 and 3:
    # recall 3/2 and DCG 2.1309 over IDCG(2) = 1.6309, both above 1.
    ranking = ["a", "a", "a"]
    gold = frozenset({"a", "b"})
    assert recall_at_k(ranking, gold, 3) == 0.5  # 1/2
    assert ndcg_at_k(ranking, gold, 3) == pytest.approx(1 / (1 + 1 / math.log2(3)))  # 0.6131
    assert score_ranking(ranking, gold=gold, k=3) == {
        HIT: 1.0,
        RECALL: 0.5,
        NDCG: pytest.approx(0.6131, abs=TOL),
    }


def test_dedup_before_cut_duplicate_cannot_hide_a_later_card() -> None:
    # Cutting before de-duplication would keep x, x and drop a (rank 3 of the raw list).
    ranking = ["x", "x", "a"]
    gold = frozenset({"a"})
    assert top_k(ranking, 2) == ["x", "a"]
    assert score_ranking(ranking, gold=gold, k=2) == {
        HIT: 1.0,
        RECALL: 1.0,
        NDCG: pytest.approx(1 / math.log2(3)),  # a at distinct rank 2: 0.6309
    }


def test_ndcg_ideal_cut_at_k_never_exceeds_one_when_gold_exceeds_k() -> None:
    gold = frozenset({"a", "b", "c", "d", "e"})
    for k in (1, 2, 3, 4):
        ranking = sorted(gold)[:k]  # a perfect top k: every slot holds a gold card
        assert ndcg_at_k(ranking, gold, k) == pytest.approx(1.0)
        assert score_ranking(ranking, gold=gold, k=k)[NDCG] <= 1.0
        # The ideal ranking holds min(|gold|, k) cards, not |gold|.
        assert ideal_dcg(len(gold), k) == ideal_dcg(k, k)


# --- helpers and edge cases ----------------------------------------------------


def test_dedupe_first_keeps_first_occurrence_order() -> None:
    assert dedupe_first(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


@pytest.mark.parametrize("k", [0, -1])
def test_a_non_positive_k_is_rejected(k: int) -> None:
    gold = frozenset({"a"})
    with pytest.raises(ValueError, match=f"k must be a positive integer, got {k}"):
        top_k(["a"], k)
    with pytest.raises(ValueError, match=f"k must be a positive integer, got {k}"):
        score_ranking(["a"], gold=gold, k=k)


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 200, 1000])
def test_ideal_dcg_matches_the_direct_sum_past_the_precomputed_table(n: int) -> None:
    # The discount table grows on demand; its prefix sums must stay exact.
    direct = math.fsum(1 / math.log2(rank + 1) for rank in range(1, n + 1))
    assert ideal_dcg(n, n) == pytest.approx(direct, rel=1e-12)
    assert ideal_dcg(n + 5, n) == ideal_dcg(n, n)
    assert ideal_dcg(0, n) == 0.0


def test_ndcg_at_large_k_uses_the_grown_discounts() -> None:
    # Gold at distinct rank 300 of 300: DCG = 1/log2(301); IDCG(1) = 1.
    ranking = [f"x{i}" for i in range(299)] + ["a"]
    assert ndcg_at_k(ranking, {"a"}, 300) == pytest.approx(1 / math.log2(301))
    assert score_ranking(ranking, gold=frozenset({"a"}), k=300)[NDCG] == pytest.approx(
        1 / math.log2(301)
    )


def test_score_ranking_returns_the_three_keys_of_the_adr() -> None:
    assert set(score_ranking(["a"], gold=frozenset({"a"}), k=1)) == set(DEFAULT_METRIC_KEYS)
    assert DEFAULT_METRIC_KEYS == (
        "retrieval_hit_at_k",
        "retrieval_recall_at_k",
        "retrieval_ndcg_at_k",
    )


def test_score_ranking_emits_no_keys_for_empty_gold() -> None:
    assert score_ranking(["a", "b"], gold=frozenset(), k=5) == {}
    assert score_ranking(["a", "b"], gold=frozenset(), relevant=frozenset({"a"}), k=5) == {}


def test_score_ranking_emits_no_keys_for_an_empty_relevance_set() -> None:
    assert score_ranking(["a"], gold=frozenset({"a"}), relevant=frozenset(), k=5) == {}


def test_score_ranking_hit_on_gold_recall_and_ndcg_on_relevant() -> None:
    # gold {a} is not retrieved; relevant {b, c}: b at rank 1.
    # hit = 0; recall = 1/2; DCG = 1; IDCG(2) = 1.6309; nDCG = 0.6131
    scores = score_ranking(["b", "x"], gold=frozenset({"a"}), relevant=frozenset({"b", "c"}), k=2)
    assert scores == {HIT: 0.0, RECALL: 0.5, NDCG: pytest.approx(0.6131, abs=TOL)}


def test_score_ranking_accepts_a_relevance_set_equal_to_gold() -> None:
    gold = frozenset({"a", "b"})
    same = score_ranking(["a", "x"], gold=gold, relevant=frozenset({"a", "b"}), k=2)
    assert same == score_ranking(["a", "x"], gold=gold, k=2)
