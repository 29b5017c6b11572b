"""Progress as plain lines, for a log without a terminal (CI).

A terminal gets tqdm bars; a CI log gets nothing from them but a wall of
carriage returns, so a long stage (embedding 9,000 chunks on a CPU, reranking
thousands of cases) would print nothing for minutes. :class:`Pace` says where
a stage is, at most once every ``every`` seconds: done, total, share, and the
time left.

The time left is measured from the rate *after* the first step: the first
batch carries the warm-up (the model's first forward pass, a cold cache), and a
rate that included it would be wrong many times over. Before a second step
there is no estimate, and none is printed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

__all__ = ["Pace", "Ticker"]

T = TypeVar("T")

EVERY_SECONDS = 15.0


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(round(seconds), 1)} s"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"


class Ticker:
    """One stage's progress: :meth:`advance` as work is done."""

    def __init__(
        self,
        what: str,
        total: int,
        unit: str,
        *,
        log: Callable[[str], object],
        every: float,
        clock: Callable[[], float],
    ) -> None:
        self.what, self.total, self.unit = what, total, unit
        self.done = 0
        self._log, self._every, self._clock = log, every, clock
        self._started = self._last = clock()
        self._first: tuple[float, int] | None = None  # when the first step ended, and its count

    def advance(self, n: int = 1) -> None:
        self.done += n
        now = self._clock()
        if self._first is None:
            self._first = (now, self.done)
        if now - self._last < self._every or self.done >= self.total:
            return
        self._last = now
        self._log(self.line(now))

    def line(self, now: float) -> str:
        share = 100 * self.done // max(self.total, 1)
        text = f"{self.what}: {self.done:,} of {self.total:,} {self.unit} ({share} %)"
        assert self._first is not None
        since, counted = self._first
        if self.done > counted and now > since:
            rate = (self.done - counted) / (now - since)
            text += f", about {_duration((self.total - self.done) / rate)} left"
        return text


class Pace:
    """Makes a :class:`Ticker` per stage; lines go to ``log``."""

    def __init__(
        self,
        log: Callable[[str], object],
        *,
        every: float = EVERY_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._log, self._every, self._clock = log, every, clock

    def track(self, what: str, total: int, unit: str) -> Ticker:
        return Ticker(what, total, unit, log=self._log, every=self._every, clock=self._clock)

    def each(self, items: Iterable[T], what: str, total: int, unit: str) -> Iterator[T]:
        """``items``, advancing a ticker by one per item."""
        ticker = self.track(what, total, unit)
        for item in items:
            yield item
            ticker.advance()
