"""The folder a capture job hands over to the judge (adapter: files).

In the two-job PR check the capture job runs the pull request's code and uploads
one folder (the action's ``capture-dir`` output); the judge downloads it and
scores it with ``recall-gate score --capture-dir DIR``. Everything in it is
untrusted data, so before any file of it is opened the folder is held to the
caps of :mod:`~recall_gate.adapters.capture_limits`: at most
:data:`~recall_gate.adapters.capture_limits.MAX_CAPTURE_FILES` entries, each a
regular file (no link, no subfolder), at most
:data:`~recall_gate.adapters.capture_limits.MAX_CAPTURE_BYTES` in all. Then
each file is read within its own caps. The judge reads three names only:

- ``capture.jsonl``: the capture (:mod:`~recall_gate.adapters.dataset`);
- ``capture.queries.jsonl`` or ``capture.queries.jsonl.gz``: the query log's
  answers (:mod:`~recall_gate.adapters.query_snapshot`).

Messages name a file as ``capture-dir/NAME``, never the folder's own path (a
runner's temporary folder, which means nothing to a reviewer).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

from recall_gate.adapters import capture_limits
from recall_gate.errors import InputError

__all__ = ["CAPTURE_FILE", "FOLDER_NAME", "capture_file_of"]

CAPTURE_FILE: Final = "capture.jsonl"
FOLDER_NAME: Final = "capture-dir"  # how messages name the folder

_FIX: Final = (
    "upload only the folder the capture step names (the action's `capture-dir` output), "
    "as it is; the capture job writes a few files, each far below these caps"
)


def _no_capture() -> InputError:
    return InputError(
        "no capture reached the judge: the capture job did not complete (or its "
        "artifact was not uploaded)",
        fix="see the log of the capture job; the pull request is judged once it captures",
    )


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    """The folder's entries, refused past the file cap before all are listed."""
    cap = capture_limits.MAX_CAPTURE_FILES
    entries: list[os.DirEntry[str]] = []
    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                entries.append(entry)
                if len(entries) > cap:
                    raise InputError(
                        f"the capture folder holds more than {cap} files (the cap of what a "
                        "capture job hands over)",
                        fix=_FIX,
                    )
    except FileNotFoundError:
        raise _no_capture() from None
    except NotADirectoryError:
        raise InputError(
            "--capture-dir names a file, not the folder the capture job handed over",
            fix="pass the folder the capture artifact was downloaded to",
        ) from None
    return entries


def capture_file_of(folder: Path) -> Path:
    """The capture file of the folder a capture job handed over, once the folder
    holds at most the capped number of regular files and bytes; an InputError
    naming the file and the cap otherwise, or saying that no capture came."""
    total = 0
    names: set[str] = set()
    for entry in _entries(folder):
        shown = f"{FOLDER_NAME}/{entry.name}"
        mode = entry.stat(follow_symlinks=False).st_mode
        if not stat.S_ISREG(mode):
            kind = "a link" if stat.S_ISLNK(mode) else "not a regular file"
            raise InputError(
                f"{shown}: is {kind} (a capture folder holds regular files only)", fix=_FIX
            )
        total += entry.stat(follow_symlinks=False).st_size
        if total > capture_limits.MAX_CAPTURE_BYTES:
            raise capture_limits.too_large(
                FOLDER_NAME, cap=capture_limits.MAX_CAPTURE_BYTES, what="a capture folder"
            )
        names.add(entry.name)
    if CAPTURE_FILE not in names:
        raise _no_capture()
    return folder / CAPTURE_FILE
