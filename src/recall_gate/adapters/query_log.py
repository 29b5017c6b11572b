"""Read a query log (adapter: file I/O): JSONL, or CSV with a header row.

JSONL: one ``{"id", "query", "language"?, "weight"?, "metadata"?}`` object per
line. CSV: a header naming at least ``id`` and ``query`` (``language`` and
``weight`` optional); every other column is kept as the query's ``metadata``,
and an empty ``language`` or ``weight`` cell means the field is not given.

Validated as cases are: every unusable line is reported in one run, one
message each (file, line, field, fix), ids are unique, and the log holds at
most :data:`~recall_gate.core.logged_query.MAX_LOGGED_QUERIES` queries.
"""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from recall_gate.adapters.dataset import json_line, report_all
from recall_gate.adapters.files import describe_validation_error, read_text
from recall_gate.adapters.git import BaseTree
from recall_gate.core.logged_query import MAX_LOGGED_QUERIES, LoggedQuery
from recall_gate.errors import InputError

__all__ = ["QUERY_LOG_SUFFIXES", "load_query_log", "load_query_log_at"]

QUERY_LOG_SUFFIXES = (".jsonl", ".ndjson", ".csv")
_WHAT = "query log"
_FIX = (
    'each line is {"id": "q1", "query": "...", "language": "en", "weight": 12} '
    "(language, weight and metadata optional; weight is a positive number)"
)
_CSV_FIELDS = ("id", "query", "language", "weight")


def _number(cell: str) -> Any:
    """A CSV weight cell as a number when it reads as one (else as written, for the message)."""
    for kind in (int, float):
        try:
            return kind(cell)
        except ValueError:
            continue
    return cell


def _csv_rows(text: str, *, source: str) -> list[tuple[int, Any]]:
    reader = csv.DictReader(io.StringIO(text, newline=""))
    header = reader.fieldnames or []
    missing = [name for name in ("id", "query") if name not in header]
    if missing:
        raise InputError(
            f"{source}: the CSV header has no {' or '.join(missing)} column",
            fix="start the file with a header row: id,query,language,weight",
        )
    rows: list[tuple[int, Any]] = []
    for row in reader:
        if row.get(None):  # more cells than the header names
            rows.append((reader.line_num, ValueError("more cells than the header has columns")))
            continue
        if not any((value or "").strip() for value in row.values()):
            continue
        obj: dict[str, Any] = {"id": row["id"], "query": row["query"]}
        for name in ("language", "weight"):
            cell = (row.get(name) or "").strip()
            if cell:
                obj[name] = _number(cell) if name == "weight" else cell
        metadata = {k: v for k, v in row.items() if k not in _CSV_FIELDS and v}
        if metadata:
            obj["metadata"] = metadata
        rows.append((reader.line_num, obj))
    return rows


def _jsonl_rows(text: str, *, source: str) -> list[tuple[int, Any]]:
    rows: list[tuple[int, Any]] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if line.strip():
            try:
                rows.append((number, json_line(line, number=number, source=source)))
            except InputError as exc:
                rows.append((number, exc))
    return rows


def _validated(number: int, obj: Any, *, source: str) -> LoggedQuery | InputError:
    where = f"{source}:{number}"
    if isinstance(obj, InputError):
        return obj
    if isinstance(obj, ValueError):
        return InputError(f"{where}: {obj}", fix="quote a cell that holds a comma")
    if isinstance(obj, dict) and isinstance(obj.get("id"), str):
        where += f" (query {obj['id']})"
    if not isinstance(obj, dict):
        return InputError(f"{where}: expected a JSON object, got {type(obj).__name__}", fix=_FIX)
    try:
        return LoggedQuery.model_validate(obj)
    except ValidationError as exc:
        return InputError(f"{where}: {describe_validation_error(exc)}", fix=_FIX)


def load_query_log(path: Path) -> list[LoggedQuery]:
    """Every logged query of ``path``, in file order; one error listing every bad line."""
    source = str(path)
    if path.suffix.lower() not in QUERY_LOG_SUFFIXES:
        raise InputError(
            f"{source}: a query log is a .jsonl or .csv file",
            fix="export the log as JSON Lines (one object per line) or CSV with a header row",
        )
    text = read_text(path, what=_WHAT)
    if path.suffix.lower() == ".csv":
        rows = _csv_rows(text, source=source)
    else:
        rows = _jsonl_rows(text, source=source)
    if len(rows) > MAX_LOGGED_QUERIES:
        raise InputError(
            f"{source}: {len(rows):,} queries, more than the {MAX_LOGGED_QUERIES:,} a log may hold",
            fix="keep the most frequent queries (sort by weight, cut the tail), or sample the log",
        )
    results = [(number, _validated(number, obj, source=source)) for number, obj in rows]
    errors = [r for _, r in results if isinstance(r, InputError)]
    first_line: dict[str, int] = {}
    for number, logged in results:
        if isinstance(logged, LoggedQuery):
            if logged.id in first_line:
                errors.append(
                    InputError(
                        f"{source}:{number}: query id {logged.id!r} is already used on line "
                        f"{first_line[logged.id]}",
                        fix="give each logged query a unique id (merge repeats into one line "
                        "and add their weights)",
                    )
                )
            else:
                first_line[logged.id] = number
    report_all(errors, total=len(results), what="logged queries")
    return [logged for _, logged in results if isinstance(logged, LoggedQuery)]


def load_query_log_at(tree: BaseTree, path: Path) -> list[LoggedQuery] | None:
    """The log at ``path`` as the base revision has it (its weights and languages
    judge a pull request, not the pull request's edit of them); None when the base
    has no such file. Errors name the file ``REF:path``."""
    relative = tree.relative(path)
    if relative is None:
        return load_query_log(path)  # outside the work tree: no pull request edits it
    data = tree.read(relative)
    if data is None:
        return None
    with tempfile.TemporaryDirectory(prefix="recall-gate-base.") as scratch:
        temp = Path(scratch) / Path(relative).name
        temp.write_bytes(data)
        try:
            return load_query_log(temp)
        except InputError as exc:
            message = exc.message.replace(str(temp), tree.source(relative))
            raise InputError(message, fix=exc.fix) from None
