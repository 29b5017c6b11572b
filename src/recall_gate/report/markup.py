"""Markup shared by every report (pure): user text made inert, queries
shortened, tables in Markdown or plain text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

__all__ = [
    "QUERY_CHARS",
    "Format",
    "escape_markdown",
    "plain_text",
    "shorten",
    "shorten_query",
    "table",
]


Format = Literal["markdown", "text"]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")
_ZWJ = "\u200d"
# GitHub turns ``GH-26`` into an issue link (any case), and a bare ``https://``
# or ``www.`` URL into a link (an issue or pull request URL into ``o/r#26``).
_GH_REFERENCE = re.compile(r"\b(gh)-(?=\d)", re.IGNORECASE)
_BARE_URL = re.compile(r"(?<=[a-z0-9])(://)|\b(www)(\.)", re.IGNORECASE)


def escape_markdown(text: str) -> str:
    """Make user text inert in GitHub Markdown: no markup, no HTML, no pings.

    Whitespace runs (newlines too: they would break a table row) become one
    space; other invisible characters (controls, bidi overrides) become U+FFFD
    so they cannot disguise text; Markdown punctuation is backslash-escaped;
    a zero-width joiner after ``@`` and ``#`` stops mentions (``@org/team``)
    and issue cross-references (``#123``, ``org/repo#1``), one inside ``GH-123``,
    ``https://`` and ``www.`` stops GitHub's reference and URL autolinks (an
    issue URL would render as ``o/r#12``); ``$`` is wrapped in a ``<span>``,
    which GitHub documents as the way to show a dollar sign that its math
    renderer must not read as ``$…$`` math (a backslash is not enough there).
    """
    text = " ".join(text.split())
    text = "".join(c if c.isprintable() else "\ufffd" for c in text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("&", "&amp;")
    text = text.replace("@", "@" + _ZWJ).replace("#", "#" + _ZWJ)
    text = _GH_REFERENCE.sub(lambda m: m.group(1) + _ZWJ + "-", text)
    text = _BARE_URL.sub(
        lambda m: (_ZWJ + m.group(1)) if m.group(1) else (m.group(2) + _ZWJ + m.group(3)), text
    )
    return text.replace("$", "<span>$</span>")


def plain_text(text: str) -> str:
    """User text for a terminal: one line, invisible characters made visible."""
    return " ".join("".join(c if c.isprintable() else "\ufffd" for c in text).split())


def shorten(text: str, limit: int | None) -> str:
    """At most ``limit`` characters, the cut marked in the middle (``…``) so both
    ends stay recognisable; ``None``: as it is."""
    if limit is None or len(text) <= limit:
        return text
    head = max(1, (limit - 1) * 2 // 3)
    tail = max(0, limit - 1 - head)
    return text[:head] + "…" + (text[-tail:] if tail else "")


# A query in a case table is cut to this many characters.
QUERY_CHARS = 60


def shorten_query(query: str | None) -> str | None:
    """One line, at most :data:`QUERY_CHARS` characters (an ellipsis marks a cut)."""
    if not query:
        return None
    text = " ".join(query.split())
    return text if len(text) <= QUERY_CHARS else text[: QUERY_CHARS - 1].rstrip() + "…"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], fmt: Format) -> str:
    """A Markdown pipe table, or aligned plain text."""
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]

    def fmt_row(row: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip()

    out = [fmt_row(header), "  ".join("-" * w for w in widths)]
    out += [fmt_row(row) for row in rows]
    return "\n".join(out)
