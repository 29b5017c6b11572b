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

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import msgspec
from pydantic import ValidationError

from recall_gate.adapters import capture_limits
from recall_gate.adapters.capture_limits import (
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_RETRIEVED,
    MAX_STRING_CHARS,
    check_artifact_size,
    nested_too_deep,
    too_large,
    too_many_lines,
)
from recall_gate.adapters.case_files import load_cases
from recall_gate.adapters.files import (
    decoded_line,
    ensure_readable,
    iter_jsonl_byte_chunks,
    iter_jsonl_lines,
    read_text,
    too_deep,
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
from recall_gate.core.capture_line import (
    ArtifactLine,
    decode_line,
    items_may_tell_language,
    needs_full_validation,
)
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
    _refuse_oversized(path)
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
    text decoding of a good line): a block of lines in one call
    (:func:`_decoded_chunk`), else line by line, to name the line at fault."""
    source = str(path)
    _refuse_oversized(path)
    decode, flagged = decode_line, needs_full_validation
    number = 0
    content = False
    for lines in iter_jsonl_byte_chunks(path, what=ARTIFACTS_WHAT, max_line_bytes=MAX_LINE_CHARS):
        first = number + 1
        number += len(lines)
        chunk = _decoded_chunk(lines) if number <= MAX_LINES else None
        if chunk is not None:
            content = True
            yield from zip(range(first, number + 1), chunk, strict=True)
            continue
        for at, raw in enumerate(lines, first):
            if not raw or raw.isspace():
                continue
            if at > MAX_LINES:
                raise too_many_lines(source, cap=MAX_LINES)
            if nested_too_deep(raw):
                raise too_deep(f"{source}:{at}")
            try:
                artifact = decode(raw)
            except (msgspec.DecodeError, RecursionError):
                artifact = None
            if artifact is None or flagged(artifact, items=items_may_tell_language(artifact, raw)):
                line = decoded_line(path, raw, what=ARTIFACTS_WHAT)
                if line.isspace():  # blank as text (U+00A0, U+2028 …), as iter_artifacts skips it
                    continue
                try:
                    artifact = _fully_validated(line, number=at, source=source)
                except InputError:
                    ensure_readable(path, what=ARTIFACTS_WHAT)  # a binary file is reported as such
                    raise
            if len(raw) > MAX_STRING_CHARS or len(artifact.retrieved) > MAX_RETRIEVED:
                check_artifact_size(artifact, line_chars=len(raw), where=f"{source}:{at}")
            content = True
            yield at, artifact
    if not content:
        read_text(path, what=ARTIFACTS_WHAT)  # raises: empty


def _refuse_oversized(path: Path) -> None:
    """A capture file over :data:`~.capture_limits.MAX_CAPTURE_BYTES` is refused
    before a byte of it is read (a pipe or device is not measured)."""
    cap = capture_limits.MAX_CAPTURE_BYTES
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return  # the reader names what is wrong with the path
    if size > cap:
        raise too_large(str(path), cap=cap, what="a capture file")


# A line this short holds no string over MAX_STRING_CHARS nor more than MAX_RETRIEVED
# items (each takes 3 bytes at least: `"x"` and a comma; an empty id is flagged).
_CHUNK_LINE_BYTES: Final = min(MAX_STRING_CHARS, 3 * MAX_RETRIEVED)
_decode_lines = msgspec.json.Decoder(ArtifactLine).decode_lines


def _decoded_chunk(lines: list[bytes]) -> list[ArtifactLine] | None:
    """A block's lines decoded in one call, when every line is one good line short
    of every cap; else None (a blank line, a long one, one msgspec refuses or one
    :func:`needs_full_validation` flags), and the block is read line by line."""
    if (
        max(map(len, lines)) > _CHUNK_LINE_BYTES
        or not min(map(len, lines))
        or any(map(bytes.isspace, lines))
    ):
        return None
    try:
        # Each line is one value (decode_lines would also take two on one line:
        # the count tells, as no line is blank).
        joined = b"\n".join(lines)
        decoded: list[ArtifactLine] = _decode_lines(joined)
    except (msgspec.DecodeError, RecursionError):
        return None
    if b'"metadata"' in joined and any(map(nested_too_deep, lines)):
        return None  # read line by line, to name the line
    if len(decoded) != len(lines):
        return None
    # An item's language is looked at only when the block names "language" more
    # often than its lines' own field (a count in C).
    items = joined.count(b'"language"') > sum(d.language is not None for d in decoded)
    if any(needs_full_validation(d, items=items) for d in decoded):
        return None
    return decoded


def parse_capture_line(line: str, *, number: int, source: str) -> ArtifactLine:
    """One artifacts JSONL line decoded into an :data:`ArtifactLine`: what
    :func:`parse_artifact_line` accepts, with its values and its errors."""
    if nested_too_deep(line):
        raise too_deep(f"{source}:{number}")
    try:
        artifact = decode_line(line)
    except (msgspec.DecodeError, RecursionError):
        return _fully_validated(line, number=number, source=source)
    if needs_full_validation(artifact, items=items_may_tell_language(artifact, line)):
        return _fully_validated(line, number=number, source=source)
    return artifact


def _fully_validated(line: str, *, number: int, source: str) -> ArtifactLine:
    """A line msgspec refused or flagged, judged by the pydantic model: its error
    (naming file, line, case, field and fix), or its value as a Struct."""
    artifact = parse_artifact_line(line, number=number, source=source)
    return msgspec.convert(artifact.model_dump(), ArtifactLine)


def _non_finite(value: Any, field: str = "") -> tuple[str, float] | None:
    """The first NaN or ±Infinity in a parsed line (``json`` reads them, and 1e999
    as Infinity), with its field, as ``retrieved[0].score``."""
    if isinstance(value, float):
        return None if math.isfinite(value) else (field, value)
    if isinstance(value, dict):
        children: Any = ((f"{field}.{key}" if field else str(key), v) for key, v in value.items())
    elif isinstance(value, list):
        children = ((f"{field}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for name, child in children:
        found = _non_finite(child, name)
        if found is not None:
            return found
    return None


def _artifact_at(obj: Any, *, number: int, source: str) -> Artifact:
    where = f"{source}:{number}"
    if isinstance(obj, dict) and isinstance(obj.get("case_id"), str):
        where += f" (case {obj['case_id']})"
    found = _non_finite(obj)
    if found is not None:
        field, value = found
        shown = "NaN" if math.isnan(value) else ("-" if value < 0 else "") + "Infinity"
        raise InputError(
            f"{where}: field `{field}` is {shown}, not a finite number",
            fix="write a finite number there, or leave the field out: JSON has no NaN or "
            "Infinity; check the retriever or script that wrote this capture",
        )
    return validate_record(Artifact, obj, where=where, fix=_ARTIFACT_FIX)


_VALIDATE_ARTIFACT_JSON = Artifact.__pydantic_validator__.validate_json


def parse_artifact_line(line: str, *, number: int, source: str) -> Artifact:
    """One artifacts JSONL line, validated against :class:`Artifact`.

    pydantic-core parses and validates the line in one native pass. A line it
    refuses is read again by ``json`` and validated from Python objects against
    the same model: that pass words the error (the JSON error with its column,
    or the fields), and accepts what only it accepts (``NaN``, say).
    """
    if nested_too_deep(line):
        raise too_deep(f"{source}:{number}")
    try:
        return _VALIDATE_ARTIFACT_JSON(line)  # type: ignore[no-any-return]
    except ValidationError:
        pass
    return _artifact_at(json_line(line, number=number, source=source), number=number, source=source)
