"""The capture loop through `recall_gate.capture(...)`: bounded concurrency, async
retrievers awaited natively, artifacts in case order, retries of transient
failures only, failures recorded within a budget. Synthetic cases and retrievers;
no test here measures time."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import threading
from collections import Counter

import pytest

from recall_gate import capture
from recall_gate.core.records import Case
from recall_gate.errors import InputError
from recall_gate.retrievers.capture import Progress
from recall_gate.retrievers.failures import is_transient


def synthetic_cases(n: int) -> list[Case]:
    """n invented cases; case i's gold is card `card-{i % 7}`."""
    return [
        Case(
            id=f"c{i:04d}",
            language="en",
            case_type="golden",
            query=f"synthetic question {i}",
            must_cite_one_of=(f"card-{i % 7}",),
        )
        for i in range(n)
    ]


def answer(query: str, k: int) -> list[str]:
    """A deterministic retriever: the gold card first for even cases, second for odd."""
    i = int(query.rsplit(" ", 1)[1])
    cards = [f"card-{(i + j) % 7}" for j in range(k)]
    return cards if i % 2 == 0 else [cards[1], cards[0], *cards[2:]]


def without_latency(text: str) -> str:
    """The capture's lines without their timing (and which function answered)."""
    lines = [json.loads(line) for line in text.splitlines()]
    for line in lines:
        line.pop("latency_ms", None)
        line.pop("retriever", None)
    return "\n".join(json.dumps(line, sort_keys=True) for line in lines)


class InFlight:
    """Counts the calls running at once (thread-safe)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.order: list[str] = []

    def enter(self, query: str) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.order.append(query)

    def leave(self) -> None:
        with self.lock:
            self.now -= 1


def test_artifacts_come_back_in_case_order_whatever_the_completion_order() -> None:
    cases = synthetic_cases(60)
    rng = random.Random(7)
    delays = {c.query: rng.uniform(0, 0.01) for c in cases}
    done_order: list[str] = []

    def search(query: str, k: int) -> list[str]:
        threading.Event().wait(delays[query])
        done_order.append(query)
        return answer(query, k)

    parallel = capture(search, cases, k=3, concurrency=8)
    sequential = capture(answer, cases, k=3, concurrency=1)
    assert [a.case_id for a in parallel.artifacts] == [c.id for c in cases]
    assert without_latency(parallel.to_jsonl()) == without_latency(sequential.to_jsonl())
    assert all(a.latency_ms is not None for a in parallel.artifacts)


def test_at_most_concurrency_cases_are_in_flight() -> None:
    flight = InFlight()
    release = threading.Barrier(4, timeout=10)

    def search(query: str, k: int) -> list[str]:
        flight.enter(query)
        with contextlib.suppress(threading.BrokenBarrierError):
            release.wait()  # the first four meet here: four in flight at once
        flight.leave()
        return answer(query, k)

    capture(search, synthetic_cases(4), k=2, concurrency=4)
    assert flight.most == 4
    flight2 = InFlight()

    def counted(query: str, k: int) -> list[str]:
        flight2.enter(query)
        threading.Event().wait(0.002)
        flight2.leave()
        return answer(query, k)

    capture(counted, synthetic_cases(40), k=2, concurrency=3)
    assert flight2.most <= 3


def test_concurrency_1_asks_one_case_at_a_time_in_case_order() -> None:
    flight = InFlight()

    def search(query: str, k: int) -> list[str]:
        flight.enter(query)
        flight.leave()
        return answer(query, k)

    cases = synthetic_cases(25)
    capture(search, cases, k=2, concurrency=1)
    assert flight.most == 1
    assert flight.order == [c.query for c in cases]


def test_an_async_def_retriever_is_awaited_natively_with_bounded_concurrency() -> None:
    threads: set[str] = set()
    flight = InFlight()

    async def search(query: str, k: int) -> list[str]:
        threads.add(threading.current_thread().name)
        flight.enter(query)
        await asyncio.sleep(0.001)
        flight.leave()
        return answer(query, k)

    cases = synthetic_cases(30)
    captured = capture(search, cases, k=3, concurrency=5)
    assert without_latency(captured.to_jsonl()) == without_latency(
        capture(answer, cases, k=3).to_jsonl()
    )
    assert len(threads) == 1  # one event loop, no worker threads
    assert not any(name.startswith("recall-gate-capture-") for name in threads)
    assert flight.most == 5


def test_capture_works_when_called_inside_a_running_event_loop() -> None:
    """A notebook runs its cells in an event loop: capture() still just works."""

    async def cell() -> int:
        return len(capture(answer, synthetic_cases(5), k=2).artifacts)

    assert asyncio.run(cell()) == 5


def test_a_retriever_failing_5_percent_of_queries_once_is_retried_with_no_case_lost() -> None:
    calls: Counter[str] = Counter()
    lock = threading.Lock()

    def flaky(query: str, k: int) -> list[str]:
        with lock:
            calls[query] += 1
            first = calls[query] == 1
        if first and int(query.rsplit(" ", 1)[1]) % 20 == 0:
            raise ConnectionError("connection reset by peer")
        return answer(query, k)

    cases = synthetic_cases(100)
    captured = capture(flaky, cases, k=3, concurrency=8)
    assert [a.case_id for a in captured.artifacts] == [c.id for c in cases]
    assert captured.failed == ()
    assert sum(calls.values()) == 105  # 5 % asked twice
    assert without_latency(captured.to_jsonl()) == without_latency(
        capture(answer, cases, k=3).to_jsonl()
    )


def test_an_error_that_is_not_transient_is_not_retried_and_names_the_case() -> None:
    calls: Counter[str] = Counter()

    def broken(query: str, k: int) -> list[str]:
        calls[query] += 1
        if query.endswith(" 3"):
            raise ValueError("index has no field 'embedding'")
        return answer(query, k)

    with pytest.raises(InputError) as raised:
        capture(broken, synthetic_cases(10), k=2, concurrency=1)
    assert str(raised.value).startswith(
        "case 'c0003': the retriever raised ValueError: index has no field 'embedding' "
        "(query 'synthetic question 3')"
    )
    assert calls["synthetic question 3"] == 1


def test_the_first_failing_case_in_case_order_is_named_whatever_the_concurrency() -> None:
    def always(query: str, k: int) -> list[str]:
        raise ValueError("down")

    for concurrency in (1, 4, 16):
        with pytest.raises(InputError, match=r"^case 'c0000': the retriever raised ValueError"):
            capture(always, synthetic_cases(40), k=2, concurrency=concurrency)


def test_failures_within_max_failures_are_recorded_and_score_as_misses() -> None:
    def broken(query: str, k: int) -> list[str]:
        if query.endswith((" 3", " 7")):
            raise ValueError("bad query")
        return answer(query, k)

    captured = capture(broken, synthetic_cases(10), k=2, max_failures=2, concurrency=3)
    failed = {a.case_id: a for a in captured.failed}
    assert sorted(failed) == ["c0003", "c0007"]
    assert failed["c0003"].retrieved == ()
    assert failed["c0003"].error == "raised ValueError: bad query"
    with pytest.raises(InputError, match=r"^case 'c0007': .*1 failure\(s\) allowed"):
        capture(broken, synthetic_cases(10), k=2, max_failures=1, concurrency=1)


def test_retriever_code_that_exits_stops_the_capture_whatever_max_failures() -> None:
    def exits(query: str, k: int) -> list[str]:
        raise SystemExit(0)

    with pytest.raises(InputError, match=r"^case 'c0000': the retriever called sys.exit\(0\)"):
        capture(exits, synthetic_cases(5), k=2, max_failures=10)


def test_a_hanging_query_times_out_and_names_the_case() -> None:
    hang = threading.Event()

    def hangs(query: str, k: int) -> list[str]:
        if query.endswith(" 2"):
            hang.wait(30)  # released below: the abandoned thread ends with the test
        return answer(query, k)

    try:
        with pytest.raises(InputError) as raised:
            capture(hangs, synthetic_cases(4), k=2, timeout=0.2, retries=1, concurrency=2)
    finally:
        hang.set()
    assert str(raised.value).startswith(
        "case 'c0002': the retriever timed out after 0.2 s (query 'synthetic question 2'; "
        "2 attempts)"
    )


def test_a_hanging_async_query_times_out_and_names_the_case() -> None:
    async def hangs(query: str, k: int) -> list[str]:
        if query.endswith(" 1"):
            await asyncio.sleep(30)
        return answer(query, k)

    with pytest.raises(InputError, match=r"^case 'c0001': the retriever timed out after 0.1 s"):
        capture(hangs, synthetic_cases(3), k=2, timeout=0.1, retries=0)


def test_a_cancellation_raised_inside_an_async_retriever_is_a_failed_case_naming_it() -> None:
    async def cancelled(query: str, k: int) -> list[str]:
        if query.endswith(" 1"):
            raise asyncio.CancelledError  # a task of the retriever's own was cancelled
        return answer(query, k)

    with pytest.raises(
        InputError, match=r"^case 'c0001': the retriever raised CancelledError: a task inside"
    ) as caught:
        capture(cancelled, synthetic_cases(3), k=2, retries=0)
    assert "--max-failures" in caught.value.fix


def test_a_cancellation_inside_the_retriever_counts_against_the_failure_budget() -> None:
    async def cancelled(query: str, k: int) -> list[str]:
        if query.endswith(" 1"):
            raise asyncio.CancelledError
        return answer(query, k)

    captured = capture(cancelled, synthetic_cases(3), k=2, max_failures=1)
    [failed] = captured.failed
    assert failed.case_id == "c0001"
    assert failed.error == "raised CancelledError: a task inside the retriever was cancelled"


def test_progress_counts_every_case_and_failure() -> None:
    seen: list[Progress] = []

    def broken(query: str, k: int) -> list[str]:
        if query.endswith(" 4"):
            raise ValueError("bad")
        return answer(query, k)

    capture(broken, synthetic_cases(9), k=2, max_failures=1, on_progress=seen.append)
    assert [(p.done, p.failed) for p in seen][-1] == (9, 1)
    assert [p.done for p in seen] == list(range(1, 10))
    assert {p.total for p in seen} == {9}


class _Response:
    def __init__(self, status: int, headers: dict[str, str] | None = None) -> None:
        self.status_code = status
        self.headers = headers or {}


class HTTPError(Exception):
    """Shaped like requests.HTTPError / httpx.HTTPStatusError: a response with a status."""

    def __init__(self, status: int) -> None:
        super().__init__(f"{status} error")
        self.response = _Response(status)


class APIStatusError(Exception):
    """Shaped like openai.APIStatusError: the status on the exception."""

    def __init__(self, status: int) -> None:
        super().__init__(f"Error code: {status}")
        self.status_code = status


class RateLimitError(Exception):
    """Named like openai.RateLimitError."""


class ReadTimeout(OSError):
    """Named like requests.exceptions.ReadTimeout."""


TRANSIENT = {
    "HTTP 429 on the response": (HTTPError(429), True),
    "HTTP 503 on the response": (HTTPError(503), True),
    "HTTP 500 on the exception": (APIStatusError(500), True),
    "a rate limit error by name": (RateLimitError("slow down"), True),
    "a read timeout by name": (ReadTimeout("timed out"), True),
    "a builtin connection error": (ConnectionResetError("reset"), True),
    "a builtin timeout": (TimeoutError(), True),
    "HTTP 404": (HTTPError(404), False),
    "HTTP 401 on the exception": (APIStatusError(401), False),
    "a value error": (ValueError("bad"), False),
    "sys.exit": (SystemExit(0), False),
}


@pytest.mark.parametrize(("error", "transient"), TRANSIENT.values(), ids=TRANSIENT.keys())
def test_transient_failures_are_recognised_by_shape(error: BaseException, transient: bool) -> None:
    assert is_transient(error) is transient
