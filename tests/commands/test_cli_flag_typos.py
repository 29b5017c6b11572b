"""An unknown flag of a subcommand is refused in one message (exit 2), with
"did you mean …" when the subcommand has a flag close to it; a flag is spelled
out, never taken for an abbreviation of a longer one."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli


@pytest.mark.parametrize("typo", [["--metric", "hit"], ["--metric=hit"], ["--metrcs", "hit"]])
def test_an_unknown_flag_suggests_the_subcommands_nearest(tmp_path: Path, typo: list[str]) -> None:
    run = run_cli(["score", "--artifacts", "run.jsonl", *typo], cwd=tmp_path)

    assert run.code == 2
    first, *rest = run.err.splitlines()
    assert first.startswith("recall-gate: error: recall-gate score: unrecognized argument")
    assert first.endswith("(did you mean --metrics?)")
    assert rest == ["  fix: see `recall-gate score --help`"]
    assert "usage:" not in run.err


def test_a_nested_subcommand_suggests_its_own_flags(tmp_path: Path) -> None:
    run = run_cli(["baseline", "update", "--results", "r.json", "--reasn", "x"], cwd=tmp_path)

    assert run.code == 2
    assert "recall-gate baseline update: unrecognized arguments: --reasn x" in run.err
    assert "(did you mean --reason?)" in run.err


def test_an_argument_like_no_flag_gets_no_guess(tmp_path: Path) -> None:
    run = run_cli(["score", "--artifacts", "run.jsonl", "--zzzzzz"], cwd=tmp_path)

    assert run.code == 2
    assert "unrecognized argument: --zzzzzz\n" in run.err
    assert "did you mean" not in run.err
