"""A docs page's front matter and text, as Hugo, Docusaurus, MkDocs and Jekyll write them
(adapter: parsing text).

* YAML between ``---`` lines (every generator), TOML between ``+++`` lines
  (Hugo, read with the standard library's ``tomllib``), or a JSON object at the
  top of the file (Hugo);
* front matter over :data:`MAX_FRONT_MATTER_BYTES` is refused, naming the file;
* Hugo shortcodes (``{{< name … >}}``, ``{{% name %}}``) are markup, not text: the
  tags are removed, the text they wrap is kept;
* :func:`skip_reason` says why a page is not a card at all: a draft, a page that only
  links elsewhere (``redirect:``, ``build: {render: link}``), a page without text.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from recall_gate.adapters.files import huge_integer, parse_yaml, too_deep
from recall_gate.adapters.plain_front_matter import parse_plain_front_matter
from recall_gate.errors import InputError, is_huge_integer

__all__ = [
    "MAX_FRONT_MATTER_BYTES",
    "skip_reason",
    "split_front_matter",
    "strip_shortcodes",
]

# Real pages hold a few hundred bytes of front matter; 256 KB is a generated or
# corrupt file, and parsing it would only slow every command down.
MAX_FRONT_MATTER_BYTES = 256 * 1024

_SHORTCODE = re.compile(r"\{\{[<%]-?\s*/?\s*[^{}]*?-?[>%]\}\}")
_FENCES = {"---": ("---", "..."), "+++": ("+++",)}


def _too_big(source: str, size: int) -> InputError:
    return InputError(
        f"{source}: the front matter is {size // 1024} KB, over the "
        f"{MAX_FRONT_MATTER_BYTES // 1024} KB a page's front matter may hold",
        fix="move the data out of the page's front matter (into a data file), or leave the "
        "page out of the KB with `kb_exclude:` in recall-gate.yaml",
    )


def _parse(kind: str, text: str, *, source: str) -> Any:
    if kind == "---":
        plain = parse_plain_front_matter(text)
        if plain is not None:
            return plain
        # A leading newline stands in for the opening '---', so YAML errors
        # name the line of the file, not of the front matter.
        return parse_yaml("\n" + text if text.strip() else "{}", source=source)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(
            f"{source}: invalid TOML front matter: {exc}",
            fix="fix the TOML between the two '+++' lines (strings in quotes, one key = value "
            "a line)",
        ) from None
    except RecursionError:
        raise too_deep(source) from None


def _json_front_matter(text: str, *, source: str) -> tuple[Any, str]:
    try:
        meta, end = json.JSONDecoder().raw_decode(text)
    except RecursionError:
        raise too_deep(source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON front matter: {exc.msg} (line {exc.lineno})",
            fix="close the JSON object at the top of the page, or start the page with its "
            "text (a page that starts with '{' is read as JSON front matter)",
        ) from None
    if end > MAX_FRONT_MATTER_BYTES:
        raise _too_big(source, end)
    return meta, text[end:].strip()


def split_front_matter(text: str, *, source: str) -> tuple[Any, str]:
    """The front matter (``{}`` when the page has none) and the text below it; a
    value Python will not read (an integer of over 4,300 digits) names the file."""
    try:
        return _split(text, source=source)
    except InputError:
        raise
    except ValueError as exc:  # int(): "Exceeds the limit (4300 digits) …", a bad date
        if is_huge_integer(exc):
            raise huge_integer(source) from None
        detail = str(exc).split(";")[0]
        raise InputError(
            f"{source}: the front matter holds a value that cannot be read ({detail})",
            fix="write the value as text (in quotes), or remove it",
        ) from None


def _split(text: str, *, source: str) -> tuple[Any, str]:
    first, _, rest = text.partition("\n")
    fence = first.strip()
    if fence.startswith("{") and text.lstrip().startswith("{"):
        return _json_front_matter(text.lstrip(), source=source)
    if fence not in _FENCES:
        return {}, text.strip()
    closers = _FENCES[fence]
    lines = rest.split("\n")
    size = 0
    for end, line in enumerate(lines):
        if line.strip() in closers:
            meta = _parse(fence, "\n".join(lines[:end]), source=source)
            return meta, "\n".join(lines[end + 1 :]).strip()
        size += len(line) + 1
        if size > MAX_FRONT_MATTER_BYTES:
            raise _too_big(source, size)
    raise InputError(
        f"{source}: front matter is not closed",
        fix=f"add a '{fence}' line after the card's fields",
    )


def strip_shortcodes(body: str) -> str:
    """The text without Hugo shortcode tags (the text a paired shortcode wraps stays)."""
    if "{{" not in body:
        return body
    return _SHORTCODE.sub("", body)


def _render_link(build: Any) -> bool:
    return isinstance(build, Mapping) and build.get("render") in ("link", "never", False)


def cascades_unrendered(meta: Mapping[str, Any]) -> bool:
    """Whether a Hugo section page's ``cascade`` tells every page below it not to
    render (``cascade: {build: {render: never}}``, as a headless bundle of
    snippets is written); a cascade entry with a ``target`` is not followed."""
    cascade = meta.get("cascade")
    entries = cascade if isinstance(cascade, list) else [cascade]
    return any(
        isinstance(e, Mapping)
        and "target" not in e
        and "_target" not in e
        and (_render_link(e.get("build")) or _render_link(e.get("_build")))
        for e in entries
    )


def skip_reason(meta: Mapping[str, Any], body: str) -> str | None:
    """Why the page is no card (``draft``, ``link only``, ``no text``), or None."""
    if meta.get("draft") is True:
        return "draft"
    if meta.get("redirect") or meta.get("redirect_to") or meta.get("externalUrl"):
        return "link only"
    if _render_link(meta.get("build")) or _render_link(meta.get("_build")):
        return "link only"
    if not body.strip():
        return "no text"
    return None
