"""Dataset integrity (always a gate): every problem is listed, with a hint."""

from __future__ import annotations

from typing import Any

from recall_gate.core.fingerprint import fingerprint_labels
from recall_gate.core.integrity import (
    Problem,
    find_problems,
    gold_as_card_ids,
    languages_without_cards,
)
from recall_gate.core.records import Card, Case
from recall_gate.core.site_urls import card_ids_with_urls


def card(card_id: str) -> Card:
    return Card(id=card_id, language="en", title="T", body="B")


def case(case_id: str, **fields: Any) -> Case:
    data = {
        "id": case_id,
        "language": "en",
        "case_type": "capability",
        "query": "q",
        "must_cite_one_of": [],
        **fields,
    }
    return Case.model_validate(data)


CARDS = [
    ("kb/refills.md", card("en-prescription-refills")),
    ("kb/appointments.md", card("en-appointments")),
    ("kb/billing.md", card("en-billing-questions")),
]


def test_a_clean_dataset_has_no_problems() -> None:
    cases = [
        ("c.yaml case #1 (id c1)", case("c1", must_cite_one_of=["en-appointments"])),
        (
            "c.yaml case #2 (id c2)",
            case(
                "c2",
                must_cite_one_of=["en-billing-questions"],
                relevant_ids=["en-billing-questions", "en-appointments"],
            ),
        ),
        ("c.yaml case #3 (id c3)", case("c3", case_type="capability")),
    ]
    assert find_problems(cards=CARDS, cases=cases) == []


def test_every_unresolved_id_is_listed_with_the_nearest_card_id() -> None:
    cases = [
        (
            "c.yaml case #1 (id c1)",
            case("c1", must_cite_one_of=["en-apointments", "en-prescription-refills"]),
        ),
        (
            "c.jsonl:2",
            case(
                "c2",
                must_cite_one_of=["en-billing-question"],
                relevant_ids=["zzz-unrelated", "en-billing-question"],
            ),
        ),
    ]
    assert [str(p) for p in find_problems(cards=CARDS, cases=cases)] == [
        "c.yaml case #1 (id c1): must_cite_one_of id 'en-apointments' resolves to no card "
        "(did you mean 'en-appointments'?)",
        "c.jsonl:2 (case c2): must_cite_one_of id 'en-billing-question' resolves to no card "
        "(did you mean 'en-billing-questions'?)",
        "c.jsonl:2 (case c2): relevant_ids id 'zzz-unrelated' resolves to no card "
        "(no similar card id)",
        "c.jsonl:2 (case c2): relevant_ids id 'en-billing-question' resolves to no card "
        "(did you mean 'en-billing-questions'?)",
    ]


def test_duplicate_card_and_case_ids_are_all_listed() -> None:
    cards = [
        *CARDS,
        ("kb/other.md", card("en-appointments")),
        ("kb/x.md", card("en-billing-questions")),
    ]
    cases = [
        ("c.yaml case #1 (id c1)", case("c1")),
        ("c.yaml case #2 (id c1)", case("c1")),
        ("d.yaml case #1 (id c1)", case("c1")),
    ]
    assert find_problems(cards=cards, cases=cases) == [
        Problem(
            where="kb/other.md",
            message="duplicate card id 'en-appointments'",
            hint="first defined at kb/appointments.md; give each card a unique id",
        ),
        Problem(
            where="kb/x.md",
            message="duplicate card id 'en-billing-questions'",
            hint="first defined at kb/billing.md; give each card a unique id",
        ),
        Problem(
            where="c.yaml case #2 (id c1)",
            message="duplicate case id 'c1'",
            hint="first defined at c.yaml case #1 (id c1); give each case a unique id",
        ),
        Problem(
            where="d.yaml case #1 (id c1)",
            message="duplicate case id 'c1'",
            hint="first defined at c.yaml case #1 (id c1); give each case a unique id",
        ),
    ]


def test_gold_resolves_against_every_card_even_a_duplicated_one() -> None:
    cards = [*CARDS, ("kb/dup.md", card("en-appointments"))]
    cases = [("c.yaml", case("c1", must_cite_one_of=["en-appointments"]))]
    problems = find_problems(cards=cards, cases=cases)
    assert [p.message for p in problems] == ["duplicate card id 'en-appointments'"]


def test_an_empty_kb_leaves_every_gold_id_unresolved() -> None:
    cases = [("c.yaml", case("c1", must_cite_one_of=["a", "b"]))]
    problems = find_problems(cards=[], cases=cases)
    assert [(p.message, p.hint) for p in problems] == [
        ("must_cite_one_of id 'a' resolves to no card", "no similar card id"),
        ("must_cite_one_of id 'b' resolves to no card", "no similar card id"),
    ]


def test_problem_without_hint_renders_without_parentheses() -> None:
    assert str(Problem(where="f", message="m")) == "f: m"


def test_same_language_counts_the_cases_of_each_language_without_cards() -> None:
    cards = [Card(id="a", language="en", title="T", body="B")]
    cases = [
        case("1", language="de"),
        case("2", language="de"),
        case("3"),
        case("4", language="es"),
    ]
    assert languages_without_cards(cards, cases) == {"de": 2, "es": 1}
    assert languages_without_cards(cards, [case("5")]) == {}


def test_a_golden_or_adversarial_case_without_gold_is_a_problem() -> None:
    cases = [
        ("c.yaml case #1 (id g)", case("g", case_type="golden")),
        ("c.yaml case #2 (id a)", case("a", case_type="adversarial")),
        ("c.yaml case #3 (id c)", case("c", case_type="capability")),
        ("c.yaml case #4 (id n)", case("n", case_type="no_match")),
    ]
    assert find_problems(cards=CARDS, cases=cases) == [
        Problem(
            where="c.yaml case #1 (id g)",
            message="a golden case with no gold: must_cite_one_of is empty",
            hint="list the card ids that answer it, or make it a capability or no_match case",
        ),
        # The right card must be retrieved even when the answer must refuse.
        Problem(
            where="c.yaml case #2 (id a)",
            message="an adversarial case with no gold: must_cite_one_of is empty",
            hint="list the card a refusal must rest on (the right card must be retrieved even "
            "when the answer must refuse), or make it a no_match case if no card applies",
        ),
    ]


def test_a_translation_is_the_same_card_id_in_another_language_not_a_duplicate() -> None:
    french = Card(id="intro", language="fr", title="T", body="B")
    cards = [("docs/intro.md", card("intro")), ("i18n/fr/intro.md", french)]
    assert find_problems(cards=cards, cases=[]) == []
    # A repeat within one language still is, named with its language.
    again = [*cards, ("docs/other.md", card("intro"))]
    assert [str(p) for p in find_problems(cards=again, cases=[])] == [
        "docs/other.md: duplicate card id 'intro' in language en (first defined at "
        "docs/intro.md; give each card a unique id)"
    ]


SITE_IDS = card_ids_with_urls(
    [
        ("en/docs/overview", ["/docs/overview/"]),
        ("en/docs/a", ["/docs/same/"]),
        ("en/docs/b", ["/docs/same/"]),
    ],
    languages=[("en/docs/overview", "en"), ("en/docs/a", "en"), ("en/docs/b", "en")],
)


def test_a_gold_url_or_path_is_read_as_the_card_whose_page_it_is() -> None:
    located = [
        ("c.yaml (id c1)", case("c1", must_cite_one_of=["https://x.org/docs/overview/"])),
        (
            "c.yaml (id c2)",
            case(
                "c2",
                must_cite_one_of=["/docs/overview"],
                relevant_ids=["docs/overview/", "en/docs/a"],
            ),
        ),
        ("c.yaml (id c3)", case("c3", must_cite_one_of=["en/docs/overview"])),
    ]
    resolved, read = gold_as_card_ids(located, SITE_IDS)
    assert [c.must_cite_one_of for _, c in resolved] == [("en/docs/overview",)] * 3
    assert resolved[1][1].relevant_ids == ("en/docs/overview", "en/docs/a")
    assert read == [
        ("https://x.org/docs/overview/", "en/docs/overview"),
        ("/docs/overview", "en/docs/overview"),
        ("docs/overview/", "en/docs/overview"),
    ]
    assert resolved[2][1] is located[2][1]  # card ids untouched
    # Resolved before fingerprinting: a URL and its card id label a case alike.
    assert fingerprint_labels([resolved[0][1].label()]) == fingerprint_labels(
        [case("c1", must_cite_one_of=["en/docs/overview"]).label()]
    )


def test_a_gold_url_two_cards_publish_stays_an_error_naming_both() -> None:
    located = [("c.yaml (id c1)", case("c1", must_cite_one_of=["/docs/same/"]))]
    resolved, read = gold_as_card_ids(located, SITE_IDS)
    assert read == []
    assert resolved[0][1].must_cite_one_of == ("/docs/same/",)
    problems = find_problems(cards=[], cases=resolved, card_ids=SITE_IDS)
    assert [str(p) for p in problems] == [
        "c.yaml (id c1): must_cite_one_of id '/docs/same/' is the page of 2 cards: "
        "'en/docs/a' and 'en/docs/b' (write the card id you mean)"
    ]


def test_a_gold_id_of_no_card_gets_the_nearest_card_of_its_language() -> None:
    ids = card_ids_with_urls(
        [("setup", []), ("setup-es", [])], languages=[("setup", "en"), ("setup-es", "es")]
    )
    located = [("c.yaml (id c1)", case("c1", language="es", must_cite_one_of=["setupp"]))]
    problems = find_problems(cards=[], cases=located, card_ids=ids)
    assert "did you mean 'setup-es'?" in str(problems[0])
    located = [("c.yaml (id c1)", case("c1", must_cite_one_of=["setupp"]))]
    assert "did you mean 'setup'?" in str(find_problems(cards=[], cases=located, card_ids=ids)[0])
