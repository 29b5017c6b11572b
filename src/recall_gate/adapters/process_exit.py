"""How the process ends once a command has written its outputs.

Code recall-gate runs (a retriever, its framework, a client library) may leave
threads behind: a non-daemon thread keeps the interpreter alive after ``main``
returned — in CI, until the job's timeout — and a daemon thread still inside
native code at interpreter shutdown can abort the process (``terminate called
without an active exception``, exit 134) after the verdict was written. Once the
outputs are written, the command's exit code is the contract; so when any thread
but the main one is still alive, the process flushes its streams, runs the
``atexit`` handlers, names the non-daemon threads on stderr and ends with
``os._exit(code)``. With no thread left it exits the ordinary way, the objects
alive at that point frozen first (:func:`gc.freeze`): the interpreter's last
collections at shutdown then skip them, tens of milliseconds of a short command.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
import threading
from collections.abc import Callable
from typing import TextIO

__all__ = ["exit_with", "lingering_threads"]


def lingering_threads() -> tuple[list[threading.Thread], list[threading.Thread]]:
    """The threads still alive besides the caller's: (non-daemon, daemon)."""
    current = threading.current_thread()
    alive = [t for t in threading.enumerate() if t is not current and t.is_alive()]
    return [t for t in alive if not t.daemon], [t for t in alive if t.daemon]


def exit_with(
    code: int,
    *,
    stderr: TextIO | None = None,
    end: Callable[[int], None] = os._exit,
) -> None:
    """End the process with ``code``; see the module docstring. ``end`` is the
    hard exit (a test passes its own)."""
    blocking, daemons = lingering_threads()
    if not blocking and not daemons:
        gc.freeze()
        sys.exit(code)
    err = stderr if stderr is not None else sys.stderr
    if blocking:
        names = ", ".join(repr(t.name) for t in blocking)
        err.write(
            f"recall-gate: warning: {len(blocking)} thread(s) started by the code it ran are "
            f"still running ({names}); exiting with code {code} without waiting for them\n"
            "  fix: stop or join the thread in your retriever (or make it a daemon), so your "
            "own processes end when they finish\n"
        )
    # A handler's failure must not change the code.
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, err):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    end(code)
