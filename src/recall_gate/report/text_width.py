"""How wide text shows in a terminal: East Asian wide and full-width characters take
two columns, combining marks none (pure). Plain-text tables pad with it, so a
Chinese or Japanese title does not push its row's later columns out of line."""

from __future__ import annotations

import unicodedata

__all__ = ["display_width", "ljust_display"]


def display_width(text: str) -> int:
    """The columns ``text`` takes in a monospaced terminal."""
    width = 0
    for char in text:
        if unicodedata.combining(char):
            continue
        width += 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
    return width


def ljust_display(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns (as ``str.ljust`` by display width)."""
    return text + " " * max(0, width - display_width(text))
