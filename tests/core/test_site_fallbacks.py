"""Pages a docs site serves in another language's site too (core.site_urls): Hugo's
fallback mounts and the MkDocs i18n plugin's fallback_to_default. One test per rule;
the URLs are the generators' own (tests/sites_oracle builds the fixtures)."""

from __future__ import annotations

from recall_gate.core.site_urls import HugoFallback, SiteLayout, published_urls

HUGO = SiteLayout(
    generator="hugo",
    default_language="en",
    languages=("en", "es"),
    content_dirs={"en": "en", "es": "es"},
    fallbacks=(HugoFallback("en/docs", "docs", "es", ("specs/*",), frozenset({"docs/a"})),),
)
MKDOCS = SiteLayout(
    generator="mkdocs",
    default_language="en",
    languages=("en", "fr"),
    i18n="suffix",
    i18n_default="en",
    i18n_fallbacks=(("fr", frozenset({"index"})),),
)


def test_a_hugo_fallback_mount_serves_the_page_in_its_languages_site_below_its_target() -> None:
    assert published_urls("en/docs/b.md", language="en", meta={}, site=HUGO) == (
        "/docs/b/",
        "/es/docs/b/",
    )


def test_a_hugo_fallback_mount_leaves_the_languages_own_page_and_its_excluded_files() -> None:
    assert published_urls("en/docs/a.md", language="en", meta={}, site=HUGO) == ("/docs/a/",)
    assert published_urls("en/docs/specs/x.md", language="en", meta={}, site=HUGO) == (
        "/docs/specs/x/",
    )
    assert published_urls("en/blog/x.md", language="en", meta={}, site=HUGO) == ("/blog/x/",)


def test_an_mkdocs_i18n_default_page_is_served_in_each_locale_that_has_none_of_its_own() -> None:
    assert published_urls("setup/index.md", language="en", meta={}, site=MKDOCS) == (
        "/setup/",
        "/fr/setup/",
    )
    assert published_urls("index.md", language="en", meta={}, site=MKDOCS) == ("/",)


def test_an_mkdocs_i18n_translation_is_served_in_its_own_locale_only() -> None:
    assert published_urls("index.fr.md", language="fr", meta={}, site=MKDOCS) == ("/fr/",)


DOCUSAURUS = SiteLayout(
    generator="docusaurus",
    default_language="en",
    languages=("en", "zh"),
    i18n_fallbacks=(("zh", frozenset({"intro"})),),
)


def test_a_docusaurus_doc_a_locale_has_not_translated_is_served_there_in_english() -> None:
    assert published_urls("guide/up.md", language="en", meta={}, site=DOCUSAURUS) == (
        "/docs/guide/up/",
        "/zh/docs/guide/up/",
    )
    assert published_urls("intro.md", language="en", meta={}, site=DOCUSAURUS) == ("/docs/intro/",)


def test_a_docusaurus_folder_index_is_named_as_its_folder_before_number_prefixes_go() -> None:
    # Docusaurus compares the file's name as written: 01-guide.md in guide/ is no index.
    assert published_urls("guide/01-guide.md", language="en", meta={}, site=DOCUSAURUS)[0] == (
        "/docs/guide/guide/"
    )
    assert published_urls("guide/Guide.md", language="en", meta={}, site=DOCUSAURUS)[0] == (
        "/docs/guide/"
    )
    assert published_urls("guide/index.md", language="en", meta={"id": "x"}, site=DOCUSAURUS)[
        0
    ] == ("/docs/guide/")
