"""The capture loop: every case asked with bounded concurrency, retries and a timeout.

:func:`run_cases` takes the cases and two ways of asking one of them — a plain
function (run in a pool of worker threads) and, when the retriever is natively
async, a coroutine function (awaited on one event loop) — and hands each
:class:`Answer` to ``on_answer`` as it completes, in completion order; the
caller puts them back in case order. What asking one case means (which k, how
deep) is the caller's: this module only schedules, times, retries and stops.

- At most ``concurrency`` cases are in flight (1 = one at a time).
- A transient failure (:func:`~recall_gate.retrievers.failures.is_transient`:
  connection errors, timeouts, HTTP 429/5xx) is asked again up to ``retries``
  times after an exponential backoff with jitter (``Retry-After`` honoured);
  any other exception fails the case at once.
- ``max_qps`` (optional) caps the requests a second across all lanes, retries
  included (:class:`~recall_gate.retrievers.rate_limit.RateLimit`).
- ``timeout`` bounds each attempt. A sync retriever that hangs cannot be
  stopped from Python: its worker thread is abandoned (a daemon, so it never
  holds the process open) and replaced.
- A case that still fails is an :class:`Answer` with ``error`` set; the
  caller decides whether that stops the capture. Retriever code that exits
  (``SystemExit``, ``KeyboardInterrupt``, any other ``BaseException``) is a
  :class:`RetrieverExit`: it stops the capture whatever the failure budget.
"""

from __future__ import annotations

import asyncio
import queue
import random
import threading
import time
from collections.abc import Awaitable, Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from recall_gate.core.pacing import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from recall_gate.core.records import Case
from recall_gate.errors import RecallGateError
from recall_gate.retrievers.failures import describe, is_transient
from recall_gate.retrievers.rate_limit import RateLimit

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_RETRIES",
    "DEFAULT_TIMEOUT",
    "Answer",
    "Pacing",
    "RetrieverExit",
    "run_cases",
]

T = TypeVar("T")

_BACKOFF_BASE = 0.5  # seconds before the first retry, doubled each time
_BACKOFF_CAP = 20.0
_RETRY_AFTER_CAP = 60.0


@dataclass(frozen=True)
class Pacing:
    """How the cases are asked: ``concurrency`` in flight, ``retries`` per case
    for transient failures, ``timeout`` seconds per attempt (None: no limit),
    at most ``max_qps`` requests a second (None: no limit)."""

    concurrency: int = DEFAULT_CONCURRENCY
    retries: int = DEFAULT_RETRIES
    timeout: float | None = DEFAULT_TIMEOUT
    backoff: float = _BACKOFF_BASE
    max_qps: float | None = None

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, got {self.concurrency}")
        if self.retries < 0:
            raise ValueError(f"retries must be 0 or more, got {self.retries}")
        if self.timeout is not None and not self.timeout > 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {self.timeout}")
        if self.max_qps is not None:
            RateLimit(self.max_qps)  # raises for a rate that is not positive


@dataclass(frozen=True)
class Answer(Generic[T]):
    """One case's outcome: what the retriever returned, or why it failed."""

    index: int  # the case's position in the cases given
    case: Case
    result: T | None
    error: str | None  # "raised ConnectionError: …", "timed out after 5 s"
    latency_ms: float  # wall time of the attempt that answered (or of the last one)
    attempts: int


class RetrieverExit(Exception):
    """Retriever code exited or raised a ``BaseException`` while asking ``case``."""

    def __init__(self, case: Case, what: str) -> None:
        super().__init__(what)
        self.case = case
        self.what = what


class _Failure:
    """An exception caught in retriever code, carried as a value (a ``BaseException``
    must not travel through asyncio's machinery, which re-raises it out of the loop)."""

    __slots__ = ("error",)

    def __init__(self, error: BaseException) -> None:
        self.error = error


class _TimedOut(Exception):
    pass


class CancelledError(Exception):
    """``asyncio.CancelledError`` raised inside retriever code, not by recall-gate."""


class _Workers:
    """Daemon threads that run the sync calls: a hung call never holds the process."""

    def __init__(self, size: int) -> None:
        self._jobs: queue.SimpleQueue[tuple[Callable[[], Any], Future[Any]] | None] = (
            queue.SimpleQueue()
        )
        self._threads = 0
        for _ in range(size):
            self.add_thread()

    def add_thread(self) -> None:
        self._threads += 1
        name = f"recall-gate-capture-{self._threads}"
        threading.Thread(target=self._work, name=name, daemon=True).start()

    def submit(self, call: Callable[[], Any]) -> Future[Any]:
        future: Future[Any] = Future()
        self._jobs.put((call, future))
        return future

    def _work(self) -> None:
        while (job := self._jobs.get()) is not None:
            call, future = job
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(call())
            except BaseException as exc:
                future.set_result(_Failure(exc))

    def close(self) -> None:
        for _ in range(self._threads):
            self._jobs.put(None)


def _retry_after(exc: BaseException) -> float | None:
    """Seconds a 429/503 answer asks to wait (``Retry-After``), when it says."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    try:
        value = headers.get("retry-after") if headers is not None else None
        return None if value is None else min(float(value), _RETRY_AFTER_CAP)
    except (AttributeError, TypeError, ValueError):
        return None


def _backoff(pacing: Pacing, attempt: int, exc: BaseException, rng: random.Random) -> float:
    """Exponential backoff with jitter: half the step fixed, half random."""
    waited = _retry_after(exc)
    if waited is not None:
        return waited
    step: float = min(_BACKOFF_CAP, pacing.backoff * 2.0 ** (attempt - 1))
    return step / 2 + rng.uniform(0, step / 2)


def _seconds(value: float) -> str:
    return f"{value:g} s"


class _Asking(Generic[T]):
    """One capture's asking: an attempt (awaited or in a worker thread), a case
    with its retries, and a worker taking the next case until told to stop."""

    def __init__(
        self,
        cases: Sequence[Case],
        *,
        ask: Callable[[Case], T],
        aask: Callable[[Case], Awaitable[T]] | None,
        pacing: Pacing,
        on_answer: Callable[[Answer[T]], None],
        seed: int | None,
    ) -> None:
        self.ask, self.aask, self.pacing, self.on_answer = ask, aask, pacing, on_answer
        self.rng = random.Random(seed)  # noqa: S311 - jitter, not a secret
        self.workers = None if aask is not None else _Workers(self.lanes(len(cases)) or 1)
        self.limit = None if pacing.max_qps is None else RateLimit(pacing.max_qps)
        self.pending = iter(enumerate(cases))
        self.stopped: list[tuple[int, Exception]] = []

    def lanes(self, cases: int) -> int:
        return min(self.pacing.concurrency, cases)

    async def attempt(self, case: Case) -> Any:
        if self.aask is not None:
            return await _guarded(self.aask(case))
        workers = self.workers
        assert workers is not None
        limit = self.limit

        def call() -> Any:
            if limit is not None:
                limit.hold_start()  # the spacing, where the retriever sees it
            return self.ask(case)

        future = workers.submit(call)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            if not future.done():
                workers.add_thread()  # this one is stuck in the retriever
            raise

    async def one(self, index: int, case: Case) -> Answer[T]:
        pacing = self.pacing
        tries = 0
        while True:
            tries += 1
            if self.limit is not None:
                await self.limit.acquire()
            started = time.perf_counter()
            try:
                outcome = await asyncio.wait_for(self.attempt(case), pacing.timeout)
            except TimeoutError:
                outcome = _Failure(_TimedOut(f"timed out after {_seconds(pacing.timeout or 0)}"))
            latency = (time.perf_counter() - started) * 1000
            if not isinstance(outcome, _Failure):
                return Answer(index, case, outcome, None, latency, tries)
            error = outcome.error
            if not isinstance(error, Exception):
                raise RetrieverExit(case, describe(error))
            if isinstance(error, RecallGateError):
                raise error  # recall-gate's own verdict on the answer (an unmappable id)
            transient = isinstance(error, _TimedOut) or is_transient(error)
            if not transient or tries > pacing.retries:
                what = str(error) if isinstance(error, _TimedOut) else describe(error)
                return Answer(index, case, None, what, latency, tries)
            await asyncio.sleep(_backoff(pacing, tries, error, self.rng))

    async def worker(self) -> None:
        for index, case in self.pending:
            if self.stopped:
                return
            try:
                self.on_answer(await self.one(index, case))
            except Exception as exc:
                self.stopped.append((index, exc))
                return

    async def run(self, count: int) -> None:
        tasks = [asyncio.ensure_future(self.worker()) for _ in range(self.lanes(count))]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            if self.workers is not None:
                self.workers.close()
        if self.stopped:
            # The cases in flight finish first, so the case named is the first to fail
            # in case order, whatever the completion order.
            raise min(self.stopped, key=lambda pair: pair[0])[1]


async def run_cases(
    cases: Sequence[Case],
    *,
    ask: Callable[[Case], T],
    aask: Callable[[Case], Awaitable[T]] | None = None,
    pacing: Pacing,
    on_answer: Callable[[Answer[T]], None],
    seed: int | None = None,
) -> None:
    """Ask every case (``aask`` awaited when given, else ``ask`` in a thread) and pass
    each :class:`Answer` to ``on_answer`` as it completes.

    Stops starting cases at the first exception ``on_answer`` raises (the
    caller's failure budget) or at a :class:`RetrieverExit`; once the cases in
    flight are done, raises the one of the earliest case.
    """
    asking = _Asking(cases, ask=ask, aask=aask, pacing=pacing, on_answer=on_answer, seed=seed)
    await asking.run(len(cases))


async def _guarded(call: Awaitable[T]) -> T | _Failure:
    """Await retriever code, turning what it raises (``SystemExit`` too) into a value;
    a cancellation from the timeout goes through."""
    try:
        return await call
    except asyncio.CancelledError as exc:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise  # ours: the timeout, or the run stopping
        # The retriever's own (a task of its that was cancelled): this case failed,
        # like any exception it raises — named, within the failure budget.
        return _Failure(CancelledError(str(exc) or "a task inside the retriever was cancelled"))
    except BaseException as exc:
        return _Failure(exc)
