"""A GitHub Actions annotation: what the report says, what the runner adapter
writes as a workflow command (``::error title=…::message``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["Annotation", "AnnotationLevel"]

# The levels of the workflow commands `error`, `warning` and `notice`.
AnnotationLevel = Literal["error", "warning", "notice"]


@dataclass(frozen=True, kw_only=True)
class Annotation:
    level: AnnotationLevel
    title: str
    message: str
