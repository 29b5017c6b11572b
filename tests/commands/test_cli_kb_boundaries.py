"""recall-gate reads nothing outside the KB and, by default, outside the repository.

A pull request controls the KB folder and ``recall-gate.yaml``: a symlinked
card or ``kb: ../../..`` must not turn the runner's files into cards.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cli_runner import run_cli

CASES = "- {id: c1, language: en, case_type: golden, query: where, must_cite_one_of: [en/inside]}\n"


def _repo(tmp_path: Path) -> Path:
    """A repository with a KB, cases and a secret file beside it (not in it)."""
    (tmp_path / "secret.md").write_text("# runner secret\n\nhunter2\n")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "kb" / "en").mkdir(parents=True)
    (repo / "kb" / "en" / "inside.md").write_text("# Inside\n\nA real card.\n")
    (repo / "cases.yaml").write_text(CASES)
    return repo


def test_a_card_symlink_that_resolves_outside_the_kb_is_refused_and_named(
    tmp_path: Path,
) -> None:
    repo = _repo(tmp_path)
    os.symlink(tmp_path / "secret.md", repo / "kb" / "en" / "leak.md")

    run = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml"], cwd=repo)

    assert run.code == 2
    assert f"kb/en/leak.md: a symlink to {tmp_path / 'secret.md'}, outside the KB" in run.err
    assert "hunter2" not in run.out + run.err


def test_a_card_symlink_to_a_system_file_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.symlink("/etc/hostname", repo / "kb" / "en" / "host.md")

    run = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml"], cwd=repo)

    assert run.code == 2
    assert "host.md: a symlink to /etc/hostname, outside the KB" in run.err


def test_a_card_symlink_inside_the_kb_is_read(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    os.symlink("inside.md", repo / "kb" / "en" / "alias.md")

    run = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml"], cwd=repo)

    assert run.code == 0, run.err


@pytest.mark.parametrize("key", ["kb", "cases", "baseline"])
def test_a_config_path_outside_the_repository_is_refused(tmp_path: Path, key: str) -> None:
    repo = _repo(tmp_path)
    paths = {"kb": "kb", "cases": "cases.yaml", "baseline": "baselines/default.json"}
    paths[key] = {"kb": "..", "cases": "../secret.md", "baseline": "../b.json"}[key]
    (repo / "recall-gate.yaml").write_text("".join(f"{k}: {v}\n" for k, v in paths.items()))

    run = run_cli(["check"], cwd=repo)

    assert run.code == 2
    assert f"recall-gate.yaml: `{key}: {paths[key]}` is " in run.err
    assert f"outside the repository {repo.resolve()}" in run.err
    assert "--allow-outside-repo" in run.err
    assert "Traceback" not in run.err


def test_kb_dot_dot_dot_dot_never_walks_the_file_system(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "app").mkdir()
    (repo / "app" / "recall-gate.yaml").write_text("kb: ../../..\ncases: ../cases.yaml\n")

    run = run_cli(["check", "--config", "app/recall-gate.yaml"], cwd=repo)

    assert run.code == 2
    assert "`kb: ../../..` is " in run.err


def test_a_symlinked_kb_folder_that_leaves_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "elsewhere" / "en").mkdir(parents=True)
    os.symlink(tmp_path / "elsewhere", repo / "docs")
    (repo / "recall-gate.yaml").write_text("kb: docs\ncases: cases.yaml\n")

    run = run_cli(["check"], cwd=repo)

    assert run.code == 2
    assert f"`kb: docs` is {(tmp_path / 'elsewhere').resolve()}, outside the repository" in (
        run.err
    )


@pytest.mark.parametrize(
    ("argv", "environ"),
    [
        (["check", "--allow-outside-repo"], {}),
        (["check"], {"RECALL_GATE_ALLOW_OUTSIDE_REPO": "true"}),
    ],
)
def test_a_path_outside_the_repository_is_read_when_explicitly_allowed(
    tmp_path: Path, argv: list[str], environ: dict[str, str]
) -> None:
    repo = _repo(tmp_path)
    shared = tmp_path / "shared-kb" / "en"
    shared.mkdir(parents=True)
    (shared / "inside.md").write_text("# Inside\n\nA shared card.\n")
    (repo / "recall-gate.yaml").write_text("kb: ../shared-kb\ncases: cases.yaml\n")

    run = run_cli(argv, cwd=repo, environ=environ)

    assert run.code == 0, run.err


def test_outside_git_the_config_folder_is_the_boundary(tmp_path: Path) -> None:
    app = tmp_path / "app"
    app.mkdir()
    (app / "recall-gate.yaml").write_text("kb: ../kb\n")

    run = run_cli(["check"], cwd=app)

    assert run.code == 2
    assert f"outside the repository {app.resolve()}" in run.err


def test_paths_given_as_flags_are_the_users_own_choice(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "cases.yaml").write_text(CASES)

    run = run_cli(["check", "--kb", "kb", "--cases", str(tmp_path / "cases.yaml")], cwd=repo)

    assert run.code == 0, run.err
