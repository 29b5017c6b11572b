"""The base's oracle from its baseline's case records, and what relabels a case (pure).

A capture that labels itself is judged by the case records of the base's
baseline: a line that states another label or query than its record is
relabelled; a field the line leaves out states nothing. Synthetic ids only.
"""

from __future__ import annotations

from typing import Any

import pytest

from recall_gate.core.base_judging import (
    oracle_from_records,
    plan_cases,
    relabelled_as_cards,
    relabels,
)
from recall_gate.core.records import Artifact, Case, CaseLabel, CaseResult
from recall_gate.core.site_urls import card_ids_with_urls
from recall_gate.errors import InputError


def record(**fields: Any) -> CaseResult:
    values: dict[str, Any] = {
        "case_id": "case-01",
        "language": "en",
        "case_type": "golden",
        "query": "how do I reset my password",
        "metrics": {"retrieval_hit_at_k": 1.0},
        "ranked_ids": ("password",),
        "must_cite_one_of": ("password", "account"),
    }
    values.update(fields)
    return CaseResult(**values)


def line(**fields: Any) -> Artifact:
    return Artifact(case_id="case-01", retrieved=("password",), **fields)


BASE = Case(
    id="case-01",
    language="en",
    case_type="golden",
    query="how do I reset my password",
    must_cite_one_of=("password", "account"),
)


def test_a_record_with_its_query_is_a_case_as_the_base_had_it() -> None:
    [case] = oracle_from_records([record()], source="baselines/default.json")
    assert case == BASE


def test_a_record_without_a_query_is_a_label_only() -> None:
    [case] = oracle_from_records([record(query=None)], source="baselines/default.json")
    assert type(case) is CaseLabel
    assert case.must_cite_one_of == ("password", "account")


def test_a_record_that_breaks_the_label_rules_is_an_input_error_naming_the_baseline() -> None:
    broken = record(must_cite_one_of=(), relevant_ids=("password",))
    with pytest.raises(InputError, match=r"^main:baselines/default.json: the record of case"):
        oracle_from_records([broken], source="main:baselines/default.json")


def test_a_line_with_the_same_labels_does_not_relabel() -> None:
    assert not relabels(
        BASE,
        line(
            language="en",
            case_type="golden",
            must_cite_one_of=("password", "account"),
            query="how do I reset my password",
        ),
    )


def test_gold_is_a_set_its_order_relabels_nothing() -> None:
    assert not relabels(BASE, line(must_cite_one_of=("account", "password")))


def test_a_field_the_line_leaves_out_states_nothing() -> None:
    assert not relabels(BASE, line())


@pytest.mark.parametrize(
    "changed",
    [
        {"must_cite_one_of": ("password",)},
        {"must_cite_one_of": ()},
        {"relevant_ids": ("password",)},
        {"language": "de"},
        {"case_type": "adversarial"},
        {"query": "an easier question"},
    ],
    ids=["gold", "no-gold", "relevant", "language", "type", "query"],
)
def test_a_line_that_states_another_label_or_query_relabels(changed: dict[str, Any]) -> None:
    assert relabels(BASE, line(**changed))


def test_a_query_is_not_compared_when_the_record_has_none() -> None:
    label = CaseLabel(
        id="case-01", language="en", case_type="golden", must_cite_one_of=("password",)
    )
    assert not relabels(label, line(query="anything"))


def test_a_gold_id_written_as_its_page_url_relabels_nothing() -> None:
    cards = card_ids_with_urls([("en/a", ["/docs/a/"]), ("en/b", ["/docs/b/"])])
    as_id = Case(id="q1", language="en", case_type="golden", query="a?", must_cite_one_of=("en/a",))
    as_url = as_id.model_copy(update={"must_cite_one_of": ("https://docs.example.org/docs/a/",)})
    other = as_id.model_copy(update={"id": "q2", "must_cite_one_of": ("en/a",)})
    moved = other.model_copy(update={"must_cite_one_of": ("/docs/b/",)})  # another card
    for base, pull_request in ((as_id, as_url), (as_url, as_id)):
        plan = plan_cases(base=[base, other], pull_request=[pull_request, moved])
        assert plan.relabelled == ("q1", "q2")  # as written, both differ
        read = relabelled_as_cards(plan, cards)
        assert read.relabelled == ("q2",)
        assert [c.must_cite_one_of for c in read.pull_request_versions] == [("en/b",)]
