"""Records of a run's inputs read from YAML and JSON Lines (adapter: file I/O).

A mapping validated against its model, a JSONL line parsed, and every unusable
record of a file reported in one error, each naming its file and line (or
record) and the fix. The KB (:mod:`.knowledge_base`), the cases
(:mod:`.case_files`) and the artifacts (:mod:`.dataset`) are read with them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from recall_gate.adapters.files import describe_validation_error, huge_integer, too_deep
from recall_gate.errors import InputError, is_huge_integer

__all__ = [
    "JSONL_SUFFIXES",
    "YAML_SUFFIXES",
    "json_line",
    "jsonl_records",
    "report_all",
    "validate_record",
]

M = TypeVar("M", bound=BaseModel)

YAML_SUFFIXES = (".yaml", ".yml")
JSONL_SUFFIXES = (".jsonl", ".ndjson")


def validate_record(model: type[M], data: Any, *, where: str, fix: str) -> M:
    """``data`` as ``model``: an InputError naming ``where``, its fields and ``fix`` otherwise."""
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a mapping, got {type(data).__name__}", fix=fix)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: {describe_validation_error(exc)}", fix=fix) from None


def jsonl_records(text: str, *, source: str) -> Iterator[tuple[int, Any]]:
    """Each non-blank line of a JSONL text parsed, with its number."""
    # Split on "\n" only: str.splitlines() also breaks on U+2028, U+0085 and
    # friends, which JSON allows unescaped inside strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        yield number, json_line(line, number=number, source=source)


def json_line(line: str, *, number: int, source: str) -> Any:
    """One JSONL line parsed; invalid JSON is an error naming the line and column."""
    try:
        return json.loads(line)
    except RecursionError:
        raise too_deep(f"{source}:{number}") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}:{number}: invalid JSON: {exc.msg} (column {exc.colno})",
            fix="write one JSON object per line (JSON Lines)",
        ) from None
    except ValueError as exc:
        if not is_huge_integer(exc):
            raise
        raise huge_integer(f"{source}:{number}") from None


def report_all(errors: Sequence[InputError], *, total: int, what: str) -> None:
    """Raise one error listing every one of ``errors`` (a fix must find them all)."""
    if not errors:
        return
    if len(errors) == 1:
        raise errors[0]
    # A fix shared by a run of errors (155 pages without a language) is said once, after them.
    lines: list[str] = []
    run = 0
    for at, error in enumerate(errors):
        lines.append(f"  {error.message}")
        run += 1
        if at + 1 == len(errors) or errors[at + 1].fix != error.fix:
            lines.append(f"    fix{f' (the {run} above)' if run > 1 else ''}: {error.fix}")
            run = 0
    listed = "\n".join(lines)
    raise InputError(
        f"{len(errors)} of {total} {what} are unusable:\n{listed}",
        fix="fix each one listed above",
    )
