"""Hostile files are refused with one message, never expanded or crashed on.

Depth and alias-expansion limits for YAML and JSON, a JSONL reader linear in
the length of a line, and writes that fail on a full or read-only disk naming
the path. Sizes are modest; no assertion is about time.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from recall_gate.adapters import files
from recall_gate.adapters.files import (
    MAX_NESTING,
    atomic_write_text,
    iter_jsonl_lines,
    parse_json,
    parse_yaml,
)
from recall_gate.errors import InputError

# -- depth ---------------------------------------------------------------------


@pytest.mark.parametrize("levels", [MAX_NESTING + 1, 5_000, 100_000])
def test_yaml_nested_deeper_than_the_limit_is_refused_naming_the_file(levels: int) -> None:
    text = "[" * levels + "]" * levels

    with pytest.raises(InputError) as caught:
        parse_yaml(text, source="cases.yaml")

    assert caught.value.message == f"cases.yaml: nested deeper than {MAX_NESTING} levels"
    assert caught.value.exit_code == 2


def test_block_style_yaml_nested_deeply_is_refused() -> None:
    text = "".join("  " * i + "a:\n" for i in range(MAX_NESTING + 5))

    with pytest.raises(InputError, match="nested deeper than"):
        parse_yaml(text, source="recall-gate.yaml")


def test_yaml_at_the_nesting_limit_is_read() -> None:
    levels = MAX_NESTING - 1  # the scalar inside is one more level
    assert parse_yaml("[" * levels + "1" + "]" * levels, source="x") is not None


@pytest.mark.parametrize("levels", [5_000, 1_000_000])
def test_json_nested_deeply_is_refused_naming_the_file(levels: int) -> None:
    with pytest.raises(InputError) as caught:
        parse_json("[" * levels + "]" * levels, source="results.json", fix="")

    assert caught.value.message == f"results.json: nested deeper than {MAX_NESTING} levels"


# -- aliases ---------------------------------------------------------------------


def test_one_100kb_string_aliased_a_thousand_times_is_refused_not_expanded() -> None:
    big = "x" * 100_000
    text = f"anchor: &big {big}\ncases:\n" + "".join("  - *big\n" for _ in range(1_000))

    with pytest.raises(InputError) as caught:
        parse_yaml(text, source="cases.yaml")

    assert "cases.yaml: its aliases (*name) expand it to more than" in caught.value.message
    assert "fewer or smaller anchors" in caught.value.fix


def test_a_billion_laughs_is_refused() -> None:
    lines = ['a0: &a0 "lol"']
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]

    with pytest.raises(InputError, match="expand it to more than"):
        parse_yaml("\n".join(lines) + "\n", source="x.yaml")


def test_a_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="refers to a value that contains it"):
        parse_yaml("a: &loop [1, *loop]\n", source="x.yaml")


def test_ordinary_anchors_and_aliases_still_work() -> None:
    text = "ids: &ids [a, b, c]\ncases:\n  - {gold: *ids}\n  - {gold: *ids}\n"

    data: Any = parse_yaml(text, source="x.yaml")

    assert data["cases"] == [{"gold": ["a", "b", "c"]}, {"gold": ["a", "b", "c"]}]


def test_an_unknown_yaml_tag_is_an_input_error() -> None:
    with pytest.raises(InputError, match="invalid YAML"):
        parse_yaml("gate: !python/object:os.system {min_hit: 0.5}\n", source="x.yaml")


# -- JSONL: linear in the length of a line ------------------------------------------


class _CountingBlock(str):
    """A block that counts the characters copied by ``partial + block``: the
    re-joining that made a 400 MB line take 25 s (quadratic in its length)."""

    copied = 0

    def __radd__(self, other: str) -> str:
        _CountingBlock.copied += len(other) + len(self)
        return str.__add__(other, self)


def test_a_line_much_longer_than_a_block_is_never_re_copied_per_block() -> None:
    _CountingBlock.copied = 0
    blocks = [_CountingBlock("y" * 64) for _ in range(2_000)] + [_CountingBlock("\nz")]

    lines = list(files._split_lines(blocks, "\n"))

    assert lines == ["y" * 128_000, "z"]
    # Each character is copied a bounded number of times, however many blocks
    # the line spans (re-joining per block copies it ~1,000 times here).
    assert _CountingBlock.copied <= 2 * 128_000


def test_the_block_reader_gives_the_same_lines_as_splitting_the_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "_BLOCK_CHARS", 7)
    text = "\n".join(["short", "a" * 50, "", "  ", "b" * 7, "c" * 8, "tail\u2028same line"])
    path = tmp_path / "a.jsonl"
    path.write_text(text, encoding="utf-8")

    got = list(iter_jsonl_lines(path, what="artifacts file"))

    expected = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    assert got == expected


def test_a_long_single_line_file_is_read_whole(tmp_path: Path) -> None:
    record = {"case_id": "c1", "retrieved": [f"card-{i}" for i in range(400_000)]}
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")

    [(number, line)] = list(iter_jsonl_lines(path, what="artifacts file"))

    assert (number, json.loads(line)) == (1, record)


# -- writes that fail -----------------------------------------------------------------


@pytest.fixture
def full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every atomic write lands on /dev/full: the kernel answers ENOSPC on flush."""
    real_fdopen = os.fdopen

    def onto_dev_full(fd: int, *args: Any, **kwargs: Any) -> Any:
        os.close(fd)
        return real_fdopen(os.open("/dev/full", os.O_WRONLY), *args, **kwargs)

    monkeypatch.setattr(os, "fdopen", onto_dev_full)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.usefixtures("full_disk")
def test_a_full_disk_is_an_input_error_naming_the_path_and_leaves_no_temp_file(
    tmp_path: Path,
) -> None:
    target = tmp_path / "results.json"

    with pytest.raises(InputError) as caught:
        atomic_write_text(target, "{}\n" * 10_000)

    assert caught.value.message == f"{target}: cannot write: No space left on device"
    assert "free some disk space" in caught.value.fix
    assert list(tmp_path.iterdir()) == []


def test_a_read_only_file_system_is_an_input_error_naming_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(*_: object) -> None:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(os, "replace", read_only)
    target = tmp_path / "baselines" / "default.json"

    with pytest.raises(InputError) as caught:
        atomic_write_text(target, "{}\n")

    assert caught.value.message == f"{target}: cannot write: Read-only file system"
    assert "mounted read-only" in caught.value.fix
    assert list(target.parent.iterdir()) == []


def test_an_unexpected_os_error_while_writing_is_not_disguised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object) -> None:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "replace", broken)

    with pytest.raises(OSError, match="Input/output error"):
        atomic_write_text(tmp_path / "x.json", "{}\n")


def test_unmatched_brackets_inside_a_string_are_not_nesting() -> None:
    text = 'query: "' + "[" * (MAX_NESTING + 50) + '"\n'

    assert parse_yaml(text, source="x.yaml") == {"query": "[" * (MAX_NESTING + 50)}


def test_writing_onto_a_folder_is_an_input_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "report.md").mkdir()

    with pytest.raises(InputError) as caught:
        atomic_write_text(tmp_path / "report.md", "# report\n")

    assert caught.value.message == f"{tmp_path / 'report.md'}: cannot write: Is a directory"
    assert caught.value.fix == "pass a file path, not a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.md"]


def test_a_line_over_the_cap_is_refused_after_the_lines_before_it() -> None:
    blocks = ["a\n" + "b" * 20 + "\nc\n", "d\n"]
    seen: list[str] = []
    with pytest.raises(files._LineTooLong):
        seen.extend(files._split_lines(blocks, "\n", limit=10))
    assert seen == ["a"]


def test_a_line_over_the_cap_across_blocks_is_refused_before_it_is_held_whole() -> None:
    def blocks() -> Iterator[str]:
        yield "a\n" + "b" * 8
        yield "b" * 8
        raise AssertionError("read on after the line passed the cap")

    seen: list[str] = []
    with pytest.raises(files._LineTooLong):
        seen.extend(files._split_lines(blocks(), "\n", limit=10))
    assert seen == ["a"]


def test_the_scorers_byte_reader_keeps_the_line_cap(tmp_path: Path) -> None:
    """score reads capture lines as bytes (msgspec): the same cap, before the line is whole."""
    from recall_gate.adapters.dataset import iter_capture_lines

    capture = tmp_path / "capture.jsonl"
    good = '{"case_id": "a", "retrieved": ["x"]}\n'
    capture.write_text(good + '{"case_id": "b", "retrieved": ["' + "y" * (1 << 20) + '"]}\n')
    lines = iter_capture_lines(capture)
    assert next(lines)[0] == 1
    with pytest.raises(InputError, match=r"capture.jsonl:2: a line longer than 1,048,576"):
        next(lines)


def test_the_scorers_byte_reader_keeps_the_retrieved_items_cap(tmp_path: Path) -> None:
    from recall_gate.adapters.dataset import iter_capture_lines

    capture = tmp_path / "capture.jsonl"
    items = ", ".join(f'"c{i}"' for i in range(10_001))
    capture.write_text('{"case_id": "a", "retrieved": [' + items + "]}\n")
    with pytest.raises(InputError, match=r"10,001 retrieved items \(the cap is 10,000"):
        list(iter_capture_lines(capture))
