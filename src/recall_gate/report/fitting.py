"""Fitting the PR comment into GitHub's size limit (pure): user strings are
shortened first, then the case lists, with a pointer to the job summary; the
verdict, the banners, the failing rows and the metric table always stay."""

from __future__ import annotations

from collections.abc import Callable

from recall_gate.core.github_limits import comment_length
from recall_gate.report.style import JOB_SUMMARY_POINTER, Style

__all__ = [
    "USER_CHARS_STEPS",
    "fit_comment",
]

# A comment over budget shortens every user string to these lengths in turn.
USER_CHARS_STEPS = (300, 60)


def _hard_cut(text: str, max_chars: int) -> str:
    """Last resort when even empty case lists do not fit: cut at a line end."""
    tail = f"\n\n… truncated: {JOB_SUMMARY_POINTER}.\n"
    closing = "\n</details>"
    room = max(0, max_chars - comment_length(tail) - len(closing))
    cut = text[:room]
    while comment_length(cut) > room:
        cut = cut[: len(cut) - (comment_length(cut) - room)]
    cut = cut.rsplit("\n", 1)[0]
    if cut.count("<details") > cut.count("</details>"):
        cut += closing
    return cut + tail


def fit_comment(
    render: Callable[[Style, bool], str], *, full: str, longest: int, max_chars: int
) -> str:
    """The Markdown report within ``max_chars``: ``render(style, truncated)``
    renders it in a style; ``full`` is its whole text, ``longest`` its longest
    case list. User strings are shortened first (a PR controls its retriever
    label, a reason can be long), then the case lists, pointing to the job
    summary; the verdict, the banners, the failing rows and the metric table
    always stay."""
    if comment_length(full) <= max_chars:
        return full
    last = full
    for user_chars in USER_CHARS_STEPS:

        def attempt(limit: int | None, chars: int = user_chars) -> str:
            return render(Style("markdown", limit, chars), limit is not None)

        text = attempt(None)
        if comment_length(text) <= max_chars:
            return text
        low, high = 0, longest
        best: str | None = None
        while low <= high:
            middle = (low + high) // 2
            text = attempt(middle)
            if comment_length(text) <= max_chars:
                best, low = text, middle + 1
            else:
                high = middle - 1
        if best is not None:
            return best
        last = attempt(0)
    return _hard_cut(last, max_chars)
