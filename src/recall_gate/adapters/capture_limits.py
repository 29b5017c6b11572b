"""How much a capture file may hold (adapter: the judge reads a capture as data).

In a pull request the capture is written by code the pull request controls,
so the judge reads it as untrusted input: besides its schema
(:class:`~recall_gate.core.records.Artifact`), each of these caps is an
InputError naming the file, the line and the cap (exit 2), checked as the
file streams, before anything is scored or written:

========================  ===========  ======================================
cap                       value        what it bounds
========================  ===========  ======================================
``MAX_LINE_CHARS``        1,048,576    characters in one line (UTF-8 bytes
                                       where the scorer reads bytes)
``MAX_LINES``             10,000,000   lines (cases) in one file
``MAX_RETRIEVED``         10,000       retrieved items on one line
``MAX_STRING_CHARS``      65,536       characters in one string (a case id,
                                       a query, an id, an error text)
========================  ===========  ======================================

Each case at most once and no case the cases do not know are the labeller's
rules (:mod:`recall_gate.core.labels`); control characters and workflow
commands never reach a log line (:mod:`recall_gate.adapters.log_lines`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final

from recall_gate.core.records import Artifact
from recall_gate.errors import InputError

__all__ = [
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_RETRIEVED",
    "MAX_STRING_CHARS",
    "check_artifact_size",
    "too_many_lines",
]

MAX_LINE_CHARS: Final = 1 << 20
MAX_LINES: Final = 10_000_000
MAX_RETRIEVED: Final = 10_000
MAX_STRING_CHARS: Final = 1 << 16

_FIX: Final = (
    "a capture holds one short line per case; check the retriever that wrote it "
    "(a capture is never that large)"
)


def too_many_lines(source: str, *, cap: int = MAX_LINES) -> InputError:
    return InputError(f"{source}: more than {cap:,} lines (the cap of a capture)", fix=_FIX)


def _strings(artifact: Artifact | Any) -> Iterator[tuple[str, str]]:
    yield "case_id", artifact.case_id
    for field in ("query", "error"):
        value = getattr(artifact, field)
        if value is not None:
            yield field, value
    for rank, item in enumerate(artifact.retrieved, start=1):
        if isinstance(item, str):
            yield f"retrieved[{rank}]", item
        else:
            yield f"retrieved[{rank}].id", item.id
            if item.parent_id is not None:
                yield f"retrieved[{rank}].parent_id", item.parent_id
    for field in ("cited", "must_cite_one_of", "relevant_ids"):
        for value in getattr(artifact, field) or ():
            yield field, value


def check_artifact_size(artifact: Artifact | Any, *, line_chars: int, where: str) -> None:
    """The InputError of a line over a cap (``where``: ``FILE:LINE``); the
    strings are looked at only on a line long enough to hold one over its cap.
    ``artifact``: the model, or the scorer's Struct of the same fields."""
    if len(artifact.retrieved) > MAX_RETRIEVED:
        raise InputError(
            f"{where}: {len(artifact.retrieved):,} retrieved items "
            f"(the cap is {MAX_RETRIEVED:,} per line)",
            fix=_FIX,
        )
    if line_chars <= MAX_STRING_CHARS:
        return
    for field, value in _strings(artifact):
        if len(value) > MAX_STRING_CHARS:
            raise InputError(
                f"{where}: {field} holds {len(value):,} characters "
                f"(the cap is {MAX_STRING_CHARS:,} per string)",
                fix=_FIX,
            )
