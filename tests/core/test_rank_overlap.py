"""Rank overlap: RBO_ext (Webber, Moffat & Zobel 2010, Eq. 32), Jaccard@k, top-1 changed.

RBO_ext is checked to 1e-9 against the paper's published values and against an
independent exact-fraction reading of Eq. 32 (prefix sets recomputed at every
depth, no running counts), on fixed and generated rankings."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from recall_gate.core.rank_overlap import jaccard_at_k, rbo_ext, top1_changed


def exact_rbo_ext(first: str | list[str], second: str | list[str], p: Fraction) -> Fraction:
    """Eq. 32 term by term in exact arithmetic: X_d = |S[:d] ∩ L[:d]|."""
    a, b = list(dict.fromkeys(first)), list(dict.fromkeys(second))
    short, long_ = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long_)

    def x(d: int) -> int:
        return len(set(short[:d]) & set(long_[:d]))

    x_s, x_l = x(s), x(ell)
    head = sum((Fraction(x(d), d) * p**d for d in range(1, ell + 1)), Fraction(0))
    tail = sum((Fraction(x_s * (d - s), s * d) * p**d for d in range(s + 1, ell + 1)), Fraction(0))
    return (1 - p) / p * (head + tail) + (Fraction(x_l - x_s, ell) + Fraction(x_s, s)) * p**ell


PUBLISHED = [
    # (first, second, RBO_ext at p = 0.9)
    ("abcde", "edcba", 0.737775),
    ("abcdefg", "zcavwxy", 0.288217286),  # Webber et al. 2010, Fig. 5
    ("NHMACFL", "CGNA", 0.490383643),  # uneven lengths (Eq. 32 proper)
    ("abcdefg", "abcdefghij", 1.0),  # prefix-consistent: the longer extends the shorter
    ("abcdefg", "abcdefg", 1.0),
    ("abcdefg", "uvwxyz", 0.0),
]


@pytest.mark.parametrize(("first", "second", "expected"), PUBLISHED)
def test_rbo_ext_equals_the_published_values(first: str, second: str, expected: float) -> None:
    got = rbo_ext(list(first), list(second), p=0.9)
    # The paper prints 9 decimals; the exact value must round to them.
    assert got == pytest.approx(expected, abs=5e-10)
    assert got == pytest.approx(float(exact_rbo_ext(first, second, Fraction(9, 10))), abs=1e-9)


def test_rbo_ext_equals_the_exact_fraction_definition_on_random_rankings() -> None:
    rng = random.Random(28)
    alphabet = [f"card-{i}" for i in range(15)]
    for _ in range(300):
        first = rng.sample(alphabet, rng.randint(1, 10))
        second = rng.sample(alphabet, rng.randint(1, 10))
        p = Fraction(rng.choice([5, 7, 9, 95]), 100 if rng.random() < 0.25 else 10)
        if not 0 < p < 1:
            p = Fraction(9, 10)
        exact = exact_rbo_ext(first, second, p)
        assert rbo_ext(first, second, p=float(p)) == pytest.approx(float(exact), abs=1e-9)
        assert rbo_ext(second, first, p=float(p)) == pytest.approx(float(exact), abs=1e-9)


def test_rbo_ext_of_identical_lists_is_one_and_of_disjoint_lists_zero() -> None:
    assert rbo_ext(["a", "b", "c"], ["a", "b", "c"]) == pytest.approx(1.0, abs=1e-12)
    assert rbo_ext(["a", "b", "c"], ["x", "y", "z", "w"]) == 0.0


def test_rbo_ext_of_two_empty_lists_is_one_and_of_one_empty_list_zero() -> None:
    assert rbo_ext([], []) == 1.0
    assert rbo_ext(["a"], []) == 0.0
    assert rbo_ext([], ["a"]) == 0.0


def test_rbo_ext_counts_a_repeated_card_at_its_first_rank() -> None:
    assert rbo_ext(["a", "a", "b"], ["a", "b"]) == pytest.approx(1.0)


def test_rbo_ext_refuses_a_persistence_outside_zero_one() -> None:
    for p in (0.0, 1.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="p must be strictly between 0 and 1"):
            rbo_ext(["a"], ["a"], p=p)


def test_rbo_ext_weighs_the_top_more_than_the_tail() -> None:
    # One swap at ranks 1-2 moves RBO more than one swap at ranks 4-5.
    base = list("abcde")
    assert rbo_ext(base, list("bacde")) < rbo_ext(base, list("abced")) < 1.0


def test_jaccard_at_k_is_the_overlap_of_the_two_top_k_sets() -> None:
    # {a,b,c} vs {b,c,d}: 2 shared of 4 cards in all.
    assert jaccard_at_k(["a", "b", "c"], ["b", "c", "d"], k=3) == pytest.approx(2 / 4)
    # Order inside the top k does not count.
    assert jaccard_at_k(["a", "b", "c"], ["c", "b", "a"], k=3) == 1.0
    # Only the first k count: ranks 4+ differ, the top 2 agree.
    assert jaccard_at_k(["a", "b", "x"], ["a", "b", "y"], k=2) == 1.0


def test_jaccard_at_k_of_two_empty_lists_is_one() -> None:
    assert jaccard_at_k([], [], k=5) == 1.0
    assert jaccard_at_k(["a"], [], k=5) == 0.0


def test_top1_changed_compares_the_first_cards() -> None:
    assert not top1_changed(["a", "b"], ["a", "c"])
    assert top1_changed(["a", "b"], ["b", "a"])
    assert top1_changed(["a"], [])
    assert not top1_changed([], [])
