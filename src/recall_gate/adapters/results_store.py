"""Read and write results JSON files (adapter: file I/O).

Writes are atomic (temp file in the same directory, then rename), so a crash
never leaves a truncated file behind; bytes are deterministic (sorted keys,
fixed float rounding, trailing newline) so that a diff is reviewable.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

import orjson
from pydantic import BaseModel, ValidationError

from recall_gate.adapters.files import (
    atomic_file,
    atomic_write_text,
    describe_validation_error,
    dump_json,
    encode_text,
    parse_json,
    read_text,
)
from recall_gate.core.comparison_json import COMPARISON_KIND, ComparisonDocument
from recall_gate.core.records import (
    FLOAT_DIGITS,
    SCHEMA_VERSION,
    Aggregates,
    KbCoverageCounts,
    Latency,
    OutsideKb,
    Provenance,
    Results,
    Unwinnable,
)
from recall_gate.errors import InputError

__all__ = [
    "FLOAT_DIGITS",
    "ResultsWriter",
    "dump_jsonl",
    "encode_case",
    "read_comparison",
    "read_results",
    "write_results",
]


def write_results(path: Path, results: Results) -> None:
    atomic_write_text(path, dump_json(results.model_dump(mode="json")))


# Floats orjson writes as ``json`` does (repr): 0 and [1e-4, 1e16). Below 1e-4
# repr switches to an exponent ("5e-05") where orjson writes "0.00005".
_ORJSON_SAFE_MIN = 1e-4
_CASE_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
_CASES_MARK = "\u0000cases\u0000"
_CASE_INDENT = b"    "  # a case is an item of the top-level "cases" list
_CASE_SEPARATOR = b",\n"
_BATCH = 512  # cases joined per write


def encode_case(record: Mapping[str, Any]) -> bytes:
    """A case record (metrics rounded) as :func:`dump_json` writes it, unindented."""
    metrics = record["metrics"]
    try:
        for value in metrics.values():
            if not (value >= _ORJSON_SAFE_MIN or value == 0.0):
                raise TypeError("a float orjson writes otherwise")
        return orjson.dumps(record, option=_CASE_OPTIONS)
    except TypeError:  # lone surrogates, tiny floats: json's own text
        return encode_text(json.dumps(record, sort_keys=True, indent=2, ensure_ascii=False))


class ResultsWriter:
    """A results file written as the cases are scored, with no case kept in memory.

    :meth:`add` appends a case record (``CaseResult.model_dump(mode="json")``
    data) to a temp file; :meth:`finish` writes the results file atomically:
    the same bytes as :func:`write_results` for the same results. Used as a
    context manager, the temp file is removed whatever happens.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._cases = tempfile.TemporaryFile(dir=path.parent, prefix=f".{path.name}.")  # noqa: SIM115
        except OSError as exc:
            raise InputError(
                f"{path}: cannot write: {exc.strerror}",
                fix="check the directory and its permissions",
            ) from None
        self._count = 0
        self._pending: list[bytes] = []
        self._written = 0

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._cases.close()

    def add(self, record: Mapping[str, Any]) -> None:
        """One case record; its floats are rounded as :func:`dump_json` rounds them."""
        metrics = record["metrics"]
        if metrics:
            rounded = {key: round(value, FLOAT_DIGITS) for key, value in metrics.items()}
            record = {**record, "metrics": rounded}
        self.add_rounded(record)

    def add_rounded(self, record: Mapping[str, Any]) -> None:
        """One case record whose metrics are rounded already (``round(v, FLOAT_DIGITS)``)."""
        for value in record["metrics"].values():
            if not (value >= _ORJSON_SAFE_MIN or value == 0.0):
                text = encode_case(record)
                break
        else:
            try:
                text = orjson.dumps(record, option=_CASE_OPTIONS)
            except TypeError:
                text = encode_case(record)
        self._pending.append(text)
        self._count += 1
        if len(self._pending) >= _BATCH:
            self._flush()

    def _flush(self) -> None:
        """Write the pending cases, indented as items of the top-level list."""
        if not self._pending:
            return
        text = _CASE_SEPARATOR.join(self._pending).replace(b"\n", b"\n" + _CASE_INDENT)
        self._cases.write((_CASE_SEPARATOR if self._written else b"") + _CASE_INDENT + text)
        self._written += len(self._pending)
        self._pending.clear()

    def finish(
        self,
        *,
        k: int,
        provenance: Provenance,
        aggregates: Aggregates,
        cases_short_of_k: int = 0,
        outside_kb: OutsideKb | None = None,
        latency: Latency | None = None,
        failed_cases: tuple[str, ...] = (),
        unjudged_queries: int = 0,
        kb_coverage: KbCoverageCounts | None = None,
        kb_retrieved: KbCoverageCounts | None = None,
        unwinnable: Unwinnable | None = None,
        answered_from_other_language: Mapping[str, int] | None = None,
    ) -> None:
        """Write the results file: the cases added, then the given head."""
        self._flush()
        skeleton = Results(
            k=k,
            provenance=provenance,
            cases=(),
            aggregates=aggregates,
            cases_short_of_k=cases_short_of_k,
            outside_kb=outside_kb,
            latency=latency,
            failed_cases=failed_cases,
            unjudged_queries=unjudged_queries,
            kb_coverage=kb_coverage,
            kb_retrieved=kb_retrieved,
            unwinnable=unwinnable,
            answered_from_other_language=dict(answered_from_other_language or {}),
        )
        data = skeleton.model_dump(mode="json")
        data["cases"] = [_CASES_MARK]
        head, tail = encode_text(dump_json(data)).split(
            b"\n" + _CASE_INDENT + json.dumps(_CASES_MARK).encode() + b"\n"
        )
        with atomic_file(self.path) as out:
            if not self._count:
                out.write(head.removesuffix(b"[") + b"[]" + tail.removeprefix(b"  ]"))
                return
            out.write(head + b"\n")
            self._cases.flush()
            _copy_whole(self._cases, out)
            out.write(b"\n" + tail)


def _copy_whole(source: IO[bytes], out: IO[bytes]) -> None:
    """Append all of ``source`` to ``out``: in the kernel where it can
    (``copy_file_range``, no pass through user space), else by blocks."""
    size = os.fstat(source.fileno()).st_size
    out.flush()
    done = 0
    # A pipe or device (`--json /dev/stdout`) takes the blocks: it cannot seek.
    seekable = out.seekable()
    try:
        while seekable and done < size:
            copied = os.copy_file_range(source.fileno(), out.fileno(), size - done, done)
            if not copied:
                break
            done += copied
    except (AttributeError, OSError):  # not Linux, or not between these two files
        pass
    if seekable:
        out.seek(0, os.SEEK_END)  # the buffered handle learns where the copy ended
    if done < size:
        source.seek(done)
        shutil.copyfileobj(source, out, 1 << 20)


def read_results(path: Path) -> Results:
    """Load a results file written by ``score`` / ``run`` (schema-validated)."""
    source = str(path)
    fix = "pass the file written by `recall-gate score/run --json`"
    data = parse_json(read_text(path, what="results file"), source=source, fix=fix)
    if not isinstance(data, dict) or "schema_version" not in data:
        raise InputError(f"{source}: not a recall-gate results file (no schema_version)", fix=fix)
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


_COMPARISON_FIX = "pass the file written by `--comparison-json` (of compare, score or run)"


def read_comparison(path: Path) -> ComparisonDocument:
    """Load a comparison JSON and validate it against the comparison schema."""
    source = str(path)
    data = parse_json(read_text(path, what="comparison file"), source=source, fix=_COMPARISON_FIX)
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
