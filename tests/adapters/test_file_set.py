"""Writes that belong together land together: `baseline update --queries-snapshot`
writes the baseline and its snapshot as one set (adapters/file_set.py). After a
failed write, a file-size limit or a kill between the two renames, a reader finds
both old or both new, never a new baseline beside an old snapshot."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import run_cli, write_capture
from recall_gate.adapters import file_set
from recall_gate.adapters.baseline_store import read_baseline
from recall_gate.adapters.file_set import TEMP_FOLDER, settle_file_set, write_file_set
from recall_gate.adapters.query_snapshot import QuerySnapshot, read_snapshot, write_snapshot

BASELINE = Path("baselines/default.json")


def _results(folder: Path, *, hits: int) -> Path:
    capture = write_capture(folder / f"capture-{hits}.jsonl", hits=hits)
    out = folder / f"results-{hits}.json"
    done = run_cli(["score", "--artifacts", str(capture), "--json", str(out)], cwd=folder)
    assert done.code == 0, done.err
    return out


def _snapshot(folder: Path, *, card: str, queries: int = 20) -> tuple[Path, QuerySnapshot]:
    snapshot = QuerySnapshot(k=1, rankings={f"q{i:06d}": (card,) for i in range(queries)})
    return write_snapshot(folder / f"log-{card}" / "capture.jsonl", snapshot), snapshot


def _update(results: Path, snapshot: Path) -> list[str]:
    return [
        "baseline",
        "update",
        "--results",
        str(results),
        "--queries-snapshot",
        str(snapshot),
        "--out",
        str(BASELINE),
        "--reason",
        "test",
        "--created-at",
        "2026-01-01T00:00:00Z",
        "--git-sha",
        "0" * 40,
    ]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder with an old baseline (5 hits) and its old snapshot (card "old")."""
    old_snapshot, _ = _snapshot(tmp_path, card="old")
    done = run_cli(_update(_results(tmp_path, hits=5), old_snapshot), cwd=tmp_path)
    assert done.code == 0, done.err
    return tmp_path


def _state(project: Path) -> tuple[str, str]:
    """(old|new baseline, old|new snapshot) as a reader finds them."""
    stored = read_baseline(project / BASELINE)
    assert stored is not None
    hits = stored.baseline.aggregates.overall["retrieval_hit_at_k"].mean
    snapshot = read_snapshot(project / BASELINE)
    assert snapshot is not None
    (card,) = {ranking[0] for ranking in snapshot.rankings.values()}
    return ("old" if hits == 0.25 else "new", card)


def test_the_baseline_and_its_snapshot_land_together(project: Path) -> None:
    new_snapshot, _ = _snapshot(project, card="new")
    done = run_cli(_update(_results(project, hits=15), new_snapshot), cwd=project)
    assert done.code == 0, done.err
    assert _state(project) == ("new", "new")
    assert not (project / "baselines" / TEMP_FOLDER).exists()


def test_a_failed_second_rename_lands_the_set_whole_on_the_next_read(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.replace
    calls: list[Path] = []

    def second_rename_fails(source: object, target: object) -> None:
        calls.append(Path(str(target)))
        # 1: the plan is committed, 2: the baseline, 3: the snapshot
        if len(calls) == 3:
            raise OSError(5, "Input/output error")
        real(source, target)  # type: ignore[arg-type]

    new_snapshot, _ = _snapshot(project, card="new")
    results = _results(project, hits=15)
    monkeypatch.setattr(os, "replace", second_rename_fails)
    done = run_cli(_update(results, new_snapshot), cwd=project)
    monkeypatch.setattr(os, "replace", real)
    assert done.code == 2, done.err
    assert "Traceback" not in done.err
    assert "the next write to this folder puts them in place" in done.err
    assert calls[1].name == "default.json"
    # On disk the pair is torn until a reader applies the recovery rule …
    assert json.loads((project / BASELINE).read_text())["aggregates"]["overall"][
        "retrieval_hit_at_k"
    ]["mean"] == pytest.approx(0.75)
    # … which every reader does first: both new.
    assert _state(project) == ("new", "new")


def test_a_failed_write_before_the_commit_leaves_both_old(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = file_set._write_temp

    def snapshot_write_fails(temp: Path, name: str, data: bytes, *, mode: int) -> Path:
        if name.startswith("default.queries"):
            raise OSError(28, "No space left on device")
        return real(temp, name, data, mode=mode)

    new_snapshot, _ = _snapshot(project, card="new")
    results = _results(project, hits=15)
    monkeypatch.setattr(file_set, "_write_temp", snapshot_write_fails)
    done = run_cli(_update(results, new_snapshot), cwd=project)
    assert done.code == 2, done.err
    assert "No space left on device" in done.err
    assert _state(project) == ("old", "old")
    assert not (project / "baselines" / TEMP_FOLDER).exists()


_LIMITED = """
import resource, sys
from pathlib import Path
from recall_gate.cli import main
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
sys.exit(main(sys.argv[2:], {}, cwd=Path.cwd()))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_FSIZE is POSIX")
def test_a_file_size_limit_that_stops_the_snapshot_leaves_both_old(project: Path) -> None:
    """The reported case: under a file-size limit the baseline fit, the snapshot did
    not, and the new baseline was left beside the old snapshot (exit 2)."""
    new_snapshot, _ = _snapshot(project, card="new", queries=40_000)
    results = _results(project, hits=15)
    baseline_bytes = (project / BASELINE).stat().st_size
    assert new_snapshot.stat().st_size > 4 * baseline_bytes
    limit = 2 * baseline_bytes  # room for the baseline, none for the snapshot
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(limit), *_update(results, new_snapshot)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert "cannot write" in done.stderr
    assert _state(project) == ("old", "old")


_KILLED = """
import os, signal, sys
from pathlib import Path
from recall_gate.adapters import file_set
from recall_gate.cli import main
kill_at = int(sys.argv[1])
calls = []
real = os.replace
def replace(source, target):
    calls.append(target)
    if len(calls) == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    real(source, target)
file_set.os.replace = replace
sys.exit(main(sys.argv[2:], {}, cwd=Path.cwd()))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
@pytest.mark.parametrize(
    ("kill_at", "after"),
    [
        (1, ("old", "old")),  # before the plan is committed
        (2, ("new", "new")),  # committed, nothing renamed yet
        (3, ("new", "new")),  # between the two renames: the torn pair of the report
    ],
    ids=["before the commit", "after the commit", "between the two renames"],
)
def test_a_kill_anywhere_in_the_write_leaves_both_old_or_both_new(
    project: Path, kill_at: int, after: tuple[str, str]
) -> None:
    new_snapshot, _ = _snapshot(project, card="new")
    results = _results(project, hits=15)
    done = subprocess.run(
        [sys.executable, "-c", _KILLED, str(kill_at), *_update(results, new_snapshot)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    plan = project / "baselines" / TEMP_FOLDER / file_set.PLAN
    committed = plan.exists()
    assert _state(project) == after
    # Reading wrote nothing (a reader never changes the folder it reads) …
    assert plan.exists() == committed == (kill_at > 1)
    # … and the next update completes what was committed, then writes its own.
    again = run_cli(_update(results, new_snapshot), cwd=project)
    assert again.code == 0, again.err
    assert _state(project) == ("new", "new")
    assert not (project / "baselines" / TEMP_FOLDER).exists()


def test_a_plan_this_module_did_not_write_is_never_acted_on(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("kept", encoding="utf-8")
    temp = tmp_path / TEMP_FOLDER
    temp.mkdir()
    (temp / "x.tmp").write_text("planted", encoding="utf-8")
    (temp / file_set.PLAN).write_text(
        json.dumps(
            {
                "schema": "recall-gate/pending-file-set",
                "renames": [["x.tmp", "../outside.txt"]],
                "removes": ["keep.txt"],
            }
        ),
        encoding="utf-8",
    )
    settle_file_set(tmp_path)
    assert (tmp_path / "keep.txt").read_text(encoding="utf-8") == "kept"
    assert not (tmp_path.parent / "outside.txt").exists()


def test_a_set_lives_in_one_folder(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="one folder"):
        write_file_set([(tmp_path / "a", b"a"), (tmp_path / "sub" / "b", b"b")])
