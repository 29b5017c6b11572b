"""What a judged run writes besides its report on stdout, and how strictly it
scores: the handler reads these from its flags, the judge acts on them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["Outputs"]


@dataclass(frozen=True, kw_only=True)
class Outputs:
    json: Path | None = None  # the results JSON
    markdown: Path | None = None  # the full report
    comparison_json: Path | None = None
    comment_markdown: Path | None = None  # the PR comment, within GitHub's limit
    # Refuse a case shorter than k and a page outside the KB (warnings otherwise).
    strict: bool = False

    @property
    def asks_comparison(self) -> bool:
        return self.comparison_json is not None or self.comment_markdown is not None
