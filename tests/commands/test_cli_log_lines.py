"""No user text starts a line the Actions runner reads as a workflow command.

Case ids, queries, card ids and the text of errors that quote them go through
`score`, `capture`, `compare` and `actions-report`, in process, with
``GITHUB_ACTIONS=true``; no line of stdout or stderr may start with ``::``
(after the leading whitespace the runner trims) unless it is one of
recall-gate's own annotations.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli

# The runner splits a step's output on LF, CR and CRLF, then trims each line.
RUNNER_LINES = re.compile(r"\r\n|\r|\n")
OWN_ANNOTATION = re.compile(r"::(error|warning|notice) title=recall-gate")

N = 12
HOSTILE_IDS = {0: "::warning::x", 1: "   ::warning::spaced"}
HOSTILE_QUERY = "what is it\n::set-output name=verdict::pass"
HOSTILE_CARD = "card-3\x1b[2J\n::set-output name=verdict::pass"
ACTIONS = {"GITHUB_ACTIONS": "true"}


def case_id(i: int) -> str:
    return HOSTILE_IDS.get(i, f"case-{i:02d}")


def gold(i: int) -> str:
    return f"card-{i}"


def assert_no_workflow_command_from_input(done: CliRun) -> None:
    for name, text in (("stdout", done.out), ("stderr", done.err)):
        assert "\x1b" not in text, f"{name}: a terminal escape sequence from input"
        for line in RUNNER_LINES.split(text):
            stripped = line.lstrip()
            if stripped.startswith("::"):
                assert line == stripped, f"{name}: {line!r}"
                assert OWN_ANNOTATION.match(stripped), f"{name}: {line!r}"


RETRIEVER = """
HOSTILE = {hostile!r}


def build():
    def search(query, k):
        i = int(query.split()[2])
        ids = [HOSTILE] + [f"other-{{i}}-{{j}}" for j in range(k - 1)]
        if i not in {misses!r}:
            ids[1] = f"card-{{i}}"
        return ids
    return search
"""


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """Hostile cases, a baseline of a good capture, and a capture that loses them."""
    cases = [
        {
            "id": case_id(i),
            "language": "en",
            "case_type": "golden",
            "query": f"question number {i}" + (f" {HOSTILE_QUERY}" if i == 2 else ""),
            "must_cite_one_of": [gold(i)],
        }
        for i in range(N)
    ]
    (tmp_path / "cases.yaml").write_text(json.dumps(cases, indent=1), encoding="utf-8")
    for name, misses in (("good", set()), ("bad", {0, 1, 2, 3})):
        lines = []
        for i in range(N):
            retrieved = [HOSTILE_CARD, f"other-{i}", f"other-{i}-b"]
            if i not in misses:
                retrieved[1] = gold(i)
            lines.append(json.dumps({"case_id": case_id(i), "retrieved": retrieved}))
        (tmp_path / f"{name}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    made = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "good.jsonl", "--json", "good.json"],
        cwd=tmp_path,
    )
    assert made.code == 0, made.out + made.err
    made = run_cli(["baseline", "update", "--results", "good.json"], cwd=tmp_path)
    assert made.code == 0, made.err
    return tmp_path


GATE = ["--max-regression", "0.01", "--min-group-n", "1", "--require-significance", "false"]


def test_score_never_starts_a_line_with_a_workflow_command_from_input(folder: Path) -> None:
    done = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "bad.jsonl", *GATE],
        cwd=folder,
        environ=ACTIONS,
    )
    assert done.code == 1, done.out + done.err
    assert "\\::warning::x" in done.out  # the case id is shown, neutralised
    assert "::set-output name=verdict::pass" in done.out  # the retrieved id too, mid-line
    assert_no_workflow_command_from_input(done)


def test_compare_never_starts_a_line_with_a_workflow_command_from_input(folder: Path) -> None:
    made = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "bad.jsonl", "--json", "bad.json"],
        cwd=folder,
    )
    assert made.code == 0, made.err
    done = run_cli(["compare", "--current", "bad.json", *GATE], cwd=folder, environ=ACTIONS)
    assert done.code == 1, done.out + done.err
    assert "::warning::spaced" in done.out
    assert_no_workflow_command_from_input(done)


def test_actions_report_never_starts_a_line_with_a_workflow_command_from_input(
    folder: Path,
) -> None:
    made = run_cli(
        [
            "score",
            "--cases",
            "cases.yaml",
            "--artifacts",
            "bad.jsonl",
            "--comparison-json",
            "c.json",
            *GATE,
        ],
        cwd=folder,
    )
    assert made.code == 1, made.err
    done = run_cli(["actions-report", "--comparison", "c.json"], cwd=folder, environ=ACTIONS)
    assert done.code == 0, done.out + done.err
    assert OWN_ANNOTATION.match(done.out), "recall-gate's own annotations still pass"
    assert_no_workflow_command_from_input(done)


def test_capture_never_starts_a_line_with_a_workflow_command_from_input(folder: Path) -> None:
    (folder / "hostile_log_app.py").write_text(
        RETRIEVER.format(hostile=HOSTILE_CARD, misses={0, 1, 2, 3}), encoding="utf-8"
    )
    done = run_cli(
        [
            "capture",
            "--cases",
            "cases.yaml",
            "--retriever",
            "hostile_log_app:build",
            "--out",
            "c.jsonl",
            *GATE,
        ],
        cwd=folder,
        environ=ACTIONS,
    )
    assert done.code == 1, done.out + done.err
    assert_no_workflow_command_from_input(done)


def test_an_error_quoting_a_hostile_case_id_never_starts_a_workflow_command(
    folder: Path,
) -> None:
    line = {"case_id": "x\n::set-output name=verdict::pass", "retrieved": ["card-0"]}
    (folder / "odd.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    done = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "odd.jsonl"], cwd=folder, environ=ACTIONS
    )
    assert done.code == 2, done.out + done.err
    assert_no_workflow_command_from_input(done)
