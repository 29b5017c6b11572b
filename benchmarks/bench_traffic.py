"""The query log's costs: the traffic diff of 10^5 logged queries, the snapshot's
bytes per query, and ``--max-qps`` pacing.

Synthetic, seeded data (no real queries): N logged queries (default 100,000)
in three languages with Zipf-skewed weights, each with a base top 5 of 5,000
card ids shaped like docs paths (``docs/en/guide/page-01234``), and a current
ranking where a third of the queries had one card re-chunked.

Rows (wall time, min / median / max of ``--repeat`` runs):

- ``diff`` — :func:`~recall_gate.core.traffic_diff.diff_traffic` alone (target ≤ 2 s
  for 10^5 queries on a 2-core machine);
- ``load + diff`` — what a PR check adds: read the log (JSONL, validated), read
  both snapshots, diff;
- ``snapshot`` — the bytes of the gzipped snapshot, per query (target ≤ 50).

``--qps`` runs the pacing check instead: ``capture`` of 500 logged queries at
``--max-qps 50`` with 8 lanes (an async retriever that records when each request
reached it): the wall time (≥ 10 s expected) and the most requests seen in any
1-second window (≤ 50).

Usage: ``python -m benchmarks traffic [--queries N] [--repeat R] [--qps]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from recall_gate.adapters.query_log import load_query_log
from recall_gate.adapters.query_snapshot import (
    QuerySnapshot,
    encode_snapshot,
    load_snapshot,
    write_snapshot,
)
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.traffic_diff import diff_traffic
from recall_gate.retrievers.capture import capture

__all__ = ["main"]

DIFF_TARGET_S = 2.0
BYTES_TARGET = 50
LANGUAGES = ("en", "es-419", "pt-BR")


def generate(
    n: int, *, seed: int = 28
) -> tuple[list[dict[str, object]], dict[str, tuple[str, ...]], dict[str, tuple[str, ...]]]:
    rng = random.Random(seed)
    cards = [f"docs/{LANGUAGES[i % 3]}/guide/page-{i:05d}" for i in range(5_000)]
    rows, base, current = [], {}, {}
    for i in range(n):
        qid = f"q-{i:06d}"
        rows.append(
            {
                "id": qid,
                "query": f"synthetic question number {i}",
                "language": LANGUAGES[rng.randrange(3)],
                "weight": max(1, round(100_000 / (i + 1) ** 1.1)),
            }
        )
        top = rng.sample(cards, 5)
        base[qid] = tuple(top)
        if rng.random() < 1 / 3:
            top = list(top)
            top[rng.randrange(5)] += "#rechunked"
        current[qid] = tuple(top)
    return rows, base, current


def _timed(what: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        what()
        times.append(time.perf_counter() - started)
    return times


def _row(name: str, times: list[float]) -> str:
    return (
        f"{name:<12} min {min(times):6.3f} s   median {statistics.median(times):6.3f} s   "
        f"max {max(times):6.3f} s"
    )


def run_diff(n: int, repeat: int) -> int:
    rows, base, current = generate(n)
    queries = [LoggedQuery.model_validate(r) for r in rows]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        log = root / "queries.jsonl"
        log.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        base_file = write_snapshot(root / "base.json", QuerySnapshot(k=5, rankings=base))
        current_file = write_snapshot(root / "pr.jsonl", QuerySnapshot(k=5, rankings=current))

        def load_and_diff() -> object:
            return diff_traffic(
                load_query_log(log),
                base=load_snapshot(base_file).rankings,
                current=load_snapshot(current_file).rankings,
                k=5,
            )

        diff_times = _timed(lambda: diff_traffic(queries, base=base, current=current, k=5), repeat)
        full_times = _timed(load_and_diff, repeat)
        data, zipped = encode_snapshot(QuerySnapshot(k=5, rankings=base))
    per_query = len(data) / n
    moved = diff_traffic(queries, base=base, current=current, k=5).overall.moved
    print(f"traffic diff: {n:,} logged queries, top 5 ({platform.python_version()})")
    print(_row("diff", diff_times))
    print(_row("load + diff", full_times))
    print(
        f"snapshot     {len(data):,} bytes {'gzipped' if zipped else 'plain'}, "
        f"{per_query:.1f} bytes per query (target ≤ {BYTES_TARGET})"
    )
    print(f"moved share (unweighted): {moved:.3f} (planted: about 0.333)")
    ok = statistics.median(diff_times) <= DIFF_TARGET_S * n / 100_000 and per_query <= BYTES_TARGET
    print("targets met" if ok else "TARGET MISSED")
    return 0 if ok else 1


def run_qps(n: int = 500, rate: float = 50, lanes: int = 8) -> int:
    stamps: list[float] = []

    async def search(query: str, k: int) -> list[str]:
        stamps.append(time.monotonic())
        await asyncio.sleep(0.02)
        return [f"card-{len(query) % 7}"]

    queries = [LoggedQuery(id=f"q{i:04d}", query=f"logged {i}") for i in range(n)]
    started = time.perf_counter()
    capture(search, [], k=1, queries=queries, concurrency=lanes, max_qps=rate)
    wall = time.perf_counter() - started
    stamps.sort()
    most, start = 0, 0
    for end, stamp in enumerate(stamps):
        while stamp - stamps[start] >= 1.0:
            start += 1
        most = max(most, end - start + 1)
    print(f"--max-qps {rate:g}, {n} queries, {lanes} lanes: {wall:.2f} s wall")
    print(f"most requests in any 1-second window: {most} (cap {rate:g})")
    return 0 if most <= rate else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks traffic", description=__doc__)
    parser.add_argument("--queries", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--qps", action="store_true", help="the --max-qps pacing check instead")
    args = parser.parse_args(argv)
    if args.qps:
        return run_qps()
    return run_diff(args.queries, args.repeat)
