"""Mermaid charts (pure): GitHub renders a ```mermaid block as a picture.

Two pictures: a comparison (baseline vs this run, per metric, for overall and
every case type and language) and a trend (every committed version of a
baseline, per metric, with n per point). Both use ``xychart-beta``; it draws
no legend, so every chart says in its title which mark is which.

Labels come from group names and commits; they are reduced to characters
that cannot end a quoted Mermaid string or start markup.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["ChartSeries", "bar_and_line_chart", "line_chart", "mermaid_label"]

_UNSAFE = re.compile(r"[^A-Za-z0-9 .,:@=+_/()-]")


def mermaid_label(text: str, *, limit: int = 24) -> str:
    """Text safe inside a quoted Mermaid label: a small alphabet, one line, short."""
    cleaned = _UNSAFE.sub("_", " ".join(text.split()))
    return cleaned[:limit] or "_"


def _value(value: float | None) -> str:
    # xychart-beta needs a number for every category; a missing mean is drawn at 0
    # and the table beside the chart says "—".
    return "0" if value is None else f"{value:.3f}"


def _labels(labels: Sequence[str]) -> str:
    return ", ".join(f'"{mermaid_label(label)}"' for label in labels)


@dataclass(frozen=True, kw_only=True)
class ChartSeries:
    """One line of a chart: a value (or ``None``) per x-axis category."""

    values: tuple[float | None, ...]


def _block(lines: Sequence[str]) -> str:
    return "\n".join(["```mermaid", "xychart-beta", *(f"    {line}" for line in lines), "```"])


def bar_and_line_chart(
    *, title: str, labels: Sequence[str], bars: ChartSeries, line: ChartSeries, y_label: str
) -> str:
    """Bars for one series, a line for the other, over the same categories, on [0, 1]."""
    return _block(
        [
            f'title "{mermaid_label(title, limit=80)}"',
            f"x-axis [{_labels(labels)}]",
            f'y-axis "{mermaid_label(y_label)}" 0 --> 1',
            f"bar [{', '.join(_value(v) for v in bars.values)}]",
            f"line [{', '.join(_value(v) for v in line.values)}]",
        ]
    )


def line_chart(*, title: str, labels: Sequence[str], line: ChartSeries, y_label: str) -> str:
    """One line over the categories, on [0, 1]."""
    return _block(
        [
            f'title "{mermaid_label(title, limit=80)}"',
            f"x-axis [{_labels(labels)}]",
            f'y-axis "{mermaid_label(y_label)}" 0 --> 1',
            f"line [{', '.join(_value(v) for v in line.values)}]",
        ]
    )
