"""A card is (language, id): the rules of core/card_language.py, one test each."""

from __future__ import annotations

from recall_gate.core.card_language import (
    address_language,
    place_in_language,
    told_language,
    translated_ids,
)
from recall_gate.core.records import RetrievedItem
from recall_gate.core.site_urls import card_ids_with_urls

ZH = "i18n/zh/docusaurus-plugin-content-docs/current"
# A Docusaurus site: `introduction` in English and Chinese, `faq` in English only.
PLACED = [
    ("introduction", "en", "site/docs/introduction.md", ["/docs/introduction/"]),
    ("introduction", "zh", f"site/{ZH}/introduction.md", ["/zh/docs/introduction/"]),
    ("faq", "en", "site/docs/faq.md", ["/docs/faq/"]),
]
IDS = card_ids_with_urls(
    [(i, urls) for i, _, _, urls in PLACED],
    languages=[(i, language) for i, language, _, _ in PLACED],
    placed=PLACED,
)
WRITTEN = IDS.languages


def test_an_id_in_two_languages_is_translated_and_one_in_one_language_is_not() -> None:
    assert translated_ids(IDS) == {"introduction"}
    assert translated_ids(card_ids_with_urls([("a", ())], languages=[("a", "en")])) == set()


def test_a_page_url_tells_the_language_of_the_card_publishing_it() -> None:
    assert address_language("https://x.org/zh/docs/introduction", "introduction", IDS) == "zh"
    assert address_language("/docs/introduction/", "introduction", IDS) == "en"


def test_a_file_path_tells_the_language_of_the_card_file_it_ends_like() -> None:
    assert address_language(f"/srv/app/{ZH}/introduction.md", "introduction", IDS) == "zh"
    assert address_language("C:\\app\\docs\\introduction.md", "introduction", IDS) == "en"


def test_a_path_sharing_only_the_ids_own_part_tells_no_language() -> None:
    assert address_language("introduction.md", "introduction", IDS) is None


def test_an_id_in_one_language_is_that_languages_card_whatever_its_address() -> None:
    assert address_language("anything/faq.md", "faq", IDS) == "en"


def test_an_items_language_comes_before_its_metadatas_and_metadata_locale_is_read() -> None:
    item = RetrievedItem(id="c", language="zh", metadata={"language": "en"})
    assert told_language(item) == "zh"
    assert told_language(RetrievedItem(id="c", metadata={"locale": "zh_CN"})) == "zh-CN"
    assert told_language(RetrievedItem(id="c", metadata={"lang": "not a tag"})) is None
    assert told_language("introduction") is None


def test_another_languages_card_of_an_id_the_reader_has_is_a_card_of_its_own() -> None:
    placed = place_in_language(["introduction", "faq"], ["en", None], reader="zh", written=WRITTEN)
    assert placed.ranked == ("introduction@en", "faq")
    assert placed.judge({"introduction"}, placed.ranked) == (0.0, False)


def test_the_readers_own_card_meets_the_gold() -> None:
    placed = place_in_language(["introduction"], ["zh"], reader="zh", written=WRITTEN)
    assert placed.ranked == ("introduction",)
    assert placed.judge({"introduction"}, placed.ranked) == (1.0, False)


def test_another_languages_card_meets_the_gold_where_the_reader_has_none_of_its_id() -> None:
    placed = place_in_language(["faq"], [None], reader="zh", written=WRITTEN)
    assert placed.ranked == ("faq",)
    assert placed.judge({"faq"}, placed.ranked) == (0.0, True)


def test_a_ranking_without_any_gold_page_has_no_reader_language_value() -> None:
    placed = place_in_language(["faq"], ["en"], reader="zh", written=WRITTEN)
    assert placed.judge({"introduction"}, placed.ranked) == (None, False)


def test_a_translated_id_given_without_a_language_is_untold_not_guessed() -> None:
    placed = place_in_language(["introduction", "faq"], [None, None], reader="en", written=WRITTEN)
    assert placed.untold == ("introduction",)


def test_a_page_outside_the_kb_keeps_its_id() -> None:
    placed = place_in_language(["blog/x"], [None], reader="zh", written=WRITTEN)
    assert placed.ranked == ("blog/x",)
    assert not placed.untold
