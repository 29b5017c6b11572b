"""Markup shared by every report (pure): user text made inert, queries
shortened, tables in Markdown or plain text."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

__all__ = ["QUERY_CHARS", "Format", "escape_markdown", "shorten_query", "table"]


Format = Literal["markdown", "text"]


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape_markdown(text: str) -> str:
    """Make user text inert in GitHub Markdown: no markup, no HTML, no pings.

    Whitespace runs (newlines too: they would break a table row) become one
    space; other invisible characters (controls, bidi overrides) become U+FFFD
    so they cannot disguise text; Markdown punctuation is backslash-escaped;
    a zero-width joiner after ``@`` and ``#`` stops mentions (``@org/team``)
    and issue cross-references (``#123``, ``org/repo#1``).
    """
    text = " ".join(text.split())
    text = "".join(c if c.isprintable() else "\ufffd" for c in text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("&", "&amp;")
    return text.replace("@", "@\u200d").replace("#", "#\u200d")


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
