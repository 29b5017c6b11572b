"""``--max-qps``: a token bucket shared by every lane of a capture.

The bucket holds one token and refills at ``rate`` tokens a second: each
request (a retry too) takes the token, so two requests start at least
``1 / rate`` seconds apart whatever the concurrency, and no 1-second window
ever holds more than ``rate`` of them. No burst: a production retriever sees
the capture as a steady trickle, never a spike. The spacing is measured from
the moment a request was let through, so a late wake-up never lets the next
one catch up.

A sync retriever runs in a worker thread, which wakes up some time after the
token was taken (milliseconds on a loaded machine, and not the same for each
thread): a late thread followed by an on-time one would start two requests
closer than ``1 / rate``. The thread therefore also holds its start
(:meth:`RateLimit.hold_start`) until ``1 / rate`` after the previous request
actually started, so the spacing holds where the retriever sees it.
"""

from __future__ import annotations

import asyncio
import threading
import time

__all__ = ["RateLimit"]


class RateLimit:
    """At most ``rate`` requests a second, spaced evenly, for one event loop."""

    def __init__(self, rate: float) -> None:
        if not rate > 0:
            raise ValueError(f"max_qps must be a positive number of requests a second, got {rate}")
        self.rate = rate
        self._interval = 1.0 / rate
        self._next = 0.0  # monotonic time the next request may start
        self._lock: asyncio.Lock | None = None
        self._last_start = float("-inf")  # monotonic time the last request started
        self._start_lock = threading.Lock()

    async def acquire(self) -> None:
        """Wait for the token (requests are let through in the order they asked)."""
        if self._lock is None:
            self._lock = asyncio.Lock()  # made on the capture's own loop
        async with self._lock:
            now = time.monotonic()
            # asyncio may wake a timer up to its clock resolution early: wait again.
            while now < self._next:
                await asyncio.sleep(self._next - now)
                now = time.monotonic()
            self._next = now + self._interval

    def hold_start(self) -> None:
        """In the thread that makes the request, right before it: wait until
        ``1 / rate`` after the previous request started (normally no wait; the
        token already spaced them), then record this start."""
        with self._start_lock:
            wait = self._last_start + self._interval - time.monotonic()
            while wait > 0:
                time.sleep(wait)
                wait = self._last_start + self._interval - time.monotonic()
            self._last_start = time.monotonic()
