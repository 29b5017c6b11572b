"""Files that belong together land together (adapter: file I/O).

A baseline and its query snapshot, a capture and its snapshot: a reader that
finds one new and the other old compares a run with the wrong traffic. One
file is replaced atomically by a rename; two renames are not one. So a set of
files in one folder is written in three steps, and read by one rule:

1. **Prepare.** Every new file is written to a temp file in the folder's
   ``.recall-gate-tmp/`` (git-ignored by its own ``.gitignore``; the same file
   system, so a rename moves it) and fsynced. A failure here (a full disk, a
   file-size limit, Ctrl-C) removes the temp files: nothing was replaced, the
   set is **all old**.
2. **Commit.** The plan — each temp file and the file it replaces, in order,
   and the files to remove — is written to ``.recall-gate-tmp/pending.json``
   through a temp file, fsynced, renamed into place and the folder fsynced.
   That rename is the one moment the set changes: before it, all old; after
   it, all new, whatever happens next.
3. **Apply.** The renames run in order, then the removals; the folder is
   fsynced and the plan deleted.

**The recovery rule**: a plan found in a folder is a committed set not yet (or
not fully) applied, so it is rolled *forward*: each temp file still there is
renamed onto its file (the ones already renamed are gone from the temp
folder), each removal done, the plan deleted. Temp files without a plan are a
set that never committed: they are deleted (rolled *back*). The next writer of
the folder applies the rule first (:func:`settle_file_set`, under the baseline
folder's lock for a baseline). A reader never writes: it reads each file as the
plan will leave it (:func:`current_file`: the temp file a committed plan puts in
its place), so no reader sees half a set, even after a kill between two renames,
and reading a folder (a pull request's checkout, say) never changes it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final, NamedTuple

from recall_gate.adapters.files import file_mode, write_error
from recall_gate.errors import InputError

__all__ = ["PLAN", "TEMP_FOLDER", "current_file", "settle_file_set", "write_file_set"]

TEMP_FOLDER: Final = ".recall-gate-tmp"
PLAN: Final = "pending.json"
_SCHEMA: Final = "recall-gate/pending-file-set"
_IGNORE: Final = "# Temporary files of recall-gate's writes: never commit them.\n*\n"


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return  # a platform without folder handles: the rename is as durable as it gets
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _temp_folder(folder: Path) -> Path:
    temp = folder / TEMP_FOLDER
    temp.mkdir(parents=True, exist_ok=True)
    ignore = temp / ".gitignore"
    if not ignore.is_file():  # before any temp file: none is ever un-ignored
        ignore.write_text(_IGNORE, encoding="utf-8")
    return temp


def _write_temp(temp: Path, name: str, data: bytes, *, mode: int) -> Path:
    fd, made = tempfile.mkstemp(dir=temp, prefix=f"{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(made, mode)
    except BaseException:
        Path(made).unlink(missing_ok=True)
        raise
    return Path(made)


class _Plan(NamedTuple):
    renames: list[tuple[str, str]]  # (temp file, the file it replaces), in order
    removes: list[str]


def _plan_of(temp: Path) -> _Plan | None:
    """The committed plan of ``temp``, or None (none, or one this module never wrote)."""
    try:
        plan = json.loads((temp / PLAN).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(plan, dict) or plan.get("schema") != _SCHEMA:
        return None
    renames, removes = plan.get("renames"), plan.get("removes")
    if not isinstance(renames, list) or not isinstance(removes, list):
        return None
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in renames):
        return None
    names = [name for pair in renames for name in pair] + removes
    # Names in this folder only: a plan never reaches outside it.
    if not all(
        isinstance(n, str) and n not in ("", ".", "..", TEMP_FOLDER) and not {"/", "\\"} & set(n)
        for n in names
    ):
        return None
    return _Plan([(a, b) for a, b in renames], list(removes))


def _apply(folder: Path, temp: Path, plan: _Plan) -> None:
    for source, target in plan.renames:
        # Renamed already (before a kill, or by another writer completing it): gone.
        with contextlib.suppress(FileNotFoundError):
            os.replace(temp / source, folder / target)
    for name in plan.removes:
        (folder / name).unlink(missing_ok=True)
    _fsync_folder(folder)
    (temp / PLAN).unlink(missing_ok=True)


def _clear(temp: Path) -> None:
    """Remove the temp folder (what an uncommitted set left behind goes with it)."""
    shutil.rmtree(temp, ignore_errors=True)


def current_file(path: Path) -> Path | None:
    """The file to read for ``path``: the temp file a committed plan of its folder
    puts in its place when that rename is still to run, None when the plan removes
    it, else ``path`` itself. Reads only (one ``stat`` when there is no plan)."""
    temp = path.parent / TEMP_FOLDER
    if not (temp / PLAN).is_file():
        return path
    plan = _plan_of(temp)
    if plan is None:
        return path
    for source, target in plan.renames:
        if target == path.name and (temp / source).is_file():
            return temp / source
    return None if path.name in plan.removes else path


def settle_file_set(folder: Path, *, clear: bool = False) -> None:
    """Apply the recovery rule to ``folder`` (see the module docstring), as a writer
    of it does first: a committed set is completed; with ``clear`` (the folder is
    the caller's: no other writer at work in it), the temp files of a set that
    never committed are removed too. Cheap when there is nothing to do."""
    temp = folder / TEMP_FOLDER
    if not temp.is_dir():
        return
    if (temp / PLAN).exists():
        plan = _plan_of(temp)
        if plan is None:
            return  # not a plan this module wrote: left alone, never acted on
        try:
            _apply(folder, temp, plan)
        except OSError as exc:
            raise InputError(
                f"{folder}: an interrupted write of files that belong together could not be "
                f"completed ({exc.strerror or exc})",
                fix="check the folder is writable, then run again: the next run completes it",
            ) from None
    if clear:
        _clear(temp)


def write_file_set(files: Sequence[tuple[Path, bytes]], *, remove: Sequence[Path] = ()) -> None:
    """Write ``files`` (path, bytes) — all in one folder — and remove ``remove``
    from it, as one set: after any failure or kill, a reader finds all of them old
    or all of them new (see the module docstring)."""
    folders = {path.parent for path, _ in files} | {path.parent for path in remove}
    if len(folders) != 1:
        raise ValueError("a file set lives in one folder")
    (folder,) = folders
    try:
        folder.mkdir(parents=True, exist_ok=True)
        settle_file_set(folder, clear=True)  # an earlier set first
        temp = _temp_folder(folder)
    except OSError as exc:
        raise write_error(folder, exc) from None
    renames: list[tuple[str, str]] = []
    target = folder
    try:
        for target, data in files:
            made = _write_temp(temp, target.name, data, mode=file_mode(target))
            renames.append((made.name, target.name))
        target = folder / PLAN
        plan = {"schema": _SCHEMA, "renames": renames, "removes": [p.name for p in remove]}
        staged = _write_temp(temp, PLAN, json.dumps(plan).encode("utf-8"), mode=0o644)
        os.replace(staged, temp / PLAN)  # the commit point
        _fsync_folder(temp)
    except OSError as exc:
        _clear(temp)
        raise write_error(target, exc) from None
    except BaseException:
        _clear(temp)
        raise
    try:
        _apply(folder, temp, _Plan(renames, [p.name for p in remove]))
    except OSError as exc:
        raise InputError(
            f"{folder}: the files were written but not all put in place "
            f"({exc.strerror or exc}); a reader reads them as written, and the next write "
            "to this folder puts them in place",
            fix="check the folder is writable, then run the command again",
        ) from None
    _clear(temp)
