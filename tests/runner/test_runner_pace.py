"""Plain progress lines for CI logs: at most one every few seconds, and a time left
measured from the rate after the first step (which carries the warm-up)."""

from __future__ import annotations

import numpy as np
from test_runner_cache import CountingEmbedder

from recall_gate.runner.embedder import embed_texts
from recall_gate.runner.pace import Pace


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_at_most_every_interval_with_count_share_and_time_left() -> None:
    clock, lines = Clock(), list[str]()
    ticker = Pace(lines.append, every=10, clock=clock).track("embedding", 1_000, "texts")
    clock.now = 40.0  # the first step: the warm-up, 40 s for 100 texts
    ticker.advance(100)
    assert lines == ["embedding: 100 of 1,000 texts (10 %)"]  # no rate yet: no estimate
    clock.now = 45.0
    ticker.advance(100)  # within the interval: nothing
    clock.now = 50.0
    ticker.advance(100)  # 200 texts in 10 s since the first step: 20/s, 700 left
    assert lines[1:] == ["embedding: 300 of 1,000 texts (30 %), about 35 s left"]


def test_the_warm_up_of_the_first_step_does_not_set_the_time_left() -> None:
    clock, lines = Clock(), list[str]()
    ticker = Pace(lines.append, every=1, clock=clock).track("rerank", 10_000, "cases")
    clock.now = 400.0  # 400 s for the first case: loading, compiling
    ticker.advance()
    clock.now = 410.0  # then 1,000 cases in 10 s
    ticker.advance(1_000)
    assert lines[-1] == "rerank: 1,001 of 10,000 cases (10 %), about 90 s left"


def test_the_last_step_prints_nothing_the_stage_report_follows() -> None:
    clock, lines = Clock(), list[str]()
    ticker = Pace(lines.append, every=1, clock=clock).track("x", 2, "texts")
    clock.now = 5.0
    ticker.advance(2)
    assert lines == []


def test_each_item_of_a_loop_advances_once() -> None:
    clock, lines = Clock(), list[str]()
    pace = Pace(lines.append, every=1, clock=clock)
    seen = []
    for item in pace.each(range(5), "hybrid", 5, "cases"):
        seen.append(item)
        clock.now += 1
    assert seen == [0, 1, 2, 3, 4]
    assert lines[-1].startswith("hybrid: 4 of 5 cases (80 %)")


def test_paced_embedding_encodes_in_slices_with_the_same_vectors() -> None:
    texts = [f"text {i}" * (i % 7 + 1) for i in range(600)]
    plain = embed_texts(texts, embedder=CountingEmbedder(), cache=None, progress=False)
    clock, lines = Clock(), list[str]()
    ticker = Pace(lines.append, every=0, clock=clock).track("embedding", len(texts), "texts")
    embedder = CountingEmbedder()
    paced = embed_texts(texts, embedder=embedder, cache=None, progress=False, pace=ticker)
    assert np.array_equal(paced.vectors, plain.vectors)
    assert ticker.done == 600
    assert [line.split(" (")[0] for line in lines] == [
        "embedding: 256 of 600 texts",
        "embedding: 512 of 600 texts",
    ]
