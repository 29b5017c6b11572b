"""`score` reads a capture as untrusted data: each cap of
recall_gate.adapters.capture_limits, each case at most once, no unknown case;
every refusal exits 2 naming the file and line, and writes no results file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from recall_gate.adapters import dataset
from recall_gate.adapters.capture_limits import MAX_LINE_CHARS, MAX_RETRIEVED, MAX_STRING_CHARS

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
