"""The docs a Docusaurus config declares, read from its text (pure: no I/O).

A site's docs come from instances of the docs plugin: the classic preset's
``docs: {…}`` (the ``default`` instance) and any ``plugins: [['content-docs',
{id: 'community', path: 'community', routeBasePath: '/community'}]]`` beside it,
as React Native's site has three. Each instance reads its own folder (``path``),
publishes under its own ``routeBasePath`` and keeps its own versions file and
translations folder (``<id>_versions.json``, ``i18n/<locale>/
docusaurus-plugin-content-docs-<id>/current``). Only literal values are read (in
place, in a ``const`` the options name, or spread into them with ``...name``):
the config is matched, not run, so a value computed in JavaScript is as if unset.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["DEFAULT_ID", "DocsInstance", "docs_instances", "js_string"]

DEFAULT_ID = "default"

# Where an instance's options object opens: the preset's `docs: {`, or a plugin
# entry `['@docusaurus/plugin-content-docs', {` (also `content-docs`, and
# `require.resolve('…')`).
_PRESET = r"\bdocs\s*:\s*"
_PLUGIN = r"['\"](?:@docusaurus/)?(?:plugin-)?content-docs['\"]\s*\)?\s*,\s*"
_NAME = r"([A-Za-z_$][\w$]*)"
_PRESET_DOCS = re.compile(_PRESET + r"\{")
_PLUGIN_DOCS = re.compile(_PLUGIN + r"\{")
# The same, naming a variable that holds the options (`docs: docsOptions`).
_PRESET_DOCS_NAMED = re.compile(_PRESET + _NAME + r"\s*[,}\n]")
_PLUGIN_DOCS_NAMED = re.compile(_PLUGIN + _NAME + r"\s*[,\]\n]")
# Keys only the docs plugin's options have: a `docs: {…}` without one is another
# object (themeConfig's `docs: {sidebar: {…}}`).
_PLUGIN_KEYS = re.compile(
    r"\b(?:path|routeBasePath|sidebarPath|lastVersion|versions|onlyIncludeVersions|"
    r"includeCurrentVersion|include|exclude|editUrl|id)\s*:"
)
# `versions: {…, current: {path: 'x'}}` (one level of nesting before `current`).
_CURRENT_VERSION_PATH = re.compile(
    r"\bversions\s*:\s*\{(?:[^{}]|\{[^{}]*\})*?\bcurrent\s*:\s*\{[^{}]*?"
    r"\bpath\s*:\s*['\"]([^'\"]*)['\"]"
)


@dataclass(frozen=True)
class DocsInstance:
    """One docs plugin instance's options, as the config writes them (None: unset
    or not a literal)."""

    plugin_id: str = DEFAULT_ID
    path: str = "docs"
    route_base_path: str | None = None
    last_version: str | None = None
    current_version_path: str | None = None
    only_include_versions: tuple[str, ...] | None = None
    # `exclude` globs (relative to `path`): pages the instance does not publish.
    exclude: tuple[str, ...] = ()

    @property
    def versions_file(self) -> str:
        """The file listing the instance's released versions."""
        return (
            "versions.json" if self.plugin_id == DEFAULT_ID else f"{self.plugin_id}_versions.json"
        )

    @property
    def translations(self) -> str:
        """A locale's translations of the instance, under ``i18n/<locale>/``."""
        plugin = "docusaurus-plugin-content-docs"
        suffix = "" if self.plugin_id == DEFAULT_ID else f"-{self.plugin_id}"
        return f"{plugin}{suffix}/current"


def js_string(text: str, key: str) -> str | None:
    """The first literal string ``key: '…'`` in ``text``."""
    match = re.search(rf"\b{key}\s*:\s*['\"`]([^'\"`]*)['\"`]", text)
    return match.group(1) if match else None


def _object_at(text: str, start: int) -> str:
    """The object literal whose ``{`` is at ``start``, to its matching ``}`` (or
    the end of the text): braces inside quoted strings are not counted."""
    depth = 0
    quote: str | None = None
    i = start
    while i < len(text):
        char = text[i]
        if quote is not None:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = None
        elif char in "'\"`":
            quote = char
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
        i += 1
    return text[start:]


def _top_level(obj: str) -> str:
    """An object literal without its nested objects: the keys of its own level."""
    inner = obj[1:-1] if obj.endswith("}") else obj[1:]
    while True:
        flattened = re.sub(r"\{[^{}]*\}", "{}", inner)
        if flattened == inner:
            return inner
        inner = flattened


def _declared(text: str, name: str) -> str | None:
    """The object literal a ``const``/``let``/``var`` named ``name`` is set to."""
    match = re.search(rf"\b(?:const|let|var)\s+{re.escape(name)}\b[^=;]*=\s*\{{", text)
    return _object_at(text, match.end() - 1) if match else None


def _with_spreads(text: str, obj: str) -> str:
    """An options object with the objects it spreads (``...commonDocsOptions``)
    appended after its own keys, so its own keys are read first, as they win."""
    spread = [
        found
        for name in re.findall(r"\.\.\.\s*" + _NAME, _top_level(obj))
        if (found := _declared(text, name)) is not None
    ]
    return obj if not spread else "{" + ",".join([obj[1:-1], *(o[1:-1] for o in spread)]) + "}"


def _instance(obj: str) -> DocsInstance:
    own = _top_level(obj)
    only = None
    if match := re.search(r"\bonlyIncludeVersions\s*:\s*\[([^\]]*)\]", own):
        only = tuple(re.findall(r"['\"]([^'\"]+)['\"]", match[1]))
    exclude: tuple[str, ...] = ()
    if match := re.search(r"\bexclude\s*:\s*\[([^\]]*)\]", own):
        exclude = tuple(re.findall(r"['\"]([^'\"]+)['\"]", match[1]))
    current = _CURRENT_VERSION_PATH.search(obj)
    return DocsInstance(
        plugin_id=js_string(own, "id") or DEFAULT_ID,
        path=js_string(own, "path") or "docs",
        route_base_path=js_string(own, "routeBasePath"),
        last_version=js_string(own, "lastVersion"),
        current_version_path=current[1] if current else None,
        only_include_versions=only,
        exclude=exclude,
    )


def _options_objects(text: str, literal: re.Pattern[str], named: re.Pattern[str]) -> list[str]:
    """The options objects the config writes in place (``docs: {…}``) or names
    (``docs: docsOptions``, set by a ``const`` elsewhere in the file), in order."""
    found = [(m.start(), _object_at(text, m.end() - 1)) for m in literal.finditer(text)]
    for match in named.finditer(text):
        if (obj := _declared(text, match[1])) is not None:
            found.append((match.start(), obj))
    return [obj for _, obj in sorted(found, key=lambda pair: pair[0])]


def docs_instances(text: str) -> list[DocsInstance]:
    """Every docs plugin instance the config declares, the preset's first; the
    preset's default instance (``docs/`` at ``/docs``) when it names none."""
    found: list[DocsInstance] = []
    for written in _options_objects(text, _PRESET_DOCS, _PRESET_DOCS_NAMED):
        obj = _with_spreads(text, written)
        if obj == "{}" or _PLUGIN_KEYS.search(_top_level(obj)):
            found.append(_instance(obj))
    for obj in _options_objects(text, _PLUGIN_DOCS, _PLUGIN_DOCS_NAMED):
        found.append(_instance(_with_spreads(text, obj)))
    if not any(i.plugin_id == DEFAULT_ID for i in found):
        found.insert(0, DocsInstance())
    by_id: dict[str, DocsInstance] = {}
    for instance in found:
        by_id.setdefault(instance.plugin_id, instance)
    return list(by_id.values())
