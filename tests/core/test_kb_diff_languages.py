"""The KB diff counts (language, id) cards (core/kb_diff.py, core/card_language.py):
a change to one translation of a page concerns the cases of its language, and
those of a language with no page of that id, never the others'."""

from __future__ import annotations

from recall_gate.core.kb_diff import CardChange, KbDiff, deleted_gold, kb_changes
from recall_gate.core.records import CaseLabel

# `index` in English and French (MkDocs' i18n plugin: docs/index.fr.md), `faq` in English.
HELD = {"index": frozenset({"en", "fr"}), "faq": frozenset({"en"})}


def change(kind: str, card_id: str, language: str) -> CardChange:
    return CardChange(
        kind=kind,  # type: ignore[arg-type]
        card_id=card_id,
        base_id=card_id,
        path=f"docs/{card_id}.{language}.md",
        title="T",
        language=language,
        text=True,
    )


def case(case_id: str, language: str, gold: str) -> CaseLabel:
    return CaseLabel(id=case_id, language=language, case_type="golden", must_cite_one_of=(gold,))


CASES = [
    case("en-home", "en", "index"),
    case("fr-home", "fr", "index"),
    case("en-faq", "en", "faq"),
    case("fr-faq", "fr", "faq"),  # French readers are served the English FAQ
]


def test_an_edit_of_a_translation_concerns_the_cases_of_its_language_only() -> None:
    changes = kb_changes(KbDiff(changes=(change("edited", "index", "fr"),), held=HELD), CASES)
    assert changes.on_changed == ("fr-home",)
    assert changes.citing == {"index": ("fr-home",)}


def test_an_edit_of_an_untranslated_page_concerns_the_readers_served_it() -> None:
    changes = kb_changes(KbDiff(changes=(change("edited", "faq", "en"),), held=HELD), CASES)
    assert changes.on_changed == ("en-faq", "fr-faq")


def test_a_deleted_translation_names_the_cases_of_its_language_and_its_language() -> None:
    diff = KbDiff(changes=(change("deleted", "index", "fr"),), held={"index": frozenset({"en"})})
    (problem,) = deleted_gold(diff, CASES, ref="main")
    assert problem.message == (
        "card 'index' (fr) is deleted by this change but is still cited by 1 case(s): fr-home"
    )
    assert problem.hint == (
        "keep the translation, or remove those cases (or write them in a language that has "
        "the page) in a pull request of its own first: the base's cases judge this one"
    )


def test_without_the_kbs_languages_every_case_citing_the_id_is_concerned() -> None:
    changes = kb_changes(KbDiff(changes=(change("edited", "index", "fr"),)), CASES)
    assert changes.on_changed == ("en-home", "fr-home")
