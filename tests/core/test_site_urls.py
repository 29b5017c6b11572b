"""The URLs a site publishes for a card (core.site_urls), one test per rule."""

from __future__ import annotations

from typing import Any

import pytest

from recall_gate.core.integrity import card_of_path
from recall_gate.core.site_urls import (
    SiteLayout,
    address_key,
    card_ids_with_urls,
    cards_sharing_address,
    nearest_card,
    published_urls,
)

HUGO = SiteLayout(generator="hugo", default_language="en", languages=("en", "es", "zh"))


def urls(path: str, site: SiteLayout, language: str = "en", **meta: Any) -> tuple[str, ...]:
    return published_urls(path, language=language, meta=meta, site=site)


def test_hugo_serves_the_default_language_at_the_root_and_others_under_their_tag() -> None:
    assert urls("docs/x.md", HUGO) == ("/docs/x/",)
    assert urls("docs/x.es.md", HUGO, "es") == ("/es/docs/x/",)


def test_hugo_default_language_in_subdir_puts_it_under_its_tag_too() -> None:
    site = SiteLayout(generator="hugo", default_language="en", default_language_in_subdir=True)
    assert urls("docs/x.md", site) == ("/en/docs/x/",)


def test_hugo_index_and_branch_index_publish_the_folder_url() -> None:
    assert urls("docs/_index.md", HUGO) == ("/docs/",)
    assert urls("docs/guide/index.md", HUGO) == ("/docs/guide/",)


def test_hugo_language_content_dir_is_not_part_of_the_url() -> None:
    site = SiteLayout(
        generator="hugo", default_language="en", content_dirs={"en": "en", "no": "no"}
    )
    assert urls("en/docs/a.md", site) == ("/docs/a/",)
    assert urls("no/docs/a.md", site, "no") == ("/no/docs/a/",)


def test_hugo_slug_url_and_aliases_are_published() -> None:
    assert urls("docs/x.md", HUGO, slug="nice") == ("/docs/nice/",)
    assert urls("docs/x.md", HUGO, url="/elsewhere/y/") == ("/elsewhere/y/", "/docs/x/")
    assert urls("docs/x.md", HUGO, aliases=["/old/x/", "older"]) == (
        "/docs/x/",
        "/old/x/",
        "/docs/older/",
    )


def test_hugo_lower_cases_paths_unless_disable_path_to_lower() -> None:
    assert urls("docs/Tasks/Big.md", HUGO) == ("/docs/tasks/big/",)
    keep = SiteLayout(generator="hugo", default_language="en", keep_case=True)
    assert urls("docs/Tasks/Big.md", keep) == ("/docs/Tasks/Big/",)


DOCUSAURUS = SiteLayout(generator="docusaurus", default_language="en", languages=("en", "fr"))


def test_docusaurus_drops_number_prefixes_and_uses_the_front_matter_id() -> None:
    assert urls("guides/01-setup.md", DOCUSAURUS) == ("/docs/guides/setup/",)
    assert urls("guides/setup.md", DOCUSAURUS, id="install") == ("/docs/guides/install/",)


def test_docusaurus_index_readme_and_a_page_named_after_its_folder_publish_the_folder() -> None:
    assert urls("guides/index.md", DOCUSAURUS) == ("/docs/guides/",)
    assert urls("guides/README.md", DOCUSAURUS) == ("/docs/guides/",)
    assert urls("guides/guides.md", DOCUSAURUS) == ("/docs/guides/",)


def test_docusaurus_slug_is_absolute_or_relative_to_the_folder() -> None:
    assert urls("intro.md", DOCUSAURUS, slug="/") == ("/docs/",)
    assert urls("a/intro.md", DOCUSAURUS, slug="start") == ("/docs/a/start/",)


def test_docusaurus_locale_other_than_the_default_is_a_path_prefix() -> None:
    assert urls("intro.md", DOCUSAURUS, "fr") == ("/fr/docs/intro/",)


def test_docusaurus_route_base_path_and_base_url() -> None:
    site = SiteLayout(generator="docusaurus", default_language="en", route_base="", base_path="p")
    assert urls("a/b.md", site) == ("/a/b/", "/p/a/b/")


def test_docusaurus_versioned_current_docs_under_their_version_path_and_the_last_releases() -> None:
    site = SiteLayout(
        generator="docusaurus", default_language="en", languages=("en", "fr"), version_path="next"
    )
    assert urls("guides/01-setup.md", site) == ("/docs/next/guides/setup/", "/docs/guides/setup/")
    assert urls("intro.md", site, "fr") == ("/fr/docs/next/intro/", "/fr/docs/intro/")
    # An absolute slug is relative to the version's route, not the site's.
    assert urls("intro.md", site, slug="/") == ("/docs/next/", "/docs/")
    assert urls("intro.md", site, slug="/start") == ("/docs/next/start/", "/docs/start/")


def test_mkdocs_directory_urls_or_html_files() -> None:
    site = SiteLayout(generator="mkdocs")
    assert urls("a/b.md", site) == ("/a/b/",)
    assert urls("a/index.md", site) == ("/a/",)
    flat = SiteLayout(generator="mkdocs", use_directory_urls=False)
    assert urls("a/b.md", flat) == ("/a/b.html",)


def test_no_site_publishes_nothing() -> None:
    assert published_urls("a.md", language="en", meta={}, site=None) == ()


@pytest.mark.parametrize(
    "value",
    [
        "https://docs.example.org/es/docs/x/",
        "https://docs.example.org/es/docs/x",
        "/es/docs/x/",
        "es/docs/x",
        "/es/docs/x/index.html",
        "/es/docs/x.html",
        "/ES/Docs/x/?q=1#part",
        "/es/docs/%78/",
    ],
)
def test_a_full_url_or_a_path_with_or_without_trailing_slash_is_one_address(value: str) -> None:
    assert address_key(value) == "es/docs/x"


def test_a_retrieved_url_resolves_to_its_card_before_any_path_rule() -> None:
    ids = card_ids_with_urls([("es/docs/x", ["/es/docs/x/"]), ("en/docs/x", ["/docs/x/"])])
    assert card_of_path("https://site.org/docs/x/", ids) == "en/docs/x"
    assert card_of_path("/es/docs/x", ids) == "es/docs/x"
    assert card_of_path("/fr/docs/x/", ids) is None


def test_a_web_address_the_site_does_not_publish_is_no_card_whatever_its_last_part() -> None:
    # React Native's site: /blog/2017/flexbox is a blog post, not the flexbox doc;
    # /docs/0.79/flexbox a release the KB (the docs folder) does not hold.
    ids = card_ids_with_urls([("flexbox", ["/docs/next/flexbox/", "/docs/flexbox/"])])
    assert card_of_path("https://reactnative.dev/docs/flexbox", ids) == "flexbox"
    assert card_of_path("https://reactnative.dev/blog/2017/flexbox", ids) is None
    assert card_of_path("/blog/2017/flexbox/", ids) is None
    assert card_of_path("https://reactnative.dev/docs/0.79/flexbox", ids) is None
    # A source file still reads as its card, on disk or in a repository's web view.
    assert card_of_path("/srv/app/docs/flexbox.md", ids) == "flexbox"
    assert card_of_path("https://github.com/o/r/blob/main/docs/flexbox.md", ids) == "flexbox"
    assert card_of_path("docs/flexbox", ids) == "flexbox"


def test_without_the_sites_urls_a_url_reads_as_its_trailing_path() -> None:
    # A plain folder of Markdown publishes no URL: the trailing-part rule is all there is.
    assert card_of_path("https://docs.example.org/guides/flexbox", frozenset({"flexbox"})) == (
        "flexbox"
    )


def test_an_address_two_cards_publish_names_neither() -> None:
    ids = card_ids_with_urls([("a", ["/same/"]), ("b", ["/same/"]), ("c", ["/c/"])])
    assert ids.addresses == {"c": "c"}
    assert set(ids) == {"a", "b", "c"}


def test_nearest_card_prefers_card_ids_then_published_addresses() -> None:
    ids = card_ids_with_urls([("en/docs/_index", ["/docs/"]), ("no/docs/_index", ["/no/docs/"])])
    assert nearest_card("https://x.org/en/docs/", ids) == "en/docs/_index"
    assert nearest_card("zzzzzzzzzzzzzzzzzzzzzz", ids) is None


def test_an_address_two_cards_publish_is_named_with_both_cards() -> None:
    ids = card_ids_with_urls([("a", ["/same/"]), ("b", ["/same/"]), ("c", ["/c/"])])
    assert cards_sharing_address("https://x.org/same", ids) == ("a", "b")
    assert cards_sharing_address("/c/", ids) == ()


def test_nearest_card_prefers_a_card_of_the_cases_language() -> None:
    # A Docusaurus translation shares its id; Hugo's languages differ by folder.
    ids = card_ids_with_urls(
        [("en/docs/install", ["/docs/install/"]), ("es/docs/instalar", ["/es/docs/instalar/"])],
        languages=[("en/docs/install", "en"), ("es/docs/instalar", "es")],
    )
    assert nearest_card("/docs/instal", ids) == "en/docs/install"
    assert nearest_card("/docs/instal", ids, language="es") == "es/docs/instalar"
    # Nothing of the language near: any card still is.
    assert nearest_card("/docs/install", ids, language="fr") == "en/docs/install"


def test_hugo_a_sections_permalink_pattern_replaces_the_path() -> None:
    site = SiteLayout(
        generator="hugo",
        default_language="en",
        permalinks={"blog": "/:section/:year/:month/:day/:slugorcontentbasename"},
    )
    assert urls("blog/news/post.md", site, date="2026-02-10") == ("/blog/2026/02/10/post/",)
    # A leaf bundle is named by its folder; a section page keeps its folder URL.
    assert urls("blog/first/index.md", site, date="2026-02-10") == ("/blog/2026/02/10/first/",)
    assert urls("blog/_index.md", site) == ("/blog/",)
    # A token the page cannot fill (no date) leaves the default URL.
    assert urls("blog/undated.md", site) == ("/blog/undated/",)


def test_hugo_a_permalinks_sections_slice_selects_part_of_the_hierarchy() -> None:
    # Doks (Thulite) sites: docs = "/docs/:sections[1:]/:slug/" (AliceNovel/Docs, MIT).
    site = SiteLayout(
        generator="hugo",
        default_language="en",
        permalinks={
            "docs": "/docs/:sections[1:]/:slug/",
            "a": "/:sections[last]/:filename/",
            "b": "/:sections[:last]/:filename/",
            "c": "/:sections[0]/:sections[1:9]/:filename/",
        },
    )
    assert urls("docs/getting-started/1-intro.md", site, slug="1") == ("/docs/getting-started/1/",)
    assert urls("docs/page.md", site, title="A Page") == ("/docs/a-page/",)
    assert urls("a/x/y/p.md", site) == ("/y/p/",)
    assert urls("b/x/y/p.md", site) == ("/b/x/p/",)
    # Out of range is no error (Hugo: "you don't have to be exact").
    assert urls("c/x/p.md", site) == ("/c/x/p/",)
