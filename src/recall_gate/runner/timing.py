"""Exclusive per-stage wall-clock timings.

The runner's stages nest (the model loads lazily in the middle of embedding,
embedding happens inside ingest), yet the report should add up: a nested
stage pauses its parent, so each millisecond is counted in exactly one stage
and the stages sum to the time spent inside them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["Stopwatch"]

T = TypeVar("T")


@dataclass
class _Frame:
    name: str
    resumed_at: float


class Stopwatch:
    """Milliseconds per stage name, with nested stages excluded from their parent."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self._clock = clock
        self._stack: list[_Frame] = []
        self.ms: dict[str, float] = {}

    def _add(self, name: str, seconds: float) -> None:
        self.ms[name] = self.ms.get(name, 0.0) + seconds * 1000.0

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        """Time the block under ``name``; an enclosing stage is paused meanwhile."""
        now = self._clock()
        if self._stack:
            parent = self._stack[-1]
            self._add(parent.name, now - parent.resumed_at)
        self._stack.append(_Frame(name, now))
        try:
            yield
        finally:
            end = self._clock()
            frame = self._stack.pop()
            self._add(name, end - frame.resumed_at)
            if self._stack:
                self._stack[-1].resumed_at = end

    def run(self, name: str, func: Callable[[], T]) -> T:
        """Call ``func`` inside :meth:`stage` (for callbacks)."""
        with self.stage(name):
            return func()
