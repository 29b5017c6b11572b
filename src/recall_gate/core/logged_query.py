"""A query log: real, scrubbed, unlabelled queries, weighted by their traffic (pure).

Each logged query has an ``id`` (unique in the log), the ``query`` text, an
optional ``language`` (any BCP-47 tag, stored in canonical case; none = the
queries are reported under ``und``), an optional ``weight`` (its traffic: how
many times it was asked, default 1) and optional ``metadata`` (kept, never
used). No labels: a logged query is compared with itself between two
revisions (see :mod:`recall_gate.core.traffic_diff`), never scored.

The caps below bound what one capture asks and one snapshot holds; they are
documented in docs/query-logs.md.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from recall_gate.core.language import LanguageTag

__all__ = [
    "MAX_LOGGED_QUERIES",
    "MAX_QUERY_CHARS",
    "MAX_QUERY_ID_CHARS",
    "UNDETERMINED",
    "LoggedQuery",
]

# 10^5 is the scale the diff is built for; twice that leaves room.
MAX_LOGGED_QUERIES = 200_000
MAX_QUERY_CHARS = 2_000
MAX_QUERY_ID_CHARS = 200
# The group of a logged query that names no language (BCP-47 "undetermined").
UNDETERMINED = "und"


class LoggedQuery(BaseModel):
    """One line of a query log."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=MAX_QUERY_ID_CHARS)
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    language: LanguageTag | None = None
    # Traffic: how often the query was asked (a count, or any positive share).
    weight: float = Field(default=1.0, gt=0, allow_inf_nan=False)
    metadata: dict[str, Any] = Field(default_factory=dict)

    @field_validator("weight", mode="before")
    @classmethod
    def _a_number(cls, value: Any) -> Any:
        # One message, not one per numeric type; `true` is no weight.
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(f"expected a positive number (its traffic), got {value!r}")
        return value

    @property
    def group(self) -> str:
        """The language it is reported under (``und`` when it names none)."""
        return self.language or UNDETERMINED
