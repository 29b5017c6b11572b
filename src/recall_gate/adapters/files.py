"""Reading and writing files, the way every adapter does it (adapter: file I/O).

Reads name the file and the fix on every failure (missing, a directory, not
UTF-8, binary); YAML and JSON parse errors carry their line. Writes are atomic
(a temp file in the same directory, then a rename), so a crash never leaves a
truncated file behind, and JSON bytes are deterministic (sorted keys, fixed
float rounding, trailing newline) so that a diff is reviewable.
"""

from __future__ import annotations

import codecs
import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError

from recall_gate.core.records import FLOAT_DIGITS
from recall_gate.errors import InputError

__all__ = [
    "atomic_file",
    "atomic_write_text",
    "describe_validation_error",
    "dump_json",
    "encode_text",
    "ensure_readable",
    "iter_jsonl_lines",
    "parse_json",
    "parse_yaml",
    "read_text",
]


def read_text(path: Path, *, what: str) -> str:
    """Read a UTF-8 text file; unreadable, binary or empty files are errors."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(
            f"{path}: {what} not found", fix=f"check the path, or create the {what}"
        ) from None
    except IsADirectoryError:
        raise InputError(
            f"{path}: is a directory, expected the {what}", fix=f"pass the {what}'s path"
        ) from None
    except OSError as exc:
        raise InputError(
            f"{path}: cannot read {what}: {exc.strerror}", fix="check the path and permissions"
        ) from None
    if b"\x00" in raw:
        raise InputError(
            f"{path}: is a binary file, expected the {what} as text", fix="pass a UTF-8 text file"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{path}: is not UTF-8 text (byte {exc.start})", fix="save the file as UTF-8"
        ) from None
    if not text.strip():
        raise InputError(f"{path}: {what} is empty", fix=f"add content to the {what}")
    return text


def parse_yaml(text: str, *, source: str) -> Any:
    """Parse YAML safely (no arbitrary tags); errors name the line."""
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise InputError(
            f"{source}:{line} invalid YAML: {problem}",
            fix="fix the YAML syntax (quote strings containing ':' or '#')",
        ) from None


def parse_json(text: str, *, source: str, fix: str) -> Any:
    """JSON text as Python values; invalid JSON is one message with its line."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON: {exc.msg} (line {exc.lineno})", fix=fix
        ) from None


def describe_validation_error(exc: ValidationError) -> str:
    """The first few field errors as ``field `a.b`: message`` text."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field (check its spelling)"
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")  # our validators' own words
        elif err["type"] == "tuple_type":
            msg = "Input should be a valid list"  # YAML / JSON users write lists, not tuples
        parts.append(f"field `{loc}`: {msg}" if loc else msg)
    more = len(exc.errors()) - 3
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


_BLOCK_CHARS = 1 << 22


def iter_jsonl_lines(path: Path, *, what: str) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSONL file with their numbers, streamed in blocks.

    What ``_jsonl(read_text(path, what=what))`` walks, in flat memory: lines are
    split on "\n" only and numbered the same way. An unreadable, undecodable or
    empty file raises :func:`read_text`'s error. A caller that rejects a line must
    call :func:`ensure_readable` first: a binary or non-UTF-8 file is reported as
    such even when the bad byte comes after the bad line.
    """
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError:
        read_text(path, what=what)  # raises the message of an unreadable path
        raise
    number = 0
    content = False
    with handle:
        tail = ""
        try:
            while block := handle.read(_BLOCK_CHARS):
                lines = (tail + block).split("\n")
                tail = lines.pop()
                for line in lines:
                    number += 1
                    if line and not line.isspace():  # i.e. line.strip()
                        content = True
                        yield number, line
        except UnicodeDecodeError:
            read_text(path, what=what)  # raises: binary or not UTF-8
            raise
    if tail and not tail.isspace():
        yield number + 1, tail
    elif not content:
        read_text(path, what=what)  # raises: empty


def ensure_readable(path: Path, *, what: str) -> None:
    """Raise :func:`read_text`'s error if the file is binary or not UTF-8 (streamed check)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as handle:
            while block := handle.read(_BLOCK_CHARS):
                if b"\x00" in block:
                    break
                decoder.decode(block)
            else:
                decoder.decode(b"", final=True)
                return
    except (OSError, UnicodeDecodeError):
        pass
    read_text(path, what=what)


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


@contextmanager
def atomic_file(path: Path) -> Iterator[IO[bytes]]:
    """A binary handle on a temp file in ``path``'s directory, renamed onto ``path``
    when the block ends without an error (else removed): never a partial file."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise InputError(
            f"{path}: cannot write: {exc.strerror}", fix="check the directory and its permissions"
        ) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a report or baseline is meant to be shared.
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def encode_text(text: str) -> bytes:
    """UTF-8 bytes to write."""
    # backslashreplace: a lone surrogate (legal as a JSON escape) is written
    # back as the same escape instead of crashing the encoder.
    return text.encode("utf-8", errors="backslashreplace")


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` via a temp file + rename in the same directory."""
    with atomic_file(path) as handle:
        handle.write(encode_text(text))
