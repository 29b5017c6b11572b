"""Reading and writing files, the way every adapter does it (adapter: file I/O).

Reads name the file and the fix on every failure (missing, a directory, not
UTF-8, binary); YAML and JSON parse errors carry their line. Writes are atomic
(a temp file in the same directory, then a rename), so a crash never leaves a
truncated file behind, and JSON bytes are deterministic (sorted keys, fixed
float rounding, trailing newline) so that a diff is reviewable.

Hostile input is refused, not expanded: YAML and JSON nested deeper than
:data:`MAX_NESTING` levels, and YAML whose aliases (``*name``) would expand it
beyond :func:`yaml_expansion_budget` characters (counted after expansion, in
time linear in the document: a 100 KB string aliased 1,000 times is refused, not
turned into 100 MB), or that refer to themselves. A full disk, a read-only file
system or a missing permission while writing is an :class:`InputError` naming
the path.
"""

from __future__ import annotations

import codecs
import difflib
import errno
import itertools
import json
import os
import re
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, AnyStr, Final, get_args

from pydantic import BaseModel, ValidationError

from recall_gate.core.records import FLOAT_DIGITS
from recall_gate.errors import InputError, is_huge_integer

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

__all__ = [
    "MAX_NESTING",
    "atomic_file",
    "atomic_write_text",
    "closest_field",
    "decoded_line",
    "describe_validation_error",
    "dump_json",
    "encode_text",
    "ensure_readable",
    "file_mode",
    "iter_jsonl_byte_chunks",
    "iter_jsonl_lines",
    "parse_json",
    "parse_yaml",
    "read_text",
    "too_deep",
    "write_error",
    "yaml_expansion_budget",
]

MAX_NESTING: Final = 100
"""Deepest nesting of lists and mappings read from YAML or JSON; real data is a few levels."""
_EXPANSION_FACTOR: Final = 10
_EXPANSION_FLOOR: Final = 16 * 1024 * 1024
# What a user fixes (space, a read-only mount, permissions, a quota): exit 2 naming the path.
_WRITE_ERRNOS: Final = frozenset(
    {
        errno.ENOSPC,
        errno.EROFS,
        errno.EACCES,
        errno.EPERM,
        errno.EDQUOT,
        errno.EFBIG,
        errno.EISDIR,
        errno.ENOTDIR,
        errno.ENAMETOOLONG,
        errno.ELOOP,
    }
)


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


def yaml_expansion_budget(text: str) -> int:
    """Characters a YAML document may expand to through its aliases: ten times
    its own size, and at least 16 Mi — far beyond any real use of anchors."""
    return max(_EXPANSION_FACTOR * len(text), _EXPANSION_FLOOR)


def huge_integer(source: str) -> InputError:
    """The error of an integer too long to read (see :func:`is_huge_integer`)."""
    return InputError(
        f"{source}: a number has more than {sys.get_int_max_str_digits():,} digits",
        fix="write the number as it is meant (no field recall-gate reads takes one this long)",
    )


def too_deep(source: str) -> InputError:
    """The error of data nested deeper than :data:`MAX_NESTING` (or than Python can parse)."""
    return InputError(
        f"{source}: nested deeper than {MAX_NESTING} levels",
        fix="flatten the data: recall-gate's files are only a few levels deep",
    )


def _check_yaml_graph(root: Node, *, source: str, budget: int) -> None:
    """Refuse a node graph that nests too deep, expands past ``budget``
    characters through aliases, or contains itself. Each node is measured once
    (aliases share their anchor's node), so this is linear in the document."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    def _children(node: Node) -> list[Node]:
        if isinstance(node, SequenceNode):
            return list(node.value)
        if isinstance(node, MappingNode):
            return [part for pair in node.value for part in pair]
        return []

    sizes: dict[int, int] = {}
    depths: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, finished = stack.pop()
        key = id(node)
        if finished:
            children = _children(node)
            own = len(node.value) if isinstance(node, ScalarNode) else 0
            sizes[key] = 1 + own + sum(sizes[id(c)] for c in children)
            depths[key] = 1 + max((depths[id(c)] for c in children), default=0)
            open_nodes.discard(key)
            if depths[key] > MAX_NESTING:
                raise too_deep(source)
            if sizes[key] > budget:
                raise InputError(
                    f"{source}: its aliases (*name) expand it to more than {budget:,} characters",
                    fix="write the values out, or alias (*name) fewer or smaller anchors (&name)",
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:  # an ancestor on the current path: the alias is recursive
            raise InputError(
                f"{source}: a YAML alias (*name) refers to a value that contains it",
                fix="remove the recursive alias",
            )
        open_nodes.add(key)
        stack.append((node, True))
        stack.extend((child, False) for child in _children(node) if id(child) not in sizes)


_BRACKET = re.compile(r"[\[\]{}]")


def _unclosed_brackets(text: str) -> int:
    """The most ``[`` / ``{`` open at once, counting every bracket in the text.

    The YAML scanner's time grows with the square of the flow nesting (5,000
    levels: half a minute before the first event), so deep flow nesting is
    refused before it is scanned. Brackets inside strings count too; only a
    text with hundreds of unmatched opening brackets is affected.
    """
    depth = deepest = 0
    for match in _BRACKET.finditer(text):
        if match.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif depth:
            depth -= 1
    return deepest


def parse_yaml(text: str, *, source: str) -> Any:
    """Parse YAML safely (no arbitrary tags, limits on depth and alias expansion);
    errors name the line."""
    if _unclosed_brackets(text) > 2 * MAX_NESTING:
        raise too_deep(source)
    # Imported when a YAML file is read: `score` of a capture reads none.
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    yaml = YAML(typ="safe", pure=True)
    try:
        node = yaml.compose(text)
        if node is None:
            return None
        _check_yaml_graph(node, source=source, budget=yaml_expansion_budget(text))
        return yaml.constructor.construct_document(node)
    except RecursionError:
        raise too_deep(source) from None
    except ValueError as exc:
        if not is_huge_integer(exc):
            raise
        raise huge_integer(source) from None
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
    except RecursionError:
        raise too_deep(source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON: {exc.msg} (line {exc.lineno})", fix=fix
        ) from None
    except ValueError as exc:
        if not is_huge_integer(exc):
            raise
        raise huge_integer(source) from None


def describe_validation_error(exc: ValidationError, *, model: type[BaseModel] | None = None) -> str:
    """The first few field errors as ``field `a.b`: message`` text.

    With the ``model`` that was validated, an unknown key gets "did you mean …":
    the closest field the model knows at that place (as pypa/build's ``_find_typo``)."""
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(p) for p in err["loc"])
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            guess = None if model is None else closest_field(model, err["loc"])
            msg = (
                f"unknown field; did you mean `{guess}`?"
                if guess
                else "unknown field (check its spelling)"
            )
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "value_error":
            msg = msg.removeprefix("Value error, ")  # our validators' own words
        elif err["type"] == "finite_number":
            # JSON has no NaN or Infinity (Python's json reads them; 1e999 reads as one)
            msg = "not a finite number (NaN, Infinity and 1e999 are no JSON numbers)"
        elif err["type"] == "tuple_type":
            msg = "Input should be a valid list"  # YAML / JSON users write lists, not tuples
        parts.append(f"field `{loc}`: {msg}" if loc else msg)
    more = len(exc.errors()) - 3
    if more > 0:
        parts.append(f"and {more} more")
    return "; ".join(parts)


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model an annotation holds (itself, or inside Optional / a list)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        found = _model_in(arg)
        if found is not None:
            return found
    return None


def closest_field(model: type[BaseModel], loc: tuple[int | str, ...]) -> str | None:
    """The known key closest to the unknown one at ``loc`` (its full dotted path),
    or None when none is close."""
    *parents, unknown = loc
    current: type[BaseModel] | None = model
    for part in parents:
        if current is None:
            return None
        if isinstance(part, int):  # an item of a list of models
            continue
        field = current.model_fields.get(part)
        current = None if field is None else _model_in(field.annotation)
    if current is None:
        return None
    # A model's own other spellings (``spelled_as``: spelling → the key it means).
    spelled: dict[str, str] = getattr(current, "spelled_as", {})
    close = difflib.get_close_matches(str(unknown), [*current.model_fields, *spelled], n=1)
    if not close:
        return None
    return ".".join([*(str(p) for p in parents), spelled.get(close[0], close[0])])


_BLOCK_CHARS = 1 << 22
# The byte reader's blocks: a block's decoded lines stay in the CPU's cache (a 4 MB block of
# them runs 2-3x slower, as does holding them all).
_BYTE_BLOCK = 1 << 16


def _line_too_long(path: Path, number: int, limit: int | None, what: str) -> InputError:
    return InputError(
        f"{path}:{number}: a line longer than {limit:,} characters (the cap of a line of "
        f"an {what})",
        fix="one line holds one record; check the program that wrote the file",
    )


class _LineTooLong(Exception):
    """A line longer than the reader's cap (its number is the reader's to give)."""


def iter_jsonl_lines(
    path: Path, *, what: str, max_line_chars: int | None = None
) -> Iterator[tuple[int, str]]:
    """The non-blank lines of a JSONL file with their numbers, streamed in blocks.

    What ``_jsonl(read_text(path, what=what))`` walks, in flat memory: lines are
    split on "\n" only and numbered the same way. An unreadable, undecodable or
    empty file raises :func:`read_text`'s error. A caller that rejects a line must
    call :func:`ensure_readable` first: a binary or non-UTF-8 file is reported as
    such even when the bad byte comes after the bad line. ``max_line_chars``: a
    longer line is an InputError naming it, raised before it is held whole.
    """
    try:
        handle = path.open(encoding="utf-8-sig", newline="")
    except OSError:
        read_text(path, what=what)  # raises the message of an unreadable path
        raise
    number = 0
    content = False
    with handle:
        try:
            for line in _split_lines(
                iter(lambda: handle.read(_BLOCK_CHARS), ""), "\n", limit=max_line_chars
            ):
                number += 1
                if line and not line.isspace():  # i.e. line.strip()
                    content = True
                    yield number, line
        except _LineTooLong:
            raise _line_too_long(path, number + 1, max_line_chars, what) from None
        except UnicodeDecodeError:
            read_text(path, what=what)  # raises: binary or not UTF-8
            raise
    if not content:
        read_text(path, what=what)  # raises: empty


def iter_jsonl_byte_chunks(
    path: Path, *, what: str, max_line_bytes: int | None = None
) -> Iterator[list[bytes]]:
    """The lines of a JSONL file as UTF-8 bytes, a block's worth at a time, for a
    decoder that reads bytes (and checks their UTF-8 itself) and takes many lines
    in one call: :func:`iter_jsonl_lines`' lines, blank ones included (the caller
    skips them), so that line ``n`` of the file is the ``n``-th line given. A line
    is not decoded here: a caller that cannot use a line decodes it with
    :func:`decoded_line`, which raises :func:`read_text`'s error for bad UTF-8.
    ``max_line_bytes``: a longer line is an InputError naming it, raised after the
    lines before it are given and before it is held whole."""
    try:
        handle = path.open("rb")
    except OSError:
        read_text(path, what=what)  # raises the message of an unreadable path
        raise
    number = 0
    content = False
    with handle:
        first = handle.read(_BYTE_BLOCK).removeprefix(codecs.BOM_UTF8)
        blocks = itertools.chain((first,), iter(lambda: handle.read(_BYTE_BLOCK), b""))
        try:
            for lines in _split_line_chunks(blocks, b"\n", limit=max_line_bytes):
                number += len(lines)
                if not content:
                    content = any(line and not line.isspace() for line in lines)
                yield lines
        except _LineTooLong:
            raise _line_too_long(path, number + 1, max_line_bytes, what) from None
    if not content:
        read_text(path, what=what)  # raises: empty, binary or not UTF-8


def decoded_line(path: Path, line: bytes, *, what: str) -> str:
    """A line of :func:`iter_jsonl_byte_chunks` as text; read_text's error if it is not UTF-8."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        read_text(path, what=what)  # raises: binary or not UTF-8
        raise


def _split_lines(
    blocks: Iterable[AnyStr], newline: AnyStr, *, limit: int | None = None
) -> Iterator[AnyStr]:
    """The ``newline``-separated lines of a text given in blocks, in time linear in
    its size (:func:`_split_line_chunks`, a line at a time)."""
    for lines in _split_line_chunks(blocks, newline, limit=limit):
        yield from lines


def _split_line_chunks(
    blocks: Iterable[AnyStr], newline: AnyStr, *, limit: int | None = None
) -> Iterator[list[AnyStr]]:
    """The ``newline``-separated lines of a text given in blocks, in time linear in its
    size, as lists: the lines each block completes (never an empty list).

    A line longer than a block is gathered as a list of pieces and joined once
    when its end arrives: re-joining the partial line to every new block would
    copy it again per block (quadratic: 25 s for a 400 MB line). The last line
    is given even without a final newline, unless it is empty. ``limit``: a
    line longer than that (characters, or bytes) raises :class:`_LineTooLong` as
    soon as it is seen, once the lines before it are given.
    """
    partial: list[AnyStr] = []
    empty = newline[:0]
    held = 0  # characters (or bytes) in ``partial``
    for block in blocks:
        lines = block.split(newline)
        if len(lines) == 1:
            partial.append(block)
            held += len(block)
            if limit is not None and held > limit:
                raise _LineTooLong
            continue
        if partial:
            partial.append(lines[0])
            lines[0] = empty.join(partial)
        partial = [lines.pop()]
        held = len(partial[0])
        if limit is not None and max(map(len, lines)) > limit:
            long = next(i for i, line in enumerate(lines) if len(line) > limit)
            if long:
                yield lines[:long]
            raise _LineTooLong
        yield lines
        if limit is not None and held > limit:
            raise _LineTooLong
    tail = empty.join(partial)
    if tail:
        yield [tail]


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


def file_mode(path: Path) -> int:
    """Keep an existing file's permissions; a new file gets 0644 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o644 & ~umask


def _is_stream(path: Path) -> bool:
    """``path`` names an existing device, pipe or socket (``/dev/stdout``, a FIFO):
    written in place, never replaced by a file."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextmanager
def _stream_file(path: Path) -> Iterator[IO[bytes]]:
    try:
        with path.open("wb") as handle:
            yield handle
            handle.flush()
    except OSError as exc:
        if exc.errno in _WRITE_ERRNOS:
            raise write_error(path, exc) from None
        raise


@contextmanager
def atomic_file(path: Path, *, temp_dir: Path | None = None) -> Iterator[IO[bytes]]:
    """A binary handle on a temp file in ``path``'s directory (or ``temp_dir``, on
    the same file system), renamed onto ``path`` when the block ends without an
    error (else removed): never a partial file. A device or pipe
    (``--json /dev/stdout``) is written in place: renaming a file onto it would
    replace the device itself."""
    if _is_stream(path):
        with _stream_file(path) as handle:
            yield handle
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            dir=temp_dir or path.parent, prefix=f".{path.name}.", suffix=".tmp"
        )
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; a report or baseline is meant to be shared.
        os.chmod(tmp, file_mode(path))
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        if exc.errno in _WRITE_ERRNOS:
            raise write_error(path, exc) from None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_error(path: Path, exc: OSError) -> InputError:
    """One message for a write that failed: the path, the reason, and the fix."""
    reason = exc.strerror or os.strerror(exc.errno or 0)
    return InputError(f"{path}: cannot write: {reason}", fix=write_fix(exc))


def write_fix(exc: OSError, *, otherwise: str | None = None) -> str:
    """What to do about a write that failed with ``exc`` (``otherwise`` for a
    reason not listed)."""
    fixes = {
        errno.ENOSPC: "free some disk space (or write elsewhere), then run again",
        errno.EDQUOT: "free some of your disk quota (or write elsewhere), then run again",
        errno.EFBIG: "write to a file system that allows larger files",
        errno.EROFS: "write to a writable location: this file system is mounted read-only",
        errno.EISDIR: "pass a file path, not a folder",
        errno.ENOTDIR: "a part of the path is a file, not a folder: pass another path",
        errno.ENAMETOOLONG: "pass a shorter path",
        errno.ELOOP: "the path goes through a symlink loop: pass another path",
    }
    return fixes.get(
        exc.errno or 0, otherwise or "check the directory exists and you may write to it"
    )


def encode_text(text: str) -> bytes:
    """UTF-8 bytes to write."""
    # backslashreplace: a lone surrogate (legal as a JSON escape) is written
    # back as the same escape instead of crashing the encoder.
    return text.encode("utf-8", errors="backslashreplace")


def atomic_write_text(path: Path, text: str, *, temp_dir: Path | None = None) -> None:
    """Write ``text`` to ``path`` via a temp file + rename (see :func:`atomic_file`)."""
    with atomic_file(path, temp_dir=temp_dir) as handle:
        handle.write(encode_text(text))
