"""The fast path for the front matter almost every docs page has (adapter: parsing text).

A full YAML parser in pure Python reads about 150 KB/s: 10,000 pages took 20 s
before any of them was embedded. Most front matter is a flat list of
``key: value`` lines with plain words, numbers, dates and short lists, which
:func:`parse_plain_front_matter` reads directly. It accepts only a subset whose
YAML meaning is unambiguous and returns exactly what the YAML parser would; on
anything else (quotes with escapes, nesting, anchors, block scalars, ``yes`` /
``no``, a ``: `` inside a value, a repeated key …) it returns None and the page's
front matter goes to the full parser, errors and limits included.
"""

from __future__ import annotations

import datetime
import re
from typing import Any

__all__ = ["parse_plain_front_matter"]

_KEY = re.compile(r"([A-Za-z_][\w.-]*):(?: +(.*))?$")
_INT = re.compile(r"(?:0|[1-9][0-9]{0,17})$")
_DATE = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})$")
# Words YAML (1.1 or 1.2) may read as something other than text: the full parser decides.
_RESERVED = frozenset(
    {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", ".nan", ".inf"}
)
_NOT_PLAIN = object()


def _quoted(text: str) -> Any:
    """A quoted value without escapes (``"…"`` without ``\\`` or ``"``, ``'…'`` without ``'``)."""
    quote, inner = text[0], text[1:-1]
    if len(text) < 2 or not text.endswith(quote) or quote in inner:
        return _NOT_PLAIN
    return _NOT_PLAIN if quote == '"' and "\\" in inner else inner


def _date(year: int, month: int, day: int) -> Any:
    try:
        return datetime.date(year, month, day)
    except ValueError:  # 2024-13-45: the full parser says what it is
        return _NOT_PLAIN


def _scalar(text: str) -> Any:
    """A value of the subset, or ``_NOT_PLAIN``."""
    text = text.rstrip()
    if not text:
        return _NOT_PLAIN
    if text[0] in "\"'":
        return _quoted(text)
    if _INT.match(text):
        return int(text)
    if date := _DATE.match(text):
        return _date(*(int(g) for g in date.groups()))
    # Letters, or a path: no YAML indicator starts a value like these.
    plain = (text[0].isalpha() or text[0] in "/_.") and text.lower() not in _RESERVED
    if not plain or ": " in text or " #" in text or text.endswith(":") or "\t" in text:
        return _NOT_PLAIN
    return text


def _flow_list(text: str) -> Any:
    inner = text.strip()[1:-1]
    if any(c in inner for c in "[]{}'\"#"):
        return _NOT_PLAIN
    items = [_scalar(part.strip()) for part in inner.split(",")] if inner.strip() else []
    return _NOT_PLAIN if any(i is _NOT_PLAIN for i in items) else items


class _NotPlain(Exception):
    """The front matter leaves the plain subset: the full parser reads it."""


def _value(rest: str) -> Any:
    value = _flow_list(rest) if rest.startswith("[") and rest.endswith("]") else _scalar(rest)
    if value is _NOT_PLAIN:
        raise _NotPlain
    return value


def _block(lines: list[tuple[int, str]], start: int, indent: int) -> tuple[Any, int]:
    """The mapping or list whose lines start at ``start`` with ``indent`` spaces."""
    if lines[start][1].startswith("- "):
        items, i = [], start
        while i < len(lines) and lines[i][0] == indent and lines[i][1].startswith("- "):
            items.append(_value(lines[i][1][2:].strip()))
            i += 1
        return items, i
    out: dict[str, Any] = {}
    i = start
    while i < len(lines) and lines[i][0] == indent:
        match = _KEY.match(lines[i][1])
        if match is None or match.group(1) in out or match.group(1).lower() in _RESERVED:
            raise _NotPlain
        key, rest = match.group(1), (match.group(2) or "").strip()
        i += 1
        if rest:
            out[key] = _value(rest)
            continue
        # A list may sit at the key's own indentation; anything else must be deeper.
        below = i < len(lines) and (
            lines[i][0] > indent or (lines[i][0] == indent and lines[i][1].startswith("- "))
        )
        if below:
            out[key], i = _block(lines, i, lines[i][0])
        else:
            out[key] = None
    if i < len(lines) and lines[i][0] > indent:
        raise _NotPlain  # a deeper line where none may be
    return out, i


def parse_plain_front_matter(text: str) -> dict[str, Any] | None:
    """``text`` (the lines between the fences) as a mapping when it is of the plain
    subset (see the module docstring), else None."""
    lines = []
    for raw in text.split("\n"):
        line = raw.rstrip()
        content = line.lstrip(" ")
        if not content or content.startswith("#"):
            continue
        if content.startswith("\t") or content == "-":
            return None
        lines.append((len(line) - len(content), content))
    if not lines:
        return {}
    try:
        found, end = _block(lines, 0, lines[0][0])
    except _NotPlain:
        return None
    if end != len(lines) or not isinstance(found, dict) or lines[0][0] != 0:
        return None
    return found
