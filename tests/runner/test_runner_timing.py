"""Stage timings are exclusive: a nested stage pauses its parent."""

from __future__ import annotations

from recall_gate.runner.timing import Stopwatch


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_nested_stages_are_excluded_from_their_parent() -> None:
    clock = FakeClock()
    watch = Stopwatch(clock)
    with watch.stage("ingest"):
        clock.now += 1.0  # ingest: 1 s
        with watch.stage("embed"):
            clock.now += 5.0  # embed: 5 s
            watch.run("load", lambda: setattr(clock, "now", clock.now + 2.0))  # load: 2 s
        clock.now += 0.5  # ingest again: 0.5 s
    with watch.stage("embed"):
        clock.now += 1.0  # embed accumulates: 6 s
    assert watch.ms == {"ingest": 1500.0, "embed": 6000.0, "load": 2000.0}
    assert sum(watch.ms.values()) == clock.now * 1000.0


def test_a_stage_is_closed_even_when_it_raises() -> None:
    clock = FakeClock()
    watch = Stopwatch(clock)
    try:
        with watch.stage("boom"):
            clock.now += 1.0
            raise RuntimeError
    except RuntimeError:
        pass
    with watch.stage("after"):
        clock.now += 1.0
    assert watch.ms == {"boom": 1000.0, "after": 1000.0}
