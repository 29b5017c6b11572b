"""The GitHub token never reaches any output: checked before use, masked everywhere.

Every command that talks to GitHub runs in process against the fake GitHub;
the test then reads EVERYTHING the command could have written — stdout,
stderr, the step outputs and the job summary — and looks for the token.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli
from factories import baseline_of, case
from fake_github import TOKEN, Failure, FakeGitHub
from recall_gate.adapters.baseline_store import dump_baseline

REPO = "octo/app"
HEAD = "a" * 40


def _environ(tmp_path: Path, fake: FakeGitHub, token: str) -> dict[str, str]:
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_TOKEN": token,
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
    }


def _everything_written(tmp_path: Path, *streams: str) -> str:
    files = [tmp_path / "github_output", tmp_path / "step_summary.md"]
    return "".join(streams) + "".join(f.read_text() for f in files if f.exists())


def _commands(tmp_path: Path) -> dict[str, list[str]]:
    (tmp_path / "body.md").write_text("### recall-gate: report-only\n")
    (tmp_path / "baselines").mkdir(exist_ok=True)
    baseline = baseline_of([case("a", 1), case("b", None)])
    (tmp_path / "baselines" / "default.json").write_text(dump_baseline(baseline))
    return {
        "comment": ["comment", "--body", "body.md", "--pr", "1", "--head-sha", HEAD],
        "propose-baseline": [
            "propose-baseline",
            "--file",
            "baselines/default.json",
            "--base",
            "main",
            "--profile",
            "default",
            "--reason",
            "new chunks",
        ],
    }


@pytest.mark.parametrize("command", ["comment", "propose-baseline"])
@pytest.mark.parametrize("damage", ["\n", "\r\n", " \n"])
def test_a_token_with_a_trailing_newline_never_appears_in_any_output(
    tmp_path: Path, fake_github: FakeGitHub, command: str, damage: str
) -> None:
    fake_github.add_pull(REPO, head_sha=HEAD)
    argv = _commands(tmp_path)[command]

    code, out, err = run_cli(
        argv, cwd=tmp_path, environ=_environ(tmp_path, fake_github, TOKEN + damage)
    )

    assert code == 2
    assert "GITHUB_TOKEN has a trailing newline" in err
    assert "fix: remove the line break" in err
    assert "Traceback" not in err
    written = _everything_written(tmp_path, out, err)
    assert TOKEN[:12] not in written
    assert fake_github.requests == []  # refused before it was ever sent


def test_a_token_with_a_non_latin1_character_is_refused_without_echoing_it(
    tmp_path: Path, fake_github: FakeGitHub
) -> None:
    fake_github.add_pull(REPO, head_sha=HEAD)
    token = TOKEN[:20] + "\u20ac" + TOKEN[20:]

    code, out, err = run_cli(
        _commands(tmp_path)["comment"], cwd=tmp_path, environ=_environ(tmp_path, fake_github, token)
    )

    assert code == 2
    assert "GITHUB_TOKEN has an invalid character at position 21" in err
    assert TOKEN[:12] not in _everything_written(tmp_path, out, err)


@pytest.mark.parametrize("command", ["comment", "propose-baseline"])
def test_github_echoing_the_token_in_an_error_never_shows_it(
    tmp_path: Path, fake_github: FakeGitHub, command: str
) -> None:
    fake_github.add_pull(REPO, head_sha=HEAD)
    fake_github.inject(Failure(422, {"message": "z" * 280 + f"Bearer {TOKEN}"}), times=10)

    code, out, err = run_cli(
        _commands(tmp_path)[command], cwd=tmp_path, environ=_environ(tmp_path, fake_github, TOKEN)
    )

    assert code == 2
    written = _everything_written(tmp_path, out, err)
    assert all(TOKEN[i : i + 6] not in written for i in range(len(TOKEN) - 5))


def test_the_debug_traceback_of_an_internal_error_masks_the_token(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from recall_gate.commands import evaluation

    def crash(*_: object) -> int:
        raise RuntimeError(f"a bug that quotes {TOKEN}")

    monkeypatch.setattr(evaluation, "_cmd_check", crash)

    code, out, err = run_cli(
        ["--debug", "check"], cwd=tmp_path, environ={"GITHUB_TOKEN": TOKEN + "\n"}
    )

    assert code == 3
    assert "Traceback" in err
    assert "a bug that quotes <token hidden>" in err
    assert TOKEN not in out + err
