"""Retriever code that exits (`sys.exit`, `KeyboardInterrupt`, any `BaseException`)
fails the capture with exit 2 naming the case, the module or the factory — in the
query, at import, in the factory. No path ends with exit 0 and no verdict, and the
`score` that follows cannot take the previous capture's file for this one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import recall_gate
from cli_runner import run_cli
from synthetic_kb import write_kb

APP = """
import sys

def search(query, k):
    return [{"id": "en/refills"}]

def exits_zero(query, k):
    if "Rechnung" in query:
        sys.exit(0)
    return search(query, k)

def exits_with_message(query, k):
    sys.exit("embedding quota exhausted")

def interrupts(query, k):
    raise KeyboardInterrupt

class Odd(BaseException):
    pass

def raises_base_exception(query, k):
    raise Odd("not an Exception")

def factory_exits():
    sys.exit(0)
"""


ENTRY = "import sys; from recall_gate.cli import entry_point as e; sys.argv[0] = 'recall-gate'; e()"


@pytest.fixture
def app(tmp_path: Path) -> Path:
    root = write_kb(tmp_path)
    (root / "exit_rag.py").write_text(APP, encoding="utf-8")
    (root / "exit_at_import.py").write_text("import sys\nsys.exit(0)\n", encoding="utf-8")
    (root / "recall-gate.yaml").write_text("k: 3\nkb: docs\ncases: cases.yaml\n", encoding="utf-8")
    for name in ("exit_rag", "exit_at_import"):
        sys.modules.pop(name, None)
    return root


EXITS = {
    "sys.exit(0) in a query": (
        "exit_rag:exits_zero",
        "case 'de-1': the retriever called sys.exit(0) "
        "(query 'wie kann ich meine Rechnung bezahlen')",
    ),
    "sys.exit('msg') in a query": (
        "exit_rag:exits_with_message",
        "case 'en-1': the retriever called sys.exit('embedding quota exhausted')",
    ),
    "KeyboardInterrupt in a query": (
        "exit_rag:interrupts",
        "case 'en-1': the retriever raised KeyboardInterrupt",
    ),
    "a BaseException subclass in a query": (
        "exit_rag:raises_base_exception",
        "case 'en-1': the retriever raised Odd: not an Exception",
    ),
    "sys.exit(0) at import": (
        "exit_at_import:search",
        "--retriever exit_at_import:search: importing 'exit_at_import' called sys.exit(0)",
    ),
    "sys.exit(0) in the factory": (
        "exit_rag:factory_exits",
        "--retriever exit_rag:factory_exits: calling factory_exits() called sys.exit(0)",
    ),
}


@pytest.mark.parametrize(("spec", "message"), EXITS.values(), ids=EXITS.keys())
def test_retriever_code_that_exits_fails_the_capture_naming_where(
    app: Path, spec: str, message: str
) -> None:
    result = run_cli(["capture", "--retriever", spec, "--out", "a.jsonl"], cwd=app)
    assert result.code == 2
    assert result.out == ""
    assert result.err.startswith("recall-gate: error: " + message), result.err
    assert "fix: retriever code must return or raise an exception, never exit" in result.err
    assert result.err.count("recall-gate: error:") == 1
    assert "Traceback" not in result.err
    assert not (app / "a.jsonl").exists()


def test_the_next_score_cannot_report_the_previous_captures_numbers_as_if_new(
    app: Path,
) -> None:
    first = run_cli(["capture", "--retriever", "exit_rag:search", "--out", "a.jsonl"], cwd=app)
    assert first.code == 0, first.err
    earlier = (app / "a.jsonl").read_bytes()
    failed = run_cli(["capture", "--retriever", "exit_rag:exits_zero", "--out", "a.jsonl"], cwd=app)
    assert failed.code == 2
    assert (app / "a.jsonl").read_bytes() == earlier  # never a partial write
    scored = run_cli(["score", "--artifacts", "a.jsonl"], cwd=app)
    assert scored.code == 2
    assert scored.out == ""
    assert scored.err.startswith(
        "recall-gate: error: " + str(app / "a.jsonl") + ": a capture to this file did not "
        "finish (a.jsonl.journal is still there), so the file, if any, holds an earlier "
        "capture's answers\n  fix: finish it with `recall-gate capture … --resume`"
    )


def test_a_capture_that_finishes_leaves_no_journal(app: Path) -> None:
    result = run_cli(["capture", "--retriever", "exit_rag:search", "--out", "a.jsonl"], cwd=app)
    assert result.code == 0, result.err
    assert sorted(p.name for p in app.glob("a.jsonl*")) == ["a.jsonl"]


@pytest.mark.parametrize("spec", ["exit_rag:exits_zero", "exit_rag:exits_with_message"])
def test_the_console_script_exits_2_with_one_message_when_the_retriever_exits(
    app: Path, spec: str
) -> None:
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, "capture", "--retriever", spec, "--out", "a.jsonl"],
        capture_output=True,
        text=True,
        cwd=app,
        check=False,
        # this checkout's package, whatever the working directory
        env={**os.environ, "PYTHONPATH": str(Path(recall_gate.__file__).parents[1])},
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("recall-gate: error:") == 1
    assert "Traceback" not in done.stderr
