"""Read and write results JSON files (adapter: file I/O).

Writes are atomic (temp file in the same directory, then rename), so a crash
never leaves a truncated file behind; bytes are deterministic (sorted keys,
fixed float rounding, trailing newline) so that a diff is reviewable.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from recall_gate.core.records import FLOAT_DIGITS, SCHEMA_VERSION, Results
from recall_gate.errors import InputError
from recall_gate.io.dataset import describe_validation_error, read_text
from recall_gate.report.comparison_json import COMPARISON_KIND, ComparisonDocument

__all__ = [
    "FLOAT_DIGITS",
    "atomic_write_text",
    "dump_json",
    "dump_jsonl",
    "read_comparison",
    "read_results",
    "write_results",
]


def _round_floats(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, FLOAT_DIGITS)
    if isinstance(value, dict):
        return {k: _round_floats(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_round_floats(v) for v in value]
    return value


def dump_json(payload: Any) -> str:
    """Deterministic JSON text: sorted keys, rounded floats, trailing newline."""
    return json.dumps(_round_floats(payload), sort_keys=True, indent=2, ensure_ascii=False) + "\n"


def _file_mode(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets 0644 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o644 & ~umask


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file + rename in the same directory."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InputError(
            f"{path}: cannot write: {exc.strerror}", fix="check the directory and its permissions"
        ) from None
    try:
        # backslashreplace: a lone surrogate (legal as a JSON escape) is written
        # back as the same escape instead of crashing the encoder.
        with os.fdopen(
            fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n"
        ) as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a report or baseline is meant to be shared.
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_results(path: Path, results: Results) -> None:
    atomic_write_text(path, dump_json(results.model_dump(mode="json")))


def read_results(path: Path) -> Results:
    """Load a results file written by ``score`` / ``run`` (schema-validated)."""
    source = str(path)
    text = read_text(path, what="results file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON: {exc.msg} (line {exc.lineno})",
            fix="pass the file written by `recall-gate score/run --json`",
        ) from None
    if not isinstance(data, dict) or "schema_version" not in data:
        raise InputError(
            f"{source}: not a recall-gate results file (no schema_version)",
            fix="pass the file written by `recall-gate score/run --json`",
        )
    version = data["schema_version"]
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise InputError(
            f"{source}: schema_version {version!r} is newer than this recall-gate understands "
            f"({SCHEMA_VERSION})",
            fix="upgrade recall-gate",
        )
    try:
        return Results.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: {describe_validation_error(exc)}",
            fix="pass an unmodified file written by `recall-gate score/run --json`",
        ) from None


def dump_jsonl(records: Sequence[BaseModel]) -> str:
    """One compact JSON object per line (the artifacts format), unset fields omitted."""
    return "".join(
        json.dumps(r.model_dump(mode="json", exclude_none=True), ensure_ascii=False) + "\n"
        for r in records
    )


_COMPARISON_FIX = "pass the file written by `recall-gate compare --json` (or `--comparison-json`)"


def read_comparison(path: Path) -> ComparisonDocument:
    """Load a comparison JSON and validate it against the comparison schema."""
    source = str(path)
    text = read_text(path, what="comparison file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON: {exc.msg} (line {exc.lineno})", fix=_COMPARISON_FIX
        ) from None
    if not isinstance(data, dict) or data.get("kind") != COMPARISON_KIND:
        raise InputError(
            f"{source}: not a recall-gate comparison (no kind: {COMPARISON_KIND})",
            fix=_COMPARISON_FIX,
        )
    try:
        return ComparisonDocument.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: {describe_validation_error(exc)}", fix=_COMPARISON_FIX
        ) from None
