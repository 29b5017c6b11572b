"""Latency summary: nearest-rank percentiles (a latency some query really had)."""

from __future__ import annotations

from recall_gate.core.latency import nearest_rank, summarize_latency


def test_percentiles_are_nearest_rank() -> None:
    # 20 values 1..20: p50 → rank ceil(0.5·20) = 10 → 10; p95 → rank ceil(0.95·20) = 19 → 19
    ordered = [float(v) for v in range(1, 21)]
    assert nearest_rank(ordered, 50) == 10.0
    assert nearest_rank(ordered, 95) == 19.0
    # one value is every percentile
    assert nearest_rank([7.0], 95) == 7.0


def test_groups_are_summarised_apart_and_untimed_captures_have_none() -> None:
    timed = [("en", "golden", 10.0), ("en", "golden", 30.0), ("de", "capability", 20.0)]
    latency = summarize_latency(timed)
    assert latency is not None
    assert (latency.overall.p50_ms, latency.overall.max_ms, latency.overall.n) == (20.0, 30.0, 3)
    assert latency.by_language["en"].p95_ms == 30.0
    assert latency.by_case_type["capability"].n == 1
    assert summarize_latency([]) is None
