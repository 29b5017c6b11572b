"""Errors name whose fault: a non-finite number in a capture line is that line's
error (file, line, field, fix), never the judge's own results file's; a reader
that closes stdout early (`recall-gate score … | head`) ends the command quietly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from cli_runner import run_cli

_FIELDS: dict[str, Callable[[float], dict[str, object]]] = {
    "latency_ms": lambda value: {"latency_ms": value},
    "retrieved[0].score": lambda value: {"retrieved": [{"id": "card-0", "score": value}]},
    "timings_ms.embed": lambda value: {"timings_ms": {"embed": value}},
}


def _line(case_id: str, **extra: object) -> dict[str, object]:
    return {
        "case_id": case_id,
        "retrieved": ["card-0"],
        "must_cite_one_of": ["card-0"],
        "case_type": "golden",
        "language": "en",
        **extra,
    }


@pytest.mark.parametrize("literal", ["Infinity", "-Infinity", "NaN", "1e999"])
@pytest.mark.parametrize("field", sorted(_FIELDS))
def test_a_non_finite_number_in_a_capture_line_is_that_lines_error(
    tmp_path: Path, field: str, literal: str
) -> None:
    marker = 123456.5
    bad = json.dumps(_line("case-1", **_FIELDS[field](marker))).replace(str(marker), literal)
    lines = [json.dumps(_line("case-0")), bad, json.dumps(_line("case-2"))]
    (tmp_path / "capture.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    done = run_cli(
        [
            "score",
            "--artifacts",
            "capture.jsonl",
            "--json",
            "out/results.json",
            "--comparison-json",
            "out/comparison.json",
        ],
        cwd=tmp_path,
    )
    assert done.code == 2, done.out + done.err
    assert "Traceback" not in done.err
    first = done.err.splitlines()[0]
    assert "capture.jsonl:2 (case case-1)" in first, done.err
    assert f"field `{field}` is" in first, done.err
    assert "finite" in first, done.err
    # The judge never blames its own outputs, nor writes them from a refused capture.
    assert "results.json" not in done.err
    assert not (tmp_path / "out" / "results.json").exists()


_PIPE = """
import sys
from recall_gate.cli import entry_point
sys.argv = ["recall-gate", *sys.argv[1:]]
entry_point()
"""


def test_a_reader_that_closes_stdout_early_ends_the_command_quietly(tmp_path: Path) -> None:
    lines = [_line(f"case-{i:04d}", query=f"question {i} " + "words " * 30) for i in range(400)]
    lines = [{**line, "retrieved": ["other"]} for line in lines]  # 400 missed cases to list
    (tmp_path / "capture.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_GATE_")}
    score = subprocess.Popen(
        [sys.executable, "-c", _PIPE, "score", "--artifacts", "capture.jsonl"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert score.stdout is not None
    assert score.stderr is not None
    score.stdout.read(10)  # `| head -c 10`: the reader takes a little and goes away
    score.stdout.close()
    err = score.stderr.read().decode()
    code = score.wait(timeout=120)
    assert err == "", err
    # 128 + SIGPIPE, as a Unix tool the reader cut off: quiet, and never a pass.
    assert code == 141


def test_the_judge_never_blames_its_own_results_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A results file the run wrote that does not read back is recall-gate's bug
    (exit 3), never an input error telling the user to fix the judge's output."""
    from recall_gate.adapters import results_store
    from recall_gate.errors import InputError
    from recall_gate.judging import capture_scoring

    def unreadable(path: Path) -> object:
        results_store.read_results(path)  # the file the run wrote is there
        raise InputError(f"{path}: field `latency`: unreadable", fix="pass an unmodified file")

    monkeypatch.setattr(capture_scoring, "read_results", unreadable)
    lines = [_line(f"case-{i}") for i in range(3)]
    (tmp_path / "capture.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    done = run_cli(
        [
            "score",
            "--artifacts",
            "capture.jsonl",
            "--json",
            "r.json",
            "--comparison-json",
            "c.json",
        ],
        cwd=tmp_path,
    )
    assert done.code == 3, done.err
    assert "this is a bug in recall-gate" in done.err
    assert "fix: pass an unmodified file" not in done.err
