"""How far a capture is, on stderr: a live bar on a terminal, a plain line every
few seconds elsewhere (CI logs keep every line), nothing with ``--quiet``."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from recall_gate.adapters.log_lines import write_terminal_control
from recall_gate.retrievers.capture import Progress

__all__ = ["PLAIN_EVERY", "ProgressLine"]

PLAIN_EVERY = 5.0  # seconds between two plain lines
_BAR_EVERY = 0.1
_BAR_WIDTH = 24


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def describe(progress: Progress, *, since: tuple[int, float] | None = None) -> str:
    """``120/600 cases · 41.3/s · ETA 12s`` (and the failures recorded, if any).

    ``since``: (cases done, seconds) when the first case came back. The rate is
    measured from there, so a first query far slower than the rest (an index
    built on first use, a model loaded) does not set the ETA."""
    rate = progress.done / progress.elapsed if progress.elapsed > 0 else 0.0
    steady = since is None
    if since is not None and progress.done > since[0] and progress.elapsed > since[1]:
        rate, steady = (progress.done - since[0]) / (progress.elapsed - since[1]), True
    left = progress.total - progress.done
    eta = _duration(left / rate) if rate > 0 and (steady or not left) else "?"
    text = f"{progress.done}/{progress.total} cases · {rate:.1f}/s · ETA {eta}"
    if progress.failed:
        text += f" · {progress.failed} failed"
    return text


class ProgressLine:
    """A progress callback for :func:`~recall_gate.retrievers.capture`: on a terminal
    (``live``) one line redrawn in place, else a plain line every ``every`` seconds."""

    def __init__(
        self,
        stream: TextIO,
        *,
        live: bool,
        every: float = PLAIN_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = stream
        self.live = live
        self.every = _BAR_EVERY if live else every
        self.clock = clock
        self._last = clock()
        self._drawn = False
        self._first: tuple[int, float] | None = None  # when the first case came back

    def __call__(self, progress: Progress) -> None:
        if self._first is None and progress.done:
            self._first = (progress.done, progress.elapsed)
        now = self.clock()
        final = progress.done == progress.total
        if not final and now - self._last < self.every:
            return
        self._last = now
        if self.live:
            filled = _BAR_WIDTH * progress.done // max(progress.total, 1)
            bar = "█" * filled + "░" * (_BAR_WIDTH - filled)
            write_terminal_control(self.stream, "\r\x1b[2K")
            self.stream.write(f"recall-gate: {bar} {describe(progress, since=self._first)}")
            self._drawn = True
            if final:
                self.end()
        elif not final:  # the final count is in the "captured …" line
            self.stream.write(f"recall-gate: capturing: {describe(progress, since=self._first)}\n")
        self.stream.flush()

    def end(self) -> None:
        """End a live line (before another message, or when the capture stops)."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
