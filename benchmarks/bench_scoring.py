"""Scoring speed: recall-gate's `score` against pytrec_eval, ranx and toolkit-rag-quality,
same data, one run.

For each size (default 2·10^5 and 10^6 cases), every path runs in its own
subprocess (peak RSS per path from ``os.wait4``) on the same seeded artifacts
JSONL (``benchmarks.gen_cases``):

* ``score --json``: ``recall_gate.cli.main(["score", "--artifacts", F, "--k", K,
  "--json", OUT])`` in-process: parse + validate + label + score + aggregate,
  every case written to the results file, and the report (what the action runs);
* ``score`` (streamed): the same without ``--json`` (no results file);
* ``pytrec_eval`` / ``ranx`` / ``toolkit-rag-quality`` (a peer CI tool, pure
  Python): parse the same JSONL, build their qrels and run
  (card id = ``parent_id`` else ``id``, first occurrence kept, score = rank
  order; cases with empty gold left out, as recall-gate leaves them out of
  every mean) and evaluate hit / recall / nDCG at k;
* two floors, no scoring at all: ``validate-floor`` reads the lines and
  decodes each into the capture line's Struct as ``score`` does (msgspec: types,
  constraints and unknown fields checked; what any ``score`` run costs at
  least), ``parse-floor`` reads them and parses each with the peers' parser
  (what any path that reads JSONL in Python costs).

The peers parse with orjson (the fastest parser here); recall-gate decodes and
validates each line in one pass with msgspec. Import and interpreter
start-up are outside the timed span (reported apart: ``python -X importtime``
and the wall time of each model-free command's ``--help``); ranx's JIT is
warmed up first. The tools' overall means must agree within 1e-6, or the run
fails.

Usage: ``python -m benchmarks scoring [--cases N [N ...] | --quick | --startup-only]
[--repeat R]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from benchmarks.gen_cases import write_artifacts

__all__ = ["main"]

DEFAULT_CASES = (200_000, 1_000_000)
QUICK_CASES = (50_000,)
SEED = 20240601
GENERATOR_VERSION = 1  # bump when gen_cases changes its output
AGREEMENT = 1e-6
TARGET_JSON_RATIO = 0.5  # score --json ÷ pytrec_eval time, at every size
TARGET_TOOLKIT_RATIO = 0.4  # score --json ÷ toolkit-rag-quality time, at every size
TARGET_FLOOR_RATIO = 0.2  # the validation floor ÷ pytrec_eval time
TARGET_RSS_MB = 150.0  # score --json peak RSS at 10^6 cases
TARGET_STARTUP_S = 0.15  # `recall-gate CMD --help` of every command, whole process
TARGET_SMALL_SCORE_S = 0.3  # `recall-gate score` of a 100-case capture, whole process
SMALL_CASES = 100
MB = 1024 * 1024
HEAVY = ("torch", "sentence_transformers", "chromadb", "bm25s")

PATHS = (
    "score-json",
    "score",
    "pytrec_eval",
    "ranx",
    "toolkit-rag-quality",
    "validate-floor",
    "parse-floor",
    "scoring-loop",
)
METRICS = ("hit", "recall", "ndcg")


# --- workers (each runs in its own subprocess) ---------------------------------


def _json_loads(parser: str) -> Callable[[str], Any]:
    if parser == "orjson":
        import orjson

        return orjson.loads
    return json.loads


def _lines(path: Path) -> Iterator[str]:
    with path.open(encoding="utf-8") as handle:
        yield from handle


def _peer_inputs(
    path: Path, loads: Callable[[str], Any]
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    """qrels and run as both peers take them: gold-labelled cases only."""
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for line in _lines(path):
        obj = loads(line)
        gold = obj["must_cite_one_of"]
        if not gold:
            continue
        case_id = obj["case_id"]
        qrels[case_id] = dict.fromkeys(gold, 1)
        items = obj["retrieved"]
        scores: dict[str, float] = {}
        rank_score = float(len(items))
        for item in items:
            card = item if isinstance(item, str) else (item.get("parent_id") or item["id"])
            if card not in scores:  # first occurrence = best rank
                scores[card] = rank_score
            rank_score -= 1.0
        run[case_id] = scores
    return qrels, run


def _worker_recall_gate(path: Path, k: int, out_json: str | None = None) -> dict[str, Any]:
    import io

    from recall_gate import cli
    from recall_gate.adapters.scoring import ScoredCapture, score_capture
    from recall_gate.core.metrics import HIT, NDCG, RECALL
    from recall_gate.judging import capture_scoring

    captured: list[ScoredCapture] = []

    def spy(*args: Any, **kwargs: Any) -> ScoredCapture:
        captured.append(score_capture(*args, **kwargs))
        return captured[-1]

    vars(capture_scoring)["score_capture"] = spy  # read the means, untimed
    argv = ["score", "--artifacts", str(path), "--k", str(k)]
    if out_json is not None:
        argv += ["--json", out_json]
    out = io.StringIO()
    started, cpu = time.perf_counter(), time.process_time()
    # cwd = the data's folder: no baselines/ there, so `score` reports instead of
    # comparing with a committed baseline of the working tree.
    code = cli.main(argv, environ={}, stdout=out, cwd=path.parent)
    total, cpu = time.perf_counter() - started, time.process_time() - cpu
    if code != 0:
        raise SystemExit(f"recall-gate score exited {code}")
    overall = captured[0].aggregates.overall
    return {
        "total_s": total,
        "cpu_s": cpu,
        "cases": captured[0].total,
        "scored": captured[0].scored,
        "means": {
            m: overall[key].mean for m, key in zip(METRICS, (HIT, RECALL, NDCG), strict=True)
        },
        "report_head": out.getvalue().splitlines()[:14],
    }


def _worker_pytrec(path: Path, k: int, parser: str) -> dict[str, Any]:
    import pytrec_eval

    loads = _json_loads(parser)
    started, cpu = time.perf_counter(), time.process_time()
    qrels, run = _peer_inputs(path, loads)
    built = time.perf_counter()
    names = {"hit": f"success_{k}", "recall": f"recall_{k}", "ndcg": f"ndcg_cut_{k}"}
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, {f"success.{k}", f"recall.{k}", f"ndcg_cut.{k}"}
    )
    per_query = evaluator.evaluate(run)
    # A query that trec_eval drops (nothing retrieved) scores 0 in recall-gate's means.
    means = {
        m: math.fsum(per_query[q][name] for q in per_query) / len(qrels)
        for m, name in names.items()
    }
    done, cpu = time.perf_counter(), time.process_time() - cpu
    return {
        "total_s": done - started,
        "cpu_s": cpu,
        "build_s": built - started,
        "eval_s": done - built,
        "scored": len(qrels),
        "means": means,
    }


def _worker_ranx(path: Path, k: int, parser: str) -> dict[str, Any]:
    from ranx import Qrels, Run, evaluate

    metrics = [f"hit_rate@{k}", f"recall@{k}", f"ndcg@{k}"]
    # Warm the numba JIT (compiled on first use) outside the timed span.
    evaluate(Qrels({"q": {"a": 1}}), Run({"q": {"a": 1.0, "b": 0.5}}), metrics)
    loads = _json_loads(parser)
    started, cpu = time.perf_counter(), time.process_time()
    qrels, run = _peer_inputs(path, loads)
    built = time.perf_counter()
    scores = evaluate(Qrels(qrels), Run(run), metrics)
    done, cpu = time.perf_counter(), time.process_time() - cpu
    return {
        "total_s": done - started,
        "cpu_s": cpu,  # all threads: ranx evaluates in parallel
        "build_s": built - started,
        "eval_s": done - built,
        "scored": len(qrels),
        "means": {m: float(scores[name]) for m, name in zip(METRICS, metrics, strict=True)},
    }


def _worker_toolkit(path: Path, k: int, parser: str) -> dict[str, Any]:
    from toolkit_rag_quality.retrieval import score_run

    loads = _json_loads(parser)
    started, cpu = time.perf_counter(), time.process_time()
    qrels, scored_run = _peer_inputs(path, loads)
    # Its run is a ranked list per query: the scores above are in rank order.
    run = {
        q: sorted(scores, key=scores.__getitem__, reverse=True) for q, scores in scored_run.items()
    }
    built = time.perf_counter()
    summary = score_run(qrels=qrels, run=run, k=k).summary
    done, cpu = time.perf_counter(), time.process_time() - cpu
    names = {"hit": "hit_rate_at_k", "recall": "recall_at_k", "ndcg": "ndcg_at_k"}
    return {
        "total_s": done - started,
        "cpu_s": cpu,
        "build_s": built - started,
        "eval_s": done - built,
        "scored": summary["queries"],
        "means": {m: float(summary[name]) for m, name in names.items()},
    }


def _worker_floor(path: Path, parser: str, *, validate: bool) -> dict[str, Any]:
    """What reading the capture costs before any scoring: each line parsed
    (``parse-floor``: the peers' parser, nothing checked) or decoded and validated
    into the capture line's Struct as ``score`` reads it (``validate-floor``)."""
    from recall_gate.adapters.dataset import ARTIFACTS_WHAT, iter_capture_lines
    from recall_gate.adapters.files import iter_jsonl_lines

    loads = _json_loads(parser)
    started, cpu = time.perf_counter(), time.process_time()
    lines = 0
    if validate:
        for _ in iter_capture_lines(path):
            lines += 1
    else:
        for _, line in iter_jsonl_lines(path, what=ARTIFACTS_WHAT):
            loads(line)
            lines += 1
    return {
        "total_s": time.perf_counter() - started,
        "cpu_s": time.process_time() - cpu,
        "lines": lines,
    }


def _worker_loop(path: Path, k: int, parser: str, repeat: int) -> dict[str, Any]:
    from recall_gate.core.metrics import score_ranking

    loads = _json_loads(parser)
    interned: dict[str, str] = {}
    data: list[tuple[list[str], frozenset[str]]] = []
    for line in _lines(path):
        obj = loads(line)
        gold = obj["must_cite_one_of"]
        if not gold:
            continue
        ranking = [
            item if isinstance(item, str) else (item.get("parent_id") or item["id"])
            for item in obj["retrieved"]
        ]
        data.append(
            (
                [interned.setdefault(c, c) for c in ranking],
                frozenset(interned.setdefault(c, c) for c in gold),
            )
        )
    del interned
    best = best_cpu = math.inf
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        for ranking, gold in data:
            score_ranking(ranking, gold=gold, k=k)
        best = min(best, time.perf_counter() - started)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return {
        "total_s": best,
        "cpu_s": best_cpu,
        "scored": len(data),
        "rate": len(data) / best,
        "cpu_rate": len(data) / best_cpu,
    }


# --- the driver ------------------------------------------------------------------


def _machine() -> str:
    model = platform.processor() or platform.machine()
    try:
        for row in Path("/proc/cpuinfo").read_text().splitlines():
            if row.startswith("model name"):
                model = row.split(":", 1)[1].strip()
                break
        mem_kb = next(
            int(row.split()[1])
            for row in Path("/proc/meminfo").read_text().splitlines()
            if row.startswith("MemTotal")
        )
        memory = f", {mem_kb / MB:.0f} GB RAM"
    except (OSError, StopIteration, ValueError):
        memory = ""
    return (
        f"{model}, {os.cpu_count()} CPUs{memory}, {platform.system()} {platform.release()}, "
        f"Python {platform.python_version()}"
    )


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "n/a"


def _spawn(args: list[str]) -> tuple[dict[str, Any], float, float]:
    """Run a worker; its JSON result, its wall time (s) and its peak RSS (MB)."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_scoring", "--worker", *args],
        stdout=subprocess.PIPE,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.stdout is not None
    output = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"worker {args[0]} failed (exit {proc.returncode})")
    return json.loads(output), wall, usage.ru_maxrss / 1024  # ru_maxrss is in KB on Linux


def _data_file(args: argparse.Namespace, cases: int) -> Path:
    if args.data is not None:
        return Path(args.data)
    workdir = Path(args.workdir or Path(tempfile.gettempdir()) / "recall-gate-bench")
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / f"artifacts-{cases}-s{args.seed}-g{GENERATOR_VERSION}.jsonl"
    if not path.is_file():
        print(f"generating {cases:,} cases → {path} …", flush=True)
        partial = path.with_suffix(".partial")
        write_artifacts(partial, cases, seed=args.seed)
        partial.replace(path)
    return path


def _fmt_rate(cases: float, seconds: float) -> str:
    return f"{cases / seconds / 1000:,.0f}k"


def _check_agreement(runs: dict[str, dict[str, Any]]) -> float:
    """Largest |Δ| between recall-gate's overall means and each peer's; fails past 1e-6."""
    ours = runs["score-json"]["means"]
    worst = 0.0
    for peer in ("score", "pytrec_eval", "ranx", "toolkit-rag-quality"):
        if peer not in runs:
            continue
        theirs = runs[peer]["means"]
        if runs[peer]["scored"] != runs["score-json"]["scored"]:
            raise SystemExit(
                f"{peer} scored {runs[peer]['scored']} cases, recall-gate scored "
                f"{runs['score-json']['scored']}: not the same comparison"
            )
        for metric in METRICS:
            delta = abs(ours[metric] - theirs[metric])
            worst = max(worst, delta)
            assert delta <= AGREEMENT, (
                f"{peer} {metric} mean {theirs[metric]!r} differs from recall-gate's "
                f"{ours[metric]!r} by {delta:.3g} > {AGREEMENT}: not an apples-to-apples comparison"
            )
    return worst


def _parser_name(choice: str) -> str:
    if choice != "auto":
        return choice
    try:
        import orjson  # noqa: F401
    except ImportError:
        return "json"
    return "orjson"


def bench_size(args: argparse.Namespace, cases: int, parser: str) -> dict[str, Any]:
    """Every path on one generated file, interleaved, best of ``--repeat``."""
    data = _data_file(args, cases)
    size_mb = data.stat().st_size / MB
    paths = [p for p in PATHS if p not in args.skip]
    print(
        f"\n{cases:,} cases, k = {args.k}, {size_mb:,.0f} MB of JSONL ({data}); "
        f"load average {_load()}",
        flush=True,
    )
    common = ["--file", str(data), "--k", str(args.k), "--parser", parser]
    best: dict[str, dict[str, Any]] = {}
    walls: dict[str, float] = {}
    rss: dict[str, float] = {}
    timed = [
        p
        for p in (
            "score-json",
            "score",
            "pytrec_eval",
            "toolkit-rag-quality",
            "validate-floor",
            "parse-floor",
        )
        if p in paths
    ]
    for round_ in range(args.repeat):  # interleaved, best of R: the machine may be shared
        for name in timed + [p for p in ("ranx",) if p in paths and round_ == 0]:
            result, wall, peak = _spawn([name, *common])
            print(f"  {name:<12} run {round_ + 1}: {result['total_s']:.2f} s", flush=True)
            if name not in best or result["total_s"] < best[name]["total_s"]:
                best[name], walls[name] = result, wall
            rss[name] = max(rss.get(name, 0.0), peak)
    if "scoring-loop" in paths:
        best["scoring-loop"], walls["scoring-loop"], rss["scoring-loop"] = _spawn(
            ["scoring-loop", *common, "--repeat", "3"]
        )
    worst = _check_agreement(best)
    return {"cases": cases, "best": best, "walls": walls, "rss": rss, "worst": worst}


def _every_command() -> list[str]:
    """Every subcommand, from the CLI's own table (in the order of its ``--help``)."""
    from recall_gate.cli import COMMAND_MODULES

    return [command for commands in COMMAND_MODULES.values() for command in commands]


def bench_startup(args: argparse.Namespace, repeat: int = 5) -> dict[str, Any]:
    """Start-up of every command: wall and CPU time of ``recall-gate CMD --help``
    (best of ``repeat``; a command that fails counts as infinite), of ``recall-gate
    score`` on a 100-case capture, the import time of ``recall_gate.cli`` (``-X
    importtime``), and whether any model library was imported."""
    entry = (
        "import sys; from recall_gate.cli import entry_point; "
        "sys.argv[0] = 'recall-gate'; entry_point()"
    )
    # Byte-compiled first, as `pip install` leaves a package: an editable checkout
    # under PYTHONDONTWRITEBYTECODE would compile every module on every start.
    import recall_gate

    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(Path(recall_gate.__file__).parent)],
        check=True,
        capture_output=True,
    )
    commands = _every_command()
    walls = dict.fromkeys(commands, math.inf)
    cpus = dict.fromkeys(commands, math.inf)
    failed: set[str] = set()
    for _ in range(repeat):  # interleaved, best of R: a burst of load spares the others
        for command in commands:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            done = subprocess.run(
                [sys.executable, "-c", entry, command, "--help"],
                capture_output=True,
                check=False,
            )
            wall = time.perf_counter() - started
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            if done.returncode != 0:
                failed.add(command)
            walls[command] = min(walls[command], wall)
            cpus[command] = min(cpus[command], cpu)
    for command in failed:
        walls[command] = cpus[command] = math.inf
    small = _data_file(args, SMALL_CASES)
    small_score = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-c", entry, "score", "--artifacts", str(small), "--k", str(args.k)],
            capture_output=True,
            check=True,
            cwd=small.parent,
        )
        small_score = min(small_score, time.perf_counter() - started)
    trace = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import recall_gate.cli"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    cumulative_us = 0
    modules = set()
    for row in trace.splitlines():
        parts = row.removeprefix("import time:").split("|")
        if len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2].strip()
        modules.add(name.split(".")[0])
        if name == "recall_gate.cli":
            cumulative_us = int(parts[1])
    bare = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        bare = min(bare, time.perf_counter() - started)
    return {
        "walls": walls,
        "cpus": cpus,
        "small_score_s": small_score,
        "import_s": cumulative_us / 1e6,
        "python_s": bare,
        "heavy": sorted(m for m in HEAVY if m in modules),
    }


def run_benchmark(args: argparse.Namespace) -> int:
    parser = _parser_name(args.parser)
    print(
        f"recall-gate scoring benchmark, JSON parser of the peers: {parser}\nmachine: {_machine()}",
        flush=True,
    )
    sizes = [bench_size(args, n, parser) for n in args.cases]
    startup = bench_startup(args)
    print()
    _report(args, sizes, startup)
    if args.json_out:
        raw = {"sizes": sizes, "startup": startup, "parser": parser}
        Path(args.json_out).write_text(json.dumps(raw, indent=2) + "\n")
    return 0


_LABELS = {
    "score-json": "recall-gate score --json",
    "score": "recall-gate score (streamed)",
    "pytrec_eval": "pytrec_eval",
    "ranx": "ranx",
    "toolkit-rag-quality": "toolkit-rag-quality",
    "validate-floor": "floor: read + validate each line",
    "parse-floor": "floor: read + parse each line",
}


def _table_rows(size: dict[str, Any]) -> list[list[str]]:
    best, walls, rss = size["best"], size["walls"], size["rss"]
    peer = best.get("pytrec_eval")
    rows = [
        [
            "path",
            "time s",
            "cases/s",
            "process wall s",
            "peak RSS",
            "parse+build s",
            "evaluate s",
            "÷ pytrec_eval",
        ]
    ]
    for name, label in _LABELS.items():
        if name not in best:
            continue
        r = best[name]
        rows.append(
            [
                label,
                f"{r['total_s']:.2f}",
                _fmt_rate(size["cases"], r["total_s"]),
                f"{walls[name]:.2f}",
                f"{rss[name]:,.0f} MB",
                f"{r['build_s']:.2f}" if "build_s" in r else "one pass",
                f"{r['eval_s']:.2f}" if "eval_s" in r else "(streamed)",
                f"{r['total_s'] / peer['total_s']:.2f}×" if peer else "—",
            ]
        )
    return rows


def _print_table(rows: list[list[str]]) -> None:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for i, row in enumerate(rows):
        print(
            "  ".join(
                c.ljust(w) if j == 0 else c.rjust(w)
                for j, (c, w) in enumerate(zip(row, widths, strict=True))
            )
        )
        if i == 0:
            print("  ".join("-" * w for w in widths))


def _verdict(what: str, value: float, target: float, unit: str = "×") -> str:
    """One target's line: the measure, MET or MISSES, and the target."""
    shown = f"{value:.2f}{unit}" if unit == "×" else f"{value:,.2f} {unit}".replace(".00 MB", " MB")
    bound = f"{target}{unit}" if unit == "×" else f"{target:g} {unit}"
    return f"{'MET   ' if value <= target else 'MISSES'} {what}: {shown} (target ≤ {bound})"


def _report(args: argparse.Namespace, sizes: list[dict[str, Any]], startup: dict[str, Any]) -> None:
    """The side-by-side tables and the verdicts against the issue's targets."""
    verdicts = []
    for size in sizes:
        n, best, rss = size["cases"], size["best"], size["rss"]
        print(f"{n:,} cases (k = {args.k})")
        _print_table(_table_rows(size))
        print()
        ours = best["score-json"]["total_s"]
        if "pytrec_eval" in best:
            peer = best["pytrec_eval"]["total_s"]
            verdicts.append(
                _verdict(f"score --json ÷ pytrec_eval at {n:,}", ours / peer, TARGET_JSON_RATIO)
            )
            if "validate-floor" in best:
                verdicts.append(
                    _verdict(
                        f"{_LABELS['validate-floor']} ÷ pytrec_eval at {n:,}",
                        best["validate-floor"]["total_s"] / peer,
                        TARGET_FLOOR_RATIO,
                    )
                )
            if "parse-floor" in best:
                verdicts.append(
                    f"(info) {_LABELS['parse-floor']} ÷ pytrec_eval at {n:,}: "
                    f"{best['parse-floor']['total_s'] / peer:.2f}×"
                )
            if "scoring-loop" in best and "validate-floor" in best:
                # What any Python scorer pays at least: the validating read, then the
                # three metrics of each ranking already built (no label, no record).
                least = best["validate-floor"]["total_s"] + best["scoring-loop"]["total_s"]
                verdicts.append(
                    f"(info) the validating read + the metric arithmetic alone (scoring-loop, "
                    f"{best['scoring-loop']['total_s']:.2f} s) ÷ pytrec_eval at {n:,}: "
                    f"{least / peer:.2f}×"
                )
        if "toolkit-rag-quality" in best:
            verdicts.append(
                _verdict(
                    f"score --json ÷ toolkit-rag-quality at {n:,}",
                    ours / best["toolkit-rag-quality"]["total_s"],
                    TARGET_TOOLKIT_RATIO,
                )
            )
        if "ranx" in best:
            verdicts.append(
                f"(info) score --json ÷ ranx at {n:,}: {ours / best['ranx']['total_s']:.2f}×"
            )
        if n >= 1_000_000:
            verdicts.append(
                _verdict(f"score --json peak RSS at {n:,}", rss["score-json"], TARGET_RSS_MB, "MB")
            )
        verdicts.append(
            f"(info) agreement at {n:,}: overall hit/recall/nDCG means within {size['worst']:.1e}"
        )
    print(
        "(time s: in-process, from opening the file to the report; interpreter start-up "
        "and imports excluded, see below. process wall s: the whole subprocess.)\n"
    )
    walls, cpus = startup["walls"], startup["cpus"]
    print(
        "start-up (best of 5, `recall-gate CMD --help`, whole process, byte-compiled "
        "as pip installs it; "
        f"a bare `python -c pass`: {startup['python_s']:.2f} s), wall / CPU: "
        + ", ".join(f"{c} {w:.2f} / {cpus[c]:.2f} s" for c, w in walls.items())
    )
    print(
        "import of recall_gate.cli (python -X importtime, cumulative): "
        f"{startup['import_s']:.3f} s; "
        f"model libraries imported: {', '.join(startup['heavy']) or 'none'}"
    )
    verdicts += [
        _verdict(f"{command} --help, whole process", wall, TARGET_STARTUP_S, "s")
        for command, wall in walls.items()
    ]
    verdicts.append(
        _verdict(
            f"score of a {SMALL_CASES}-case capture, whole process",
            startup["small_score_s"],
            TARGET_SMALL_SCORE_S,
            "s",
        )
    )
    print(f"load average at the end: {_load()}")
    print("\n".join(f"- {v}" for v in verdicts))


def _worker_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("name", choices=PATHS)
    p.add_argument("--file", type=Path, required=True)
    p.add_argument("--k", type=int, required=True)
    p.add_argument("--parser", choices=("json", "orjson"), required=True)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    if a.name == "score-json":
        out = a.file.with_name(f".bench-results-{os.getpid()}.json")
        try:
            result = _worker_recall_gate(a.file, a.k, str(out))
        finally:
            out.unlink(missing_ok=True)
    elif a.name == "score":
        result = _worker_recall_gate(a.file, a.k)
    elif a.name == "pytrec_eval":
        result = _worker_pytrec(a.file, a.k, a.parser)
    elif a.name == "ranx":
        result = _worker_ranx(a.file, a.k, a.parser)
    elif a.name == "toolkit-rag-quality":
        result = _worker_toolkit(a.file, a.k, a.parser)
    elif a.name in ("validate-floor", "parse-floor"):
        result = _worker_floor(a.file, a.parser, validate=a.name == "validate-floor")
    else:
        result = _worker_loop(a.file, a.k, a.parser, a.repeat)
    sys.stdout.write(json.dumps(result))
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--worker"]:
        return _worker_main(argv[1:])
    p = argparse.ArgumentParser(
        prog="python -m benchmarks scoring",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    p.add_argument(
        "--cases",
        type=int,
        nargs="+",
        default=None,
        help="sizes, default " + " and ".join(f"{n:,}" for n in DEFAULT_CASES),
    )
    p.add_argument(
        "--quick", action="store_true", help=f"{QUICK_CASES[0]:,} cases only (smoke run)"
    )
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--seed", type=int, default=SEED)
    p.add_argument("--repeat", type=int, default=1, help="runs per path, best kept (ranx: 1)")
    p.add_argument("--parser", choices=("auto", "json", "orjson"), default="auto")
    p.add_argument("--skip", action="append", default=[], choices=PATHS, help="leave a path out")
    p.add_argument("--data", help="an existing artifacts JSONL to use instead of generating one")
    p.add_argument("--workdir", help="where generated data is cached (default: the temp dir)")
    p.add_argument("--json-out", help="also write the raw results here")
    p.add_argument("--startup-only", action="store_true", help="only the start-up of every command")
    args = p.parse_args(argv)
    if args.startup_only:
        args.cases = []
    elif args.cases is None:
        args.cases = list(QUICK_CASES if args.quick else DEFAULT_CASES)
    if "score-json" in args.skip:
        p.error("score --json is the subject of the benchmark: it cannot be skipped")
    return run_benchmark(args)


if __name__ == "__main__":
    raise SystemExit(main())
