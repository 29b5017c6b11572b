"""RECALL_GATE_WORKING_DIRECTORY: recall-gate works in the folder it names, whatever the
process's own working directory. The action's judge runs from a new empty folder of its
own (no tool it starts finds a file of the pull request there) and names the checkout
with this variable."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from cli_runner import write_capture
from recall_gate.cli import WORKING_DIRECTORY_ENV, main


def _score(environ: dict[str, str], *extra: str) -> tuple[int, str]:
    """``score`` as the console script runs it: no ``cwd`` argument, the process's own."""
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["score", "--artifacts", "capture.jsonl", "--json", "results.json", *extra],
        environ,
        stdout=out,
        stderr=err,
    )
    return code, out.getvalue() + err.getvalue()


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The process's working directory: a folder with a config of its own that must
    never be read."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "recall-gate.yaml").write_text("k: 7\n", encoding="utf-8")
    monkeypatch.chdir(folder)
    return folder


def test_the_named_folder_is_where_paths_resolve_and_the_config_is_found(
    tmp_path: Path, elsewhere: Path
) -> None:
    repo = tmp_path / "repo"
    write_capture(repo / "capture.jsonl", hits=15)
    (repo / "recall-gate.yaml").write_text("k: 2\n", encoding="utf-8")

    code, log = _score({WORKING_DIRECTORY_ENV: str(repo)})

    assert code == 0, log
    results = json.loads((repo / "results.json").read_text(encoding="utf-8"))
    assert results["k"] == 2  # the named folder's config, not the process's
    assert not (elsewhere / "results.json").exists()


def test_the_named_folders_git_work_tree_judges_at_the_base_revision(
    tmp_path: Path, elsewhere: Path
) -> None:
    repo = tmp_path / "repo"
    write_capture(repo / "capture.jsonl", hits=15)
    (repo / "recall-gate.yaml").write_text("k: 2\n", encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "recall-gate.yaml")
    _git(repo, "commit", "-q", "-m", "base")
    (repo / "recall-gate.yaml").write_text("k: 3\n", encoding="utf-8")  # the pull request's

    code, log = _score({WORKING_DIRECTORY_ENV: str(repo)}, "--baseline-ref", "HEAD")

    assert code == 0, log
    results = json.loads((repo / "results.json").read_text(encoding="utf-8"))
    assert results["k"] == 2  # the base revision's gate setting, read from the named tree


@pytest.mark.parametrize("value", ["relative/folder", "/no/such/folder"])
def test_a_working_directory_that_is_no_absolute_folder_is_exit_2_naming_the_variable(
    tmp_path: Path, elsewhere: Path, value: str
) -> None:
    code, log = _score({WORKING_DIRECTORY_ENV: value})

    assert code == 2
    assert f"{WORKING_DIRECTORY_ENV}={value!r} is not the absolute path of a folder" in log
    assert "fix:" in log
    assert "Traceback" not in log
