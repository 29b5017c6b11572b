"""What reaches a log line (adapter: the CLI's output streams).

The GitHub Actions runner reads every line a step writes: a line that,
stripped of leading whitespace, starts with ``::`` is a workflow command
(``::warning::``, ``::set-output``, ``::add-mask::``, ``::stop-commands::`` …).
Case ids, queries, labels, reasons, card ids and error text quoting input are
written by users (a pull request's capture among them), so none of them may
start such a line, and none may bring terminal control into a log.

:class:`GuardedStream` wraps each output stream once, at the wiring point
(``cli.main``); everything written through it is checked line by line:

* a line whose text, leading whitespace stripped, starts with ``::`` gets a
  backslash before the ``::`` (``::warning::x`` is shown as ``\\::warning::x``),
  so the runner reads it as text. A line starts after LF, CR or any other line
  break (the runner splits on CR too), and the check holds across writes.
* control characters other than tab, LF and CR (ESC and the rest of C0, DEL,
  C1) are shown escaped (``\\x1b``), so no terminal escape sequence from input
  reaches a terminal or a log.

recall-gate's own workflow commands go through :func:`write_workflow_command`,
the one function that writes a line starting with ``::``; its own terminal
control (the live progress bar) through :func:`write_terminal_control`.
"""

from __future__ import annotations

import io
import re
from typing import Final, TextIO

__all__ = [
    "GuardedStream",
    "end_output",
    "guarded",
    "write_terminal_control",
    "write_workflow_command",
]

# What the runner trims before looking for "::" (.NET's Trim: every whitespace).
_LINE_BREAKS: Final = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
_CONTROL: Final = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_ESCAPE: Final = "\\"


def _escaped_control(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


class GuardedStream(io.TextIOBase):
    """A text stream whose lines can never be read as a workflow command.

    ``_pending`` holds the start of a line while it could still become ``::``
    (only whitespace, or whitespace and one ``:``), so a command split across
    writes is caught; it is written as soon as the line is decided, on a line
    break, or on :meth:`flush` (a lone ``:`` stays until the next write)."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._line_start = True  # nothing but whitespace written on this line yet
        self._pending = ""

    def write(self, text: str) -> int:
        self._stream.write(self._neutralised(_CONTROL.sub(_escaped_control, text)))
        return len(text)

    def _neutralised(self, text: str) -> str:
        out: list[str] = []
        for char in text:
            if char in _LINE_BREAKS:
                out.append(self._pending + char)
                self._pending, self._line_start = "", True
            elif not self._line_start:
                out.append(char)
            elif char.isspace() or (char == ":" and not self._pending.endswith(":")):
                self._pending += char
            elif char == ":":  # "::" begins the line: a workflow command
                out.append(self._pending[:-1] + _ESCAPE + "::")
                self._pending, self._line_start = "", False
            else:
                out.append(self._pending + char)
                self._pending, self._line_start = "", False
        return "".join(out)

    def write_own(self, text: str, *, own_line: bool = False) -> None:
        """recall-gate's own text, verbatim (see the module functions);
        ``own_line``: it begins a line (a line begun by other text is ended first)."""
        if own_line and (not self._line_start or ":" in self._pending):
            self._pending += "\n"
        self._release()
        self._stream.write(text)
        self._line_start = text.endswith(tuple(_LINE_BREAKS))

    def _release(self) -> None:
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""

    def flush(self) -> None:
        if not self._pending.endswith(":"):
            self._release()
        self._stream.flush()

    def end(self) -> None:
        """Write what is held (the command's output is complete) and flush."""
        self._release()
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is a read-only attr
        return getattr(self._stream, "encoding", None) or "utf-8"


def guarded(stream: TextIO) -> TextIO:
    """``stream`` behind a :class:`GuardedStream` (once: a guarded one is returned as it is)."""
    if isinstance(stream, GuardedStream):
        return stream
    return GuardedStream(stream)  # type: ignore[return-value]


def end_output(stream: TextIO) -> None:
    """The end of a command's output on ``stream``: nothing held back is lost."""
    if isinstance(stream, GuardedStream):
        stream.end()
    else:
        stream.flush()


def write_workflow_command(stream: TextIO, command: str) -> None:
    """Write one of recall-gate's own workflow commands (``::error …::message``,
    already escaped) on a line of its own: the one way a line starting with
    ``::`` is written."""
    line = command + "\n"
    if isinstance(stream, GuardedStream):
        stream.write_own(line, own_line=True)
    else:
        stream.write(line)


def write_terminal_control(stream: TextIO, sequence: str) -> None:
    """recall-gate's own terminal control (the live progress line's ``\\r\\x1b[2K``)."""
    if isinstance(stream, GuardedStream):
        stream.write_own(sequence)
    else:
        stream.write(sequence)
