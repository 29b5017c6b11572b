"""The groups a baseline's trend is shown by (``history --by``): the choices the
parser offers, here apart from the report so that ``history --help`` reads no
model."""

from __future__ import annotations

from typing import Literal

__all__ = ["GROUP_SELECTIONS", "GroupSelection"]

GroupSelection = Literal["overall", "case_type", "language", "all"]
GROUP_SELECTIONS: tuple[GroupSelection, ...] = ("overall", "case_type", "language", "all")
