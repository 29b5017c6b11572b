"""The journal of a capture in progress, next to its ``--out`` (adapter: file I/O).

``capture --out F`` keeps ``F.journal`` while it runs: a header line naming the
capture (what would make a resumed capture a different one: the retriever
spec, k, the cases' fingerprint, the shard …), then one JSON line per case as
it is answered, flushed at once. A capture that finishes writes ``F``
atomically and removes the journal; one that fails or is interrupted leaves
it, so that

- ``capture --resume`` asks only the cases the journal does not hold, and
- ``score --artifacts F`` refuses ``F`` while a later capture to it is
  unfinished, rather than reporting the earlier capture's numbers as new.

A line cut short by a kill (the last one) is ignored; the case is asked again.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from recall_gate.errors import InputError

__all__ = ["JOURNAL_SUFFIX", "CaptureJournal", "journal_path", "refuse_unfinished_capture"]

JOURNAL_SUFFIX = ".journal"
_FORMAT = 1


def journal_path(out: Path) -> Path:
    """Where the journal of a capture to ``out`` lives."""
    return out.with_name(out.name + JOURNAL_SUFFIX)


def _cannot(path: Path, exc: OSError) -> InputError:
    return InputError(
        f"{path}: cannot write the capture journal: {exc.strerror}",
        fix="check the --out directory, its permissions and free space",
    )


def refuse_unfinished_capture(artifacts: Path) -> None:
    """Refuse to score ``artifacts`` while a capture to it has not finished."""
    journal = journal_path(artifacts)
    if journal.exists():
        raise InputError(
            f"{artifacts}: a capture to this file did not finish ({journal.name} is still "
            "there), so the file, if any, holds an earlier capture's answers",
            fix="finish it with `recall-gate capture … --resume` (the same flags), or delete "
            f"{journal.name} to score the earlier file as it is",
        )


class CaptureJournal:
    """An open journal: :meth:`record` appends a case's line; :meth:`finish` removes it."""

    def __init__(self, path: Path, stream: IO[str], answered: dict[str, dict[str, Any]]) -> None:
        self.path = path
        self._stream = stream
        #: The lines already in the journal (a resumed capture's), by case id.
        self.answered = answered

    @classmethod
    def start(cls, out: Path, identity: Mapping[str, Any]) -> CaptureJournal:
        """A fresh journal for a capture to ``out`` (an old one is replaced)."""
        path = journal_path(out)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            stream = path.open("w", encoding="utf-8")
            stream.write(json.dumps({"journal": _FORMAT, "capture": identity}, sort_keys=True))
            stream.write("\n")
            stream.flush()
        except OSError as exc:
            raise _cannot(path, exc) from None
        return cls(path, stream, {})

    @classmethod
    def resume(cls, out: Path, identity: Mapping[str, Any]) -> CaptureJournal:
        """The journal of an unfinished capture to ``out``, which must be this capture."""
        path = journal_path(out)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise InputError(
                f"--resume: no unfinished capture to {out.name} ({path.name} not found)",
                fix="capture without --resume (a capture that finished leaves no journal)",
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(
                f"{path}: cannot read the capture journal: {exc}",
                fix=f"delete {path.name} and capture without --resume",
            ) from None
        lines = text.split("\n")
        header = _parse(lines[0])
        if not isinstance(header, dict) or header.get("journal") != _FORMAT:
            raise InputError(
                f"{path}: is not a recall-gate capture journal",
                fix=f"delete {path.name} and capture without --resume",
            )
        if header.get("capture") != json.loads(json.dumps(identity)):
            raise InputError(
                f"--resume: {path.name} is the journal of another capture "
                f"({_difference(header.get('capture'), identity)})",
                fix="resume with the same retriever, cases, k and shard as the interrupted "
                "capture, or capture without --resume to start over",
            )
        answered: dict[str, dict[str, Any]] = {}
        for line in lines[1:]:
            entry = _parse(line)  # a line cut short by a kill is asked again
            if isinstance(entry, dict) and isinstance(entry.get("case_id"), str):
                answered[entry["case_id"]] = entry
        try:
            stream = path.open("a", encoding="utf-8")
            if text and not text.endswith("\n"):
                stream.write("\n")  # end the cut line: the next record starts clean
        except OSError as exc:
            raise _cannot(path, exc) from None
        return cls(path, stream, answered)

    def record(self, line: Mapping[str, Any]) -> None:
        """Append one case's line, flushed so a kill keeps it."""
        try:
            self._stream.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
            self._stream.flush()
        except OSError as exc:
            raise _cannot(self.path, exc) from None

    def close(self) -> None:
        """Close, keeping the journal (the capture did not finish)."""
        self._stream.close()

    def finish(self) -> None:
        """Close and remove the journal (the capture's file is written)."""
        self._stream.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def __enter__(self) -> CaptureJournal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if not self._stream.closed:
            self.close()


def _parse(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _difference(theirs: Any, mine: Mapping[str, Any]) -> str:
    if not isinstance(theirs, dict):
        return "its header is unreadable"
    keys = sorted(k for k in theirs.keys() | mine.keys() if theirs.get(k) != mine.get(k))
    return "; ".join(
        f"{key}: journal {theirs.get(key, '(none)')!r}, now {mine.get(key, '(none)')!r}"
        for key in keys
    )
