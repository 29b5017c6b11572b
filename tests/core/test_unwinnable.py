"""Unwinnable at depth N: a missed case none of whose labelled cards is at any
depth the capture recorded (core/unwinnable.py), on synthetic captures."""

from __future__ import annotations

from recall_gate.core.records import Unwinnable, UnwinnableCase
from recall_gate.core.unwinnable import find_unwinnable


def deep(*front: str, depth: int = 10) -> list[str]:
    """A capture line of ``depth`` distinct cards, ``front`` first."""
    return [*front, *(f"other-{i}" for i in range(depth - len(front)))]


def test_a_missed_case_whose_gold_is_at_no_captured_depth_is_unwinnable_at_that_depth() -> None:
    found = find_unwinnable([("q1", {"gold"}, deep(depth=20))], k=5)
    assert found == Unwinnable(
        cases=(UnwinnableCase(case_id="q1", depth=20),), total=1, depths=(20, 20), checked=1
    )


def test_a_missed_case_whose_gold_is_deeper_than_k_is_ranked_low_not_unwinnable() -> None:
    ranked = deep(depth=20)
    ranked[12] = "gold"
    assert find_unwinnable([("q1", {"gold"}, ranked)], k=5) == Unwinnable(checked=1)


def test_a_relevant_card_deeper_than_k_makes_the_case_winnable() -> None:
    ranked = deep(depth=20)
    ranked[7] = "relevant"
    assert find_unwinnable([("q1", {"gold", "relevant"}, ranked)], k=5) == Unwinnable(checked=1)


def test_a_hit_at_k_is_neither_checked_nor_shallow() -> None:
    assert find_unwinnable([("q1", {"gold"}, deep("gold", depth=3))], k=5) is None
    assert find_unwinnable([("q1", {"gold"}, deep("x", "gold", depth=20))], k=5) is None


def test_depth_counts_distinct_cards_so_repeated_chunks_of_one_card_add_none() -> None:
    # Ten chunks of three pages: 3 distinct cards, no deeper than k = 5.
    ranked = ["a", "a", "b", "b", "b", "c", "c", "a", "b", "c"]
    assert find_unwinnable([("q1", {"gold"}, ranked)], k=5) is None


def test_missed_cases_captured_no_deeper_than_k_are_shallow_and_not_judged() -> None:
    found = find_unwinnable(
        [
            ("shallow", {"gold"}, deep(depth=5)),
            ("deep", {"gold"}, deep(depth=8)),
            ("unlabelled", set(), deep(depth=8)),
        ],
        k=5,
    )
    assert found == Unwinnable(
        cases=(UnwinnableCase(case_id="deep", depth=8),),
        total=1,
        depths=(8, 8),
        checked=1,
        shallow=1,
    )


def test_nothing_is_told_when_no_missed_case_was_captured_deeper_than_k() -> None:
    assert find_unwinnable([("q1", {"gold"}, deep(depth=5))], k=5) is None


def test_the_first_unwinnable_cases_are_listed_and_all_are_counted_with_their_depths() -> None:
    lines = [(f"q{i}", {"gold"}, deep(depth=10 + i)) for i in range(5)]
    found = find_unwinnable(lines, k=5, listed=2)
    assert found is not None
    assert [c.case_id for c in found.cases] == ["q0", "q1"]
    assert (found.total, found.depths, found.checked) == (5, (10, 14), 5)
