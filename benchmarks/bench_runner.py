"""Benchmarks of the built-in runner (``recall-gate run``): no asserts, a table.

    python benchmarks/bench_runner.py                 # reference set: cold, warm, overhead
    python benchmarks/bench_runner.py --scale         # + SYNTHETIC 10,000 cards / 5,000 cases
    python benchmarks/bench_runner.py --only-scale [--cards N --cases M] [--cache-dir D] [--stores]

Reference set (the config's KB and cases, k from the config):

* **cold**: empty embedding cache, new in-memory collection, model not loaded,
  torch / sentence-transformers / chromadb not yet imported (as in a fresh
  ``recall-gate run``), then scoring through ``score_case`` + ``aggregate``;
* **warm**: same cache, new collection (no model load: every text is cached);
* **reused**: warm, on a persistent store that a previous run filled;
* **pure encode**: the model encoding the same texts (chunks and queries)
  with the same batch size: the first call after loading, in a fresh process
  (what a minimal script pays), and a warmed model's best of two; the
  **overhead ratio** is a run's time divided by it.

Scale (``--scale``, slow): a generated synthetic corpus (benchmarks/scale_corpus.py),
each variant in its own process so peak memory (max RSS) is its own:
embedded cold (the model encodes everything, filling the cache), then with the
cache warm: embedded in memory, embedded on disk (first run, then a reusing
run), and a ``chroma run`` server on loopback (its own peak RSS reported too).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.scale_corpus import generate, write_corpus
from recall_gate.adapters.config import (
    CacheSettings,
    Config,
    RetrievalSettings,
    StoreSettings,
    load_config,
)
from recall_gate.adapters.dataset import load_cards, load_cases
from recall_gate.adapters.scoring import score_capture
from recall_gate.core.metrics import HIT
from recall_gate.core.records import Card, Case
from recall_gate.runner import STAGES, Embedder, PipelineRun, chunk_cards, run_pipeline
from recall_gate.runner.bm25 import BM25_DIR

REPO = Path(__file__).resolve().parent.parent
TARGET_HYBRID = 1.3  # hybrid ÷ dense wall time at 10k cards, warm caches
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def _collection(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def _run(
    config: Config, cards: Sequence[Card], cases: Sequence[Case], embedder: Embedder
) -> dict[str, Any]:
    """One capture plus scoring; stage timings in ms, with ``score`` and ``total``."""
    started = time.perf_counter()
    captured: PipelineRun = run_pipeline(
        config, cards, cases, progress=False, log=lambda _: None, embedder=embedder
    )
    before_score = time.perf_counter()
    aggregates = score_capture(
        enumerate(captured.artifacts, start=1),
        k=config.k,
        cases=cases,
        artifacts_source="the capture",
    ).aggregates
    done = time.perf_counter()
    timings = dict(captured.timings_ms)
    timings["score"] = (done - before_score) * 1000.0
    timings["total"] = (done - started) * 1000.0
    hit = aggregates.overall.get(HIT)
    return {
        "timings_ms": timings,
        "ingest": captured.ingest.outcome,
        "chunks_embedded": captured.ingest.chunks_embedded,
        "queries_embedded": captured.queries_embedded,
        "model_loaded": captured.model_loaded,
        "hit": None if hit is None else hit.mean,
        "n": 0 if hit is None else hit.n,
    }


def _table(title: str, columns: dict[str, dict[str, Any]], rows: Sequence[str]) -> None:
    names = list(columns)
    width = max(12, *(len(n) for n in names))
    print(f"\n{title}")
    print(f"  {'stage (ms)':<16}" + "".join(f"{n:>{width + 2}}" for n in names))
    for row in rows:
        cells = []
        for name in names:
            value = columns[name]["timings_ms"].get(row)
            cells.append(
                f"{value:>{width + 2},.0f}" if value is not None else f"{'-':>{width + 2}}"
            )
        print(f"  {row:<16}" + "".join(cells))


def bench_reference(config_path: Path, work: Path) -> None:
    config = load_config(config_path)
    assert config.kb is not None
    cards = [card for _, card in load_cards(config.kb)]
    cases = [case for _, case in load_cases(config.cases)]
    cache = CacheSettings(path=work / "cache")
    chunks = chunk_cards(cards, config.chunking)
    print(
        f"reference set: {len(cards)} cards → {len(chunks)} chunks, {len(cases)} cases, "
        f"k={config.k}, {config.retrieval.mode}, model {config.embedder.model}"
    )
    embedder = Embedder(config.embedder)
    cold = _run(
        config.model_copy(
            update={"cache": cache, "store": StoreSettings(collection=_collection("cold"))}
        ),
        cards,
        cases,
        embedder,
    )
    warm = _run(
        config.model_copy(
            update={"cache": cache, "store": StoreSettings(collection=_collection("warm"))}
        ),
        cards,
        cases,
        Embedder(config.embedder),
    )
    on_disk = StoreSettings(path=work / "chroma", collection=_collection("disk"))
    disk_config = config.model_copy(update={"cache": cache, "store": on_disk})
    _run(disk_config, cards, cases, Embedder(config.embedder))
    reused = _run(disk_config, cards, cases, Embedder(config.embedder))

    texts = [config.embedder.document_prefix + c.text for c in chunks]
    queries = [config.embedder.query_prefix + c.query for c in cases]
    first_call = _pure_encode_cold(config_path, work)
    warmed = []
    for _ in range(2):
        start = time.perf_counter()
        embedder.encode(texts)
        embedder.encode(queries)
        warmed.append((time.perf_counter() - start) * 1000.0)
    encode = min(warmed)

    _table(
        "reference set, per stage (exclusive wall-clock ms)",
        {"cold": cold, "warm (cache)": warm, "reused store": reused},
        [*STAGES, "score", "total"],
    )
    same = warm["hit"] == cold["hit"]
    print(f"\n  hit@{config.k} {cold['hit']:.3f} (n={cold['n']}); same when warm: {same}")
    print(f"  pure encode of the same {len(texts)} chunks + {len(queries)} queries:")
    print(f"    first call after loading, fresh process: {first_call:>9,.0f} ms")
    print(f"    warmed model, best of two:               {encode:>9,.0f} ms")
    total = cold["timings_ms"]["total"]
    load = cold["timings_ms"]["model_load"]
    own = total - load
    print(f"  model_load (importing torch + sentence-transformers, loading): {load:,.0f} ms")
    print("  overhead ratio = run time ÷ pure encode:")
    print(f"    cold run, all included ÷ first-call encode:      {total / first_call:.2f}")
    print(f"    cold run without model_load ÷ first-call encode: {own / first_call:.2f}")
    print(f"    cold run without model_load ÷ warmed encode:     {own / encode:.2f}")
    warm_total = warm["timings_ms"]["total"]
    print(f"    warm run (cache) ÷ first-call encode:            {warm_total / first_call:.2f}")


def _pure_encode_worker(config_path: Path) -> None:
    """Load the model (untimed), then time one encode of the reference texts."""
    config = load_config(config_path)
    assert config.kb is not None
    cards = [card for _, card in load_cards(config.kb)]
    cases = [case for _, case in load_cases(config.cases)]
    texts = [config.embedder.document_prefix + c.text for c in chunk_cards(cards, config.chunking)]
    queries = [config.embedder.query_prefix + c.query for c in cases]
    embedder = Embedder(config.embedder)
    embedder.load()
    start = time.perf_counter()
    embedder.encode(texts)
    embedder.encode(queries)
    print(json.dumps({"encode_ms": (time.perf_counter() - start) * 1000.0}))


def _pure_encode_cold(config_path: Path, work: Path) -> float:
    argv = [sys.executable, __file__, "--pure-encode-worker", "--config", str(config_path)]
    out = subprocess.run(argv, check=True, capture_output=True, text=True, cwd=work).stdout
    return float(json.loads(out.strip().splitlines()[-1])["encode_ms"])


# --- scale ---------------------------------------------------------------------


def _scale_worker(args: argparse.Namespace) -> None:
    """One scale variant in this process; prints one JSON line."""
    config = Config(
        k=5,
        retrieval=RetrievalSettings(mode=args.mode),
        cache=CacheSettings(path=args.cache),
        store=(
            StoreSettings(
                kind="server", host="127.0.0.1", port=args.port, collection=args.collection
            )
            if args.variant == "server"
            else StoreSettings(path=args.store_path, collection=args.collection)
        ),
    )
    cards = [card for _, card in load_cards(args.corpus / "kb.jsonl")]
    cases = [case for _, case in load_cases([args.corpus / "cases.jsonl"])]
    result = _run(config, cards, cases, Embedder(config.embedder))
    result["max_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(result))


def _worker(variant: str, corpus: Path, cache: Path, **extra: Any) -> dict[str, Any]:
    argv = [
        sys.executable,
        __file__,
        "--scale-worker",
        variant,
        "--corpus",
        str(corpus),
        "--cache",
        str(cache),
    ]
    for key, value in extra.items():
        argv += [f"--{key.replace('_', '-')}", str(value)]
    start = time.perf_counter()
    out = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    result = dict(json.loads(out.strip().splitlines()[-1]))
    result["timings_ms"]["process wall"] = (time.perf_counter() - start) * 1000.0
    return result


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _chroma_server(path: Path) -> Iterator[tuple[int, int]]:
    """`chroma run` on loopback; yields (port, pid)."""
    port = _free_port()
    chroma = Path(sys.executable).with_name("chroma")
    process = subprocess.Popen(
        [str(chroma), "run", "--path", str(path), "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        for _ in range(300):
            try:
                url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
                with urllib.request.urlopen(url, timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        yield port, process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)


def _peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def bench_scale(n_cards: int, n_cases: int, work: Path, *, cache: Path, stores: bool) -> None:
    """Dense vs hybrid at scale, cold and warm; with ``stores``, also on disk and a server.

    ``cache`` is the embedding (and BM25) cache: a folder kept between runs
    makes "dense, 1st" warm too (the model then never loads).
    """
    cards, cases = generate(n_cards, n_cases)
    corpus = work / "scale-corpus"
    write_corpus(cards, cases, corpus)
    n_chunks = len(chunk_cards(cards, Config().chunking))
    print(
        f"\nSYNTHETIC scale corpus: {n_cards:,} cards → {n_chunks:,} chunks, {n_cases:,} cases "
        "(generated; measures growth, not quality)"
    )
    columns: dict[str, dict[str, Any]] = {}
    columns["dense, 1st"] = _worker("embedded", corpus, cache, collection=_collection("c"))
    columns["dense, warm"] = _worker("embedded", corpus, cache, collection=_collection("w"))
    shutil.rmtree(cache / BM25_DIR, ignore_errors=True)
    columns["hybrid, BM25 cold"] = _worker(
        "embedded", corpus, cache, collection=_collection("h"), mode="hybrid"
    )
    columns["hybrid, warm"] = _worker(
        "embedded", corpus, cache, collection=_collection("hw"), mode="hybrid"
    )
    server_rss = None
    if stores:
        disk, name = work / "s-disk", _collection("disk")
        columns["on disk, 1st"] = _worker(
            "embedded", corpus, cache, collection=name, store_path=disk
        )
        columns["on disk, reuse"] = _worker(
            "embedded", corpus, cache, collection=name, store_path=disk
        )
        with _chroma_server(work / "server-db") as (port, pid):
            columns["server, warm"] = _worker(
                "server", corpus, cache, collection=_collection("srv"), port=port
            )
            server_rss = _peak_rss_mib(pid)
    _table("scale, per stage (ms)", columns, [*STAGES, "score", "total", "process wall"])
    print(
        "\n  peak RSS (MiB):  "
        + "  ".join(f"{k}: {v['max_rss_mib']:,.0f}" for k, v in columns.items())
    )
    if server_rss is not None:
        print(f"  chroma server process peak RSS: {server_rss:,.0f} MiB")
    first = columns["dense, 1st"]["timings_ms"]
    if columns["dense, 1st"]["model_loaded"]:
        encode = first["embed_kb"] + first["embed_queries"]
        print(
            f"  cold encode (chunks + queries): {encode:,.0f} ms; "
            f"cold total ÷ encode: {first['total'] / encode:.2f}"
        )
    dense = columns["dense, warm"]["timings_ms"]
    for name in ("hybrid, BM25 cold", "hybrid, warm"):
        hybrid = columns[name]["timings_ms"]
        print(
            f"  {name} ÷ dense, warm: {hybrid['total'] / dense['total']:.2f}× in-process, "
            f"{hybrid['process wall'] / dense['process wall']:.2f}× process wall "
            f"(target for warm: ≤ {TARGET_HYBRID:.1f}×)"
        )
    print("  hit@5 (synthetic): " + "  ".join(f"{k}: {v['hit']:.3f}" for k, v in columns.items()))


def bench_bm25(n_cards: int, n_cases: int, work: Path, *, sample: int = 300) -> None:
    """The hybrid side alone at scale (no model): what hybrid adds to a dense run.

    bm25s: index built (cold), saved, loaded (warm), then every case searched
    (its language's chunks, as ``retrieval.same_language``). rank-bm25 (the
    previous BM25), when installed: built, then ``sample`` cases searched and
    the per-query time extrapolated.
    """
    from recall_gate.runner.bm25 import Bm25Index
    from recall_gate.runner.tokenizer import tokenize

    cards, cases = generate(n_cards, n_cases)
    chunks = chunk_cards(cards, Config().chunking)
    languages = {c.id: c.language for c in cards}
    print(
        f"\nSYNTHETIC scale corpus: {n_cards:,} cards → {len(chunks):,} chunks, "
        f"{n_cases:,} cases: the BM25 side of hybrid, no model"
    )
    cache = work / "bm25-cache"
    shutil.rmtree(cache, ignore_errors=True)
    t = time.perf_counter()
    import bm25s  # noqa: F401  (its import, numba and scipy included, timed apart)

    imported = time.perf_counter() - t
    t = time.perf_counter()
    Bm25Index(chunks, languages, cache_dir=cache)
    built = time.perf_counter() - t
    t = time.perf_counter()
    index = Bm25Index(chunks, languages, cache_dir=cache)
    loaded = time.perf_counter() - t
    assert index.loaded
    t = time.perf_counter()
    for case in cases:
        index.search(case.query, n=50, language=case.language)
    searched = time.perf_counter() - t
    print(
        f"  bm25s: import {imported:.2f} s, index built (cold) {built:.2f} s, "
        f"loaded from the cache (warm) {loaded:.2f} s, {n_cases:,} searches {searched:.2f} s "
        f"({searched / n_cases * 1000:.2f} ms each)"
    )
    print(
        f"  hybrid adds to a warm dense run: {loaded + searched:.1f} s warm, "
        f"{built + searched:.1f} s with the BM25 cache cold (+ {imported:.1f} s import)"
    )
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:
        return
    t = time.perf_counter()
    okapi = BM25Okapi([tokenize(c.text) for c in chunks])
    old_built = time.perf_counter() - t
    t = time.perf_counter()
    for case in cases[:sample]:
        okapi.get_scores(tokenize(case.query))
    per_query = (time.perf_counter() - t) / min(sample, n_cases)
    print(
        f"  rank-bm25 (before): index built {old_built:.2f} s, {per_query * 1000:.1f} ms per "
        f"search (over {min(sample, n_cases)} cases) → {per_query * n_cases:.0f} s for "
        f"{n_cases:,}"
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Benchmark the built-in runner.")
    parser.add_argument("--config", type=Path, default=REPO / "recall-gate.yaml")
    parser.add_argument("--scale", action="store_true", help="also run the (slow) scale benchmark")
    parser.add_argument("--only-scale", action="store_true", help="run only the scale benchmark")
    parser.add_argument("--cards", type=int, default=10_000)
    parser.add_argument("--cases", type=int, default=5_000)
    parser.add_argument(
        "--cache-dir",
        type=Path,
        help="embedding + BM25 cache for the scale runs, kept between runs (default: a temp dir)",
    )
    parser.add_argument(
        "--stores", action="store_true", help="scale: also on disk and a chroma server"
    )
    parser.add_argument(
        "--bm25-only", action="store_true", help="scale: only the BM25 side of hybrid (no model)"
    )
    parser.add_argument("--mode", default="dense", help=argparse.SUPPRESS)
    parser.add_argument("--scale-worker", choices=("embedded", "server"), help=argparse.SUPPRESS)
    parser.add_argument("--pure-encode-worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--collection", help=argparse.SUPPRESS)
    parser.add_argument("--store-path", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.pure_encode_worker:
        _pure_encode_worker(args.config)
        return
    if args.scale_worker:
        args.variant = args.scale_worker
        _scale_worker(args)
        return
    work = Path(tempfile.mkdtemp(prefix="recall-gate-bench-"))
    try:
        if args.bm25_only:
            bench_bm25(args.cards, args.cases, work)
            return
        if not args.only_scale:
            bench_reference(args.config, work)
        if args.scale or args.only_scale:
            cache = args.cache_dir or work / "scale-cache"
            bench_scale(args.cards, args.cases, work, cache=cache, stores=args.stores)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
