"""The KB: its cards read from a docs tree or a file of cards (adapter: file I/O).

Every failure becomes one :class:`InputError` naming the file (and line) and the
fix. A directory of Markdown files (``.md``, ``.markdown``, ``.mdx``), each
optionally with YAML front matter above the body: a docs tree as it is
(MkDocs, Docusaurus, Hugo, Jekyll, MyST). The front matter's ``id``,
``language``, ``title`` and ``tags`` are the card's; every other key
(``hide:``, ``description:``, ``sidebar_position:`` …) is kept as the card's
``metadata``, never an error. A field the front matter does not give is
derived: ``id`` = the path under the KB root without extension
(``de/setup`` for ``kb/de/setup.md``), ``title`` = the first heading with its
``{ #anchor }`` attribute list and inline markup removed (else the file
name), ``language`` = the config's folder map (``languages:``), else a
language-tag folder directly under the KB root (``de/``, ``fr-CA/``; never a
nested one: ``en/it/`` is a topic), else ``default_language``. ``kb_include``
/ ``kb_exclude`` globs choose which files are cards. Or a YAML / JSONL file
of card objects (``id``, ``language``, ``title``, ``body``, optional ``tags``),
or a BEIR ``corpus.jsonl``.
"""

from __future__ import annotations

import datetime
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from recall_gate.adapters.beir import is_beir_line, read_beir_corpus
from recall_gate.adapters.files import (
    parse_yaml,
    read_text,
)
from recall_gate.adapters.front_matter import skip_reason, split_front_matter, strip_shortcodes
from recall_gate.adapters.hugo_sections import below, unrendered_sections
from recall_gate.adapters.input_records import (
    JSONL_SUFFIXES,
    YAML_SUFFIXES,
    jsonl_records,
    report_all,
    validate_record,
)
from recall_gate.adapters.site_languages import i18n_fallback, site_language
from recall_gate.adapters.site_layout import Exclusion, Site, detect_site
from recall_gate.adapters.trec import UNDETERMINED_LANGUAGE
from recall_gate.core.ignore_patterns import glob_regex, ignored
from recall_gate.core.language import folder_language, language_error
from recall_gate.core.records import Card
from recall_gate.core.site_urls import (
    CardIds,
    card_ids_with_urls,
    published_urls,
    strip_language_suffix,
)
from recall_gate.errors import InputError

__all__ = [
    "MARKDOWN_SUFFIXES",
    "Kb",
    "KbCard",
    "KbFiles",
    "SkippedPage",
    "card_ids_of",
    "clean_title",
    "kb_files",
    "load_card_ids",
    "load_cards",
    "load_kb",
    "read_kb",
]

_CARD_FIX = (
    "a card needs id, language (a BCP-47 tag such as en, de, es-419, pt-BR), title and a body"
)
MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdx")
# The front-matter keys that are the card's own fields; every other key is metadata.
_CARD_KEYS = ("id", "language", "title", "tags")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
# A heading's trailing attribute list: MkDocs/Python-Markdown `{ #anchor .class }`,
# kramdown `{: #anchor}`, Pandoc/MyST `{#anchor}`.
_ATTRIBUTE_LIST = re.compile(r"\s*\{:?\s*(?:[#.][\w-]|[\w-]+=)[^{}]*\}\s*$")
_MARKUP = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), r"\1"),  # image: its alt text
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), r"\1"),  # inline link: its text
    (re.compile(r"\[([^\]]+)\]\[[^\]]*\]"), r"\1"),  # reference link: its text
    (re.compile(r"<[^<>]+>"), ""),  # HTML / JSX tags
    (re.compile(r"(`+)(.+?)\1"), r"\2"),  # code spans
    (re.compile(r"(\*\*|__)(.+?)\1"), r"\2"),  # strong
    (re.compile(r"(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?!\w)"), r"\1"),  # emphasis
    (re.compile(r"(?<!\w)_(?!\s)(.+?)(?<!\s)_(?!\w)"), r"\1"),
    (re.compile(r"~~(.+?)~~"), r"\1"),  # strikethrough
)
# MDX: module imports and exports at the top level are code, not the page's text.
_MDX_ESM = re.compile(r"^(?:import|export)\s")
_FENCE = re.compile(r"^ {0,3}(```|~~~)")


@dataclass(frozen=True)
class KbCard:
    """A card with where it came from: the file (or line) that defined it, its
    path under the KB root (Markdown cards), and where its language came from
    (``front matter``, ``languages: pt/`` (the config's folder map), ``folder en/``,
    ``default_language``, or ``card field`` for YAML / JSONL KBs)."""

    where: str
    card: Card
    path: str | None = None
    language_source: str = "card field"
    size: int = 0  # bytes of the file (Markdown) or of the card's body
    # The URL paths the site publishes for the card (core.site_urls), when the
    # KB is a Hugo, Docusaurus or MkDocs content folder.
    urls: tuple[str, ...] = ()


@dataclass(frozen=True)
class SkippedPage:
    """A Markdown file of the KB that is no card, and why (``draft``, ``link only``,
    ``no text``, ``partial``, ``i18n fallback``, ``site exclude``, ``site draft``)."""

    path: str
    reason: str


@dataclass(frozen=True)
class Kb:
    """A KB as read: its cards, the pages that are none, the ``kb_include`` /
    ``kb_exclude`` patterns that matched no file, and the site it belongs to."""

    cards: list[KbCard]
    skipped: list[SkippedPage] = field(default_factory=list)
    unmatched: tuple[str, ...] = ()
    site: Site | None = None

    def skipped_ids(self) -> dict[str, str]:
        """Each skipped page's id (its path without extension) → why it is no card."""
        return {str(PurePosixPath(s.path).with_suffix("")): s.reason for s in self.skipped}


@dataclass(frozen=True)
class KbFiles:
    """Which files of a KB directory are cards, and how languages are assigned."""

    default_language: str | None = None
    # Folder (a path under the KB root, "." for all of it) → language tag.
    languages: Mapping[str, str] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    # Strict front matter: a key that is no card field is an error naming the
    # file and the key, not metadata. The text names the switch that asked for
    # it, so the fix line can say how to turn it off; None = off (the default).
    strict_front_matter: str | None = None


def clean_title(text: str) -> str:
    """A heading as plain text: its attribute list and inline markup removed."""
    text = _ATTRIBUTE_LIST.sub("", text)
    for pattern, replacement in _MARKUP:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def _first_heading(body: str) -> str | None:
    """The text of the first ATX (``# Title``) or setext (``Title`` over ``===``) heading,
    outside code fences."""
    lines = body.splitlines()
    fenced = False
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        match = _HEADING.match(line)
        if match:
            return clean_title(match.group(1)) or None
        if (
            line.strip()
            and i + 1 < len(lines)
            and _SETEXT_UNDERLINE.match(lines[i + 1])
            and not line.lstrip().startswith(("-", "*", ">"))
        ):
            return clean_title(line) or None
    return None


def _without_mdx_esm(body: str) -> str:
    """An MDX body without its top-level ``import`` / ``export`` lines."""
    kept, fenced = [], False
    for line in body.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
        if not fenced and _MDX_ESM.match(line):
            continue
        kept.append(line)
    return "\n".join(kept).strip()


def _json_safe(value: Any) -> Any:
    """A front-matter value as JSON: dates as ISO text, other scalars as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, datetime.date):  # datetime too
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return str(value)


def _tags(value: Any) -> tuple[str, ...] | None:
    """Front-matter tags as text: a list of names, or of Docusaurus ``{label: …}``
    objects, or one name; None when they are something else (kept as metadata)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list):
        return None
    tags = []
    for item in items:
        if isinstance(item, Mapping) and isinstance(item.get("label"), str):
            tags.append(item["label"])
        elif isinstance(item, str | int | float) and not isinstance(item, bool):
            tags.append(str(item))
        else:
            return None
    return tuple(tags)


def _folder_key(folder: str) -> str:
    return folder.strip().strip("/") or "."


def _language_of(relative: PurePosixPath, files: KbFiles) -> tuple[str, str] | None:
    """A card's language and its source, from its place in the KB: the config's
    folder map (the longest matching folder), else a language-tag folder
    directly under the KB root, else ``default_language``. A nested folder is
    never a language: ``en/it/`` is a topic (IT) in English, not Italian."""
    folders = relative.parts[:-1]
    mapped = {_folder_key(k): v for k, v in files.languages.items()}
    for depth in range(len(folders), -1, -1):
        key = "/".join(folders[:depth]) or "."
        if key in mapped:
            return mapped[key], f"languages: {key}" + ("" if key == "." else "/")
    if folders and (tag := folder_language(folders[0])) is not None:
        return tag, f"folder {folders[0]}/"
    if files.default_language is not None:
        return files.default_language, "default_language"
    return None


def _card_id(
    meta: Mapping[str, Any], relative: PurePosixPath, *, source: str, site: Site | None
) -> str:
    """Front matter's ``id``, else the path under the KB root without extension
    (a Hugo translation ``page.es.md`` without its language: ``page``). A
    Docusaurus ``id:`` names the doc within its folder, as Docusaurus reads it."""
    ident = meta.get("id")
    if ident is None:
        path = relative.with_suffix("")
        if site is not None and (site.layout.generator == "hugo" or site.layout.i18n == "suffix"):
            stem, _ = strip_language_suffix(path.name, site.layout.languages)
            path = path.with_name(stem)
        return path.as_posix()
    if isinstance(ident, str | int) and not isinstance(ident, bool) and str(ident).strip():
        text = str(ident).strip()
        folder = relative.parent.as_posix()
        if site is not None and site.layout.generator == "docusaurus" and folder != ".":
            return f"{folder}/{text}"
        return text
    raise InputError(
        f"{source}: front-matter `id` is {ident!r}, not a card id",
        fix="set `id:` to text, or remove it: the id is then the path under the KB root "
        "without extension",
    )


def _card_language(
    meta: Mapping[str, Any],
    relative: PurePosixPath,
    files: KbFiles,
    *,
    source: str,
    site: Site | None = None,
) -> tuple[str, str]:
    """The card's language and where it came from (front matter first)."""
    language = meta.get("language")
    if language is None:
        found = site_language(relative, site) or _language_of(relative, files)
        if found is None and site is not None and site.layout.default_language is not None:
            found = site.layout.default_language, f"{site.config.name} default language"
        if found is None:
            raise InputError(
                f"{source}: no language for this card",
                fix="add `language: <tag>` front matter, keep the file under a folder named "
                "after its language directly under the KB root (e.g. de/ or fr-CA/), map "
                "its folder in `languages:`, or set `default_language` in recall-gate.yaml",
            )
        return found
    problem = language_error(language) if isinstance(language, str) else "not text"
    if problem is not None:
        raise InputError(
            f"{source}: front-matter `language: {language}` is not a BCP-47 tag",
            fix="write a tag such as en, de, es-419 or pt-BR, or remove the key so the "
            "folder (or `languages:` in recall-gate.yaml) decides",
        )
    return language, "front matter"


def _title_and_tags(
    meta: Mapping[str, Any],
    body: str,
    *,
    stem: str,
    fields: dict[str, Any],
    metadata: dict[str, Any],
) -> None:
    """The card's title (front matter, else first heading, else file name) and tags
    into ``fields``; a title or tags that are not text go to ``metadata``."""
    title = meta.get("title")
    if isinstance(title, str | int | float) and not isinstance(title, bool) and str(title).strip():
        fields["title"] = " ".join(str(title).split())
    else:
        if title is not None:
            metadata["title"] = _json_safe(title)
        fields["title"] = _first_heading(body) or stem
    if "tags" in meta:
        tags = _tags(meta["tags"])
        if tags is None:
            metadata["tags"] = _json_safe(meta["tags"])
        else:
            fields["tags"] = tags


def _card_from_markdown(
    path: Path,
    *,
    root: Path,
    files: KbFiles,
    site: Site | None = None,
    locale: str | None = None,
) -> KbCard | SkippedPage:
    """A Markdown card (see the module docstring for what is derived, and how), or
    the reason the page is none. ``locale``: a Docusaurus translation's language
    (``root`` is then its translation folder, so the id is the source page's)."""
    source = str(path)
    relative = PurePosixPath(path.relative_to(root).as_posix())
    shown = relative.as_posix() if locale is None else f"i18n/{locale}/{relative.as_posix()}"
    for rule in site.excluded if site is not None else ():
        if _left_out(relative.as_posix(), rule):
            return SkippedPage(shown, rule.reason)  # the site's config leaves it out
    if i18n_fallback(path, site):
        return SkippedPage(shown, "i18n fallback")
    raw = read_text(path, what="card")
    meta, body = split_front_matter(raw, source=source)
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise InputError(
            f"{source}: front matter is a {type(meta).__name__}, not a mapping of keys",
            fix="write the front matter as `key: value` lines between the two '---' lines",
        )
    if path.suffix == ".mdx":
        body = _without_mdx_esm(body)
    body = strip_shortcodes(body).strip()
    reason = skip_reason(meta, body)
    if reason is not None:
        return SkippedPage(shown, reason)
    metadata = {str(k): _json_safe(v) for k, v in meta.items() if k not in _CARD_KEYS}
    fields: dict[str, Any] = {
        "body": body,
        "id": _card_id(meta, relative, source=source, site=site),
    }
    _title_and_tags(meta, body, stem=path.stem, fields=fields, metadata=metadata)
    if files.strict_front_matter is not None and metadata:
        raise _not_card_fields(source, metadata, switch=files.strict_front_matter)
    if locale is not None and "language" not in meta:
        fields["language"], language_source = locale, f"i18n/{locale}/"
    else:
        fields["language"], language_source = _card_language(
            meta, relative, files, source=source, site=site
        )
    fields["metadata"] = metadata
    card = validate_record(Card, fields, where=source, fix=_CARD_FIX)
    urls = published_urls(
        relative.as_posix(),
        language=card.language,
        meta=meta,
        site=None if site is None else site.layout,
        title=card.title,
    )
    return KbCard(
        where=source,
        card=card,
        path=shown,
        language_source=language_source,
        size=len(raw.encode("utf-8")),
        urls=urls,
    )


_NOT_READ = {"title": "not text", "tags": "not a list of names"}


def _not_card_fields(source: str, metadata: Mapping[str, Any], *, switch: str) -> InputError:
    """Strict front matter: every key of the page that is no card field, in one error."""
    unknown = [k for k in metadata if k not in _CARD_KEYS]
    unread = [k for k in metadata if k in _CARD_KEYS]
    parts = []
    if unknown:
        keys = ", ".join(f"`{k}`" for k in unknown)
        verb = "is" if len(unknown) == 1 else "are"
        noun = "a card field" if len(unknown) == 1 else "card fields"
        parts.append(f"front-matter key{'s' if len(unknown) > 1 else ''} {keys} {verb} not {noun}")
    parts += [f"front-matter `{k}` is {_NOT_READ[k]}" for k in unread]
    them = "them" if len(metadata) > 1 else "it"
    return InputError(
        f"{source}: {'; '.join(parts)} (strict front matter: only "
        f"{', '.join(_CARD_KEYS)} are read)",
        fix=f"remove {them} from the page's front matter, or turn off {switch}: other keys are "
        "then kept as the card's metadata",
    )


def _expand_braces(glob: str) -> list[str]:
    """``docs/{a,b}/*.md`` → ``docs/a/*.md``, ``docs/b/*.md`` (nested braces too)."""
    match = re.search(r"\{([^{}]*,[^{}]*)\}", glob)
    if match is None:
        return [glob]
    head, tail = glob[: match.start()], glob[match.end() :]
    return [g for option in match.group(1).split(",") for g in _expand_braces(head + option + tail)]


def _glob_pattern(glob: str) -> re.Pattern[str]:
    """A glob over paths under the KB root: ``*`` within a folder, ``**`` across
    folders, ``?`` one character, ``{a,b}`` either; a pattern without ``/`` matches
    a name at any depth."""
    return re.compile("|".join(f"(?:{_glob_regex(g)})" for g in _expand_braces(glob)))


def _glob_regex(glob: str) -> str:
    glob = glob.strip().strip("/")
    if "/" not in glob:
        glob = "**/" + glob
    return glob_regex(glob)


@functools.lru_cache(maxsize=8)
def _globs(globs: tuple[str, ...]) -> list[re.Pattern[str]]:
    return [_glob_pattern(g) for g in globs]


def _left_out(relative: str, rule: Exclusion) -> bool:
    """Whether a site's exclusion rule leaves the page at ``relative`` out."""
    if rule.syntax == "gitignore":
        return ignored(relative, rule.patterns)
    return _matches(relative, _globs(rule.patterns))


def _matches(relative: str, patterns: Sequence[re.Pattern[str]]) -> bool:
    """Whether the path, or one of its folders, matches one of ``patterns``."""
    parts = relative.split("/")
    prefixes = ["/".join(parts[: n + 1]) for n in range(len(parts))]
    return any(p.fullmatch(prefix) for p in patterns for prefix in prefixes)


def kb_files(root: Path, *, include: Sequence[str] = (), exclude: Sequence[str] = ()) -> list[Path]:
    """The Markdown files of a KB directory that are cards: every ``.md``,
    ``.markdown`` and ``.mdx`` file outside hidden folders, narrowed to the
    ``include`` globs when given, minus the ``exclude`` globs."""
    return _kb_files(root, include=include, exclude=exclude)[0]


def _kb_files(
    root: Path, *, include: Sequence[str] = (), exclude: Sequence[str] = ()
) -> tuple[list[Path], tuple[str, ...]]:
    """:func:`kb_files`, and the ``include`` / ``exclude`` globs that matched no file."""
    included = [_glob_pattern(g) for g in include]
    excluded = [_glob_pattern(g) for g in exclude]
    used: set[int] = set()
    files = []
    try:
        found = list(root.rglob("*"))
    except OSError as exc:  # a folder that vanished or may not be read, mid-walk
        raise InputError(
            f"{root}: cannot list the KB directory ({exc.filename}: {exc.strerror})",
            fix="check the KB path and the permissions of the folders under it",
        ) from None
    for path in found:
        if path.suffix not in MARKDOWN_SUFFIXES or not path.is_file():
            continue
        relative = path.relative_to(root).as_posix()
        if any(part.startswith(".") for part in relative.split("/")[:-1]):
            continue
        if included:
            hits = [i for i, p in enumerate(included) if _matches(relative, [p])]
            used.update(hits)
            if not hits:
                continue
        if excluded:
            hits = [i for i, p in enumerate(excluded) if _matches(relative, [p])]
            used.update(len(included) + i for i in hits)
            if hits:
                continue
        files.append(path)
    globs = [*(f"kb_include: {g}" for g in include), *(f"kb_exclude: {g}" for g in exclude)]
    unmatched = tuple(g for i, g in enumerate(globs) if i not in used)
    return sorted(files), unmatched


class _Detected:
    """The site a KB folder's own config names (:func:`detect_site`): the default."""


DETECTED = _Detected()


def _markdown_kb(root: Path, files: KbFiles, site: Site | _Detected | None = DETECTED) -> Kb:
    paths, unmatched = _kb_files(root, include=files.include, exclude=files.exclude)
    if isinstance(site, _Detected):
        site = detect_site(root)
    translations: list[tuple[str | None, Path, Path]] = []
    for tag, translated in site.translations.items() if site is not None else ():
        found, missed = _kb_files(translated, include=files.include, exclude=files.exclude)
        translations += [(tag, translated, path) for path in found]
        # A pattern is unmatched only if it matched no page, translations included.
        unmatched = tuple(g for g in unmatched if g in missed)
    if not paths and not translations:
        narrowed = (
            " matching `kb_include` / outside `kb_exclude`"
            if (files.include or files.exclude)
            else ""
        )
        raise InputError(
            f"{root}: no Markdown card files (.md, .markdown, .mdx){narrowed} in the KB directory",
            fix="add Markdown files (front matter optional), point `kb` elsewhere, or widen "
            "`kb_include` / `kb_exclude` in recall-gate.yaml",
        )
    hugo = site is not None and site.layout.generator == "hugo"
    unrendered = unrendered_sections(paths) if hugo else []
    jobs = [(None, root, p) for p in paths] + translations
    results: list[KbCard | SkippedPage | InputError] = []
    real_roots: dict[Path, Path] = {}
    for locale, folder, path in jobs:
        if unrendered and any(below(path, section) for section in unrendered):
            # Below a section whose cascade renders nothing (Hugo: a headless bundle).
            results.append(SkippedPage(path.relative_to(folder).as_posix(), "link only"))
            continue
        try:
            real = real_roots.setdefault(folder, folder.resolve())
            _refuse_outside(path, root=folder, real_root=real)
            results.append(
                _card_from_markdown(path, root=folder, files=files, site=site, locale=locale)
            )
        except InputError as exc:
            results.append(exc)
    report_all(
        [r for r in results if isinstance(r, InputError)], total=len(jobs), what="KB card files"
    )
    cards = [r for r in results if isinstance(r, KbCard)]
    skipped = [r for r in results if isinstance(r, SkippedPage)]
    if not cards:
        raise InputError(
            f"{root}: none of the {len(jobs)} Markdown files is a card (drafts, link-only "
            "pages and pages without text are skipped)",
            fix="point `kb` at the folder of the docs' pages, or list the skipped pages with "
            "`recall-gate cards --skipped`",
        )
    return Kb(cards=cards, skipped=skipped, unmatched=unmatched, site=site)


def _refuse_outside(file: Path, *, root: Path, real_root: Path) -> None:
    """A card file that resolves outside the KB (a symlink to ``/etc/hostname``, to a
    sibling checkout) is never read: a pull request could otherwise publish any
    file of the runner as a card."""
    target = file.resolve()
    if not target.is_relative_to(real_root):
        raise InputError(
            f"{file}: a symlink to {target}, outside the KB {root}",
            fix="copy the card into the KB, or remove the link: recall-gate reads no "
            "card file outside the KB",
        )


def _record_card(where: str, obj: Any) -> KbCard:
    card = validate_record(Card, obj, where=where, fix=_CARD_FIX)
    return KbCard(where=where, card=card, size=len(card.body.encode("utf-8")))


def read_kb(
    path: Path, files: KbFiles | None = None, *, site: Site | _Detected | None = DETECTED
) -> Kb:
    """The KB as read: its cards with where each came from, the pages skipped, the
    globs that matched nothing; see the module docstring for formats. ``site``:
    the docs site whose rules read a KB folder (default: the one its own config
    names; the KB diff reads a scratch copy of changed files with the checkout's).

    Every bad Markdown file of a KB directory is reported in one error.
    """
    files = files or KbFiles()
    if path.is_dir():
        return _markdown_kb(path, files, site)
    if path.suffix in MARKDOWN_SUFFIXES:
        entry = _card_from_markdown(path, root=path.parent, files=files)
        if isinstance(entry, SkippedPage):
            raise InputError(
                f"{path}: the page is no card ({entry.reason})",
                fix="point `kb` at a page with text, or at the folder of the docs' pages",
            )
        return Kb(cards=[entry])
    return Kb(cards=_record_kb(path, files))


def load_kb(path: Path, files: KbFiles | None = None) -> list[KbCard]:
    """The KB's cards with where each came from (:func:`read_kb`'s cards)."""
    return read_kb(path, files).cards


def card_ids_of(entries: Sequence[KbCard]) -> CardIds:
    """The KB's card ids with the URLs its site publishes for each: what a
    retrieved id or a gold id is resolved against (``core.site_urls``)."""
    return card_ids_with_urls(
        ((e.card.id, e.urls) for e in entries),
        languages=((e.card.id, e.card.language) for e in entries),
        # A Markdown card's file (``where``) tells its language among translations.
        placed=(
            (e.card.id, e.card.language, e.where if e.path is not None else "", e.urls)
            for e in entries
        ),
    )


def load_card_ids(path: Path, files: KbFiles | None = None) -> CardIds:
    """:func:`card_ids_of` the KB at ``path``."""
    return card_ids_of(load_kb(path, files))


def _record_kb(path: Path, files: KbFiles) -> list[KbCard]:
    source = str(path)
    text = read_text(path, what="KB file")
    if path.suffix in JSONL_SUFFIXES:
        lines = list(jsonl_records(text, source=source))
        if lines and is_beir_line(lines[0][1]):  # a BEIR corpus.jsonl
            language = files.default_language or UNDETERMINED_LANGUAGE
            return [
                KbCard(where=where, card=card, size=len(card.body.encode("utf-8")))
                for where, card in read_beir_corpus(path, language=language)
            ]
        return [_record_card(f"{source}:{n}", obj) for n, obj in lines]
    if path.suffix in YAML_SUFFIXES:
        data = parse_yaml(text, source=source)
        items = data.get("cards") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise InputError(
                f"{source}: expected a list of cards (or a `cards:` list)", fix=_CARD_FIX
            )
        return [_record_card(f"{source} card #{i}", obj) for i, obj in enumerate(items, start=1)]
    raise InputError(
        f"{source}: unknown KB format {path.suffix!r}",
        fix="use a directory of Markdown cards (.md, .mdx), or a .yaml / .jsonl file of cards",
    )


def load_cards(
    path: Path, *, default_language: str | None = None, files: KbFiles | None = None
) -> list[tuple[str, Card]]:
    """Cards with where each was defined (:func:`load_kb` without the rest).

    ``default_language`` labels Markdown cards that name no language
    themselves and sit under no language folder (``files`` gives it too,
    with the folder map and the include / exclude globs).
    """
    if files is None:
        files = KbFiles(default_language=default_language)
    return [(entry.where, entry.card) for entry in load_kb(path, files)]
