"""The process ends with the command's code once its outputs are written, whatever
threads the code it ran left behind (a retriever's pool, a client's keep-alive)."""

from __future__ import annotations

import gc
import io
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from recall_gate.adapters import process_exit
from recall_gate.adapters.process_exit import exit_with

ROOT = Path(__file__).resolve().parents[2]


def test_with_no_thread_left_the_process_exits_the_ordinary_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ended: list[int] = []
    frozen: list[bool] = []
    # The objects left are frozen for the shutdown (not this test process's).
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    # "No thread left" as this test's own fact: a thread another test in the same
    # worker left behind (a hung retriever's, on purpose) must not decide it.
    monkeypatch.setattr(process_exit, "lingering_threads", lambda: ([], []))
    with pytest.raises(SystemExit) as exited:
        exit_with(2, stderr=io.StringIO(), end=ended.append)
    assert exited.value.code == 2
    assert ended == []
    assert frozen == [True]


def test_a_leftover_non_daemon_thread_is_named_and_never_waited_for() -> None:
    release = threading.Event()
    leftover = threading.Thread(target=release.wait, name="retriever-pool-1")
    leftover.start()
    try:
        err, ended = io.StringIO(), list[int]()
        exit_with(1, stderr=err, end=ended.append)
    finally:
        release.set()
        leftover.join()
    assert ended == [1]  # the command's code, not the thread's say
    assert "'retriever-pool-1'" in err.getvalue()
    assert "exiting with code 1 without waiting" in err.getvalue()


def test_a_daemon_thread_left_in_retriever_code_ends_the_process_quietly() -> None:
    release = threading.Event()
    leftover = threading.Thread(target=release.wait, name="timed-out-call", daemon=True)
    leftover.start()
    try:
        err, ended = io.StringIO(), list[int]()
        exit_with(0, stderr=err, end=ended.append)
    finally:
        release.set()
        leftover.join()
    assert ended == [0]
    assert err.getvalue() == ""  # recall-gate's own abandoned worker: nothing to fix


RETRIEVER = """\
import threading


def build():
    # A pool the team's client starts and never stops: a non-daemon thread.
    threading.Thread(target=threading.Event().wait, name="client-keepalive").start()

    def search(query, k):
        return []

    return search
"""


def test_capture_whose_retriever_leaks_a_thread_ends_after_writing_its_outputs(
    tmp_path: Path,
) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "returns.md").write_text("# Returns\n\nSend it back within 30 days.\n")
    (tmp_path / "cases.yaml").write_text(
        "cases:\n  - id: c1\n    language: en\n    case_type: golden\n"
        "    query: how do I return an item\n    must_cite_one_of: [returns]\n"
    )
    (tmp_path / "recall-gate.yaml").write_text(
        "kb: docs\ndefault_language: en\ncases: cases.yaml\nk: 3\n"
    )
    (tmp_path / "leaky.py").write_text(RETRIEVER)
    done = subprocess.run(
        [sys.executable, "-c", "from recall_gate.cli import entry_point; entry_point()",
         "capture", "--out", "capture.jsonl", "--retriever", "leaky:build", "--no-score"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT / "src")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "capture.jsonl").is_file()
    assert "'client-keepalive'" in done.stderr
