"""The config is the nearest ``recall-gate.yaml`` from the current directory up
to the repository root (as ruff, pytest and git find theirs), so a configured
gate is never skipped by where a command is run from; a config named by flag
or environment must exist."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli, write_capture


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose root config enforces a tolerance, with a committed
    baseline where every case hits, and a capture where half of them miss."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "recall-gate.yaml").write_text(
        "k: 2\ngate: {max_regression: 0.05, min_group_n: 5, require_significance: false}\n",
        encoding="utf-8",
    )
    write_capture(root / "captures" / "good.jsonl", hits=20)
    made = run_cli(["score", "--artifacts", "captures/good.jsonl", "--json", "good.json"], cwd=root)
    assert made.code == 0, made.err
    update = run_cli(["baseline", "update", "--results", "good.json"], cwd=root)
    assert update.code == 0, update.err
    write_capture(root / "docs" / "guides" / "bad.jsonl", hits=10)
    return root


def test_a_config_with_a_tolerance_found_from_a_subfolder_fails_a_real_regression(
    repo: Path,
) -> None:
    sub = repo / "docs" / "guides"
    run = run_cli(["score", "--artifacts", "bad.jsonl"], cwd=sub)
    # hit@2 1.000 → 0.500 on 20 cases: beyond the config's 0.05 tolerance.
    assert run.code == 1, run.out + run.err
    assert "FAIL" in run.out


def test_the_report_header_names_the_config_found_in_a_parent_folder(repo: Path) -> None:
    run = run_cli(["score", "--artifacts", "bad.jsonl"], cwd=repo / "docs" / "guides")
    assert run.out.startswith(
        "config:   ../../recall-gate.yaml (the nearest, in a parent folder)\n"
    )


def test_the_nearest_config_wins_over_one_further_up(repo: Path) -> None:
    sub = repo / "docs" / "guides"
    (repo / "docs" / "recall-gate.yaml").write_text("k: 1\n", encoding="utf-8")
    run = run_cli(["score", "--artifacts", "bad.jsonl", "--json", "r.json"], cwd=sub)
    assert run.code == 0, run.err
    assert json.loads((sub / "r.json").read_text(encoding="utf-8"))["k"] == 1
    assert run.out.startswith("config:   ../recall-gate.yaml (the nearest, in a parent folder)\n")


def test_the_search_stops_at_the_repository_root(tmp_path: Path) -> None:
    # A config above the repository belongs to something else.
    (tmp_path / "recall-gate.yaml").write_text("k: 1\ngate: {min_hit: 1.0}\n", encoding="utf-8")
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_capture(project / "bad.jsonl", hits=10)
    run = run_cli(["score", "--artifacts", "bad.jsonl"], cwd=project)
    assert run.code == 0, run.err
    assert run.out.startswith("config:   none (no recall-gate.yaml here or in a parent folder)\n")


def test_a_git_file_marks_the_root_of_a_worktree_or_submodule(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("k: 1\ngate: {min_hit: 1.0}\n", encoding="utf-8")
    project = tmp_path / "worktree"
    project.mkdir()
    (project / ".git").write_text("gitdir: ../elsewhere\n", encoding="utf-8")
    write_capture(project / "bad.jsonl", hits=10)
    assert run_cli(["score", "--artifacts", "bad.jsonl"], cwd=project).code == 0


@pytest.mark.parametrize(
    ("argv", "environ", "named"),
    [
        (["--config", "missing.yaml"], {}, "--config"),
        ([], {"RECALL_GATE_CONFIG": "missing.yaml"}, "RECALL_GATE_CONFIG"),
    ],
)
def test_a_config_named_by_flag_or_environment_that_does_not_exist_is_exit_2(
    repo: Path, argv: list[str], environ: dict[str, str], named: str
) -> None:
    run = run_cli(
        ["score", "--artifacts", "docs/guides/bad.jsonl", *argv], cwd=repo, environ=environ
    )
    assert run.code == 2
    assert f"missing.yaml: config file not found (named by {named})" in run.err
    assert "Traceback" not in run.err


def test_run_from_a_subfolder_without_any_config_says_where_it_looked(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    run = run_cli(["run"], cwd=project / "sub")
    assert run.code == 2
    assert "no recall-gate.yaml in " in run.err
    assert "or a parent folder up to the repository root" in run.err
