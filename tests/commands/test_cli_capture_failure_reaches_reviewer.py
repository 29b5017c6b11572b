"""The capture's failure reaches the reviewer: `capture --error-json` writes the
case, the exception type and its message (bounded) into the capture folder; the
judge (`score --capture-dir`) quotes it, and the comment says "the capture failed
on case …: Type: message" with no runner path in it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_runner import run_cli, write_capture
from recall_gate.adapters.capture_folder import ERROR_FILE, MAX_ERROR_CHARS
from synthetic_kb import write_kb

APP = """
class PipelineRuntimeError(RuntimeError):
    pass

def search(query, k):
    if "Rechnung" in query:
        raise PipelineRuntimeError("Query should be a non-empty string")
    return [{"id": "en/refills"}]

def long_message(query, k):
    raise ValueError("x" * 50_000)
"""


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = write_kb(tmp_path / "repo")
    (root / "failing_rag.py").write_text(APP, encoding="utf-8")
    (root / "recall-gate.yaml").write_text("k: 3\nkb: docs\ncases: cases.yaml\n", encoding="utf-8")
    sys.modules.pop("failing_rag", None)
    return root


def _capture(app: Path, spec: str, handed: Path) -> None:
    done = run_cli(
        [
            "capture",
            "--retriever",
            spec,
            "--out",
            str(handed / "capture.jsonl"),
            "--error-json",
            str(handed / ERROR_FILE),
        ],
        cwd=app,
    )
    assert done.code == 2, done.err
    assert not (handed / "capture.jsonl").exists()


def test_the_capture_writes_its_failure_into_the_capture_folder(app: Path, tmp_path: Path) -> None:
    handed = tmp_path / "runner-temp" / "capture"
    _capture(app, "failing_rag:search", handed)
    record = json.loads((handed / ERROR_FILE).read_text(encoding="utf-8"))
    assert record["schema"] == "recall-gate/capture-error"
    assert record["case_id"] == "de-1"
    assert record["error"] == "PipelineRuntimeError: Query should be a non-empty string"


def test_the_judge_quotes_the_capture_failure_and_no_runner_path(app: Path, tmp_path: Path) -> None:
    runner_temp = tmp_path / "runner-temp"
    handed = runner_temp / "capture"
    _capture(app, "failing_rag:search", handed)
    judged = run_cli(
        ["score", "--capture-dir", str(handed), "--json", str(runner_temp / "r.json")], cwd=app
    )
    assert judged.code == 2, judged.err
    first = judged.err.splitlines()[0]
    assert first == (
        "recall-gate: error: the capture failed on case de-1: "
        "PipelineRuntimeError: Query should be a non-empty string"
    ), judged.err
    assert str(runner_temp) not in judged.err
    # The comment of the failed evaluation quotes it, escaped once, with no runner path.
    log = runner_temp / "stderr.log"
    log.write_text(judged.err, encoding="utf-8")
    comment = runner_temp / "comment.md"
    summary = runner_temp / "summary.md"
    summary.write_text("", encoding="utf-8")
    reported = run_cli(
        [
            "actions-report",
            "--error-log",
            str(log),
            "--what",
            "the capture",
            "--comment-markdown",
            str(comment),
        ],
        cwd=app,
        environ={"GITHUB_STEP_SUMMARY": str(summary), "RUNNER_TEMP": str(runner_temp)},
    )
    assert reported.code == 0, reported.err
    body = comment.read_text(encoding="utf-8").replace("\\", "")  # as the reader sees it
    assert (
        "the capture failed on case de-1: PipelineRuntimeError: Query should be a non-empty "
        "string" in body
    )
    assert str(tmp_path) not in body
    assert str(tmp_path) not in summary.read_text(encoding="utf-8").replace("\\", "")


def test_a_capture_failure_message_is_bounded(app: Path, tmp_path: Path) -> None:
    handed = tmp_path / "capture"
    _capture(app, "failing_rag:long_message", handed)
    record = json.loads((handed / ERROR_FILE).read_text(encoding="utf-8"))
    assert len(record["error"]) <= MAX_ERROR_CHARS
    judged = run_cli(["score", "--capture-dir", str(handed)], cwd=app)
    first = judged.err.splitlines()[0]
    assert first.startswith("recall-gate: error: the capture failed on case en-1: ValueError: xx")
    assert first.endswith("…")
    assert len(first) < MAX_ERROR_CHARS + 100


def test_a_hand_written_error_file_is_read_as_untrusted_text(app: Path, tmp_path: Path) -> None:
    handed = tmp_path / "capture"
    handed.mkdir()
    (handed / ERROR_FILE).write_text(
        json.dumps(
            {
                "schema": "recall-gate/capture-error",
                "version": 1,
                "case_id": "a\nb\x1b[31m",
                "error": "Boom: line one\n::error::forged\r\nline three",
            }
        ),
        encoding="utf-8",
    )
    judged = run_cli(["score", "--capture-dir", str(handed)], cwd=app)
    assert judged.code == 2
    lines = judged.err.splitlines()
    assert lines[0] == (
        r"recall-gate: error: the capture failed on case a b\x1b[31m: "
        "Boom: line one ::error::forged line three"
    ), judged.err
    assert not any(line.startswith("::") for line in lines)


def test_a_capture_folder_without_a_capture_or_an_error_names_no_path(tmp_path: Path) -> None:
    missing = tmp_path / "runner-temp" / "capture"
    judged = run_cli(["score", "--capture-dir", str(missing)], cwd=tmp_path)
    assert judged.code == 2
    assert judged.err.startswith("recall-gate: error: no capture reached the judge")
    assert str(tmp_path) not in judged.err


def test_no_runner_path_reaches_the_comment_of_a_failed_evaluation(tmp_path: Path) -> None:
    runner_temp = tmp_path / "work" / "_temp"
    workspace = tmp_path / "work" / "repo" / "repo"
    home = tmp_path / "home" / "runner"
    log = tmp_path / "stderr.log"
    log.write_text(
        f"recall-gate: error: {runner_temp}/capture/capture.jsonl:3: field `retrieved` is "
        f"missing (see {workspace}/recall-gate.yaml, {home}/.cache/x)\n"
        f"  fix: check {runner_temp}/capture/capture.jsonl\n",
        encoding="utf-8",
    )
    comment = tmp_path / "comment.md"
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    environ = {
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_WORKSPACE": str(workspace),
        "HOME": str(home),
    }
    done = run_cli(
        [
            "actions-report",
            "--error-log",
            str(log),
            "--what",
            "the capture",
            "--comment-markdown",
            str(comment),
        ],
        cwd=tmp_path,
        environ=environ,
    )
    assert done.code == 0, done.err
    for surface in (comment.read_text(encoding="utf-8"), summary.read_text(encoding="utf-8")):
        plain = surface.replace("\\", "")  # as the reader sees the escaped Markdown
        assert str(tmp_path) not in plain
        assert "capture/capture.jsonl:3: field `retrieved`" in plain
        assert "recall-gate.yaml" in plain


def test_no_runner_path_reaches_the_job_summary_of_a_judged_run(tmp_path: Path) -> None:
    """A report naming a file in the runner's temp folder (the capture's snapshot the
    judge looked for, say) reaches the job summary as the reviewer knows the file."""
    from recall_gate.report.error import without_runner_paths
    from recall_gate.report.markup import escape_markdown

    runner_temp = tmp_path / "work" / "_temp"
    environ = {"RUNNER_TEMP": str(runner_temp), "HOME": str(tmp_path / "home")}
    snapshot = f"{runner_temp}/capture/capture.queries.jsonl"
    report = f"no answers to the query log: {escape_markdown(snapshot)} is missing (`{snapshot}`)\n"
    scrubbed = without_runner_paths(report, environ, markdown=True)
    assert str(tmp_path) not in scrubbed.replace("\\", "")
    assert escape_markdown("capture/capture.queries.jsonl") in scrubbed
    assert "`capture/capture.queries.jsonl`" in scrubbed
    # Through the command that appends the job summary.
    comparison = tmp_path / "c.json"
    capture = write_capture(tmp_path / "capture.jsonl", hits=3, n=5)
    scored = run_cli(
        ["score", "--artifacts", str(capture), "--comparison-json", str(comparison)], cwd=tmp_path
    )
    assert scored.code == 0, scored.err
    summary_in = tmp_path / "report.md"
    summary_in.write_text(report, encoding="utf-8")
    summary = tmp_path / "summary.md"
    summary.write_text("", encoding="utf-8")
    done = run_cli(
        ["actions-report", "--comparison", str(comparison), "--summary", str(summary_in)],
        cwd=tmp_path,
        environ={**environ, "GITHUB_STEP_SUMMARY": str(summary)},
    )
    assert done.code == 0, done.err
    assert "capture/capture.queries.jsonl" in summary.read_text(encoding="utf-8")
    assert str(tmp_path) not in summary.read_text(encoding="utf-8").replace("\\", "")
