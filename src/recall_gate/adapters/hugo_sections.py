"""Hugo's content beyond its config's plain keys (adapter: reads the KB's files):
section pages that render none of the pages below them (a headless bundle of
snippets, such as hugoDocs' ``content/en/_common``: ``cascade: {build: {render:
never}}``), the site config's cascades by target path, and module mounts of
content (each language's folder, and fallback mounts of one language's pages
into another's site, as opentelemetry.io's)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall_gate.adapters.files import read_text
from recall_gate.adapters.front_matter import cascades_unrendered, split_front_matter
from recall_gate.core.language import canonical_language, language_error
from recall_gate.core.site_urls import HugoFallback
from recall_gate.errors import InputError

__all__ = [
    "HugoMount",
    "below",
    "content_mounts",
    "fallback_mounts",
    "relative_dir",
    "unrendered_sections",
    "unrendered_targets",
]


def below(page: Path, section: Path) -> bool:
    """Whether ``page`` is a descendant of the section (not its own ``_index``)."""
    return section in page.parents and not (page.parent == section and page.stem == "_index")


def unrendered_sections(paths: Sequence[Path]) -> list[Path]:
    """The folders of the section pages (``_index.md``) among ``paths`` whose
    cascade renders none of the pages below them."""
    found = []
    for path in paths:
        if path.stem != "_index":
            continue
        try:
            meta, _ = split_front_matter(read_text(path, what="card"), source=str(path))
        except InputError:
            continue  # reported when the page itself is read
        if isinstance(meta, Mapping) and cascades_unrendered(meta):
            found.append(path.parent)
    return found


def relative_dir(site_root: Path, folder: str, kb_root: Path) -> str:
    """A content folder relative to the KB root ("" when it is the root or outside it)."""
    try:
        relative = (site_root / folder).resolve().relative_to(kb_root.resolve())
    except ValueError:
        return ""
    text = relative.as_posix()
    return "" if text == "." else text


@dataclass(frozen=True)
class HugoMount:
    """A Hugo module mount of content: its source folder (relative to the site),
    its target below ``content`` (``content`` itself, or ``content/docs``), its
    language (None: no ``lang``) and its ``excludeFiles`` globs."""

    source: str
    target: str
    language: str | None
    exclude: tuple[str, ...] = ()


def content_mounts(module: Any) -> list[HugoMount]:
    """Each module mount of content (``[[module.mounts]]``, or ``[[mounts]]`` of
    ``config/_default/module.toml``, with a target of ``content`` or below it): its
    language from ``lang = "ja"`` or a one-language ``[sites.matrix] languages =
    ["ja"]`` (newer Hugo), else None (the default language's)."""
    mounts = module.get("mounts") if isinstance(module, Mapping) else None
    found: list[HugoMount] = []
    for mount in mounts if isinstance(mounts, list) else ():
        if not isinstance(mount, Mapping):
            continue
        source, target = mount.get("source"), mount.get("target")
        if not (isinstance(source, str) and isinstance(target, str)):
            continue
        target = target.strip("/")
        if target != "content" and not target.startswith("content/"):
            continue
        lang = mount.get("lang")
        sites = mount.get("sites")
        matrix = sites.get("matrix") if isinstance(sites, Mapping) else None
        listed = matrix.get("languages") if isinstance(matrix, Mapping) else None
        if lang is None and isinstance(listed, list) and len(listed) == 1:
            lang = listed[0]
        exclude = mount.get("excludeFiles", mount.get("excludefiles"))
        globs = [exclude] if isinstance(exclude, str) else exclude
        found.append(
            HugoMount(
                source=source.strip("/"),
                target=target,
                language=_language(lang) if isinstance(lang, str) else None,
                exclude=tuple(g for g in globs if isinstance(g, str))
                if isinstance(globs, list)
                else (),
            )
        )
    return found


def fallback_mounts(
    site_root: Path,
    kb_root: Path,
    mounts: list[HugoMount],
    content_dirs: Mapping[str, str],
    *,
    default: str,
) -> tuple[HugoFallback, ...]:
    """The mounts that publish another language's pages in a language's site
    (opentelemetry.io: ``content/en/docs`` → ``content/docs`` with ``lang: es``):
    every content mount of a language but the one that is its content folder,
    whose source is in the KB; with the pages that language has of its own."""
    found = []
    for mount in mounts:
        tag = mount.language or default
        own_dir = content_dirs.get(tag, "")
        source = relative_dir(site_root, mount.source, kb_root)
        if not source or (mount.target == "content" and source == own_dir):
            continue
        own_root = kb_root / own_dir if own_dir else kb_root
        own = frozenset(
            p.relative_to(own_root).with_suffix("").as_posix()
            for p in (own_root.rglob("*") if own_root.is_dir() else ())
            if p.suffix in (".md", ".markdown", ".mdx")
        )
        target = mount.target.removeprefix("content").strip("/")
        found.append(HugoFallback(source, target, tag, mount.exclude, own))
    return tuple(found)


def unrendered_targets(cascade: Any, content_dirs: Mapping[str, str]) -> tuple[str, ...]:
    """The globs (relative to the KB) of the pages a cascade of the site's config
    tells not to render, by its target's path glob, in each language's content
    folder (opentelemetry.io: ``cascade: {build: {render: never}, _target: {path:
    '{,/**}/_includes{,/**}'}}``)."""
    patterns: list[str] = []
    for entry in cascade if isinstance(cascade, list) else [cascade]:
        if not isinstance(entry, Mapping):
            continue
        target = entry.get("_target", entry.get("target"))
        if not (isinstance(target, Mapping) and set(target) == {"path"}):
            continue  # a target by kind, language or environment: not followed
        path = target["path"]
        rest = {k: v for k, v in entry.items() if k not in ("_target", "target")}
        if not isinstance(path, str) or not cascades_unrendered({"cascade": rest}):
            continue
        for folder in sorted(set(content_dirs.values())) or [""]:
            patterns += [
                "/".join(p for p in (folder, glob.strip("/")) if p)
                for glob in _braces(path)
                if glob.strip("/")
            ]
    return tuple(dict.fromkeys(patterns))


def _braces(glob: str) -> list[str]:
    """``{,/**}/x`` → ``/x``, ``/**/x`` (nested braces too)."""
    match = re.search(r"\{([^{}]*)\}", glob)
    if match is None:
        return [glob.replace("//", "/")]
    head, tail = glob[: match.start()], glob[match.end() :]
    return [g for option in match.group(1).split(",") for g in _braces(head + option + tail)]


def _language(value: Any) -> str | None:
    if isinstance(value, str) and language_error(value) is None:
        return canonical_language(value)
    return None
