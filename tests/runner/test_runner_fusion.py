"""Weighted reciprocal rank fusion and parent expansion, with hand-computed numbers.

fused(d) = Σ_r w_r / (rrf_k + rank_r(d)), ranks from 1. With rrf_k = 60:
1/61 = 0.0163934, 1/62 = 0.0161290, 1/63 = 0.0158730.
"""

from __future__ import annotations

import pytest

from recall_gate.adapters.config import HybridSettings
from recall_gate.runner.expansion import ScoredChunk, expand_to_parents
from recall_gate.runner.fusion import reciprocal_rank_fusion
from recall_gate.runner.retrieval import fuse_hybrid

TOL = 1e-7


def fused(
    rankings: list[list[str]], weights: list[float], rrf_k: int = 60
) -> list[tuple[str, float]]:
    return reciprocal_rank_fusion(rankings, weights=weights, rrf_k=rrf_k)


def assert_fused(got: list[tuple[str, float]], want: list[tuple[str, float]]) -> None:
    assert [i for i, _ in got] == [i for i, _ in want]
    for (_, g), (_, w) in zip(got, want, strict=True):
        assert g == pytest.approx(w, abs=TOL)


def test_equal_weights() -> None:
    # dense [a, b, c], bm25 [c, a, d]:
    # a = 1/61 + 1/62 = 0.0325225; c = 1/63 + 1/61 = 0.0322665
    # b = 1/62 = 0.0161290;         d = 1/63 = 0.0158730
    assert_fused(
        fused([["a", "b", "c"], ["c", "a", "d"]], [1.0, 1.0]),
        [("a", 0.0325225), ("c", 0.0322665), ("b", 0.0161290), ("d", 0.0158730)],
    )


def test_weights_tilt_the_blend() -> None:
    # bm25 weight 2: a = 1/61 + 2/62 = 0.0486515; c = 1/63 + 2/61 = 0.0486599 (c now first)
    # d = 2/63 = 0.0317460 overtakes b = 1/62 = 0.0161290
    assert_fused(
        fused([["a", "b", "c"], ["c", "a", "d"]], [1.0, 2.0]),
        [("c", 0.0486599), ("a", 0.0486515), ("d", 0.0317460), ("b", 0.0161290)],
    )


def test_rrf_k_flattens_the_curve() -> None:
    # rrf_k = 1: a = 1/2 + 1/3 = 0.8333333; c = 1/4 + 1/2 = 0.75; b = 1/3; d = 1/4
    assert_fused(
        fused([["a", "b", "c"], ["c", "a", "d"]], [1.0, 1.0], rrf_k=1),
        [("a", 0.8333333), ("c", 0.75), ("b", 0.3333333), ("d", 0.25)],
    )


def test_ties_break_by_best_rank_then_id() -> None:
    # p = q = 1/61 + 1/62 and both reached rank 1 → by id; x = y = 1/63, both best rank 3.
    got = fused([["q", "p", "y"], ["p", "q", "x"]], [1.0, 1.0])
    assert [i for i, _ in got] == ["p", "q", "x", "y"]
    # Weights 61 and 62: b = 61/61 = 1.0 (rank 1), a = 62/62 = 1.0 (rank 2), zz = 62/61.
    # a and b tie exactly; b's best rank (1) beats a's (2) although "a" < "b".
    got = fused([["b"], ["zz", "a"]], [61.0, 62.0])
    assert got == [("zz", 62 / 61), ("b", 1.0), ("a", 1.0)]


def test_a_zero_weight_ranking_is_ignored() -> None:
    assert_fused(fused([["a"], ["b"]], [1.0, 0.0]), [("a", 1 / 61)])


def test_a_duplicate_within_one_ranking_counts_once() -> None:
    assert_fused(fused([["a", "a", "b"]], [1.0]), [("a", 1 / 61), ("b", 1 / 63)])


@pytest.mark.parametrize(
    ("rankings", "weights", "rrf_k", "message"),
    [
        ([["a"]], [1.0, 1.0], 60, "1 rankings but 2 weights"),
        ([["a"]], [1.0], 0, "rrf_k must be positive"),
        ([["a"]], [-1.0], 60, "non-negative"),
    ],
)
def test_invalid_arguments(
    rankings: list[list[str]], weights: list[float], rrf_k: int, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        reciprocal_rank_fusion(rankings, weights=weights, rrf_k=rrf_k)


def test_parent_expansion_keeps_each_cards_best_chunk_in_rank_order() -> None:
    ranking = [
        ScoredChunk("b#2", "b", 0.9),
        ScoredChunk("a#1", "a", 0.8),
        ScoredChunk("b#1", "b", 0.7),  # b already seen: dropped
        ScoredChunk("c#3", "c", 0.6),
        ScoredChunk("a#2", "a", 0.5),  # a already seen: dropped
    ]
    assert expand_to_parents(ranking) == [ranking[0], ranking[1], ranking[3]]


def test_fuse_hybrid_fuses_chunks_and_keeps_their_parents() -> None:
    dense = [ScoredChunk("a#1", "a", 0.9), ScoredChunk("b#1", "b", 0.8)]
    lexical = [ScoredChunk("c#2", "c", 7.5), ScoredChunk("a#1", "a", 3.0)]
    # a#1 = 1/61 + 1/62; c#2 = 1/61; b#1 = 1/62 → limit 2 cuts b#1.
    got = fuse_hybrid(dense, lexical, settings=HybridSettings(), limit=2)
    assert [(c.chunk_id, c.parent_id) for c in got] == [("a#1", "a"), ("c#2", "c")]
    assert got[0].score == pytest.approx(1 / 61 + 1 / 62, abs=TOL)
