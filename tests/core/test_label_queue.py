"""The labelling queue: priority = weight × (1 − RBO_ext) × unjudged, where
unjudged is the share of a query's before ∪ after cards no labelled case covers."""

from __future__ import annotations

import pytest

from recall_gate.core.label_queue import rank_for_labelling
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.rank_overlap import rbo_ext


def q(qid: str, weight: float) -> LoggedQuery:
    return LoggedQuery(id=qid, query=qid, weight=weight)


def test_priority_is_weight_times_change_times_unjudged() -> None:
    queries = [q("a", 10), q("b", 10), q("c", 100), q("d", 1)]
    base = {"a": ["x", "y"], "b": ["x", "y"], "c": ["x", "y"], "d": ["u", "v"]}
    current = {"a": ["x", "z"], "b": ["x", "g"], "c": ["x", "y"], "d": ["w", "t"]}
    entries = rank_for_labelling(
        queries, base=base, current=current, gold=frozenset({"x", "g"}), k=2, top=10
    )
    by_id = {e.query.id: e for e in entries}
    # a: cards {x, y, z}, x judged → 2/3 unjudged; b: {x, y, g} → 1/3; d: all 4 unjudged.
    change = 1 - rbo_ext(["x", "y"], ["x", "z"])
    assert by_id["a"].priority == pytest.approx(10 * change * 2 / 3)
    assert by_id["b"].priority == pytest.approx(10 * change * 1 / 3)
    assert by_id["d"].priority == pytest.approx(1 * 1.0 * 1.0)
    assert "c" not in by_id  # unchanged: tells nothing about this change
    assert [e.query.id for e in entries] == sorted(by_id, key=lambda i: -by_id[i].priority)


def test_a_query_whose_cards_are_all_judged_is_not_queued() -> None:
    entries = rank_for_labelling(
        [q("a", 5)], base={"a": ["x"]}, current={"a": ["y"]}, gold=frozenset("xy"), k=2, top=5
    )
    assert entries == []


def test_the_queue_is_cut_to_top() -> None:
    queries = [q(f"q{i}", 1) for i in range(20)]
    entries = rank_for_labelling(
        queries,
        base={x.id: ["a"] for x in queries},
        current={x.id: ["b"] for x in queries},
        gold=frozenset(),
        k=1,
        top=7,
    )
    assert [e.query.id for e in entries] == sorted(x.id for x in queries)[:7]
