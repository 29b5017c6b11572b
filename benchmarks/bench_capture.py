"""Capture concurrency: `recall-gate capture` over a retriever that sleeps, one run.

Synthetic data: N invented cases (default 600) and a retriever that sleeps a
fixed time per query (default 50 ms, as a vector database behind an embedding
API might) and returns deterministic card ids. Each row is the wall time of a
whole `recall-gate capture … --json` (in-process: load cases, ask every case,
write the artifacts, score, report), side by side with the peer every user
could write by hand: a `ThreadPoolExecutor.map` over the same function, which
does nothing but ask (no mapping, no retries, no file).

Rows: the sync retriever at --concurrency 1, 4, 16, 32; the same retriever as
`async def` (awaited, no threads) at 16; the hand loop with 16 threads. The
run fails unless every capture scores the same (the results' aggregates are
compared) and reports the ratio concurrency 16 ÷ concurrency 1, whose target
is at most 1/8.

Usage: ``python -m benchmarks capture [--cases N] [--sleep-ms MS] [--quick]``.
"""

from __future__ import annotations

import argparse
import io
import json
import platform
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from recall_gate.cli import main as cli_main

__all__ = ["main"]

TARGET_RATIO = 1 / 8  # --concurrency 16 ÷ --concurrency 1, wall time

RETRIEVER = """
import asyncio, time

SLEEP = {sleep}

def answer(query, k):
    i = int(query.rsplit(" ", 1)[1])
    return [f"card-{{(i + j) % 11}}" for j in range(k)]

def search(query, k):
    time.sleep(SLEEP)
    return answer(query, k)

async def asearch(query, k):
    await asyncio.sleep(SLEEP)
    return answer(query, k)
"""


def write_data(root: Path, cases: int, sleep: float) -> None:
    """The cases as JSONL (the format for large generated suites), the config, the retriever."""
    lines = [
        json.dumps(
            {
                "id": f"c{i:05d}",
                "language": ("en", "de", "fr")[i % 3],
                "case_type": "golden",
                "query": f"synthetic question {i}",
                "must_cite_one_of": [f"card-{i % 11}"],
            }
        )
        for i in range(cases)
    ]
    (root / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "recall-gate.yaml").write_text("k: 5\ncases: cases.jsonl\n", encoding="utf-8")
    (root / "bench_retriever.py").write_text(RETRIEVER.format(sleep=sleep), encoding="utf-8")


def capture(root: Path, spec: str, concurrency: int, name: str) -> tuple[float, dict[str, object]]:
    argv = ["capture", "--retriever", spec, "--out", f"{name}.jsonl", "--json", f"{name}.json"]
    argv += ["--concurrency", str(concurrency), "--quiet"]
    started = time.perf_counter()
    code = cli_main(argv, {}, stdout=io.StringIO(), stderr=io.StringIO(), cwd=root)
    wall = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"capture {name} exited {code}")
    aggregates = json.loads((root / f"{name}.json").read_text())["aggregates"]
    return wall, aggregates


def hand_loop(cases: int, sleep: float, threads: int) -> float:
    def search(i: int) -> list[str]:
        time.sleep(sleep)
        return [f"card-{(i + j) % 11}" for j in range(5)]

    started = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(search, range(cases)))
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks capture", description=__doc__)
    parser.add_argument("--cases", type=int, default=600)
    parser.add_argument("--sleep-ms", type=float, default=50.0)
    parser.add_argument("--quick", action="store_true", help="200 cases")
    args = parser.parse_args(argv)
    cases = 200 if args.quick else args.cases
    sleep = args.sleep_ms / 1000
    print(
        f"capture concurrency: {cases} synthetic cases, a retriever sleeping "
        f"{args.sleep_ms:g} ms per query; Python {platform.python_version()}, "
        f"{platform.machine()}"
    )
    rows: list[tuple[str, float]] = []
    results = []
    with tempfile.TemporaryDirectory(prefix="recall-gate-bench-capture.") as folder:
        root = Path(folder)
        write_data(root, cases, sleep)
        sys.path.insert(0, str(root))
        try:
            for concurrency in (1, 4, 16, 32):
                wall, aggregates = capture(
                    root, "bench_retriever:search", concurrency, f"sync-{concurrency}"
                )
                rows.append((f"capture --concurrency {concurrency} (threads)", wall))
                results.append(aggregates)
            wall, aggregates = capture(root, "bench_retriever:asearch", 16, "async-16")
            rows.append(("capture --concurrency 16 (async def, awaited)", wall))
            results.append(aggregates)
        finally:
            sys.path.remove(str(root))
            sys.modules.pop("bench_retriever", None)
    rows.append(
        ("peer: ThreadPoolExecutor.map, 16 threads (asks only)", hand_loop(cases, sleep, 16))
    )
    if any(r != results[0] for r in results):
        print("FAIL: the captures do not score the same")
        return 1
    ideal = cases * sleep
    width = max(len(name) for name, _ in rows)
    print(f"\n{'path':<{width}}  {'wall':>8}  {'cases/s':>8}  {'÷ sequential sleep':>18}")
    for name, wall in rows:
        print(f"{name:<{width}}  {wall:7.2f}s  {cases / wall:8.1f}  {wall / ideal:18.3f}")
    one, sixteen = rows[0][1], rows[2][1]
    ratio = sixteen / one
    peer = rows[-1][1]
    print(
        f"\nratio --concurrency 16 ÷ --concurrency 1: {ratio:.3f} (target ≤ {TARGET_RATIO:.3f}); "
        f"capture at 16 ÷ the hand loop at 16: {sixteen / peer:.2f}x; every capture scores the same"
    )
    return 0 if ratio <= TARGET_RATIO else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
