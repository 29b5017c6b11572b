"""Which docs generator a KB belongs to, read from the site's own config (adapter: file I/O).

The KB root is the generator's content folder; its config sits in that folder's
parent (or the parent's parent, for a per-language ``content/en``; or, for
Docusaurus, a folder beside the KB whose docs ``path`` names it, ``website/``
with ``path: '../docs'``):

* Hugo: ``hugo.toml`` / ``hugo.yaml`` / ``hugo.json`` / ``config.*`` (and the
  same under ``config/_default/``, with ``languages.*``, ``permalinks.*`` and ``module.*``
  there as files of their own): ``defaultContentLanguage``,
  ``defaultContentLanguageInSubdir``, ``disablePathToLower``, ``baseURL``,
  ``languages.<lang>.contentDir`` and the module mounts of a language's content
  (``source``, ``target = "content"``, ``lang``), ``disableLanguages`` and
  ``languages.<lang>.disabled``;
* Docusaurus: ``docusaurus.config.{js,ts,mjs,cjs}``: ``baseUrl``,
  ``i18n.defaultLocale`` and ``locales``; of the docs plugin instance whose
  ``path`` is the KB (the preset's, or a ``content-docs`` plugin's, see
  :mod:`recall_gate.adapters.docusaurus_config`): its ``routeBasePath``, its
  translations under ``i18n/<locale>/docusaurus-plugin-content-docs[-<id>]/current/``
  and its current version's path (``versions.json`` or ``<id>_versions.json``,
  ``lastVersion``, ``onlyIncludeVersions``, ``versions.current.path``);
* MkDocs: ``mkdocs.yml`` (its ``!!python/name:``-style tags dropped):
  ``use_directory_urls``, ``site_url``, ``theme.language`` (the language of a
  page no other rule names), the ``i18n`` plugin's ``docs_structure`` and
  ``languages`` (mkdocs-static-i18n: ``page.fr.md`` or ``fr/page.md``),
  ``exclude_docs`` and ``draft_docs``, Material's ``blog`` plugin (where it
  moves the posts).

Only literal values are read (a JavaScript config is matched, not run). A
config that cannot be read leaves the KB as plain Markdown: ids from paths.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from recall_gate.adapters.docusaurus_config import DocsInstance, docs_instances, js_string
from recall_gate.adapters.files import parse_yaml
from recall_gate.adapters.hugo_sections import (
    content_mounts,
    fallback_mounts,
    relative_dir,
    unrendered_targets,
)
from recall_gate.core.ignore_patterns import pattern_lines
from recall_gate.core.language import canonical_language, language_error
from recall_gate.core.mkdocs_blog import MkDocsBlog
from recall_gate.core.site_urls import SiteLayout
from recall_gate.errors import InputError

__all__ = ["Exclusion", "Site", "detect_site", "locale_language"]

_HUGO_NAMES = ("hugo", "config")
_HUGO_SUFFIXES = (".toml", ".yaml", ".yml", ".json")
_DOCUSAURUS_CONFIGS = tuple(f"docusaurus.config.{s}" for s in ("js", "ts", "mjs", "cjs"))


@dataclass(frozen=True)
class Site:
    """A KB's generator: its URL rules, the config they came from, and (Docusaurus)
    the folder of each locale's translations."""

    layout: SiteLayout
    config: Path
    translations: Mapping[str, Path] = field(default_factory=dict)
    # Every locale's translation folder, whether it exists or not (the KB diff
    # of a pull request that deletes one reads it at the base).
    locale_folders: Mapping[str, Path] = field(default_factory=dict)
    # The pages the site does not publish, by rule (paths relative to the KB, and
    # to each translation folder): Docusaurus' `exclude`, MkDocs' `exclude_docs`.
    excluded: tuple[Exclusion, ...] = ()


@dataclass(frozen=True)
class Exclusion:
    """Patterns of pages a site leaves out, and why (the reason a skipped page
    shows): ``glob`` (Docusaurus' globs) or ``gitignore`` (MkDocs' patterns,
    :mod:`recall_gate.core.ignore_patterns`)."""

    reason: str
    patterns: tuple[str, ...]
    syntax: Literal["glob", "gitignore"] = "glob"


def _language(value: Any) -> str | None:
    if isinstance(value, str) and language_error(value) is None:
        return canonical_language(value)
    return None


def locale_language(locale: str) -> str | None:
    """The language of an MkDocs i18n locale as written (``pt_BR`` → ``pt-BR``),
    or None when it names none."""
    return _language(locale.replace("_", "-"))


def _read_hugo(path: Path) -> Mapping[str, Any] | None:
    try:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".toml":
            data: Any = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            data = parse_yaml(text, source=str(path))
    except (OSError, UnicodeDecodeError, ValueError, InputError):
        return None
    return data if isinstance(data, Mapping) else None


# Root keys Hugo's config directory may keep in a file of their own
# (config/_default/languages.toml holds what `languages:` would).
_HUGO_KEY_FILES = ("languages", "permalinks", "module")


def _first_file(folder: Path, names: tuple[str, ...]) -> Path | None:
    for name in names:
        for suffix in _HUGO_SUFFIXES:
            candidate = folder / f"{name}{suffix}"
            if candidate.is_file():
                return candidate
    return None


def _hugo_settings(site_root: Path) -> tuple[Path, dict[str, Any]] | None:
    """A Hugo site's settings (keys lower-cased, as Hugo reads them) and the file
    they are named by: the root config file (``hugo.toml``, ``config.yaml``, …)
    over the config directory's (``config/_default/hugo.toml`` and a file per
    root key, ``languages.toml``, ``permalinks.yaml``); None when the folder has
    no Hugo config, or its config file cannot be read."""
    folder = site_root / "config" / "_default"
    root_file = _first_file(site_root, _HUGO_NAMES)
    dir_file = _first_file(folder, _HUGO_NAMES)
    key_files = {k: f for k in _HUGO_KEY_FILES if (f := _first_file(folder, (k,))) is not None}
    named_by = root_file or dir_file or next(iter(key_files.values()), None)
    if named_by is None:
        return None
    settings: dict[str, Any] = {}
    for key, path in key_files.items():
        if (value := _read_hugo(path)) is not None:
            settings[key] = value
    for file in (dir_file, root_file):
        if file is None:
            continue
        data = _read_hugo(file)
        if data is None:
            return None
        settings |= {str(k).lower(): v for k, v in data.items()}
    return named_by, settings


def _related(kb_root: Path, content: Path) -> bool:
    """Whether the KB is a content folder, inside one, or holds one."""
    kb, folder = kb_root.resolve(), content.resolve()
    return kb.is_relative_to(folder) or folder.is_relative_to(kb)


def _hugo(kb_root: Path, site_root: Path, config: Path, keys: Mapping[str, Any]) -> Site | None:
    content = keys.get("contentdir", "content")
    if not isinstance(content, str):
        content = "content"
    languages = keys.get("languages")
    content_dirs: dict[str, str] = {}
    tags: list[str] = []
    if isinstance(languages, Mapping):
        for key, spec in languages.items():
            tag = _language(str(key))
            if tag is None:
                continue
            tags.append(tag)
            folder = spec.get("contentDir") if isinstance(spec, Mapping) else None
            folder = folder if isinstance(folder, str) else content
            content_dirs[tag] = relative_dir(site_root, folder, kb_root)
    default = _language(keys.get("defaultcontentlanguage")) or "en"
    # Module mounts of a language's content (`source = "content/ja"`, `target =
    # "content"`, `lang = "ja"`; no `lang`: the default language's, as Hugo reads
    # it): that language's content folder too. A mount of a folder into a deeper
    # target, or a second mount into a language, is a fallback (below).
    mounts = content_mounts(keys.get("module"))
    mounted: set[str] = set()
    for mount in mounts:
        tag = mount.language or default
        if mount.target == "content" and tag not in mounted and (tag in tags or not tags):
            mounted.add(tag)
            content_dirs[tag] = relative_dir(site_root, mount.source, kb_root)
    folders = [
        content,
        *(
            spec["contentDir"]
            for spec in (languages.values() if isinstance(languages, Mapping) else ())
            if isinstance(spec, Mapping) and isinstance(spec.get("contentDir"), str)
        ),
        *(mount.source for mount in mounts),
    ]
    if not any(_related(kb_root, site_root / folder) for folder in folders):
        return None
    base = keys.get("baseurl")
    layout = SiteLayout(
        generator="hugo",
        default_language=default,
        default_language_in_subdir=keys.get("defaultcontentlanguageinsubdir") is True,
        content_dirs=content_dirs,
        keep_case=keys.get("disablepathtolower") is True,
        base_path=urlsplit(base).path.strip("/") if isinstance(base, str) else "",
        languages=tuple(tags),
        permalinks=_permalinks(keys.get("permalinks")),
        fallbacks=fallback_mounts(site_root, kb_root, mounts, content_dirs, default=default),
    )
    excluded = _language_exclusions(_disabled_languages(keys), content_dirs)
    if unrendered := unrendered_targets(keys.get("cascade"), content_dirs):
        excluded += (Exclusion("link only", unrendered),)
    if mounts:
        excluded += _unmounted(site_root, kb_root, [mount.source for mount in mounts])
    return Site(layout=layout, config=config, excluded=excluded)


def _disabled_languages(keys: Mapping[str, Any]) -> set[str]:
    """The languages Hugo does not build: ``disableLanguages``, and each
    ``languages.<lang>.disabled: true``."""
    listed = keys.get("disablelanguages")
    disabled = {t for t in map(_language, listed if isinstance(listed, list) else []) if t}
    languages = keys.get("languages")
    for key, spec in languages.items() if isinstance(languages, Mapping) else ():
        tag = _language(str(key))
        if tag is not None and isinstance(spec, Mapping) and spec.get("disabled") is True:
            disabled.add(tag)
    return disabled


def _language_exclusions(
    disabled: set[str], content_dirs: Mapping[str, str]
) -> tuple[Exclusion, ...]:
    """A disabled language's pages (its content folder, its ``page.<lang>.md``
    translations) as pages the site does not publish."""
    patterns: list[str] = []
    for tag in sorted(disabled):
        if folder := content_dirs.get(tag, ""):
            patterns.append(f"{folder}/**")
        patterns += [f"*.{tag}.{suffix}" for suffix in ("md", "markdown", "mdx")]
    return (Exclusion("disabled language", tuple(patterns)),) if patterns else ()


def _unmounted(site_root: Path, kb_root: Path, sources: list[str]) -> tuple[Exclusion, ...]:
    """With content mounts, only their sources are content (Hugo drops the default
    mount of a target that has mounts): the KB's other pages are no card."""
    inside: list[str] = []
    for source in sources:
        try:
            relative = (site_root / source).resolve().relative_to(kb_root.resolve()).as_posix()
        except ValueError:
            if kb_root.resolve().is_relative_to((site_root / source).resolve()):
                return ()  # the KB is inside a mounted folder: all of it is content
            continue
        if relative == ".":
            return ()
        inside.append(relative)
    patterns = ("*", *(f"!{r}/**" for r in inside))
    return (Exclusion("not mounted", patterns, "gitignore"),)


def _permalinks(value: Any) -> dict[str, str]:
    """Section → pattern, from ``permalinks: {blog: …}`` or ``permalinks: {page: {blog: …}}``."""
    if not isinstance(value, Mapping):
        return {}
    if isinstance(value.get("page"), Mapping):
        value = value["page"]
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def _read(config: Path) -> str:
    try:
        return config.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""


def _mkdocs_docs_dir(config: Path) -> str:
    match = re.search(r"^docs_dir\s*:\s*['\"]?([^'\"\s#]+)", _read(config), re.MULTILINE)
    return match.group(1) if match else "docs"


def _released_versions(site_root: Path, docs: DocsInstance) -> list[str]:
    """The released versions the docs instance builds: its versions file (a list
    of names), kept to ``onlyIncludeVersions`` when the config names them."""
    try:
        names = json.loads((site_root / docs.versions_file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return []
    if not isinstance(names, list):
        return []
    versions = [n for n in names if isinstance(n, str)]
    if docs.only_include_versions is not None:
        versions = [v for v in versions if v in docs.only_include_versions]
    return versions


def _current_version_path(site_root: Path, docs: DocsInstance) -> str:
    """Where the docs folder (Docusaurus' "current" version) is published under
    routeBasePath, as the docs plugin decides it: ``versions.current.path`` if set;
    else "" when it is the last version (no released version is built, or
    ``lastVersion: 'current'``); else ``next``."""
    if docs.current_version_path is not None:
        return docs.current_version_path.strip("/")
    if docs.last_version == "current":
        return ""
    if docs.last_version is not None or _released_versions(site_root, docs):
        return "next"
    return ""


def _docusaurus(site_root: Path, config: Path, text: str, docs: DocsInstance) -> Site:
    """The site of one docs instance (``docs``) of a Docusaurus config (``text``)."""
    default = _language(js_string(text, "defaultLocale")) or "en"
    locales: list[str] = []
    if match := re.search(r"\blocales\s*:\s*\[([^\]]*)\]", text):
        locales = [
            t
            for t in (_language(s) for s in re.findall(r"['\"]([^'\"]+)['\"]", match[1]))
            if t is not None
        ]
    route = docs.route_base_path
    base = js_string(text, "baseUrl") or "/"
    translations = {}
    folders = {}
    for locale in locales:
        if locale == default:
            continue
        folder = folders[locale] = site_root / "i18n" / locale / docs.translations
        if folder.is_dir():
            translations[locale] = folder
    layout = SiteLayout(
        generator="docusaurus",
        default_language=default,
        route_base=route.strip("/") if route is not None else "docs",
        version_path=_current_version_path(site_root, docs),
        base_path=base.strip("/"),
        languages=tuple(locales),
        i18n_fallbacks=tuple(
            (locale, _translated_docs(translations.get(locale)))
            for locale in locales
            if locale != default
        ),
    )
    # Files and folders starting with `_` are partials the pages import, never
    # pages (the docs plugin's default `exclude`, kept whatever `exclude` says).
    excluded: tuple[Exclusion, ...] = (_DOCUSAURUS_PARTIALS,)
    if docs.exclude:
        excluded += (Exclusion("site exclude", docs.exclude),)
    return Site(
        layout=layout,
        config=config,
        translations=translations,
        locale_folders=folders,
        excluded=excluded,
    )


_DOCUSAURUS_PARTIALS = Exclusion("partial", ("_*",))


def _translated_docs(folder: Path | None) -> frozenset[str]:
    """The docs a locale's translation folder holds (paths without extension); a
    doc it lacks is served in that locale in the default language."""
    if folder is None:
        return frozenset()
    return frozenset(
        p.relative_to(folder).with_suffix("").as_posix()
        for p in folder.rglob("*")
        if p.suffix in (".md", ".mdx", ".markdown") and p.is_file()
    )


def _docusaurus_of(kb_root: Path, site_root: Path) -> Site | None:
    """The site of the docs instance of ``site_root``'s Docusaurus config that
    reads ``kb_root``; None when the folder has no config or none reads it."""
    for name in _DOCUSAURUS_CONFIGS:
        config = site_root / name
        if not config.is_file():
            continue
        text = _read(config)
        for docs in docs_instances(text):
            if _is(kb_root, site_root / docs.path):
                return _docusaurus(site_root, config, text, docs)
        return None
    return None


# A YAML tag MkDocs configs use (`!!python/name:…`, `!ENV`, `!relative`), where a
# value starts (after `key:`, `- `, `[` or `,`): dropped before the safe parse, its
# value read as plain YAML. A `!` in a block scalar's text (an `exclude_docs`
# negation) is no tag and is kept.
_YAML_TAG = re.compile(r"([:\-\[{,][ \t]*)!{1,2}[A-Za-z][\w/.:-]*")


def _mkdocs_yaml(text: str, config: Path) -> Mapping[str, Any] | None:
    """``mkdocs.yml`` as a mapping, its tags dropped; None when it cannot be read."""
    try:
        data = parse_yaml(_YAML_TAG.sub(r"\1", text), source=str(config))
    except InputError:
        return None
    return data if isinstance(data, Mapping) else None


def _theme_language(data: Mapping[str, Any]) -> str | None:
    """``theme: {language: …}``: the language a single-language MkDocs site is
    written in (its theme's, as mkdocs and Material read it), when it is a tag."""
    theme = data.get("theme")
    return _language(theme.get("language")) if isinstance(theme, Mapping) else None


def _i18n_plugin(data: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``i18n`` plugin's options (mkdocs-static-i18n), when the site uses it."""
    return _plugin(data, ("i18n",))


def _blog(data: Mapping[str, Any]) -> MkDocsBlog | None:
    """Material's blog plugin's placement of posts, when the site uses it."""
    options = _plugin(data, ("blog", "material/blog"))
    if options is None or options.get("enabled") is False:
        return None
    default = MkDocsBlog()

    def text(key: str, fallback: str) -> str:
        value = options.get(key)
        return value if isinstance(value, str) and value.strip() else fallback

    blog_dir = text("blog_dir", default.blog_dir).strip("/")
    most = options.get("post_url_max_categories")
    return MkDocsBlog(
        blog_dir=blog_dir,
        post_dir=text("post_dir", "{blog}/posts").replace("{blog}", blog_dir).strip("/"),
        url_format=text("post_url_format", default.url_format),
        url_date_format=text("post_url_date_format", default.url_date_format),
        separator=text("post_slugify_separator", default.separator),
        max_categories=most if isinstance(most, int) else default.max_categories,
    )


def _plugin(data: Mapping[str, Any], names: tuple[str, ...]) -> Mapping[str, Any] | None:
    """The options of the first of the ``plugins`` named ``names`` ({} when it has
    none), or None when the site does not use it."""
    plugins = data.get("plugins")
    entries: list[tuple[Any, Any]] = []
    if isinstance(plugins, Mapping):
        entries = list(plugins.items())
    elif isinstance(plugins, list):  # `- search`, `- i18n: {…}`
        entries = [
            next(iter(p.items())) if isinstance(p, Mapping) and len(p) == 1 else (p, None)
            for p in plugins
        ]
    for name, options in entries:
        if name in names:
            return options if isinstance(options, Mapping) else {}
    return None


def _i18n_layout(options: Mapping[str, Any], docs: Path) -> dict[str, Any]:
    """The i18n plugin's layout: its structure, its locales (as written), the
    default one (``default: true``, else the first), and, with its
    ``fallback_to_default`` (the plugin's default), the pages each other locale it
    builds has of its own (``docs``: the docs folder)."""
    locales: list[str] = []
    unbuilt: set[str] = set()
    default: str | None = None
    languages = options.get("languages")
    for entry in languages if isinstance(languages, list) else ():
        if not isinstance(entry, Mapping):
            continue
        locale = entry.get("locale")
        if not isinstance(locale, str) or locale_language(locale) is None:
            continue
        locales.append(locale)
        if entry.get("default") is True and default is None:
            default = locale
        if entry.get("build") is False:
            unbuilt.add(locale)
    default = default or (locales[0] if locales else None)
    structure = options.get("docs_structure", "suffix")
    structure = structure if structure in ("suffix", "folder") else "suffix"
    fallbacks: tuple[tuple[str, frozenset[str]], ...] = ()
    if options.get("fallback_to_default") is not False:
        fallbacks = tuple(
            (locale, _locale_pages(docs, structure, locale, locales))
            for locale in locales
            if locale != default and locale not in unbuilt
        )
    return {
        "i18n": structure,
        "languages": tuple(locales),
        "i18n_default": default,
        "default_language": locale_language(default) if default else None,
        "i18n_fallbacks": fallbacks,
    }


def _locale_pages(docs: Path, structure: str, locale: str, locales: list[str]) -> frozenset[str]:
    """The pages a locale of an MkDocs i18n site has of its own: paths without
    extension and locale (``page.fr.md`` or ``fr/page.md`` → ``page``)."""
    root = docs / locale if structure == "folder" else docs
    pages = set()
    for path in root.rglob("*") if root.is_dir() else ():
        if path.suffix not in (".md", ".markdown", ".mdx"):
            continue
        relative = path.relative_to(root).with_suffix("")
        if structure == "suffix":
            if relative.suffix != f".{locale}":
                continue
            relative = relative.with_suffix("")
        pages.add(relative.as_posix())
    return frozenset(pages)


def _mkdocs(config: Path) -> Site | None:
    text = _read(config)
    data = _mkdocs_yaml(text, config)
    if data is None:  # not YAML we can read: its top-level keys, line by line
        found = re.search(r"^use_directory_urls\s*:\s*(\w+)", text, re.MULTILINE)
        url = re.search(r"^site_url\s*:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
        data = {
            "use_directory_urls": not (found and found.group(1).lower() == "false"),
            "site_url": url.group(1) if url else None,
        }
    directory = data.get("use_directory_urls")
    site_url = data.get("site_url")
    i18n = _i18n_plugin(data)
    # The theme's language names the pages of a one-language site; with the i18n
    # plugin each page's language is the plugin's (`page.fr.md`, `fr/`).
    languages = (
        _i18n_layout(i18n, config.parent / _mkdocs_docs_dir(config))
        if i18n is not None
        else {"default_language": _theme_language(data)}
    )
    layout = SiteLayout(
        generator="mkdocs",
        use_directory_urls=directory is not False,
        base_path=urlsplit(site_url).path.strip("/") if isinstance(site_url, str) else "",
        blog=_blog(data),
        **languages,
    )
    return Site(layout=layout, config=config, excluded=_mkdocs_exclusions(data))


def _mkdocs_exclusions(data: Mapping[str, Any]) -> tuple[Exclusion, ...]:
    """What ``mkdocs build`` leaves out: its defaults (dot files, ``/templates/``)
    and ``exclude_docs``; then ``draft_docs`` (served, never built)."""
    exclude, drafts = data.get("exclude_docs"), data.get("draft_docs")
    rules = [
        Exclusion(
            "site exclude",
            (".*", "/templates/", *(pattern_lines(exclude) if isinstance(exclude, str) else ())),
            "gitignore",
        )
    ]
    if isinstance(drafts, str) and pattern_lines(drafts):
        rules.append(Exclusion("site draft", pattern_lines(drafts), "gitignore"))
    return tuple(rules)


def _docusaurus_beside(kb_root: Path) -> Site | None:
    """A Docusaurus site in a folder beside the KB whose docs plugin reads it
    (``website/docusaurus.config.js`` with ``path: '../docs'``, as React Native's
    and Jest's sites are laid out), or None."""
    try:
        folders = sorted(p for p in kb_root.parent.iterdir() if p.is_dir() and p != kb_root)
    except OSError:
        return None
    for folder in folders:
        if folder.name.startswith(".") or folder.name == "node_modules":
            continue
        if (site := _docusaurus_of(kb_root, folder)) is not None:
            return site
    return None


def _is(folder: Path, other: Path) -> bool:
    return folder.resolve() == other.resolve()


def detect_site(kb_root: Path) -> Site | None:
    """The generator of the site whose content folder ``kb_root`` is (see the module
    docstring), or None: a plain folder of Markdown. The KB must be the folder the
    generator reads (``docs_dir``, the docs plugin's ``path``, ``contentDir`` or a
    folder inside it), so a KB that merely sits near a site is not read as one."""
    if not kb_root.is_dir():
        return None
    site_root = kb_root.parent
    if any((site_root / name).is_file() for name in _DOCUSAURUS_CONFIGS):
        return _docusaurus_of(kb_root, site_root)
    if (site_root / "mkdocs.yml").is_file():
        config = site_root / "mkdocs.yml"
        docs = _mkdocs_docs_dir(config)
        return _mkdocs(config) if _is(kb_root, site_root / docs) else None
    if (beside := _docusaurus_beside(kb_root)) is not None:
        return beside
    for root in (kb_root.parent, kb_root.parent.parent):
        if (hugo := _hugo_settings(root)) is not None:
            return _hugo(kb_root, root, *hugo)
    return None
