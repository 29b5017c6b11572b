"""KB coverage: the share of cards some case cites (gold or relevant), overall
and per card language, and the cases citing each card."""

from __future__ import annotations

from typing import Any

from recall_gate.core.coverage import kb_coverage, render_coverage
from recall_gate.core.records import Card, CaseLabel


def card(card_id: str, language: str = "en") -> Card:
    return Card(id=card_id, language=language, title="T", body="B")


def label(case_id: str, **fields: Any) -> CaseLabel:
    data = {"id": case_id, "language": "en", "case_type": "golden", **fields}
    return CaseLabel.model_validate(data)


CARDS = [card("a"), card("b"), card("c"), card("d", "de"), card("e", "de")]


def test_a_card_cited_as_gold_or_relevant_is_covered() -> None:
    cases = [
        label("q1", must_cite_one_of=["a"]),
        label("q2", must_cite_one_of=["a"], relevant_ids=["a", "c"]),
    ]
    coverage = kb_coverage(CARDS, cases)
    assert coverage.citing == {
        ("en", "a"): ("q1", "q2"),
        ("en", "b"): (),
        ("en", "c"): ("q2",),
        ("de", "d"): (),
        ("de", "e"): (),
    }
    assert coverage.uncovered == ("b", "d", "e")


def test_coverage_is_counted_per_card_language() -> None:
    # en: a, c covered of a, b, c → 2/3; de: d covered (by an English case) of d, e → 1/2.
    cases = [label("q1", must_cite_one_of=["a", "c"]), label("q2", must_cite_one_of=["d"])]
    coverage = kb_coverage(CARDS, cases)
    assert (coverage.overall.covered, coverage.overall.cards) == (3, 5)
    assert {k: (v.covered, v.cards) for k, v in coverage.by_language.items()} == {
        "de": (1, 2),
        "en": (2, 3),
    }
    assert render_coverage(coverage) == (
        "KB coverage: 3 of 5 cards (60.0%) cited by a case — de 1/2 (50.0%), en 2/3 (66.7%)"
    )


def test_a_gold_id_no_card_has_counts_nowhere() -> None:
    coverage = kb_coverage(CARDS, [label("q1", must_cite_one_of=["gone"])])
    assert coverage.overall.covered == 0
    assert ("en", "gone") not in coverage.citing


def test_a_case_citing_a_card_twice_is_listed_once() -> None:
    coverage = kb_coverage(CARDS, [label("q1", must_cite_one_of=["a"], relevant_ids=["a"])])
    assert coverage.citing["en", "a"] == ("q1",)


def test_an_empty_kb_has_no_share() -> None:
    coverage = kb_coverage([], [label("q1", must_cite_one_of=["a"])])
    assert coverage.overall.share is None
    assert render_coverage(coverage) == "KB coverage: 0 of 0 cards (n/a) cited by a case"


def test_a_card_in_no_cases_top_k_is_never_retrieved_per_language() -> None:
    from recall_gate.core.coverage import kb_retrieved, render_never_retrieved

    # Retrieved a, d and an id outside the KB; never: b, c (en) and e (de).
    counts = kb_retrieved(CARDS, {"a", "d", "outside"})
    assert (counts.overall.covered, counts.overall.cards) == (2, 5)
    assert render_never_retrieved(counts, k=3, baseline=kb_retrieved(CARDS, {"a", "b", "d"})) == (
        "Never retrieved: 3 of 5 cards (60.0%) in no case's top 3 — de 1/2, en 2/3 "
        "(baseline: 2 of 5)"
    )


def test_never_retrieved_names_the_logged_queries_it_counts_and_a_baseline_counted_otherwise() -> (
    None
):
    from recall_gate.core.coverage import kb_retrieved, render_never_retrieved

    counts = kb_retrieved(CARDS, {"a", "b", "d"}, logged_queries=1204)
    assert render_never_retrieved(counts, k=3, baseline=kb_retrieved(CARDS, {"a"})) == (
        "Never retrieved: 2 of 5 cards (40.0%) in the top 3 of no case and no logged query "
        "(1,204 queries) — de 1/2, en 1/3 (baseline: 4 of 5, without logged queries)"
    )
