"""The loaders of a run's inputs: the KB, the cases and the captured artifacts
(adapter: file I/O).

Each concept has its module: the KB's cards in :mod:`.knowledge_base`, the cases
in :mod:`.case_files`, the records both read in :mod:`.input_records`; the
captured artifacts (JSONL, one ``{"case_id", "retrieved", "cited"?, ...}`` per
line) are read here. This module is their one import point: every loader is
importable from it. Every failure becomes one :class:`InputError` naming the
file (and line or case) and the fix.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
from pydantic import ValidationError

from recall_gate.adapters.capture_limits import (
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_RETRIEVED,
    MAX_STRING_CHARS,
    check_artifact_size,
    too_many_lines,
)
from recall_gate.adapters.case_files import load_cases
from recall_gate.adapters.files import (
    decoded_line,
    ensure_readable,
    iter_jsonl_byte_lines,
    iter_jsonl_lines,
    read_text,
)
from recall_gate.adapters.input_records import json_line, report_all, validate_record
from recall_gate.adapters.knowledge_base import (
    MARKDOWN_SUFFIXES,
    Kb,
    KbCard,
    KbFiles,
    SkippedPage,
    card_ids_of,
    clean_title,
    kb_files,
    load_card_ids,
    load_cards,
    load_kb,
    read_kb,
)
from recall_gate.core.capture_line import ArtifactLine, decode_line, needs_full_validation
from recall_gate.core.records import Artifact
from recall_gate.errors import InputError

__all__ = [
    "ARTIFACTS_WHAT",
    "MARKDOWN_SUFFIXES",
    "Kb",
    "KbCard",
    "KbFiles",
    "SkippedPage",
    "card_ids_of",
    "clean_title",
    "iter_artifacts",
    "iter_capture_lines",
    "json_line",
    "kb_files",
    "load_artifacts",
    "load_card_ids",
    "load_cards",
    "load_cases",
    "load_kb",
    "parse_artifact_line",
    "parse_capture_line",
    "read_kb",
    "report_all",
]


# --- artifacts ---------------------------------------------------------------

ARTIFACTS_WHAT = "artifacts file"

_ARTIFACT_FIX = (
    'each line is {"case_id": "...", "retrieved": ["card-id", ...]} '
    '(an item may be {"id": ..., "parent_id": ..., "score": ...})'
)


def load_artifacts(path: Path) -> list[tuple[int, Artifact]]:
    """Captured artifacts with their line numbers (:func:`iter_artifacts`, as a list)."""
    return list(iter_artifacts(path))


def iter_artifacts(path: Path) -> Iterator[tuple[int, Artifact]]:
    """Captured artifacts with their line numbers, streamed (flat memory).

    The errors of :func:`read_text` for a file that cannot be read (missing,
    binary, not UTF-8, empty), else of :func:`parse_artifact_line` for the
    first bad line, else of a line over a cap
    (:mod:`~recall_gate.adapters.capture_limits`).
    """
    source = str(path)
    lines = iter_jsonl_lines(path, what=ARTIFACTS_WHAT, max_line_chars=MAX_LINE_CHARS)
    for number, line in lines:
        if number > MAX_LINES:
            raise too_many_lines(source, cap=MAX_LINES)
        try:
            artifact = parse_artifact_line(line, number=number, source=source)
        except InputError:
            ensure_readable(path, what=ARTIFACTS_WHAT)  # a binary file is reported as such
            raise
        check_artifact_size(artifact, line_chars=len(line), where=f"{source}:{number}")
        yield number, artifact


def iter_capture_lines(path: Path) -> Iterator[tuple[int, ArtifactLine]]:
    """:func:`iter_artifacts` for the scorer: the same lines accepted, the same
    errors and caps (a line's cap counted in UTF-8 bytes), each line's bytes
    decoded by msgspec into an :data:`ArtifactLine` (no model object per line, no
    text decoding of a good line)."""
    source = str(path)
    decode, flagged = decode_line, needs_full_validation
    content = False
    lines = iter_jsonl_byte_lines(path, what=ARTIFACTS_WHAT, max_line_bytes=MAX_LINE_CHARS)
    for number, raw in lines:
        if number > MAX_LINES:
            raise too_many_lines(source, cap=MAX_LINES)
        try:
            artifact = decode(raw)
        except (msgspec.DecodeError, RecursionError):
            artifact = None
        if artifact is None or flagged(artifact):
            line = decoded_line(path, raw, what=ARTIFACTS_WHAT)
            if line.isspace():  # blank as text (U+00A0, U+2028 …), as iter_artifacts skips it
                continue
            try:
                artifact = _fully_validated(line, number=number, source=source)
            except InputError:
                ensure_readable(path, what=ARTIFACTS_WHAT)  # a binary file is reported as such
                raise
        if len(raw) > MAX_STRING_CHARS or len(artifact.retrieved) > MAX_RETRIEVED:
            check_artifact_size(artifact, line_chars=len(raw), where=f"{source}:{number}")
        content = True
        yield number, artifact
    if not content:
        read_text(path, what=ARTIFACTS_WHAT)  # raises: empty


def parse_capture_line(line: str, *, number: int, source: str) -> ArtifactLine:
    """One artifacts JSONL line decoded into an :data:`ArtifactLine`: what
    :func:`parse_artifact_line` accepts, with its values and its errors."""
    try:
        artifact = decode_line(line)
    except (msgspec.DecodeError, RecursionError):
        return _fully_validated(line, number=number, source=source)
    if needs_full_validation(artifact):
        return _fully_validated(line, number=number, source=source)
    return artifact


def _fully_validated(line: str, *, number: int, source: str) -> ArtifactLine:
    """A line msgspec refused or flagged, judged by the pydantic model: its error
    (naming file, line, case, field and fix), or its value as a Struct."""
    artifact = parse_artifact_line(line, number=number, source=source)
    return msgspec.convert(artifact.model_dump(), ArtifactLine)


def _artifact_at(obj: Any, *, number: int, source: str) -> Artifact:
    where = f"{source}:{number}"
    if isinstance(obj, dict) and isinstance(obj.get("case_id"), str):
        where += f" (case {obj['case_id']})"
    return validate_record(Artifact, obj, where=where, fix=_ARTIFACT_FIX)


_VALIDATE_ARTIFACT_JSON = Artifact.__pydantic_validator__.validate_json


def parse_artifact_line(line: str, *, number: int, source: str) -> Artifact:
    """One artifacts JSONL line, validated against :class:`Artifact`.

    pydantic-core parses and validates the line in one native pass. A line it
    refuses is read again by ``json`` and validated from Python objects against
    the same model: that pass words the error (the JSON error with its column,
    or the fields), and accepts what only it accepts (``NaN``, say).
    """
    try:
        return _VALIDATE_ARTIFACT_JSON(line)  # type: ignore[no-any-return]
    except ValidationError:
        pass
    return _artifact_at(json_line(line, number=number, source=source), number=number, source=source)
