"""Hugo module mounts laid out as opentelemetry.io's are (tests/data/sites/hugo-mounts):
English mounted with no ``lang``, each other language with ``lang``, and English docs
mounted again into each other language as fallback pages. The URLs here are the ones
``hugo list all`` (Hugo 0.152.2) prints for that fixture; tests/sites_oracle checks
them against Hugo itself."""

from __future__ import annotations

from pathlib import Path

from recall_gate.adapters.dataset import read_kb

SITE = Path(__file__).resolve().parent.parent / "data" / "sites" / "hugo-mounts"


def _cards() -> dict[str, tuple[str, str, tuple[str, ...]]]:
    kb = read_kb(SITE / "content")
    return {e.path or "": (e.card.language, e.language_source, e.urls) for e in kb.cards}


def test_a_content_mount_without_lang_is_the_default_languages_content_at_the_root() -> None:
    language, source, urls = _cards()["en/docs/a.md"]
    assert language == "en"
    assert source == "contentDir en/"
    assert urls[0] == "/docs/a/"
    assert "/en/docs/a/" not in urls


def test_a_fallback_mount_publishes_a_default_language_page_in_the_other_languages_site() -> None:
    # es has no docs/b of its own: Hugo serves the English page at /es/docs/b/ too,
    # as the English card (an English page a Spanish reader may be given).
    assert _cards()["en/docs/b.md"] == ("en", "contentDir en/", ("/docs/b/", "/es/docs/b/"))


def test_a_fallback_mount_leaves_out_a_page_the_language_has_of_its_own() -> None:
    cards = _cards()
    assert cards["en/docs/a.md"][2] == ("/docs/a/", "/zh/docs/a/")  # es has its own a
    assert cards["es/docs/a.md"] == ("es", "contentDir es/", ("/es/docs/a/",))


def test_a_fallback_mounts_exclude_files_are_published_in_the_default_language_only() -> None:
    assert _cards()["en/docs/specs/protocol.md"][2] == ("/docs/specs/protocol/",)


def test_a_site_config_cascade_that_renders_nothing_makes_its_target_no_card() -> None:
    # hugo.yaml: cascade {build: {render: never}, _target: {path: '{,/**}/_includes{,/**}'}}
    skipped = {s.path: s.reason for s in read_kb(SITE / "content").skipped}
    assert skipped == {"en/_includes/snippet.md": "link only"}
    assert "en/_includes/snippet.md" not in _cards()
