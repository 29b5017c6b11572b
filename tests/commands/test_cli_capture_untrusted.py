"""`score` reads a capture as untrusted data: each cap of
recall_gate.adapters.capture_limits, each case at most once, no unknown case;
every refusal exits 2 naming the file and line, and writes no results file."""

from __future__ import annotations

import json
import time
import tracemalloc
import zlib
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from recall_gate.adapters import capture_limits, dataset
from recall_gate.adapters.capture_limits import (
    MAX_CAPTURE_FILES,
    MAX_LINE_CHARS,
    MAX_NESTING,
    MAX_RETRIEVED,
    MAX_SNAPSHOT_BYTES,
    MAX_STRING_CHARS,
)
from recall_gate.adapters.query_snapshot import QuerySnapshot, read_snapshot, write_snapshot
from recall_gate.errors import InputError

N = 3


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    cases = [
        {
            "id": f"case-{i}",
            "language": "en",
            "case_type": "golden",
            "query": f"question {i}",
            "must_cite_one_of": [f"card-{i}"],
        }
        for i in range(N)
    ]
    (tmp_path / "cases.yaml").write_text(json.dumps(cases), encoding="utf-8")
    return tmp_path


def line(case_id: str, retrieved: list[str] | None = None, **extra: object) -> str:
    return json.dumps({"case_id": case_id, "retrieved": retrieved or ["card-0"], **extra})


def score(folder: Path, lines: list[str]) -> CliRun:
    (folder / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "c.jsonl", "--json", "r.json"],
        cwd=folder,
    )


def refused(done: CliRun, folder: Path) -> str:
    assert done.code == 2, done.out + done.err
    assert not (folder / "r.json").exists()
    assert "Traceback" not in done.err
    return done.err


def test_a_line_longer_than_the_line_cap_exits_2_naming_the_line(folder: Path) -> None:
    long = line("case-1", query="q" * (MAX_LINE_CHARS + 1))
    err = refused(score(folder, [line("case-0"), long, line("case-2")]), folder)
    assert "c.jsonl:2: a line longer than 1,048,576 characters" in err


def test_more_retrieved_items_than_the_cap_exits_2_naming_the_line(folder: Path) -> None:
    many = line("case-1", [f"d{i}" for i in range(MAX_RETRIEVED + 1)])
    err = refused(score(folder, [line("case-0"), many, line("case-2")]), folder)
    assert f"c.jsonl:2: {MAX_RETRIEVED + 1:,} retrieved items (the cap is 10,000 per line)" in err


def test_a_string_longer_than_the_string_cap_exits_2_naming_the_field(folder: Path) -> None:
    huge = line("case-2", ["card-2", "x" * (MAX_STRING_CHARS + 1)])
    err = refused(score(folder, [line("case-0"), line("case-1"), huge]), folder)
    assert "c.jsonl:3: retrieved[2] holds 65,537 characters (the cap is 65,536 per string)" in err


def test_more_lines_than_the_line_cap_exits_2_naming_the_file(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(dataset, "MAX_LINES", 2)
    err = refused(score(folder, [line(f"case-{i}") for i in range(N)]), folder)
    assert "c.jsonl: more than 2 lines (the cap of a capture)" in err


def test_each_case_at_most_once_a_second_line_exits_2_naming_both_lines(folder: Path) -> None:
    lines = [line("case-0"), line("case-1"), line("case-2"), line("case-1")]
    err = refused(score(folder, lines), folder)
    assert "c.jsonl:4: second artifact for case 'case-1' (first on line 2)" in err


def test_an_unknown_case_id_exits_2_naming_the_id_and_the_line(folder: Path) -> None:
    lines = [line("case-0"), line("case-1"), line("case-2"), line("case-9")]
    err = refused(score(folder, lines), folder)
    assert "c.jsonl:4: artifact for unknown case 'case-9'" in err


def test_lines_within_every_cap_are_scored(folder: Path) -> None:
    lines = [line(f"case-{i}", [f"card-{i}", "y" * MAX_STRING_CHARS]) for i in range(N)]
    done = score(folder, lines)
    assert done.code == 0, done.err


def test_a_line_nested_deeper_than_the_nesting_cap_exits_2_naming_the_line(
    folder: Path,
) -> None:
    deep: object = "leaf"
    for _ in range(MAX_NESTING + 5):
        deep = [deep]
    nested = line("case-1", [{"id": "card-1", "metadata": {"x": deep}}])  # type: ignore[list-item]
    for reader in ("chunked", "line by line"):
        lines = [line("case-0"), nested, line("case-2")]
        if reader == "line by line":  # a blank line sends the block to the line reader
            lines.insert(1, "")
        err = refused(score(folder, lines), folder)
        at = 2 if reader == "chunked" else 3
        assert f"c.jsonl:{at}: nested deeper than {MAX_NESTING} levels" in err, err


def test_a_capture_file_over_the_byte_cap_exits_2_naming_the_file_and_the_cap(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(capture_limits, "MAX_CAPTURE_BYTES", 100)
    err = refused(score(folder, [line(f"case-{i}") for i in range(N)]), folder)
    assert "c.jsonl: more than 100 bytes (the cap of a capture file)" in err, err


def _bomb(path: Path, *, filler: bytes, size: int) -> None:
    """A gzip of a snapshot header followed by ``size`` bytes of ``filler``, written
    in pieces: the test never holds the inflated bytes either."""
    header = b'{"cards":["card-0"],"k":5,"schema":"recall-gate/query-snapshot","version":1}\n'
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: the gzip container
    block = filler * (1 << 20)
    with path.open("wb") as out:
        out.write(packer.compress(header))
        for _ in range(size // len(block)):
            out.write(packer.compress(block))
        out.write(packer.flush())


@pytest.mark.parametrize(
    ("filler", "cap"),
    [
        (b"\n", f"more than {MAX_SNAPSHOT_BYTES:,} bytes once decompressed"),
        (b"\0", f"line 2 is longer than {MAX_LINE_CHARS:,} bytes"),
    ],
    ids=["blank lines", "one endless line"],
)
def test_a_gzip_bomb_snapshot_is_refused_before_it_is_inflated(
    tmp_path: Path, filler: bytes, cap: str
) -> None:
    """200 MB gzip to ~200 KB: the reader stops at the cap on inflated bytes (or on
    one line's), naming the file and the cap, in flat memory and little time."""
    capture = tmp_path / "capture.jsonl"
    capture.write_text(line("case-0") + "\n", encoding="utf-8")
    bomb = tmp_path / "capture.queries.jsonl.gz"
    _bomb(bomb, filler=filler, size=200 << 20)
    assert bomb.stat().st_size < 1 << 20
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with pytest.raises(InputError) as refused_bomb:
            read_snapshot(capture)
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(refused_bomb.value)
    assert "capture.queries.jsonl.gz" in message
    assert cap in message
    # Streamed: never more than a few blocks held (the old reader held all 200 MB).
    assert peak < 8 << 20, f"peak {peak:,} bytes"
    assert seconds < 10, f"{seconds:.1f} s"


@pytest.mark.parametrize("queries", [3, 30_000], ids=["plain", "gzipped"])
def test_a_snapshot_within_the_caps_reads_as_written(tmp_path: Path, queries: int) -> None:
    capture = tmp_path / "capture.jsonl"
    rankings = {f"q{i}": (f"card-{i % 7}", f"card-{i % 5}") for i in range(queries)}
    written = write_snapshot(capture, QuerySnapshot(k=2, rankings=rankings))
    assert written.name.endswith(".gz") == (queries > 3)  # gzipped once large
    assert read_snapshot(capture) == QuerySnapshot(k=2, rankings=rankings)


def test_a_capture_folder_with_more_files_than_the_cap_exits_2(folder: Path) -> None:
    handed = folder / "capture"
    handed.mkdir()
    (handed / "capture.jsonl").write_text(
        "\n".join(line(f"case-{i}") for i in range(N)) + "\n", encoding="utf-8"
    )
    for i in range(MAX_CAPTURE_FILES):
        (handed / f"extra-{i}.txt").write_text("x", encoding="utf-8")
    done = run_cli(
        ["score", "--cases", "cases.yaml", "--capture-dir", "capture", "--json", "r.json"],
        cwd=folder,
    )
    err = refused(done, folder)
    assert (
        f"the capture folder holds more than {MAX_CAPTURE_FILES} files (the cap of what a "
        "capture job hands over)" in err
    ), err


def test_a_capture_folder_within_the_caps_is_scored(folder: Path) -> None:
    handed = folder / "capture"
    handed.mkdir()
    (handed / "capture.jsonl").write_text(
        "\n".join(line(f"case-{i}") for i in range(N)) + "\n", encoding="utf-8"
    )
    done = run_cli(
        ["score", "--cases", "cases.yaml", "--capture-dir", "capture", "--json", "r.json"],
        cwd=folder,
    )
    assert done.code == 0, done.err
    assert (folder / "r.json").exists()
