"""The action's other CLI commands, in process: `actions-report` (outputs,
summary, annotations from `compare --json`). `propose-baseline` has its own
file, test_cli_propose_baseline.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli

REPO = "octo/app"
DATA = Path(__file__).resolve().parents[1] / "act" / "data"


def run(argv: list[str], environ: dict[str, str], *, cwd: Path) -> CliRun:
    return run_cli(argv, cwd=cwd, environ=environ)


@pytest.fixture
def compared(tmp_path: Path) -> Path:
    """A real comparison: the v2 capture against a v1 baseline, with a floor set."""
    env: dict[str, str] = {}
    for name in ("v1", "v2"):
        code, _, err = run(
            [
                "score",
                "--artifacts",
                str(DATA / f"capture-{name}.jsonl"),
                "--json",
                str(tmp_path / f"{name}.json"),
            ],
            env,
            cwd=tmp_path,
        )
        assert code == 0, err
    code, _, err = run(
        ["baseline", "update", "--results", "v1.json", "--git-sha", "a" * 40], env, cwd=tmp_path
    )
    assert code == 0, err
    code, _, err = run(
        [
            "compare",
            "--current",
            "v2.json",
            "--json",
            "comparison.json",
            "--full-markdown",
            "report.md",
            "--min-hit",
            "0.9",
        ],
        env,
        cwd=tmp_path,
    )
    assert code == 1, err
    return tmp_path


def test_actions_report_writes_outputs_summary_and_annotations(compared: Path) -> None:
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(compared / "output"),
        "GITHUB_STEP_SUMMARY": str(compared / "summary.md"),
    }

    code, out, _ = run(
        ["actions-report", "--comparison", "comparison.json", "--summary", "report.md"],
        environ,
        cwd=compared,
    )

    assert code == 0, "reporting never fails: the action's last step enforces the verdict"
    output = (compared / "output").read_text()
    for name, value in [("verdict", "fail"), ("hit", "0.833333"), ("n", "12")]:
        assert f"{name}<<" in output
        assert f"\n{value}\n" in output
    assert (compared / "summary.md").read_text() == (compared / "report.md").read_text()
    assert "::error title=recall-gate%3A floor::hit@5 0.833 (n = 12) is below the floor" in out


def test_actions_report_refuses_a_file_that_is_not_a_comparison(tmp_path: Path) -> None:
    (tmp_path / "results.json").write_text(json.dumps({"schema_version": 1}))

    code, _, err = run(["actions-report", "--comparison", "results.json"], {}, cwd=tmp_path)

    assert code == 2
    assert "not a recall-gate comparison" in err


def test_a_failed_capture_is_reported_as_an_error_never_a_pass(tmp_path: Path) -> None:
    # What `recall-gate capture` printed when the retriever raised (user text included).
    (tmp_path / "stderr.log").write_text(
        "recall-gate: error: case 'en-1' <img src=x>: the retriever raised "
        "ConnectionError: embedding API unreachable @team\n"
        "  fix: make the retriever work for this query, or fix the case\n",
        encoding="utf-8",
    )
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "RECALL_GATE_PROFILE": "nightly",
    }

    code, out, _ = run(
        [
            "actions-report", "--error-log", "stderr.log", "--what", "the capture",
            "--comment-markdown", "comment.md",
        ],
        environ,
        cwd=tmp_path,
    )  # fmt: skip

    assert code == 0, "reporting never fails: the action's last step enforces the verdict"
    output = (tmp_path / "output").read_text()
    assert "verdict<<" in output
    assert "\nerror\n" in output
    assert "profile<<" in output
    assert "\nnightly\n" in output
    comment = (tmp_path / "comment.md").read_text()
    assert comment.startswith("<!-- recall-gate:nightly -->\n")
    assert "**error**" in comment
    assert "pass" not in comment.lower().replace("this pull request", "")
    # User text is inert: no HTML, no mention.
    assert "\\<img src=x\\>" in comment
    assert "@team" not in comment
    assert "Fix: make the retriever work for this query" in comment
    assert (tmp_path / "summary.md").read_text() == comment
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert errors[0].startswith("::error title=recall-gate::the capture failed: case 'en-1'")


def test_an_error_log_without_recall_gates_own_line_shows_its_last_lines(tmp_path: Path) -> None:
    (tmp_path / "stderr.log").write_text("Traceback (most recent call last):\nBoom\n")
    code, _, _ = run(
        ["actions-report", "--error-log", "stderr.log", "--comment-markdown", "c.md"],
        {},
        cwd=tmp_path,
    )
    assert code == 0
    comment = (tmp_path / "c.md").read_text()
    assert "the evaluation failed; its log ends with the lines below" in comment
    assert "> Boom" in comment
