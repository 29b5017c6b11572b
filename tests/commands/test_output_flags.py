"""Each output flag means one thing in every command: ``--json`` the results,
``--comparison-json`` the comparison, ``--markdown`` the full report,
``--comment-markdown`` the PR comment. ``compare``'s old spellings (``--json``
for the comparison, ``--full-markdown`` for the report, ``--markdown`` beside it
for the comment) still work for one minor version, with a warning. Synthetic data only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from recall_gate.core.github_limits import COMMENT_BUDGET, comment_length

N = 1200  # enough lost cases that the full report is longer than a PR comment may be


def capture(path: Path, *, hits: bool) -> None:
    lines = [
        {
            "case_id": f"synthetic-case-with-a-long-descriptive-identifier-{i:04d}",
            "retrieved": [f"card-{i}" if hits else "other"],
            "must_cite_one_of": [f"card-{i}"],
            "language": "en",
            "case_type": "golden",
        }
        for i in range(N)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A baseline where every case hits, and a current results file where none does."""
    root = tmp_path_factory.mktemp("flags")
    capture(root / "good.jsonl", hits=True)
    capture(root / "bad.jsonl", hits=False)
    for name in ("good", "bad"):
        made = run_cli(
            ["score", "--artifacts", f"{name}.jsonl", "--json", f"{name}.json"], cwd=root
        )
        assert made.code == 0, made.err
    assert run_cli(["baseline", "update", "--results", "good.json"], cwd=root).code == 0
    return root


def outputs(work: Path, command: list[str], flags: list[str]) -> tuple[CliRun, dict[str, str]]:
    for name in ("out.json", "out.md", "comment.md", "comparison.json"):
        (work / name).unlink(missing_ok=True)
    run = run_cli([*command, *flags], cwd=work)
    written = {p.name: p.read_text(encoding="utf-8") for p in work.glob("*") if p.name in {
        "out.json", "out.md", "comment.md", "comparison.json"
    }}  # fmt: skip
    return run, written


NEW = ["--comparison-json", "comparison.json", "--markdown", "out.md"]
NEW += ["--comment-markdown", "comment.md"]


@pytest.mark.parametrize(
    "command",
    [
        ["score", "--artifacts", "bad.jsonl", "--json", "out.json"],
        ["compare", "--current", "bad.json"],
    ],
    ids=["score", "compare"],
)
def test_each_output_flag_writes_the_same_kind_of_file_in_score_and_compare(
    work: Path, command: list[str]
) -> None:
    run, written = outputs(work, command, NEW)
    assert run.code == 0, run.err
    assert run.err == ""
    assert json.loads(written["comparison.json"])["kind"] == "recall-gate-comparison"
    full, comment = written["out.md"], written["comment.md"]
    assert comment_length(full) > COMMENT_BUDGET  # the full report, not shortened
    assert comment_length(comment) <= COMMENT_BUDGET  # the comment, within GitHub's limit
    assert full.startswith(comment.split("\n", 1)[0])  # the same report's first line
    if command[0] == "score":
        assert len(json.loads(written["out.json"])["cases"]) == N  # the results


def test_compare_json_is_a_deprecated_spelling_of_comparison_json(work: Path) -> None:
    run, written = outputs(work, ["compare", "--current", "bad.json"], ["--json", "out.json"])
    assert run.code == 0
    assert json.loads(written["out.json"])["kind"] == "recall-gate-comparison"
    assert run.err == (
        "recall-gate: warning: --json is deprecated; write --comparison-json (the old spelling "
        "goes in the next minor version)\n"
    )


def test_compare_markdown_beside_full_markdown_keeps_its_old_meaning_the_comment(
    work: Path,
) -> None:
    run, written = outputs(
        work,
        ["compare", "--current", "bad.json"],
        ["--markdown", "comment.md", "--full-markdown", "out.md"],
    )
    assert run.code == 0
    assert comment_length(written["comment.md"]) <= COMMENT_BUDGET
    assert comment_length(written["out.md"]) > COMMENT_BUDGET
    assert run.err == (
        "recall-gate: warning: --full-markdown is deprecated; write --markdown (the old "
        "spelling goes in the next minor version)\n"
        "recall-gate: warning: with --full-markdown, --markdown keeps its old meaning (the PR "
        "comment); write --comment-markdown PATH for the comment and --markdown PATH for the "
        "report\n"
    )


def test_compare_markdown_alone_writes_the_full_report_and_says_the_meaning_changed(
    work: Path,
) -> None:
    run, written = outputs(work, ["compare", "--current", "bad.json"], ["--markdown", "out.md"])
    assert run.code == 0
    assert comment_length(written["out.md"]) > COMMENT_BUDGET
    assert run.err == (
        "recall-gate: warning: compare --markdown now writes the full report, as in score and "
        "run (the same text unless it is longer than GitHub's comment limit); the PR comment "
        "is --comment-markdown\n"
    )
