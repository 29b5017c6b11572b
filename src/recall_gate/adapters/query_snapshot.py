"""The query snapshot: each logged query's top-k card ids (adapter: files, git).

Written by ``capture`` beside its artifacts and by ``baseline update`` beside the
baseline (``baselines/<profile>.queries.jsonl``), read back from the base
revision in a pull request, like the baseline. Compact and deterministic: JSON
Lines, the first line a header holding ``k`` and the sorted table of every card
id once, then one ``["query id", [card index, …]]`` line per query in id order.
Gzipped (``.jsonl.gz``, no timestamp, so the bytes depend on the content only)
once it passes :data:`GZIP_ABOVE` bytes; the reader takes either.

A snapshot beside a capture comes from the capture job: untrusted data. It is
read as it streams, gzip inflated a block at a time, and refused (naming the file
and the cap) past :data:`~recall_gate.adapters.capture_limits.MAX_SNAPSHOT_BYTES`
decompressed bytes, a first line (the card table) past
:data:`~recall_gate.adapters.capture_limits.MAX_SNAPSHOT_HEADER_BYTES` or any
other line past :data:`~recall_gate.adapters.capture_limits.MAX_LINE_CHARS`
bytes: a gzip bomb is never inflated whole.
"""

from __future__ import annotations

import gzip
import json
import re
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, overload

from recall_gate.adapters import capture_limits
from recall_gate.adapters.capture_limits import MAX_LINE_CHARS, MAX_SNAPSHOT_HEADER_BYTES
from recall_gate.adapters.file_set import current_file, write_file_set
from recall_gate.adapters.files import atomic_write_text, encode_text
from recall_gate.adapters.git import BaseTree
from recall_gate.core.logged_query import MAX_LOGGED_QUERIES
from recall_gate.errors import InputError

__all__ = [
    "GZIP_ABOVE",
    "SCHEMA",
    "QuerySnapshot",
    "decode_snapshot",
    "encode_snapshot",
    "load_snapshot",
    "read_snapshot",
    "read_snapshot_at",
    "snapshot_file",
    "snapshot_paths",
    "write_snapshot",
    "write_with_snapshot",
]

SCHEMA = "recall-gate/query-snapshot"
_VERSION = 1
GZIP_ABOVE = 64 * 1024  # bytes of JSON Lines: a diff stays reviewable below it
_FIX = (
    "write the snapshot again (`recall-gate baseline update` beside the baseline, or "
    "`recall-gate capture` with `queries:` in the config); do not edit it by hand"
)


@dataclass(frozen=True)
class QuerySnapshot:
    """Query id → its top ``k`` card ids, best first."""

    k: int
    rankings: Mapping[str, tuple[str, ...]]


def snapshot_paths(path: Path) -> tuple[Path, Path]:
    """The snapshot beside ``path`` (a baseline or an artifacts file): its plain
    and gzipped names, ``NAME.queries.jsonl`` and ``NAME.queries.jsonl.gz``."""
    stem = path.name.removesuffix(".gz")
    stem = stem.rsplit(".", 1)[0] if "." in stem else stem
    plain = path.with_name(f"{stem}.queries.jsonl")
    return plain, plain.with_name(plain.name + ".gz")


def encode_snapshot(snapshot: QuerySnapshot) -> tuple[bytes, bool]:
    """The snapshot's bytes, and whether they are gzipped (past :data:`GZIP_ABOVE`)."""
    cards = sorted({card for ranking in snapshot.rankings.values() for card in ranking})
    index = {card: i for i, card in enumerate(cards)}
    header = {"schema": SCHEMA, "version": _VERSION, "k": snapshot.k, "cards": cards}
    lines = [json.dumps(header, ensure_ascii=False, separators=(",", ":"), sort_keys=True)]
    for query_id in sorted(snapshot.rankings):
        ranks = [index[card] for card in snapshot.rankings[query_id]]
        lines.append(json.dumps([query_id, ranks], ensure_ascii=False, separators=(",", ":")))
    data = ("\n".join(lines) + "\n").encode("utf-8")
    if len(data) <= GZIP_ABOVE:
        return data, False
    return gzip.compress(data, compresslevel=9, mtime=0), True


def _bad(source: str, what: str) -> InputError:
    return InputError(f"{source}: not a recall-gate query snapshot: {what}", fix=_FIX)


def _ranking(line: Any, cards: Sequence[str], *, where: str, source: str) -> tuple[str, list[str]]:
    if (
        not isinstance(line, list)
        or len(line) != 2
        or not isinstance(line[0], str)
        or not isinstance(line[1], list)
    ):
        raise _bad(source, f'{where}: expected ["query id", [card index, …]]')
    ranking = []
    for i in line[1]:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(cards):
            raise _bad(source, f"{where}: card index {i!r} is not in the header's card table")
        ranking.append(cards[i])
    return line[0], ranking


_BLOCK = 1 << 16  # bytes inflated (or split) at a time


def _inflated(data: bytes, *, source: str) -> Iterator[bytes]:
    """``data`` as it inflates (gzip members, one after another), a block at a
    time, or as it is when not gzipped; refused past the decompressed cap."""
    cap = capture_limits.MAX_SNAPSHOT_BYTES
    if data[:2] != b"\x1f\x8b":
        if len(data) > cap:
            raise _too_large(source, cap)
        yield data
        return
    total = 0
    rest = data
    while rest:
        inflater = zlib.decompressobj(wbits=31)
        pending = rest
        while pending and not inflater.eof:
            block = inflater.decompress(pending, _BLOCK)
            pending = inflater.unconsumed_tail
            total += len(block)
            if total > cap:
                raise _too_large(source, cap)
            yield block
        if not inflater.eof:
            raise zlib.error("truncated gzip data")
        rest = inflater.unused_data


def _too_large(source: str, cap: int) -> InputError:
    return InputError(
        f"{source}: more than {cap:,} bytes once decompressed (the cap of a query snapshot)",
        fix=_FIX,
    )


_SEGMENT = re.compile(rb"[^\n]+")


def _parts(block: bytes, number: int) -> tuple[bytes, list[tuple[int, bytes]], int, bytes]:
    """A block holding a newline, its first line numbered ``number``: the text before
    its first newline, the numbered non-empty lines between its first and last
    newline, its newline count, and the text after its last newline. A block that is
    mostly newlines (a bomb of them) is walked by a pattern in C, else split: neither
    takes a Python step per empty line."""
    breaks = block.count(b"\n")
    if breaks * 4 <= len(block):
        parts = block.split(b"\n")
        inner = [(at, line) for at, line in enumerate(parts[1:-1], number + 1) if line]
        return parts[0], inner, breaks, parts[-1]
    first, last = block.find(b"\n"), block.rfind(b"\n")
    inner = []
    at, seen = first + 1, number + 1
    for segment in _SEGMENT.finditer(block, first + 1, last):
        seen += block.count(b"\n", at, segment.start())
        inner.append((seen, segment.group()))
        at = segment.end()
    return block[:first], inner, breaks, block[last + 1 :]


def _line_chunks(blocks: Iterator[bytes], *, source: str) -> Iterator[list[tuple[int, bytes]]]:
    """The numbered non-empty lines of the inflated blocks, a block's worth at a time,
    each line refused past its cap before it is held whole (the first line, the card
    table, may be longer)."""
    number, held = 1, 0
    pieces: list[bytes] = []  # the line begun and not yet ended
    for block in blocks:
        rest = block
        if b"\n" in block:
            head, inner, breaks, rest = _parts(block, number)
            pieces.append(head)
            if held or head:
                inner.insert(0, (number, b"".join(pieces)))
            if inner:
                yield inner
            number += breaks
            held, pieces = 0, []
        if rest:
            pieces.append(rest)
            held += len(rest)
        cap = MAX_SNAPSHOT_HEADER_BYTES if number == 1 else MAX_LINE_CHARS
        if held > cap:
            raise InputError(
                f"{source}: line {number} is longer than {cap:,} bytes (the cap of a line "
                "of a query snapshot)",
                fix=_FIX,
            )
    if held:
        yield [(number, b"".join(pieces))]


def _lines(blocks: Iterator[bytes], *, source: str) -> Iterator[tuple[int, bytes]]:
    for chunk in _line_chunks(blocks, source=source):
        yield from chunk


def decode_snapshot(data: bytes, *, source: str) -> QuerySnapshot:
    """A snapshot from its bytes (gzipped or not), streamed within the caps of
    :mod:`~recall_gate.adapters.capture_limits`; a bad one is an error naming ``source``."""
    lines = _lines(_inflated(data, source=source), source=source)
    try:
        _, first = next(lines, (1, b""))
        header = json.loads(first.decode("utf-8"))
    except (zlib.error, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        raise _bad(source, "unreadable (line 1)") from None
    if not isinstance(header, dict) or header.get("schema") != SCHEMA:
        raise _bad(source, f'line 1 has no "schema": "{SCHEMA}" header')
    if header.get("version") != _VERSION:
        raise _bad(source, f"version {header.get('version')!r}; this recall-gate reads {_VERSION}")
    k, cards = header.get("k"), header.get("cards")
    if not isinstance(k, int) or isinstance(k, bool) or k < 1 or not isinstance(cards, list):
        raise _bad(source, "line 1 needs a positive k and a cards list")
    rankings: dict[str, tuple[str, ...]] = {}
    try:
        for number, text in lines:
            if not text.strip():
                continue
            try:
                line = json.loads(text)
            except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
                raise _bad(source, f"line {number} is not JSON") from None
            query_id, ranking = _ranking(line, cards, where=f"line {number}", source=source)
            rankings[query_id] = tuple(ranking)
            if len(rankings) > MAX_LOGGED_QUERIES:
                raise _bad(source, f"more than {MAX_LOGGED_QUERIES:,} queries (the cap of a log)")
    except zlib.error:
        raise _bad(source, "its gzip data is cut short or damaged") from None
    return QuerySnapshot(k=k, rankings=rankings)


def snapshot_file(path: Path, snapshot: QuerySnapshot) -> tuple[Path, bytes, Path]:
    """The snapshot beside ``path`` as a file to write: its name (plain or gzipped
    by size), its bytes, and the other variant's name (to remove)."""
    data, zipped = encode_snapshot(snapshot)
    plain, packed = snapshot_paths(path)
    target, other = (packed, plain) if zipped else (plain, packed)
    return target, data, other


def write_snapshot(path: Path, snapshot: QuerySnapshot) -> Path:
    """Write the snapshot beside ``path`` (plain or gzipped by size, the other
    variant removed, both as one set: :mod:`~recall_gate.adapters.file_set`);
    returns the file written. Beside files it belongs with, write it in their set
    (:func:`snapshot_file`)."""
    target, data, other = snapshot_file(path, snapshot)
    write_file_set([(target, data)], remove=[other])
    return target


@overload
def write_with_snapshot(path: Path, text: str, snapshot: QuerySnapshot) -> Path: ...
@overload
def write_with_snapshot(path: Path, text: str, snapshot: None) -> None: ...
def write_with_snapshot(path: Path, text: str, snapshot: QuerySnapshot | None) -> Path | None:
    """Write ``text`` (a capture) to ``path`` and ``snapshot`` beside it, as one set
    (:mod:`~recall_gate.adapters.file_set`): a reader never finds a new capture
    beside an old snapshot. Returns the snapshot's file. Without a snapshot, the
    capture alone is written atomically (a device, ``/dev/stdout``, in place)."""
    if snapshot is None:
        atomic_write_text(path, text)
        return None
    target, encoded, other = snapshot_file(path, snapshot)
    write_file_set([(path, encode_text(text)), (target, encoded)], remove=[other])
    return target


def _read_capped(path: Path) -> bytes:
    """The file's bytes; one larger than the decompressed cap is refused unread."""
    current = current_file(path)  # a set cut short reads as the set it will be
    if current is None:
        raise FileNotFoundError(path)
    cap = capture_limits.MAX_SNAPSHOT_BYTES
    if current.stat().st_size > cap:
        raise _too_large(str(path), cap)
    return current.read_bytes()


def load_snapshot(path: Path) -> QuerySnapshot:
    """The snapshot file ``path`` itself (plain or gzipped)."""
    try:
        data = _read_capped(path)
    except OSError as exc:
        raise InputError(
            f"{path}: cannot read the query snapshot ({exc.strerror or exc})",
            fix="pass the NAME.queries.jsonl (or .jsonl.gz) that `recall-gate capture` wrote "
            "beside its artifacts",
        ) from None
    return decode_snapshot(data, source=str(path))


def read_snapshot(path: Path) -> QuerySnapshot | None:
    """The snapshot beside ``path`` (either variant), or None when there is none."""
    for candidate in snapshot_paths(path)[::-1]:
        try:
            data = _read_capped(candidate)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise InputError(
                f"{candidate}: cannot read the query snapshot: {exc}", fix=_FIX
            ) from None
        return decode_snapshot(data, source=str(candidate))
    return None


def read_snapshot_at(tree: BaseTree, path: Path) -> QuerySnapshot | None:
    """The snapshot beside ``path`` as the base revision has it, or None."""
    for candidate in snapshot_paths(path)[::-1]:
        relative = tree.relative(candidate)
        if relative is None:
            return read_snapshot(path)  # outside the work tree: no pull request edits it
        data = tree.read(relative)
        if data is not None:
            return decode_snapshot(data, source=tree.source(relative))
    return None
