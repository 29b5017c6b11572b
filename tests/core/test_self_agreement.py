"""A/A: two captures of one revision compared; any top-k difference (order
included) names the retriever non-deterministic, with the share measured."""

from __future__ import annotations

import pytest

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.self_agreement import measure_self_agreement


def q(qid: str, weight: float) -> LoggedQuery:
    return LoggedQuery(id=qid, query=qid, weight=weight)


def test_identical_captures_are_deterministic() -> None:
    ranks = {"c1": ["a", "b"], "c2": ["b", "c"]}
    got = measure_self_agreement(
        [(ranks, dict(ranks))], queries=[q("x", 1)], logged=[({"x": ["a"]}, {"x": ["a"]})], k=2
    )
    assert got.deterministic
    assert got.runs == 2
    assert got.cases == 2


def test_a_tie_broken_otherwise_counts_as_a_change() -> None:
    got = measure_self_agreement(
        [({"c1": ["a", "b"], "c2": ["a", "b"]}, {"c1": ["b", "a"], "c2": ["a", "b"]})],
        queries=[q("x", 3), q("y", 1)],
        logged=[({"x": ["a", "b"], "y": ["a"]}, {"x": ["a", "b"], "y": ["z"]})],
        k=2,
    )
    assert not got.deterministic
    assert got.cases_changed == ("c1",)
    assert got.case_share == 0.5
    assert got.logged_changed == 1
    assert got.logged_moved_share == pytest.approx(1 / 4)  # y carries 1 of 4 units


def test_a_difference_below_rank_k_is_no_change() -> None:
    got = measure_self_agreement(
        [({"c1": ["a", "b", "c"]}, {"c1": ["a", "b", "d"]})], queries=[], logged=[({}, {})], k=2
    )
    assert got.deterministic
