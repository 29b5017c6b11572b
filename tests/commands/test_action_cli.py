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


def test_a_gate_that_failed_before_a_comparison_is_a_fail_verdict_not_an_error(
    tmp_path: Path,
) -> None:
    """Exit 1 with no comparison written (dataset integrity fails before scoring):
    the verdict is `fail`, the comment says which gate and why, never `error`
    blaming the capture."""
    (tmp_path / "stderr.log").write_text(
        "  case zh-1: gold id 'guide/intro' has no card in zh\n"
        "recall-gate: error: dataset integrity failed (1 problem(s)); run `recall-gate check`\n"
        "  fix: fix the ids listed above\n",
        encoding="utf-8",
    )
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }

    code, out, _ = run(
        ["actions-report", "--error-log", "stderr.log", "--failed-gate",
         "--comment-markdown", "comment.md"],
        environ,
        cwd=tmp_path,
    )  # fmt: skip

    assert code == 0, "reporting never fails: the action's last step enforces the verdict"
    assert "verdict<<" in (output := (tmp_path / "output").read_text())
    assert "\nfail\n" in output
    assert "\nerror\n" not in output
    comment = (tmp_path / "comment.md").read_text()
    assert "**fail**" in comment
    assert "**error**" not in comment
    assert "A gate failed before this run could be compared" in comment
    assert "dataset integrity failed \\(1 problem\\(s\\)\\)" in comment
    assert "- case zh-1: gold id 'guide/intro' has no card in zh" in comment, "names the case"
    assert "the capture" not in comment
    errors = [line for line in out.splitlines() if line.startswith("::error")]
    assert errors == [
        "::error title=recall-gate::a gate failed: dataset integrity failed (1 problem(s)); "
        "run `recall-gate check` — fix: fix the ids listed above"
    ]


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


@pytest.fixture
def regressed(tmp_path: Path) -> Path:
    """A real comparison with enforced regressions: v2 against a v1 baseline, 0.01 tolerance."""
    for name in ("v1", "v2"):
        made = run_cli(
            ["score", "--artifacts", str(DATA / f"capture-{name}.jsonl"), "--json", f"{name}.json"],
            cwd=tmp_path,
        )
        assert made.code == 0, made.err
    made = run_cli(
        ["baseline", "update", "--results", "v1.json", "--git-sha", "a" * 40], cwd=tmp_path
    )
    assert made.code == 0, made.err
    made = run_cli(
        [
            "compare",
            "--current",
            "v2.json",
            "--comparison-json",
            "comparison.json",
            "--max-regression",
            "0.01",
            "--min-group-n",
            "1",
            "--require-significance",
            "false",
        ],
        cwd=tmp_path,
    )
    assert made.code == 1, made.out + made.err
    return tmp_path


def _edit(path: Path, edit: dict[str, object]) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**doc, **edit}), encoding="utf-8")


def _verdict_output(folder: Path, comparison: str) -> tuple[CliRun, str]:
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(folder / "output")}
    done = run(["actions-report", "--comparison", comparison], environ, cwd=folder)
    return done, (folder / "output").read_text(encoding="utf-8")


def test_actions_report_derives_the_verdict_from_the_regressions_never_the_verdict_field(
    regressed: Path,
) -> None:
    enforced = len(json.loads((regressed / "comparison.json").read_text())["gate"]["regressions"])
    assert enforced > 0
    _edit(regressed / "comparison.json", {"verdict": "pass", "regressions": 0})

    done, output = _verdict_output(regressed, "comparison.json")

    assert done.code == 0, done.err
    assert "\nfail\n" in output
    assert "\npass\n" not in output
    assert "regressions<<" in output
    assert f"\n{enforced}\n" in output
    assert "recall-gate%3A comparison edited" in done.out


def test_actions_report_derives_the_verdict_from_the_floors_never_the_verdict_field(
    compared: Path,
) -> None:
    doc = json.loads((compared / "comparison.json").read_text())
    gate = {**doc["gate"], "failed_floors": []}  # the floor still says 0.9, the mean 0.833
    _edit(compared / "comparison.json", {"verdict": "pass", "gate": gate})

    done, output = _verdict_output(compared, "comparison.json")

    assert "\nfail\n" in output, done.out
    assert "\npass\n" not in output


def test_actions_report_counts_an_exemption_its_numbers_do_not_bear_out_as_a_regression(
    regressed: Path,
) -> None:
    doc = json.loads((regressed / "comparison.json").read_text())
    moved = [{**r, "status": "exempt_small_n"} for r in doc["gate"]["regressions"]]
    gate = {**doc["gate"], "regressions": [], "exempt": moved}  # n ≥ min-group-n 1
    _edit(regressed / "comparison.json", {"verdict": "pass", "regressions": 0, "gate": gate})

    _, output = _verdict_output(regressed, "comparison.json")

    assert "\nfail\n" in output
    assert "\npass\n" not in output


def test_actions_report_leaves_an_unedited_comparison_as_it_is(regressed: Path) -> None:
    done, output = _verdict_output(regressed, "comparison.json")

    assert "\nfail\n" in output
    assert "comparison edited" not in done.out
