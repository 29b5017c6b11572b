"""Read and write baseline files (adapter: file I/O and ``git``).

* Files are written atomically (temp file + rename, via
  :func:`recall_gate.adapters.results_store.atomic_write_text`) with deterministic bytes
  (:func:`recall_gate.adapters.results_store.dump_json`: sorted keys, floats rounded to 6
  digits, trailing newline), so a baseline diff is reviewable.
* An update holds the folder's lock (:func:`baseline_update_lock`): a second
  update of the same folder waits for the first, then reads what it wrote, so
  no update is ever lost. Its temp file lives in ``.recall-gate-tmp/`` beside
  the baseline, a folder whose own ``.gitignore`` ignores everything in it, so
  ``git add baselines/`` never picks one up even after a crash; the next update
  removes what a crash left behind.
* A baseline can be read as it is at a git revision (``git cat-file`` of
  ``REF:path``), so a pull request that edits ``baselines/`` is still compared
  against its base branch's baseline.
* Every problem is one :class:`~recall_gate.errors.InputError` naming the file
  and the fix: corrupted JSON, a results file passed as a baseline, a newer
  schema, records that disagree with their aggregates. A file that is not a
  valid baseline is never overwritten.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from pydantic import ValidationError

from recall_gate.adapters.file_set import TEMP_FOLDER as FILE_SET_TEMP
from recall_gate.adapters.file_set import current_file, settle_file_set, write_file_set
from recall_gate.adapters.files import (
    atomic_write_text,
    describe_validation_error,
    dump_json,
    encode_text,
    read_text,
    too_deep,
    write_error,
)
from recall_gate.adapters.git import BaseTree
from recall_gate.adapters.results_store import read_results
from recall_gate.core.baseline import (
    BASELINE_KIND,
    BASELINE_SCHEMA_VERSION,
    Baseline,
    find_inconsistency,
)
from recall_gate.core.profile import baseline_relpath
from recall_gate.core.records import Results
from recall_gate.errors import InputError

__all__ = [
    "TEMP_FOLDER",
    "StoredBaseline",
    "baseline_update_lock",
    "default_baseline_path",
    "dump_baseline",
    "git_head_sha",
    "holds_text",
    "parse_baseline",
    "read_baseline",
    "read_baseline_at_ref",
    "read_baseline_in",
    "read_current_results",
    "write_baseline",
]

TEMP_FOLDER: Final = FILE_SET_TEMP  # one temp folder for every write beside a baseline
_TEMP_IGNORE: Final = "# Temporary files of recall-gate baseline updates: never commit them.\n*\n"
# What older versions left beside the baseline when killed mid-write.
_LEGACY_TEMP: Final = re.compile(r"\..+\.json\.[a-z0-9_]+\.tmp")
_POLL_SECONDS: Final = 0.1

_RESTORE = (
    "restore it with `git checkout -- {path}`, or re-create it with `recall-gate baseline update`"
)


@dataclass(frozen=True, kw_only=True)
class StoredBaseline:
    """A baseline with the exact text it was read from and where."""

    baseline: Baseline
    text: str
    source: str


def default_baseline_path(profile: str) -> Path:
    """``baselines/<profile>.json`` (relative: resolved by the caller)."""
    return Path(baseline_relpath(profile))


def dump_baseline(baseline: Baseline) -> str:
    """The deterministic bytes of a baseline file."""
    return dump_json(baseline.model_dump(mode="json"))


def parse_baseline(text: str, *, source: str, path_hint: str | None = None) -> Baseline:
    """Validate baseline JSON text; ``source`` names it in every message."""
    restore = _RESTORE.format(path=path_hint or source)
    try:
        data: Any = json.loads(text)
    except RecursionError:
        raise too_deep(source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: corrupted baseline: invalid JSON ({exc.msg}, line {exc.lineno})",
            fix=restore,
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: not a recall-gate baseline (expected a JSON object)",
            fix=f"pass a file written by `recall-gate baseline update`, or {restore}",
        )
    if data.get("kind") != BASELINE_KIND:
        if "schema_version" in data and "cases" in data and "kind" not in data:
            raise InputError(
                f"{source}: is a results file, not a baseline",
                fix=f"make it a baseline: `recall-gate baseline update --results {source} "
                "--out baselines/<profile>.json --reason TEXT`",
            )
        raise InputError(
            f'{source}: not a recall-gate baseline (no "kind": "{BASELINE_KIND}")',
            fix=f"pass a file written by `recall-gate baseline update`, or {restore}",
        )
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(
            f"{source}: corrupted baseline: schema_version is {version!r}", fix=restore
        )
    if version > BASELINE_SCHEMA_VERSION:
        raise InputError(
            f"{source}: baseline schema_version {version} is newer than this recall-gate "
            f"reads ({BASELINE_SCHEMA_VERSION})",
            fix="upgrade recall-gate (`pip install -U recall-gate`), "
            "or pin the action to the version that wrote the baseline",
        )
    try:
        baseline = Baseline.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: corrupted baseline: {describe_validation_error(exc)}", fix=restore
        ) from None
    problem = find_inconsistency(baseline)
    if problem is not None:
        raise InputError(f"{source}: corrupted baseline: {problem} (edited by hand?)", fix=restore)
    return baseline


def read_baseline(path: Path, *, display: str | None = None) -> StoredBaseline | None:
    """The baseline at ``path``; ``None`` when no file is there (no baseline yet)."""
    source = display or str(path)
    # A baseline and snapshot cut short read as the set they will be (never half of it).
    current = current_file(path)
    if current is None or (not current.exists() and not current.is_symlink()):
        return None
    text = read_text(current, what="baseline file")
    baseline = parse_baseline(text, source=source)
    return StoredBaseline(baseline=baseline, text=text, source=source)


def write_baseline(
    path: Path,
    baseline: Baseline,
    *,
    together: Sequence[tuple[Path, bytes]] = (),
    remove: Sequence[Path] = (),
) -> str:
    """Write ``baseline`` atomically; returns the bytes written (as text).

    Call it under :func:`baseline_update_lock`: the temp file goes through the
    git-ignored ``.recall-gate-tmp/`` folder, removed again once written.
    ``together``: files beside it (its query snapshot) written with it as one set,
    and ``remove`` removed in it (:mod:`~recall_gate.adapters.file_set`): after
    any failure or kill, all old or all new.
    """
    text = dump_baseline(baseline)
    if together or remove:
        write_file_set([(path, encode_text(text)), *together], remove=remove)
        return text
    temp = path.parent / TEMP_FOLDER
    try:
        temp.mkdir(parents=True, exist_ok=True)
        ignore = temp / ".gitignore"
        if not ignore.is_file():  # before any temp file: none is ever un-ignored
            ignore.write_text(_TEMP_IGNORE, encoding="utf-8")
    except OSError as exc:
        raise write_error(path, exc) from None
    try:
        atomic_write_text(path, text, temp_dir=temp)
    finally:
        _remove_temp_folder(temp)
    return text


def holds_text(path: Path, text: str) -> bool:
    """Whether the file at ``path`` holds exactly ``text`` (after an interrupted write)."""
    try:
        return path.read_bytes() == text.encode("utf-8", errors="backslashreplace")
    except OSError:
        return False


@contextmanager
def baseline_update_lock(
    folder: Path,
    *,
    wait: float,
    display: str,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> Iterator[None]:
    """Hold the update lock of the baseline ``folder`` (created if missing).

    Another update of the same folder — another process, another job on the
    same runner — waits up to ``wait`` seconds, then fails as an
    :class:`InputError`. The lock is the folder's own ``flock`` (no lock file
    to commit or to leave behind; the kernel releases it when a process dies).
    Holding it, this removes whatever a killed update left: the temp folder,
    and the hidden ``.<name>.json.<random>.tmp`` files of older versions.
    """
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder, os.O_RDONLY)
    except OSError as exc:
        raise write_error(folder, exc) from None
    try:
        _lock(fd, folder=display, wait=wait, sleep=sleep, clock=clock)
        _remove_leftovers(folder)
        yield
    finally:
        os.close(fd)  # releases the lock


def _lock(
    fd: int,
    *,
    folder: str,
    wait: float,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> None:
    if sys.platform == "win32":  # no flock: updates are not serialised there
        return
    import fcntl

    deadline = clock() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if clock() >= deadline:
                raise InputError(
                    f"{folder}: another `recall-gate baseline update` of this folder is "
                    f"running (waited {wait:g} s)",
                    fix="let it finish, then run again (it may already have written the "
                    "baseline you want), or wait longer with --wait SECONDS",
                ) from None
            sleep(_POLL_SECONDS)


def _remove_leftovers(folder: Path) -> None:
    settle_file_set(folder)  # a set that committed lands before its temp files go
    shutil.rmtree(folder / TEMP_FOLDER, ignore_errors=True)
    for entry in folder.iterdir():
        if _LEGACY_TEMP.fullmatch(entry.name) and entry.is_file():
            entry.unlink(missing_ok=True)


def _remove_temp_folder(temp: Path) -> None:
    """Remove the temp folder once it holds nothing but its ``.gitignore``."""
    try:
        if {p.name for p in temp.iterdir()} <= {".gitignore"}:
            (temp / ".gitignore").unlink(missing_ok=True)
            temp.rmdir()
    except OSError:
        pass  # a leftover is ignored by git and removed by the next update


def read_current_results(path: Path) -> Results:
    """A results file, or a baseline file read as the results it embeds."""
    try:
        data = json.loads(read_text(path, what="results file"))
    except (json.JSONDecodeError, RecursionError):
        data = None  # read_results reports it with the results-file wording
    if isinstance(data, dict) and data.get("kind") == BASELINE_KIND:
        stored = read_baseline(path)
        assert stored is not None
        return stored.baseline
    return read_results(path)


def read_baseline_at_ref(path: Path, *, ref: str, cwd: Path) -> StoredBaseline | None:
    """The baseline at ``path`` (against ``cwd``) as it is at git revision
    ``ref``; ``None`` when the file does not exist there (no baseline yet)."""
    return read_baseline_in(BaseTree(ref, cwd=cwd), cwd / path)


def read_baseline_in(tree: BaseTree, path: Path) -> StoredBaseline | None:
    """The baseline at ``path`` as it is at the revision of ``tree``; ``None``
    when the file does not exist there (no baseline there yet)."""
    relative = tree.relative(path)
    if relative is None:
        raise InputError(
            f"{path}: the baseline is outside the git work tree {tree.root}",
            fix="pass a baseline path inside the repository",
        )
    data = tree.read(relative)
    if data is None:
        return None
    spec = tree.source(relative)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            f"{spec}: corrupted baseline: not UTF-8 text", fix="restore the file on that branch"
        ) from None
    baseline = parse_baseline(text, source=spec, path_hint=relative)
    return StoredBaseline(baseline=baseline, text=text, source=spec)


def git_head_sha(cwd: Path) -> str | None:
    """The commit checked out at ``cwd``; ``None`` outside a git work tree."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=cwd,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = done.stdout.decode("ascii", "replace").strip()
    return sha if done.returncode == 0 and sha else None
