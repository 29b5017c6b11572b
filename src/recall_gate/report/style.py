"""How the report is written (pure): Markdown for the PR comment and the job
summary, plain text for a terminal; numbers as every surface shows them.

All user text (case and card ids, queries, reasons, paths, labels) goes
through :meth:`Style.user` (:func:`recall_gate.report.markup.escape_markdown`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.report.markup import Format, escape_markdown, plain_text, shorten, shorten_query

__all__ = [
    "JOB_SUMMARY_POINTER",
    "MARKDOWN",
    "TEXT",
    "Style",
    "fmt_mean",
    "fmt_p",
    "fmt_rank",
    "fmt_signed",
    "held",
    "listed_items",
    "more_pointer",
    "plural",
    "query_cell",
]

JOB_SUMMARY_POINTER = "the full report is in the job summary"


@dataclass(frozen=True)
class Style:
    """How a phrase is written: Markdown (inert user text, code spans) or plain text."""

    fmt: Format
    limit: int | None = None  # at most this many items per case list; None = all
    # At most this many characters of any one user string (label, reason, path,
    # id, query); None = whole. The comment budget shortens these first.
    user_chars: int | None = None

    @property
    def md(self) -> bool:
        return self.fmt == "markdown"

    def user(self, text: str) -> str:
        """User text, inert."""
        text = shorten(text, self.user_chars)
        return escape_markdown(text) if self.md else plain_text(text)

    def literal(self, text: str) -> str:
        """Code-formatted when that is safe (no backtick, printable), else escaped."""
        text = shorten(text, self.user_chars)
        if self.md and "`" not in text and text.isprintable() and text.strip() == text and text:
            return f"`{text}`"
        return self.user(text)

    def code(self, text: str) -> str:
        """Our own command or flag: a code span in Markdown, as it is in text."""
        return f"`{text}`" if self.md else text

    def bold(self, text: str) -> str:
        return f"**{text}**" if self.md else text

    def banner(self, kind: str, lines: Sequence[str]) -> str:
        """An alert box; an empty line separates paragraphs, ``- `` lines are a list."""
        if self.md:
            return "\n".join([f"> [!{kind}]", *(f"> {line}" if line else ">" for line in lines)])
        return f"{kind}: " + "\n  ".join(line for line in lines if line)

    def collapsed(self, summary: str, body: Sequence[str]) -> str:
        if self.md:
            return "\n\n".join([f"<details><summary>{summary}</summary>", *body, "</details>"])
        return "\n\n".join([f"{summary}\n{'-' * len(summary)}", *body])

    def mark(self, kind: str) -> str:
        if kind == "fail":
            return " ❌" if self.md else " [fail]"
        if kind == "exempt":
            return " ➖" if self.md else " [exempt]"
        return " ⚠️" if self.md else " [would fail]"


MARKDOWN = Style("markdown")


TEXT = Style("text")


def fmt_mean(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def fmt_signed(value: float | None) -> str:
    if value is None:
        return "—"
    if abs(value) < 0.0005:
        return "0.000"
    return f"{value:+.3f}".replace("-", "−")


def fmt_rank(rank: int | None, k: int, returned: int | None = None) -> str:
    """A rank, or why there is none: a ranking of fewer than k cards did not
    retrieve the card at all, which "out of top k" would misstate."""
    if rank is not None:
        return str(rank)
    return f"out of top {k}" if returned is None else f"not retrieved ({returned} returned)"


def held(retrieved: Sequence[str], k: int) -> int | None:
    return len(retrieved) if len(retrieved) < k else None


def query_cell(query: str | None, style: Style) -> str:
    short = shorten_query(query)
    return "—" if short is None else style.user(short)


def fmt_p(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def listed_items(items: Sequence[str], style: Style) -> tuple[list[str], int]:
    shown = list(items) if style.limit is None else list(items[: style.limit])
    return [style.user(i) for i in shown], len(items) - len(shown)


def more_pointer(hidden: int) -> str:
    return f"… and {hidden} more: {JOB_SUMMARY_POINTER}."
