"""How much a capture file may hold (adapter: the judge reads a capture as data).

In a pull request the capture is written by code the pull request controls,
so the judge reads it as untrusted input: besides its schema
(:class:`~recall_gate.core.records.Artifact`), each of these caps is an
InputError naming the file, the line and the cap (exit 2), checked as the
file streams, before anything is scored or written:

============================  =============  ==================================
cap                           value          what it bounds
============================  =============  ==================================
``MAX_CAPTURE_FILES``         8              files in the folder a capture job
                                             hands over (``score --capture-dir``;
                                             no link, no subfolder)
``MAX_CAPTURE_BYTES``         1,073,741,824  bytes of the capture file, and of
                                             that whole folder
``MAX_LINE_CHARS``            1,048,576      characters in one line (UTF-8 bytes
                                             where the scorer reads bytes)
``MAX_LINES``                 10,000,000     lines (cases) in one file
``MAX_NESTING``               100            levels of JSON nesting in one line
``MAX_RETRIEVED``             10,000         retrieved items on one line
``MAX_STRING_CHARS``          65,536         characters in one string (a case
                                             id, a query, an id, an error text)
``MAX_SNAPSHOT_BYTES``        67,108,864     bytes of a query snapshot once
                                             decompressed (gzip is inflated as
                                             it streams, never whole)
``MAX_SNAPSHOT_HEADER_BYTES`` 16,777,216     bytes of the snapshot's first line
                                             (its card table); every other line
                                             takes ``MAX_LINE_CHARS`` bytes
``MAX_ERROR_BYTES``           65,536         bytes of the capture's error file
                                             (``capture.error.json``)
============================  =============  ==================================

Each case at most once and no case the cases do not know are the labeller's
rules (:mod:`recall_gate.core.labels`); control characters and workflow
commands never reach a log line (:mod:`recall_gate.adapters.log_lines`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from recall_gate.adapters.files import MAX_NESTING
from recall_gate.core.records import Artifact
from recall_gate.errors import InputError

__all__ = [
    "MAX_CAPTURE_BYTES",
    "MAX_CAPTURE_FILES",
    "MAX_ERROR_BYTES",
    "MAX_LINES",
    "MAX_LINE_CHARS",
    "MAX_NESTING",
    "MAX_RETRIEVED",
    "MAX_SNAPSHOT_BYTES",
    "MAX_SNAPSHOT_HEADER_BYTES",
    "MAX_STRING_CHARS",
    "check_artifact_size",
    "nested_too_deep",
    "too_large",
    "too_many_lines",
]

MAX_CAPTURE_FILES: Final = 8
MAX_CAPTURE_BYTES: Final = 1 << 30
MAX_LINE_CHARS: Final = 1 << 20
MAX_LINES: Final = 10_000_000
MAX_RETRIEVED: Final = 10_000
MAX_STRING_CHARS: Final = 1 << 16
MAX_SNAPSHOT_BYTES: Final = 64 << 20
MAX_SNAPSHOT_HEADER_BYTES: Final = 16 << 20
MAX_ERROR_BYTES: Final = 64 << 10

_FIX: Final = (
    "a capture holds one short line per case; check the retriever that wrote it "
    "(a capture is never that large)"
)


def too_many_lines(source: str, *, cap: int = MAX_LINES) -> InputError:
    return InputError(f"{source}: more than {cap:,} lines (the cap of a capture)", fix=_FIX)


def too_large(source: str, *, cap: int, what: str) -> InputError:
    """The error of a file (or folder) over a byte cap: ``what`` names the cap."""
    return InputError(f"{source}: more than {cap:,} bytes (the cap of {what})", fix=_FIX)


# The one field of a capture line that takes any JSON (a retrieved item's metadata):
# only a line holding it can nest deep and still be read. Brackets inside strings
# count too: a line is never deeper than this says.
_METADATA: Final = '"metadata"'
_BRACKETS: Final = re.compile(r"[\[\]{}]")
_BRACKET_BYTES: Final = re.compile(rb"[\[\]{}]")


def nested_too_deep(line: str | bytes) -> bool:
    """Whether a capture line nests deeper than :data:`MAX_NESTING` levels: looked
    at closely only when it holds a metadata field and more opening brackets than
    the cap (a usual line costs two substring counts)."""
    if isinstance(line, bytes):
        if _METADATA.encode() not in line or line.count(b"[") + line.count(b"{") <= MAX_NESTING:
            return False
        marks = [m.group() in (b"[", b"{") for m in _BRACKET_BYTES.finditer(line)]
    else:
        if _METADATA not in line or line.count("[") + line.count("{") <= MAX_NESTING:
            return False
        marks = [m.group() in "[{" for m in _BRACKETS.finditer(line)]
    depth = 0
    for opens in marks:
        depth = depth + 1 if opens else max(depth - 1, 0)
        if depth > MAX_NESTING:
            return True
    return False


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
