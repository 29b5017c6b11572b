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
  answers (:mod:`~recall_gate.adapters.query_snapshot`);
- ``capture.error.json``, when the capture failed instead (``capture
  --error-json``): ``{"schema": "recall-gate/capture-error", "version": 1,
  "case_id"?, "what"?, "error"}`` — the case the retriever failed on and what it
  raised (``PipelineRuntimeError: Query should be a non-empty string``), or the
  capture's own error message. At most
  :data:`~recall_gate.adapters.capture_limits.MAX_ERROR_BYTES` bytes; every text
  in it is untrusted: read as one line (line breaks and control characters
  shown escaped, as on every log line), cut at :data:`MAX_ERROR_CHARS`
  characters, and escaped where it is rendered, like any user text. The judge
  quotes it: "the capture failed on case zh-override-image:
  PipelineRuntimeError: Query should be a non-empty string".

Messages name a file as ``capture-dir/NAME``, never the folder's own path (a
runner's temporary folder, which means nothing to a reviewer).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from recall_gate.adapters import capture_limits
from recall_gate.adapters.files import atomic_write_text
from recall_gate.console import Console
from recall_gate.errors import CaseFailed, InputError, RecallGateError

__all__ = [
    "CAPTURE_FILE",
    "ERROR_FILE",
    "FOLDER_NAME",
    "MAX_ERROR_CHARS",
    "capture_file_of",
    "records_failure",
    "write_capture_error",
]

CAPTURE_FILE: Final = "capture.jsonl"
ERROR_FILE: Final = "capture.error.json"
FOLDER_NAME: Final = "capture-dir"  # how messages name the folder
MAX_ERROR_CHARS: Final = 1000  # of each text the error file holds (case id, error)
_ERROR_SCHEMA: Final = "recall-gate/capture-error"
_BREAKS: Final = re.compile(r"\s+")
Handler = Callable[[argparse.Namespace, Console], int]

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


def _bounded(text: str) -> str:
    """Untrusted text as one line of at most :data:`MAX_ERROR_CHARS` characters."""
    line = _BREAKS.sub(" ", text).strip()
    return line if len(line) <= MAX_ERROR_CHARS else line[: MAX_ERROR_CHARS - 1] + "…"


def write_capture_error(path: Path, exc: BaseException) -> None:
    """Write why the capture failed to ``path`` (``capture --error-json``): the case
    and what the retriever raised, else the capture's own message, bounded."""
    record: dict[str, Any] = {"schema": _ERROR_SCHEMA, "version": 1}
    if isinstance(exc, CaseFailed):
        record.update(case_id=_bounded(exc.case_id), what=exc.what, error=_bounded(exc.failure))
    elif isinstance(exc, RecallGateError):
        record["error"] = _bounded(exc.message)
    else:
        record["error"] = _bounded(f"recall-gate internal error: {type(exc).__name__}: {exc}")
    atomic_write_text(path, json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")


def records_failure(handler: Handler) -> Handler:
    """``handler`` (``capture``), writing why it failed into ``--error-json`` when given."""

    def run(args: argparse.Namespace, console: Console) -> int:
        try:
            return handler(args, console)
        except Exception as exc:
            if getattr(args, "error_json", None) is not None:
                write_capture_error(args.error_json, exc)
            raise

    return run


def _capture_failed(path: Path) -> InputError:
    """The capture's own error file, quoted: what the reviewer is told."""
    fix = (
        "make the retriever answer it (the capture job's log holds the whole message), then "
        "push again: the pull request is judged once it captures"
    )
    unreadable = InputError(
        f"the capture failed, and its error file ({FOLDER_NAME}/{ERROR_FILE}) is unreadable",
        fix="see the log of the capture job; the pull request is judged once it captures",
    )
    try:
        if path.stat().st_size > capture_limits.MAX_ERROR_BYTES:
            raise unreadable
        record = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):
        raise unreadable from None
    if not isinstance(record, dict) or record.get("schema") != _ERROR_SCHEMA:
        raise unreadable
    error, case_id, what = record.get("error"), record.get("case_id"), record.get("what")
    if not isinstance(error, str) or not error.strip():
        raise unreadable
    if isinstance(case_id, str) and case_id.strip():
        kind = "logged query" if what == "logged query" else "case"
        return InputError(
            f"the capture failed on {kind} {_bounded(case_id)}: {_bounded(error)}", fix=fix
        )
    return InputError(f"the capture failed: {_bounded(error)}", fix=fix)


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


def capture_file_of(folder: Path, *, also: Sequence[Path | None] = ()) -> Path:
    """The capture file of the folder a capture job handed over, once the folder
    holds at most the capped number of regular files and bytes; an InputError
    naming the file and the cap otherwise, or saying that no capture came.
    ``also``: other captures named beside it (``--artifacts``, ``--run``): refused."""
    if any(path is not None for path in also):
        raise InputError(
            "score takes --capture-dir or --artifacts / --run, not both",
            fix="pass the folder the capture job handed over, as --capture-dir",
        )
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
        raise _capture_failed(folder / ERROR_FILE) if ERROR_FILE in names else _no_capture()
    return folder / CAPTURE_FILE
