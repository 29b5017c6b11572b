"""``python -m benchmarks [BENCHMARK] [ARGS…]``: run one benchmark (default: scoring).

* ``scoring`` — recall-gate's ``score`` path against ranx and pytrec_eval
  (``python -m benchmarks scoring --help``);
* ``runner`` — the built-in runner (``benchmarks/bench_runner.py``, when present);
* ``capture`` — ``capture --concurrency`` over a retriever that sleeps
  (``python -m benchmarks capture --help``);
* ``front-matter`` — front matter parsing of 10,000 pages (``python -m benchmarks
  front-matter --help``);
* ``traffic`` — the query log: the diff of 10^5 logged queries, the snapshot's
  bytes per query, ``--max-qps`` pacing (``python -m benchmarks traffic --help``);
* ``pr-check`` — the action's PR check under act (score and capture mode): pip,
  uv and a kept environment, against act alone;
* ``kb-diff`` — the KB diff of a pull request on a 700-page KB (target ≤ 0.5 s)
  (``python -m benchmarks kb-diff --help``);
* ``gate-calibration`` — how often the gate fails a pull request of equal
  quality, and catches a planted drop, per n, through the commands the action
  runs (``python -m benchmarks gate-calibration --help``).
"""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "scoring": "benchmarks.bench_scoring",
    "runner": "benchmarks.bench_runner",
    "capture": "benchmarks.bench_capture",
    "pr-check": "benchmarks.bench_pr_check",
    "front-matter": "benchmarks.bench_front_matter",
    "traffic": "benchmarks.bench_traffic",
    "kb-diff": "benchmarks.bench_kb_diff",
    "gate-calibration": "benchmarks.bench_gate_calibration",
}


def main(argv: list[str]) -> int:
    name = "scoring"
    if argv and argv[0] in BENCHMARKS:
        name, argv = argv[0], argv[1:]
    elif argv and argv[0] in ("-h", "--help") and len(argv) == 1:
        print(__doc__)
        return 0
    try:
        module = importlib.import_module(BENCHMARKS[name])
    except ModuleNotFoundError as exc:
        if exc.name != BENCHMARKS[name]:
            raise
        print(f"benchmark {name!r} is not available ({BENCHMARKS[name]} is missing)")
        return 2
    code = module.main(argv)
    return code if isinstance(code, int) else 0  # a main() may return None


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
