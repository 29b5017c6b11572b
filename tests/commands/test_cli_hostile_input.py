"""Hostile files through the real commands: exit 2, one message, no traceback."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from factories import baseline_of, case
from recall_gate.adapters.baseline_store import write_baseline

LINE = {"case_id": "c1", "retrieved": ["a"], "must_cite_one_of": ["a"], "language": "en"}


def _refused(run: CliRun, *, says: str) -> None:
    assert run.code == 2, run.err
    assert says in run.err
    assert "Traceback" not in run.err


def test_deeply_nested_cases_yaml_exits_2_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "kb.yaml").write_text("- {id: a, language: en, title: A, body: a}\n")
    (tmp_path / "cases.yaml").write_text("cases: " + "[" * 5_000 + "]" * 5_000 + "\n")

    run = run_cli(["check", "--kb", "kb.yaml", "--cases", "cases.yaml"], cwd=tmp_path)

    _refused(run, says="cases.yaml: nested deeper than 100 levels")


def test_a_deeply_nested_artifacts_line_exits_2_naming_the_line(tmp_path: Path) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    (tmp_path / "a.jsonl").write_text(
        json.dumps(LINE) + "\n" + '{"case_id": "c2", "retrieved": ' + deep + "}\n"
    )

    run = run_cli(["score", "--artifacts", "a.jsonl"], cwd=tmp_path)

    _refused(run, says="a.jsonl:2: nested deeper than 100 levels")


def test_a_deeply_nested_results_file_exits_2(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text("[" * 100_000 + "]" * 100_000)

    run = run_cli(["compare", "--current", "r.json", "--baseline", "r.json"], cwd=tmp_path)

    _refused(run, says="r.json: nested deeper than 100 levels")


def test_a_deeply_nested_baseline_exits_2(tmp_path: Path) -> None:
    (tmp_path / "b.json").write_text("{" + '"a": {' * 50_000 + "}" * 50_001)

    run = run_cli(["floors", "suggest", "--baseline", "b.json"], cwd=tmp_path)

    _refused(run, says="b.json: nested deeper than 100 levels")


HUGE = "9" * 5_000  # past Python's 4,300-digit limit on reading an integer


def test_a_huge_integer_in_a_capture_line_exits_2_naming_the_line(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(
        json.dumps(LINE) + "\n" + json.dumps(LINE)[:-1] + ', "depth": ' + HUGE + "}\n"
    )

    run = run_cli(["score", "--artifacts", "a.jsonl"], cwd=tmp_path)

    _refused(run, says="a.jsonl:2: a number has more than 4,300 digits")


def test_a_huge_integer_in_the_config_exits_2_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(LINE) + "\n")
    (tmp_path / "recall-gate.yaml").write_text(f"k: {HUGE}\n")

    run = run_cli(["score", "--artifacts", "a.jsonl"], cwd=tmp_path)

    _refused(run, says="recall-gate.yaml: a number has more than 4,300 digits")


def test_a_huge_integer_in_a_results_file_exits_2_naming_it(tmp_path: Path) -> None:
    (tmp_path / "r.json").write_text('{"n": ' + HUGE + "}")

    run = run_cli(["compare", "--current", "r.json", "--baseline", "r.json"], cwd=tmp_path)

    assert run.code == 2, run.err
    assert "digits" in run.err
    assert "Traceback" not in run.err


def test_a_yaml_alias_bomb_in_the_cases_is_refused_not_expanded(tmp_path: Path) -> None:
    (tmp_path / "kb.yaml").write_text("- {id: a, language: en, title: A, body: a}\n")
    big = "x" * 100_000
    one = "  - {id: c{i}, language: en, case_type: golden, query: *q, must_cite_one_of: [a]}\n"
    (tmp_path / "cases.yaml").write_text(
        f"query: &q {big}\ncases:\n" + "".join(one.replace("{i}", str(i)) for i in range(1_000))
    )

    run = run_cli(["check", "--kb", "kb.yaml", "--cases", "cases.yaml"], cwd=tmp_path)

    _refused(run, says="cases.yaml: its aliases (*name) expand it to more than")


def test_floors_suggest_write_into_a_config_with_an_unknown_yaml_tag_exits_2(
    tmp_path: Path,
) -> None:
    write_baseline(
        tmp_path / "baselines" / "default.json",
        baseline_of([case(f"c{i}", 1) for i in range(12)]),
    )
    config = tmp_path / "recall-gate.yaml"
    original = "k: 5\nextra: !!python/object:os.system {}\n"
    config.write_text(original)

    run = run_cli(
        ["floors", "suggest", "--baseline", "baselines/default.json", "--write", str(config)],
        cwd=tmp_path,
    )

    _refused(run, says="recall-gate.yaml: line 2 invalid YAML: could not determine a constructor")
    assert config.read_text() == original


def test_a_full_step_summary_exits_2_naming_it(tmp_path: Path) -> None:
    comparison = tmp_path / "comparison.json"
    environ = {"GITHUB_STEP_SUMMARY": "/dev/full", "GITHUB_ACTIONS": "true"}
    (tmp_path / "summary.md").write_text("# report\n")
    write_baseline(tmp_path / "b.json", baseline_of([case(f"c{i}", 1) for i in range(12)]))
    made = run_cli(
        ["compare", "--current", "b.json", "--baseline", "b.json", "--json", str(comparison)],
        cwd=tmp_path,
    )
    assert made.code == 0, made.err

    run = run_cli(
        ["actions-report", "--comparison", str(comparison), "--summary", "summary.md"],
        cwd=tmp_path,
        environ=environ,
    )

    _refused(run, says="/dev/full: cannot append to the runner's GITHUB_STEP_SUMMARY file")


SCORED = {**LINE, "case_type": "golden"}


# A full disk, through a symlink to /dev/full (every write: ENOSPC). The link sits in
# tmp_path, so a writer that replaced its target instead would replace only the link.
def _full_disk(tmp_path: Path, name: str) -> Path:
    if not Path("/dev/full").exists():  # pragma: no cover - Linux has it
        pytest.skip("no /dev/full here")
    link = tmp_path / name
    link.symlink_to("/dev/full")
    return link


def test_a_full_disk_under_the_results_file_exits_2_naming_its_path(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(SCORED) + "\n")
    _full_disk(tmp_path, "results.json")

    run = run_cli(["score", "--artifacts", "a.jsonl", "--json", "results.json"], cwd=tmp_path)

    _refused(run, says="results.json: cannot write: No space left on device")
    assert "free some disk space" in run.err


def test_a_full_github_output_says_what_to_free_and_leaves_no_partial_entry(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(SCORED) + "\n")
    assert (
        run_cli(
            ["score", "--artifacts", "a.jsonl", "--comparison-json", "c.json"], cwd=tmp_path
        ).code
        == 0
    )
    output = _full_disk(tmp_path, "output")

    run = run_cli(
        ["actions-report", "--comparison", "c.json"],
        cwd=tmp_path,
        environ={"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(output)},
    )

    _refused(run, says="cannot append to the runner's GITHUB_OUTPUT file: No space left")
    assert "free some disk space" in run.err
    assert "run inside GitHub Actions" not in run.err


def test_a_results_file_named_as_a_pipe_is_written_into_it_not_replaced(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(json.dumps(SCORED) + "\n")
    fifo = tmp_path / "results.json"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()

    run = run_cli(["score", "--artifacts", "a.jsonl", "--json", "results.json"], cwd=tmp_path)
    reader.join(timeout=60)

    assert run.code == 0, run.err
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # still the pipe, not a file renamed onto it
    assert json.loads(received[0])["aggregates"]["overall"]
