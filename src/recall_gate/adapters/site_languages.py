"""A page's language as its docs site says it (adapter: reads beside the KB):
Hugo's translations by file name and per-language content folders, and MkDocs'
i18n plugin (mkdocs-static-i18n: ``page.fr.md``, ``fr/page.md``, and the
fallback ``page.md`` beside the default locale's own page)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from recall_gate.adapters.site_layout import Site, locale_language
from recall_gate.core.site_urls import SiteLayout, strip_language_suffix

__all__ = ["i18n_fallback", "site_language"]


def _tag(locale: str) -> str:
    # The site's locales are those that name a language (read so by site_layout).
    return locale_language(locale) or locale


def _i18n_language(relative: PurePosixPath, layout: SiteLayout) -> tuple[str, str] | None:
    """A page's language on an MkDocs site with the i18n plugin: its suffix
    (``page.fr.md``) or its locale's folder (``fr/page.md``)."""
    if layout.i18n == "suffix":
        _, suffix = strip_language_suffix(relative.with_suffix("").name, layout.languages)
        if suffix is not None:
            return _tag(suffix), f"file name .{suffix}"
    elif layout.i18n == "folder" and len(relative.parts) > 1:
        locale = relative.parts[0]
        if locale in layout.languages:
            return _tag(locale), f"i18n folder {locale}/"
    return None


def i18n_fallback(path: Path, site: Site | None) -> bool:
    """Whether ``path`` (``page.md``) is only the fallback of an MkDocs i18n
    site's default locale, whose own page (``page.en.md``) is beside it: the
    plugin builds that one, and shows ``page.md`` only where no translation is."""
    layout = site.layout if site is not None else None
    if layout is None or layout.i18n != "suffix" or layout.i18n_default is None:
        return False
    stem, suffix = strip_language_suffix(path.stem, layout.languages)
    if suffix is not None:
        return False
    return path.with_name(f"{stem}.{layout.i18n_default}{path.suffix}").is_file()


def site_language(relative: PurePosixPath, site: Site | None) -> tuple[str, str] | None:
    """A Hugo page's language from its file name (``page.es.md``) or from the
    language's own content folder (``languages.no.contentDir``); a page of an
    MkDocs site with the i18n plugin, from its suffix or its locale's folder."""
    if site is None:
        return None
    layout = site.layout
    if layout.i18n is not None:
        return _i18n_language(relative, layout)
    if layout.generator != "hugo":
        return None
    _, suffix = strip_language_suffix(relative.with_suffix("").name, layout.languages)
    if suffix is not None:
        return suffix, f"file name .{suffix}"
    for language, folder in site.layout.content_dirs.items():
        if folder and relative.is_relative_to(folder):
            return language, f"contentDir {folder}/"
    return None
