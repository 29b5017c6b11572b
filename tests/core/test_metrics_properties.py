"""Properties of the metric triad that must hold for every ranking (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from reference_metrics import hit_at_k, ndcg_at_k, recall_at_k

from recall_gate.core.metrics import (
    HIT,
    NDCG,
    RECALL,
    dedupe_first,
    score_ranking,
)

# A small id alphabet makes overlaps between ranking and gold, and duplicates, common.
IDS = st.sampled_from([f"card-{i}" for i in range(10)])
RANKINGS = st.lists(IDS, max_size=20)
GOLD = st.frozensets(IDS, min_size=1, max_size=6)
KS = st.integers(min_value=1, max_value=25)

SETTINGS = settings(max_examples=300, deadline=None)


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, k=KS)
def test_every_metric_lies_between_zero_and_one(
    ranking: list[str], gold: frozenset[str], k: int
) -> None:
    for value in (hit_at_k(ranking, gold, k), recall_at_k(ranking, gold, k)):
        assert 0.0 <= value <= 1.0
    assert 0.0 <= ndcg_at_k(ranking, gold, k) <= 1.0 + 1e-12
    for value in score_ranking(ranking, gold=gold, k=k).values():
        assert 0.0 <= value <= 1.0 + 1e-12


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, k=KS)
def test_recall_and_ndcg_never_exceed_hit(ranking: list[str], gold: frozenset[str], k: int) -> None:
    scores = score_ranking(ranking, gold=gold, k=k)
    assert scores[RECALL] <= scores[HIT]
    assert scores[NDCG] <= scores[HIT] + 1e-12
    # Without a separate relevance set, any gain means a hit and vice versa.
    assert (scores[RECALL] > 0) == (scores[HIT] == 1.0) == (scores[NDCG] > 0)


@st.composite
def ranking_with_late_duplicates(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """A ranking, and the same ranking with copies of ids inserted after their
    first occurrence (anywhere later, including the end)."""
    ranking = draw(st.lists(IDS, min_size=1, max_size=15))
    noisy = list(ranking)
    for _ in range(draw(st.integers(min_value=1, max_value=10))):
        at = draw(st.integers(min_value=0, max_value=len(noisy) - 1))
        # Insert a copy of noisy[at] somewhere after position `at`.
        to = draw(st.integers(min_value=at + 1, max_value=len(noisy)))
        noisy.insert(to, noisy[at])
    return ranking, noisy


@SETTINGS
@given(pair=ranking_with_late_duplicates(), gold=GOLD, k=KS)
def test_duplicates_after_the_first_occurrence_change_nothing(
    pair: tuple[list[str], list[str]], gold: frozenset[str], k: int
) -> None:
    ranking, noisy = pair
    assert dedupe_first(noisy) == dedupe_first(ranking)
    assert hit_at_k(noisy, gold, k) == hit_at_k(ranking, gold, k)
    assert recall_at_k(noisy, gold, k) == recall_at_k(ranking, gold, k)
    assert ndcg_at_k(noisy, gold, k) == ndcg_at_k(ranking, gold, k)
    assert score_ranking(noisy, gold=gold, k=k) == score_ranking(ranking, gold=gold, k=k)


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, k=KS)
def test_hit_and_recall_are_monotonic_in_k(
    ranking: list[str], gold: frozenset[str], k: int
) -> None:
    assert hit_at_k(ranking, gold, k) <= hit_at_k(ranking, gold, k + 1)
    assert recall_at_k(ranking, gold, k) <= recall_at_k(ranking, gold, k + 1)


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, k=KS)
def test_score_ranking_equals_the_individual_functions(
    ranking: list[str], gold: frozenset[str], k: int
) -> None:
    assert score_ranking(ranking, gold=gold, k=k) == {
        HIT: hit_at_k(ranking, gold, k),
        RECALL: recall_at_k(ranking, gold, k),
        NDCG: ndcg_at_k(ranking, gold, k),
    }


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, relevant=GOLD, k=KS)
def test_score_ranking_with_relevant_ids_equals_the_individual_functions(
    ranking: list[str], gold: frozenset[str], relevant: frozenset[str], k: int
) -> None:
    assert score_ranking(ranking, gold=gold, relevant=relevant, k=k) == {
        HIT: hit_at_k(ranking, gold, k),
        RECALL: recall_at_k(ranking, relevant, k),
        NDCG: ndcg_at_k(ranking, relevant, k),
    }


@SETTINGS
@given(ranking=RANKINGS, gold=GOLD, k=KS)
def test_a_perfect_ranking_scores_one(ranking: list[str], gold: frozenset[str], k: int) -> None:
    # Every gold card first (as many as fit), then the rest.
    perfect = sorted(gold) + [card for card in ranking if card not in gold]
    scores = score_ranking(perfect, gold=gold, k=k)
    assert scores[HIT] == 1.0
    assert scores[RECALL] == min(len(gold), k) / len(gold)
    assert abs(scores[NDCG] - 1.0) < 1e-12
