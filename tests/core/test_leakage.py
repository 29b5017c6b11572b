"""Leakage (a query copied into a card) and near-duplicate cards (synthetic cards)."""

from __future__ import annotations

from recall_gate.core.leakage import find_leaks, find_near_duplicates, word_ngrams
from recall_gate.core.records import Card, Case


def card(card_id: str, body: str, title: str = "Title") -> Card:
    return Card(id=card_id, language="en", title=title, body=body)


def case(case_id: str, query: str) -> tuple[str, Case]:
    return (
        f"cases.yaml case {case_id}",
        Case(id=case_id, language="en", case_type="golden", query=query, must_cite_one_of=["a"]),
    )


REFILLS = card(
    "refills",
    "Prescription refills can be requested in the patient portal. Refills are processed "
    "within two business days; controlled substances need a visit.",
)
BILLING = card("billing", "Invoices are sent monthly. Pay online by card or by bank transfer.")


def test_word_ngrams_are_lower_cased_word_triples() -> None:
    # "Can I, refill?" → words can, i, refill → one 3-gram.
    assert word_ngrams("Can I, refill?") == {("can", "i", "refill")}
    assert word_ngrams("two words") == frozenset()


def test_query_copied_verbatim_into_a_card_is_named_with_the_card() -> None:
    leaks = find_leaks(
        [BILLING, REFILLS], [case("c1", "Refills are processed within two business days")]
    )
    assert [(leak.case_id, leak.card_id, leak.containment) for leak in leaks] == [
        ("c1", "refills", 1.0)
    ]
    assert str(leaks[0]) == (
        "cases.yaml case c1: the query of case 'c1' is copied into card 'refills' "
        "(100% of its 3-word sequences)"
    )


def test_paraphrased_query_is_not_a_leak() -> None:
    # 1 of its 5 trigrams ("within two business") occurs in the card: 20% < 80%.
    assert find_leaks([REFILLS], [case("c1", "is a refill done within two business days?")]) == []


def test_nearly_copied_query_at_the_threshold_is_a_leak() -> None:
    # 4 of the 5 trigrams of the query are in the card (the last word differs): 80%.
    query = "refills are processed within two business weeks"
    assert [leak.containment for leak in find_leaks([REFILLS], [case("c1", query)])] == [0.8]


def test_query_shorter_than_three_words_is_not_checked() -> None:
    assert find_leaks([REFILLS], [case("c1", "prescription refills")]) == []


def test_near_duplicate_cards_are_listed_once_per_pair() -> None:
    twin = card("refills-copy", REFILLS.body)
    pairs = find_near_duplicates([REFILLS, BILLING, twin])
    assert [(p.first, p.second) for p in pairs] == [("refills", "refills-copy")]
    assert pairs[0].jaccard == 1.0


def test_cards_sharing_a_sentence_are_not_near_duplicates() -> None:
    other = card(
        "portal",
        "Prescription refills can be requested in the patient portal. " * 1
        + "The portal also shows lab results, appointments and messages from your doctor.",
    )
    assert find_near_duplicates([REFILLS, other]) == []


def test_a_page_and_its_translation_are_no_near_duplicates() -> None:
    # One card id in two languages (an untranslated heading, a copied page): gold
    # that names the id names both, so neither scores the other as a miss.
    translated = REFILLS.model_copy(update={"language": "fr"})
    twin = card("refills-copy", REFILLS.body)
    pairs = find_near_duplicates([REFILLS, translated, twin])
    assert [(p.first, p.second) for p in pairs] == [
        ("refills", "refills-copy"),
        ("refills", "refills-copy"),
    ]
