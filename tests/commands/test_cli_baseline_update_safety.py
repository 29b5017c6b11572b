"""`baseline update` under contention, kills and interrupts.

Two real processes contend for one baselines folder; a real SIGKILL leaves its
temp file where `git add baselines/` (run for real) cannot pick it up; Ctrl-C
after the rename says the baseline WAS written.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_runner import run_cli
from factories import case, results
from git_repo import git, needs_git
from recall_gate.adapters.baseline_store import baseline_update_lock
from recall_gate.adapters.files import dump_json
from recall_gate.report import baseline_update

SRC = Path(__file__).resolve().parents[2] / "src"
BASELINE = "baselines/default.json"


def _results(tmp_path: Path, name: str, *, misses: int) -> Path:
    cases = [case(f"c{i:02d}", None if i < misses else 1) for i in range(20)]
    path = tmp_path / f"{name}.json"
    path.write_text(dump_json(results(cases).model_dump(mode="json")))
    return path


def _update_process(tmp_path: Path, results_file: Path, *extra: str) -> subprocess.Popen[str]:
    """`recall-gate baseline update` as its own process (the installed code under test)."""
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from recall_gate.cli import main; sys.exit(main())",
            "baseline",
            "update",
            "--results",
            str(results_file),
            "--git-sha",
            "0" * 40,
            *extra,
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_second_update_waits_for_the_first_then_exits_2_saying_another_is_running(
    tmp_path: Path,
) -> None:
    good = _results(tmp_path, "good", misses=0)
    with baseline_update_lock(tmp_path / "baselines", wait=0, display="baselines"):
        second = _update_process(tmp_path, good, "--wait", "0.3")
        _, err = second.communicate(timeout=120)

    assert second.returncode == 2, err
    assert err == (
        "recall-gate: error: baselines: another `recall-gate baseline update` of this folder "
        "is running (waited 0.3 s)\n"
        "  fix: let it finish, then run again (it may already have written the baseline you "
        "want), or wait longer with --wait SECONDS\n"
    )
    assert not (tmp_path / BASELINE).exists()


def test_two_concurrent_updates_never_lose_one(tmp_path: Path) -> None:
    good = _results(tmp_path, "good", misses=0)
    bad = _results(tmp_path, "bad", misses=10)
    # Both start while the folder is locked, so both are inside the update at
    # once; whichever goes second must read what the first wrote.
    with baseline_update_lock(tmp_path / "baselines", wait=0, display="baselines"):
        racers = [_update_process(tmp_path, good), _update_process(tmp_path, bad)]
    done = [racer.communicate(timeout=120) for racer in racers]

    assert [racer.returncode for racer in racers] == [0, 0], done
    firsts = [out for out, _ in done if "No previous baseline" in out]
    assert len(firsts) == 1, [out for out, _ in done]  # the other compared with it
    final = json.loads((tmp_path / BASELINE).read_text())
    second_out = next(out for out, _ in done if "No previous baseline" not in out)
    expected_final = "0.500" if "−0.500" in second_out else "1.000"
    assert f"{final['aggregates']['overall']['retrieval_hit_at_k']['mean']:.3f}" == (expected_final)


_KILLED_MID_WRITE = textwrap.dedent(
    """
    import os, signal, sys
    from recall_gate.cli import main

    def killed(*_):  # the kernel's SIGKILL, just before the rename
        os.kill(os.getpid(), signal.SIGKILL)

    os.replace = killed
    sys.exit(main(sys.argv[1:]))
    """
)


@needs_git
def test_a_killed_updates_temp_file_is_never_picked_up_by_git_add_and_is_cleaned_next_run(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "-q")
    good = _results(tmp_path, "good", misses=0)

    killed = subprocess.run(
        [sys.executable, "-c", _KILLED_MID_WRITE, "baseline", "update", "--results", str(good)],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(SRC)},
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert killed.returncode == -9
    leftovers = [p for p in (tmp_path / "baselines").rglob("*") if p.is_file()]
    assert any(p.name.endswith(".tmp") for p in leftovers), leftovers

    git(tmp_path, "add", "baselines/")
    assert git(tmp_path, "diff", "--cached", "--name-only") == ""
    assert git(tmp_path, "status", "--porcelain", "--untracked-files=all", "baselines") == ""

    again = run_cli(["baseline", "update", "--results", str(good)], cwd=tmp_path)
    assert again.code == 0, again.err
    assert sorted(p.name for p in (tmp_path / "baselines").iterdir()) == ["default.json"]
    git(tmp_path, "add", "baselines/")
    assert git(tmp_path, "diff", "--cached", "--name-only") == BASELINE


def test_hidden_temp_files_left_by_older_versions_are_cleaned_by_the_next_update(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "baselines"
    folder.mkdir()
    (folder / ".default.json.k2j_9x1a.tmp").write_text("{")
    (folder / ".keep-me.md").write_text("not ours")

    run = run_cli(
        ["baseline", "update", "--results", str(_results(tmp_path, "good", misses=0))],
        cwd=tmp_path,
    )

    assert run.code == 0, run.err
    assert sorted(p.name for p in folder.iterdir()) == [".keep-me.md", "default.json"]


def test_an_interrupt_after_the_rename_says_the_baseline_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_replace = os.replace

    def replace_then_interrupt(src: str, dst: str) -> None:
        real_replace(src, dst)
        raise KeyboardInterrupt  # Ctrl-C lands right after the rename

    monkeypatch.setattr(os, "replace", replace_then_interrupt)

    run = run_cli(
        ["baseline", "update", "--results", str(_results(tmp_path, "good", misses=0))],
        cwd=tmp_path,
    )

    assert run.code == 130
    assert run.err == (
        f"recall-gate: interrupted: {BASELINE} WAS written and holds the new baseline "
        "(its report may be cut short)\n"
    )
    assert json.loads((tmp_path / BASELINE).read_text())["kind"] == "recall-gate-baseline"


def test_an_interrupt_while_reporting_says_the_baseline_was_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object, **__: object) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(baseline_update, "render_baseline_update", interrupted)

    run = run_cli(
        ["baseline", "update", "--results", str(_results(tmp_path, "good", misses=0))],
        cwd=tmp_path,
    )

    assert run.code == 130
    assert "WAS written" in run.err


def test_an_interrupt_before_the_rename_says_the_baseline_was_not_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = run_cli(
        ["baseline", "update", "--results", str(_results(tmp_path, "good", misses=0))],
        cwd=tmp_path,
    )
    assert first.code == 0
    before = (tmp_path / BASELINE).read_bytes()

    def interrupted(*_: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    run = run_cli(
        ["baseline", "update", "--results", str(_results(tmp_path, "bad", misses=10))],
        cwd=tmp_path,
    )

    assert run.code == 130
    assert run.err == (
        f"recall-gate: interrupted: {BASELINE} was NOT written (any previous baseline is intact)\n"
    )
    assert (tmp_path / BASELINE).read_bytes() == before
    assert [p.name for p in (tmp_path / "baselines").iterdir()] == ["default.json"]


def test_the_lock_is_the_folders_own_and_leaves_no_file(tmp_path: Path) -> None:
    with baseline_update_lock(tmp_path / "baselines", wait=0, display="baselines"):
        pass

    assert list((tmp_path / "baselines").iterdir()) == []
