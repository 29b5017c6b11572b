"""The URLs a docs site publishes for each card, and how a retrieved URL finds its card.

A site-search retriever returns what the site serves (``https://example.org/es/guide/x/``),
not the file a card came from (``es/guide/x.md``). :func:`published_urls` is the
one function from a card's file to the URL paths its generator publishes for it;
:class:`CardIds` holds the KB's card ids with those URLs, so a retrieved URL and a
gold id alike resolve to the card (:func:`resolve_address`).

What each generator publishes (paths relative to the KB root, which is the
generator's content folder: Hugo ``content/``, Docusaurus ``docs/``, MkDocs ``docs/``):

* **Hugo**: ``a/b.md`` → ``/a/b/``; ``a/_index.md`` and ``a/index.md`` → ``/a/``
  (the folder URL); a language other than the default one (and the default
  one too under ``defaultContentLanguageInSubdir``) under ``/<lang>/``; a
  language's own content folder (``contentDir: content/no``) left out of the URL;
  ``page.es.md`` is ``page`` in Spanish; ``slug:`` replaces the last part,
  a section's ``permalinks:`` pattern (``:year``, ``:month``, ``:day``,
  ``:section``, ``:sections``, ``:slug``, ``:title``, ``:filename``,
  ``:contentbasename`` and their ``slugor…`` forms, ``:sections[1:]``-style
  slices) replaces the path,
  ``url:`` is the whole path, and every ``aliases:`` entry is published too;
  paths are lower-cased unless ``disablePathToLower``; a module mount of one
  language's folder into another language's content (a fallback mount,
  :class:`HugoFallback`) publishes its pages in that language's site too.
* **Docusaurus**: ``<routeBasePath>/<folder>/<id>`` where the id is the file
  name without its number prefix (``01-intro`` → ``intro``) or front-matter
  ``id:``; ``index``, ``README`` and a file named after its folder (the names
  as written: ``01-guide.md`` in ``guide/`` is no index) publish the folder
  URL; ``slug:`` replaces the path (absolute) or the last part
  (relative); a locale other than the default one under ``/<locale>/``, where a
  doc it has no translation of is served in the default language; on a
  versioned site (``versions.json``) the current docs under their version path
  (``/docs/next/…``) and, as the same doc id, the last release's ``/docs/…``.
* **MkDocs**: ``a/b.md`` → ``/a/b/`` (``use_directory_urls``, the default) or
  ``/a/b.html``; ``index.md`` and ``README.md`` → the folder URL; a post of
  Material's blog plugin where the plugin moves it (:mod:`recall_gate.core.mkdocs_blog`);
  with the i18n plugin, a locale other than the default one under ``/<locale>/``,
  and a default-language page also under the ``/<locale>/`` of each locale that
  has no page of its own there (the plugin's ``fallback_to_default``).

Every URL is published under the site's base path too (``baseURL``, ``baseUrl``,
``site_url``). :func:`address_key` makes a URL comparable: scheme and host,
query, fragment, ``index.html`` / ``.html`` and surrounding slashes removed,
lower case; so ``https://docs.example.org/es/docs/x``, ``/es/docs/x/`` and
``es/docs/x`` are one address. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from recall_gate.core.ignore_patterns import glob_regex
from recall_gate.core.mkdocs_blog import MkDocsBlog, blog_post_path

__all__ = [
    "CardIds",
    "Generator",
    "HugoFallback",
    "SiteLayout",
    "address_key",
    "card_ids_with_urls",
    "cards_sharing_address",
    "nearest_card",
    "path_parts",
    "published_urls",
    "resolve_address",
    "strip_language_suffix",
]

Generator = Literal["hugo", "docusaurus", "mkdocs"]

_SCHEME_AND_HOST = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*")
_PERCENT = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_NUMBER_PREFIX = re.compile(r"^\d+[-_.]\s*")
_DOC_SUFFIX = re.compile(r"\.(?:md|markdown|mdx)$", re.IGNORECASE)


@dataclass(frozen=True)
class SiteLayout:
    """How a docs site turns files into URLs (read from its config by an adapter)."""

    generator: Generator
    default_language: str | None = None
    # Hugo: the default language under /<lang>/ too (defaultContentLanguageInSubdir).
    default_language_in_subdir: bool = False
    # Hugo: language → its content folder relative to the KB root ("no" for content/no).
    content_dirs: Mapping[str, str] = field(default_factory=dict)
    # Hugo: paths keep their case (disablePathToLower).
    keep_case: bool = False
    # Docusaurus: the docs plugin's routeBasePath ("" when the docs are the site root).
    route_base: str = "docs"
    # Docusaurus: the current docs' version path under routeBasePath ("next" on a
    # versioned site whose last version is a released one, or `versions.current.path`);
    # "" when the current docs are the last version (an unversioned site).
    version_path: str = ""
    # MkDocs: /a/b/ rather than /a/b.html.
    use_directory_urls: bool = True
    # The path of the site's base URL ("project" for https://x.github.io/project/).
    base_path: str = ""
    # Hugo: section → permalink pattern (`permalinks: {blog: /:year/:slug/}`).
    permalinks: Mapping[str, str] = field(default_factory=dict)
    # The site's languages (Hugo `languages:`, Docusaurus `locales`, the MkDocs
    # i18n plugin's `locale`s as written), to read `page.<lang>.md` suffixes (none
    # without a `languages:` list: one language).
    languages: tuple[str, ...] = ()
    # MkDocs with the i18n plugin: its `docs_structure` ("suffix": `page.fr.md`,
    # "folder": `fr/page.md`) and its default locale as written (at the site's
    # root; every other locale under /<locale>/).
    i18n: str | None = None
    i18n_default: str | None = None
    # Each other locale that serves a default-language page it has no page of its
    # own for (MkDocs' i18n plugin with `fallback_to_default`, its default, as
    # written; Docusaurus, each locale), with the pages it has of its own (paths
    # without extension and locale): a default-language page it lacks is served
    # there too.
    i18n_fallbacks: tuple[tuple[str, frozenset[str]], ...] = ()
    # MkDocs with Material's blog plugin: where it publishes the posts.
    blog: MkDocsBlog | None = None
    # Hugo: module mounts that publish one language's pages in another language's
    # site too (opentelemetry.io's English fallback pages), in mount order.
    fallbacks: tuple[HugoFallback, ...] = ()


@dataclass(frozen=True)
class HugoFallback:
    """A Hugo content mount of another language's folder into ``language``'s site
    (``source: content/en/docs``, ``target: content/docs``, ``lang: es``): each page
    below ``source`` (relative to the KB root) is published in ``language`` at its
    path below ``target`` (relative to the content root), unless ``exclude``
    (Hugo's ``excludeFiles`` globs, relative to ``source``) leaves it out or
    ``language`` has a page of its own there (``own``: those paths, without
    extension)."""

    source: str
    target: str
    language: str
    exclude: tuple[str, ...] = ()
    own: frozenset[str] = frozenset()


def strip_language_suffix(stem: str, languages: Iterable[str]) -> tuple[str, str | None]:
    """A translation by file name (Hugo, MkDocs' i18n plugin): ``page.es`` →
    (``page``, ``es``); else (stem, None)."""
    base, dot, suffix = stem.rpartition(".")
    if dot and base and suffix in languages:
        return base, suffix
    return stem, None


def _join(*parts: str) -> str:
    inner = "/".join(p.strip("/") for p in parts if p.strip("/"))
    return "/" + inner + "/" if inner else "/"


def _text(meta: Mapping[str, Any], key: str) -> str | None:
    value = meta.get(key)
    return value.strip() if isinstance(value, str) and value.strip() else None


# `:name`, and `:sections[1:]`-style slices of the section hierarchy.
_TOKEN = re.compile(r":(\w+)(?:\[([^\]]*)\])?")
_DATE_TEXT = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _urlize(text: str) -> str:
    return re.sub(r"[^\w-]+", "", re.sub(r"\s+", "-", text.strip().lower()))


def _permalink(
    pattern: str, section: list[str], name: str, meta: Mapping[str, Any]
) -> list[str] | None:
    """A Hugo ``permalinks:`` pattern filled for a page (None: a token it cannot fill)."""
    date = _DATE_TEXT.match(str(meta.get("date") or ""))
    slug = _text(meta, "slug")
    title = _text(meta, "title")
    values = {
        "section": section[0] if section else "",
        "sections": "/".join(section),
        "filename": name,
        "contentbasename": name,
        "slugorfilename": slug or name,
        "slugorcontentbasename": slug or name,
        "slug": slug or (_urlize(title) if title else None),
        "title": _urlize(title) if title else None,
        "year": date.group(1) if date else None,
        "month": date.group(2) if date else None,
        "day": date.group(3) if date else None,
    }
    missing = [t for t, _ in _TOKEN.findall(pattern) if values.get(t) is None]
    if missing:
        return None

    def fill(match: re.Match[str]) -> str:
        name, cut = match.group(1), match.group(2)
        if cut is not None and name == "sections":
            return "/".join(_sections_slice(section, cut))
        return str(values[name]) + (f"[{cut}]" if cut is not None else "")

    return ["/".join(p for p in _TOKEN.sub(fill, pattern).split("/") if p)]


def _sections_slice(sections: list[str], cut: str) -> list[str]:
    """Hugo's slice of the section hierarchy (``[1:]`` all but the first, ``[:last]``
    all but the last, ``[last]`` the last, ``[0]`` the first; out of range is no
    error, as in Hugo's permalink expander)."""
    last = len(sections) - 1

    def index(text: str, default: int) -> int:
        text = text.strip().lower()
        if text == "":
            return default
        if text == "last":
            return last
        return int(text) if text.isdigit() else default

    if ":" not in cut:
        at = index(cut, -1)
        return sections[at : at + 1] if 0 <= at < len(sections) else []
    low, _, high = cut.partition(":")
    return sections[index(low, 0) : index(high, len(sections))]


def _hugo(parts: list[str], language: str, meta: Mapping[str, Any], site: SiteLayout) -> list[str]:
    content_dir = site.content_dirs.get(language, "").strip("/")
    prefix = content_dir.split("/") if content_dir else []
    own = parts[len(prefix) :] if prefix and parts[: len(prefix)] == prefix else parts
    urls = _hugo_page(own, language, meta, site)
    for fallback in site.fallbacks:
        if (moved := _fallback_parts(parts, fallback)) is not None:
            urls += _hugo_page(moved, fallback.language, meta, site)
    return list(dict.fromkeys(urls))


def _fallback_parts(parts: list[str], fallback: HugoFallback) -> list[str] | None:
    """Where a fallback mount puts the page at ``parts`` in its language's site (its
    path below the content root), or None when it does not put it there."""
    source = [p for p in fallback.source.split("/") if p]
    if parts[: len(source)] != source or len(parts) == len(source):
        return None
    below = "/".join(parts[len(source) :])
    # `parts` has no extension; excludeFiles may name one (`**/README.md`).
    names = [below, *(below + suffix for suffix in (".md", ".markdown", ".mdx"))]
    if any(re.fullmatch(glob_regex(g.strip("/")), n) for g in fallback.exclude for n in names):
        return None
    moved = [*(p for p in fallback.target.split("/") if p), *parts[len(source) :]]
    if "/".join(moved) in fallback.own:
        return None  # the language's own page at that path wins
    return moved


def _hugo_page(
    parts: list[str], language: str, meta: Mapping[str, Any], site: SiteLayout
) -> list[str]:
    """The URLs of a page at ``parts`` below its language's content root."""
    stem, _ = strip_language_suffix(parts[-1], site.languages)
    folder = parts[:-1]
    path = folder if stem in ("_index", "index") else [*folder, stem]
    slug = _text(meta, "slug")
    if slug is not None and stem not in ("_index", "index"):
        path = [*folder, slug]
    if stem != "_index" and folder and folder[0] in site.permalinks:
        # A leaf bundle (blog/post/index.md) is named by its folder.
        section, name = (folder[:-1], folder[-1]) if stem == "index" else (folder, stem)
        path = _permalink(site.permalinks[folder[0]], section, name, meta) or path
    subdir = language != site.default_language or site.default_language_in_subdir
    lang = language if subdir else ""
    urls = [_join(lang, *path)]
    if (url := _text(meta, "url")) is not None:
        urls.insert(0, _join(url))
        if lang:
            urls.append(_join(lang, url))
    aliases = meta.get("aliases")
    for alias in aliases if isinstance(aliases, list) else [aliases]:
        if isinstance(alias, str) and alias.strip():
            urls.append(_join(alias) if alias.startswith("/") else _join(lang, *folder, alias))
    return urls if site.keep_case else [u.lower() for u in urls]


def _docusaurus(
    parts: list[str], language: str, meta: Mapping[str, Any], site: SiteLayout
) -> list[str]:
    folder = [_NUMBER_PREFIX.sub("", p) for p in parts[:-1]]
    stem = _NUMBER_PREFIX.sub("", parts[-1])
    ident = _text(meta, "id") or stem
    # The docs plugin's category index: the file's own name (number prefix and
    # all) is index, README or its folder's name, whatever its front-matter id.
    name = parts[-1].lower()
    index = name in ("index", "readme") or (len(parts) > 1 and name == parts[-2].lower())
    path = folder if index else [*folder, ident]
    slug = _text(meta, "slug")
    if slug is not None:
        path = [slug] if slug.startswith("/") else [*folder, slug]
    locale = "" if language == site.default_language else language
    locales = [locale]
    if not locale:
        # A doc a locale has no translation of is served there in the default
        # language (the same card: the text a reader of that locale is given).
        key = "/".join(parts)
        locales += [other for other, own in site.i18n_fallbacks if key not in own]
    if not site.version_path:
        return [_join(at, site.route_base, *path) for at in locales]
    # A versioned site: the current docs under their version path, and the same doc
    # id at the version-less URL of the last released version (the same card, as a
    # translation is; a page that version lacks is no URL of the live site anyway).
    return [
        url
        for at in locales
        for url in (
            _join(at, site.route_base, site.version_path, *path),
            _join(at, site.route_base, *path),
        )
    ]


def _i18n_page(parts: list[str], site: SiteLayout) -> tuple[list[str], str]:
    """A page of an MkDocs i18n site: its path without the locale (suffix or folder)
    and its locale as written ("" for a file that names none)."""
    if site.i18n == "suffix":
        stem, suffix = strip_language_suffix(parts[-1], site.languages)
        return [*parts[:-1], stem], suffix or ""
    if site.i18n == "folder" and len(parts) > 1 and parts[0] in site.languages:
        return parts[1:], parts[0]
    return parts, ""


def _mkdocs(
    parts: list[str], meta: Mapping[str, Any], title: str | None, site: SiteLayout
) -> list[str]:
    source, written = _i18n_page(parts, site)
    if site.blog is not None and (post := blog_post_path(parts, meta, title, site.blog)):
        parts = post.split("/")  # a blog post, where the blog plugin moves it
    parts, locale = _i18n_page(parts, site)
    if locale == site.i18n_default:
        locale = ""  # the default language is at the site's root
    urls = [_mkdocs_url(locale, parts, site)]
    if written in ("", site.i18n_default):
        # The i18n plugin's fallback_to_default: a default-language page is served
        # in each other language's site that has no page of its own there.
        key = "/".join(source)
        urls += [_mkdocs_url(o, parts, site) for o, own in site.i18n_fallbacks if key not in own]
    return urls


def _mkdocs_url(locale: str, parts: list[str], site: SiteLayout) -> str:
    if parts[-1].lower() in ("index", "readme"):
        return _join(locale, *parts[:-1])
    if site.use_directory_urls:
        return _join(locale, *parts)
    return _join(locale, *parts).rstrip("/") + ".html"


def published_urls(
    path: str,
    *,
    language: str,
    meta: Mapping[str, Any],
    site: SiteLayout | None,
    title: str | None = None,
) -> tuple[str, ...]:
    """The URL paths the site publishes for the card at ``path`` (relative to
    the KB root, with its extension), in ``language``; ``()`` without a site.
    ``title``: the card's (an MkDocs blog post's slug is made from it)."""
    if site is None:
        return ()
    parts = [p for p in _DOC_SUFFIX.sub("", path).split("/") if p not in ("", ".")]
    if not parts:
        return ()
    if site.generator == "hugo":
        urls = _hugo(parts, language, meta, site)
    elif site.generator == "docusaurus":
        urls = _docusaurus(parts, language, meta, site)
    else:
        urls = _mkdocs(parts, meta, title, site)
    if site.base_path.strip("/"):
        urls = [*urls, *(_join(site.base_path, u) for u in urls)]
    return tuple(dict.fromkeys(urls))


def _unquote(text: str) -> str:
    """Percent-escapes decoded as UTF-8 (``%C3%A9`` → ``é``); what is no UTF-8 stays."""
    return _PERCENT.sub(
        lambda m: bytes.fromhex(m.group(0).replace("%", "")).decode("utf-8", "replace"), text
    )


def address_key(value: str) -> str:
    """A URL or path as a comparable address (see the module docstring)."""
    text = value.strip()
    text = _SCHEME_AND_HOST.sub("", text).split("#", 1)[0].split("?", 1)[0]
    text = _unquote(text).replace("\\", "/")
    if text.endswith("/index.html"):
        text = text[: -len("index.html")]
    elif text.endswith(".html"):
        text = text[: -len(".html")]
    return text.strip("/").lower()


class CardIds(frozenset[str]):
    """The KB's card ids, and the card each published address (:func:`address_key`)
    names. A set of ids like any other; the addresses ride along, and so do the
    addresses two or more cards publish (``ambiguous``: address → those cards)."""

    addresses: Mapping[str, str]
    ambiguous: Mapping[str, tuple[str, ...]]
    # card id → the languages it is written in (a translation shares its id)
    languages: Mapping[str, frozenset[str]]
    # address → the language of the one card publishing it (a card is (language, id))
    address_languages: Mapping[str, str]
    # a translated card id → (language, its file's path parts) of each of its cards
    files: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]]

    def __new__(
        cls,
        ids: Iterable[str],
        addresses: Mapping[str, str] | None = None,
        ambiguous: Mapping[str, tuple[str, ...]] | None = None,
        languages: Mapping[str, frozenset[str]] | None = None,
        *,
        address_languages: Mapping[str, str] | None = None,
        files: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]] | None = None,
    ) -> CardIds:
        made = super().__new__(cls, ids)
        made.addresses = dict(addresses or {})
        made.ambiguous = dict(ambiguous or {})
        made.languages = dict(languages or {})
        made.address_languages = dict(address_languages or {})
        made.files = dict(files or {})
        return made

    def with_ids(self, ids: Iterable[str]) -> CardIds:
        """These ids with this KB's addresses and languages (a union of sets drops them)."""
        return CardIds(
            ids,
            self.addresses,
            self.ambiguous,
            self.languages,
            address_languages=self.address_languages,
            files=self.files,
        )


def card_ids_with_urls(
    cards: Iterable[tuple[str, Iterable[str]]],
    *,
    languages: Iterable[tuple[str, str]] = (),
    placed: Iterable[tuple[str, str, str, Iterable[str]]] = (),
) -> CardIds:
    """The card ids with their published URLs (``(id, urls)`` pairs) and, when
    given, the language of each (``(id, language)`` pairs). An address two
    different cards publish names neither: it is left out, not guessed, and
    :func:`cards_sharing_address` names both. ``placed``: each card's
    ``(id, language, file, urls)``, so that a URL or file path also tells which
    language's card it is (see :mod:`recall_gate.core.card_language`)."""
    ids: set[str] = set()
    owner: dict[str, str] = {}
    ambiguous: dict[str, dict[str, None]] = {}
    written: dict[str, set[str]] = {}
    for ident, language in languages:
        written.setdefault(ident, set()).add(language)
    for ident, urls in cards:
        ids.add(ident)
        for url in urls:
            key = address_key(url)
            first = owner.setdefault(key, ident)
            if first != ident:
                ambiguous.setdefault(key, {first: None})[ident] = None
    address_language: dict[str, str | None] = {}
    files: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for ident, language, file, urls in placed:
        files.setdefault(ident, []).append((language, path_parts(file)))
        for url in urls:
            key = address_key(url)
            # An address two languages' cards publish tells neither language.
            seen = address_language.setdefault(key, language)
            if seen != language:
                address_language[key] = None
    return CardIds(
        ids,
        {k: v for k, v in owner.items() if k not in ambiguous},
        {k: tuple(v) for k, v in ambiguous.items()},
        {k: frozenset(v) for k, v in written.items()},
        address_languages={k: v for k, v in address_language.items() if v is not None},
        files={k: tuple(v) for k, v in files.items() if len({language for language, _ in v}) > 1},
    )


def path_parts(value: str) -> tuple[str, ...]:
    """A file path's parts, lower case, without a document extension
    (``C:\\Docs\\zh\\Intro.md`` → ``("c:", "docs", "zh", "intro")``)."""
    text = _DOC_SUFFIX.sub("", value.strip().replace("\\", "/")).lower()
    return tuple(p for p in text.split("/") if p not in ("", "."))


def resolve_address(value: str, card_ids: frozenset[str]) -> str | None:
    """The card a published URL names (full URL or path, with or without the
    trailing slash); None when ``card_ids`` knows no such address."""
    addresses = getattr(card_ids, "addresses", None)
    if not addresses:
        return None
    return addresses.get(address_key(value))  # type: ignore[no-any-return]


def cards_sharing_address(value: str, card_ids: frozenset[str]) -> tuple[str, ...]:
    """The cards that all publish the address ``value`` names (two or more: it
    names none of them), or ``()``."""
    ambiguous: Mapping[str, tuple[str, ...]] = getattr(card_ids, "ambiguous", None) or {}
    return ambiguous.get(address_key(value), ())


def nearest_card(
    value: str, card_ids: frozenset[str], *, language: str | None = None, cutoff: float = 0.4
) -> str | None:
    """The card whose id or published address is most like ``value`` (a hint for an
    id that maps to none), or None when nothing is close. With ``language`` (the
    case's), the cards written in it are tried first: a Spanish case's hint is a
    Spanish card when one is close (when ``card_ids`` knows the cards' languages)."""
    import difflib  # only on the error path

    key = address_key(value)
    addresses: Mapping[str, str] = getattr(card_ids, "addresses", None) or {}
    written: Mapping[str, frozenset[str]] = getattr(card_ids, "languages", None) or {}
    ids = {i.lower(): i for i in card_ids}
    tries: list[Mapping[str, str]] = []
    if language is not None and written:
        in_language = {c for c, langs in written.items() if language in langs}
        tries += [
            {k: v for k, v in ids.items() if v in in_language},
            {k: v for k, v in addresses.items() if v in in_language},
        ]
    # Card ids first: they are what the user wrote; a published address second.
    tries += [ids, addresses]
    for candidates in tries:
        near = difflib.get_close_matches(key, list(candidates), n=1, cutoff=cutoff)
        if near:
            return candidates[near[0]]
    return None
