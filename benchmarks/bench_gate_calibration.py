"""How often the gate fails a pull request of equal quality, and how often it
catches a planted drop: measured through the commands the action runs.

Each trial writes a baseline capture and a pull request's capture (JSONL, k = 5,
every case golden) to a temporary folder and runs recall-gate in process, as
the action's score mode does: ``score --json`` and ``baseline update`` for the
baseline, then ``score --artifacts pr.jsonl --max-regression 0.02
--min-group-n 10`` (require-significance on, the default). Exit 1 is a failed
gate. Nothing of the statistics is copied here.

The synthetic retriever: each case has a difficulty (its gold cards' mean
score, uniform in 0 … 3) and 15 distractors; a ranking draws every score
(normal, sd 1) and keeps the top 10. An **A/A pair** (equal quality): the pull
request re-draws 40 % of the rankings from the same distribution (a re-chunk, a
model swap of equal quality). A *deterministic* retriever repeats the other
rankings exactly; a *non-deterministic* one swaps two neighbours in the top 6 of
each side's ranking, independently, a third of the time. *Binary* cases have
one gold card; *graded* ones three relevant cards (recall@k and nDCG@k
graded). A **planted drop**: in the first language, a share of its cases that
hit in the baseline lose every relevant card from the top 5 (the rest of the
pull request as in an A/A pair). Groups: overall, type golden, each language;
n = cases per language; 1 to 6 languages, retriever and case kind cycled over
the trials of a row. Seeds are fixed: the same command prints the same table.

Prints, per n, the report-level false-fail rate of A/A pairs (with its trial
count and a 95 % Wilson interval) and the share of planted drops caught, then
one MET / MISSES line per bar: false fails ≤ 5 % at every n; the 11-of-20 drop
(3 languages × 20 cases) caught ≥ 80 %. For contrast, the false-fail rate of
the same no-op pull requests with require-significance off.

Usage: ``python -m benchmarks gate-calibration [--quick] [--trials T] [--jobs J]``.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

from recall_gate.cli import main as cli_main
from recall_gate.core.stats import PROMISED_FALSE_FAIL

__all__ = ["Trial", "main", "run_trial"]

K = 5
TOLERANCE = "0.02"
MIN_GROUP_N = "10"
RESHUFFLE = 0.4
FALSE_FAIL_BAR = PROMISED_FALSE_FAIL
POWER_BAR = 0.8
# The bar's drop: about 11 of a language's 20 cases lose their gold hits.
BAR_SHARE = 0.55
LANGUAGES = ("en", "de", "fr", "es", "pt-BR", "ja")
KINDS = (("deterministic", "binary"), ("non-deterministic", "graded"),
         ("deterministic", "graded"), ("non-deterministic", "binary"))  # fmt: skip


@dataclass(frozen=True)
class Trial:
    """One baseline / pull request pair: ``share`` of the first language's hit
    cases lose their hits (0: an A/A pair)."""

    n: int
    languages: int
    retriever: str
    kind: str
    share: float
    seed: str
    require_significance: bool = True


def _ranking(rng: random.Random, case: int, skill: float, relevant: int) -> list[str]:
    scored = [(rng.gauss(skill, 1.0), f"card-{case}-{j}") for j in range(relevant)]
    scored += [(rng.gauss(0.0, 1.0), f"other-{case}-{j}") for j in range(15)]
    return [card for _, card in sorted(scored, reverse=True)[:10]]


def _jitter(rng: random.Random, ranking: list[str]) -> list[str]:
    out = list(ranking)
    if rng.random() < 1 / 3:
        i = rng.randrange(5)
        out[i], out[i + 1] = out[i + 1], out[i]
    return out


def _line(case: int, language: str, ranking: list[str], relevant: int) -> str:
    record: dict[str, object] = {
        "case_id": f"c{case:05d}",
        "retrieved": ranking,
        "language": language,
        "case_type": "golden",
        "must_cite_one_of": [f"card-{case}-0"],
    }
    if relevant > 1:
        record["relevant_ids"] = [f"card-{case}-{j}" for j in range(relevant)]
    return json.dumps(record) + "\n"


def _captures(trial: Trial) -> tuple[str, str]:
    """The baseline's capture and the pull request's, as JSONL text."""
    rng = random.Random(trial.seed)  # reproducible data, not cryptography
    relevant = 3 if trial.kind == "graded" else 1
    jitter = trial.retriever == "non-deterministic"
    base: list[str] = []
    pr: list[str] = []
    for li in range(trial.languages):
        language = LANGUAGES[li]
        cases = range(li * trial.n, (li + 1) * trial.n)
        skills = {c: rng.uniform(0.0, 3.0) for c in cases}
        rankings = {c: _ranking(rng, c, skills[c], relevant) for c in cases}
        before = {c: _jitter(rng, r) if jitter else r for c, r in rankings.items()}
        after = {}
        for c, r in rankings.items():
            redrawn = _ranking(rng, c, skills[c], relevant) if rng.random() < RESHUFFLE else r
            after[c] = _jitter(rng, redrawn) if jitter else redrawn
        if li == 0 and trial.share:
            hits = [c for c in cases if f"card-{c}-0" in before[c][:K]]
            for c in rng.sample(hits, min(len(hits), round(trial.share * trial.n))):
                kept = [card for card in before[c] if not card.startswith(f"card-{c}-")]
                after[c] = kept[:K] + [f"card-{c}-{j}" for j in range(relevant)]
        base += [_line(c, language, before[c], relevant) for c in cases]
        pr += [_line(c, language, after[c], relevant) for c in cases]
    return "".join(base), "".join(pr)


def _cli(argv: Sequence[str], cwd: Path) -> int:
    return cli_main(list(argv), {}, stdout=io.StringIO(), stderr=io.StringIO(), cwd=cwd)


def run_trial(trial: Trial) -> bool:
    """Whether the gate failed the pull request (exit 1); any other exit is an error."""
    base, pr = _captures(trial)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "base.jsonl").write_text(base, encoding="utf-8")
        (work / "pr.jsonl").write_text(pr, encoding="utf-8")
        steps = [
            ["score", "--artifacts", "base.jsonl", "--k", str(K), "--json", "base.json"],
            ["baseline", "update", "--results", "base.json", "--reason", "calibration",
             "--created-at", "2026-01-01T00:00:00Z"],
        ]  # fmt: skip
        for step in steps:
            if _cli(step, work) != 0:
                raise RuntimeError(f"recall-gate {step[0]} failed on trial {trial}")
        code = _cli(
            ["score", "--artifacts", "pr.jsonl", "--k", str(K), "--max-regression", TOLERANCE,
             "--min-group-n", MIN_GROUP_N, "--comparison-json", "c.json",
             "--require-significance", str(trial.require_significance).lower()],
            work,
        )  # fmt: skip
    if code not in (0, 1):
        raise RuntimeError(f"recall-gate score exited {code} on trial {trial}")
    return code == 1


def _trials(n: int, count: int, share: float, languages: Sequence[int]) -> list[Trial]:
    out = []
    for t in range(count):
        retriever, kind = KINDS[t % len(KINDS)]
        langs = languages[(t // len(KINDS)) % len(languages)]
        out.append(Trial(n, langs, retriever, kind, share, f"gate-calibration/{n}/{share}/{t}"))
    return out


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson interval of a share."""
    if total == 0:
        return 0.0, 1.0
    p = hits / total
    centre = (p + z * z / (2 * total)) / (1 + z * z / total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return max(0.0, centre - spread), min(1.0, centre + spread)


def _rate(results: Sequence[bool]) -> str:
    hits = sum(results)
    low, high = wilson(hits, len(results))
    share = hits / len(results) * 100
    return f"{hits}/{len(results)} = {share:4.1f} % ({low * 100:.1f}–{high * 100:.1f})"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks gate-calibration")
    parser.add_argument("--quick", action="store_true", help="fewer trials and sizes (a smoke run)")
    parser.add_argument("--trials", type=int, help="A/A trials per n (default 200, quick 24)")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument(
        "--sizes", help="comma-separated n per language (default 10,20,50,200,1000)"
    )
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else (
        [10, 20, 50] if args.quick else [10, 20, 50, 200, 1000]
    )  # fmt: skip
    trials = args.trials or (24 if args.quick else 200)
    power_trials = max(8, trials // 4)
    plan: list[tuple[str, int, Trial]] = []
    for n in sizes:
        # Large sets stay within minutes: fewer languages and trials at n = 1000.
        langs = (1, 3) if n >= 1000 else (1, 3, 6)
        count = trials if n < 1000 else max(8, trials // 5)
        plan += [("aa", n, t) for t in _trials(n, count, 0.0, langs)]
        plan += [("small", n, t) for t in _trials(n, power_trials, 0.1, langs)]
    bar = _trials(20, max(trials // 2, 12), BAR_SHARE, (3,))
    plan += [("bar", 20, t) for t in bar]
    # For contrast: the same no-op pull requests with the noise test turned off.
    plan += [
        ("off", 20, replace(t, require_significance=False))
        for t in _trials(20, max(trials // 4, 8), 0.0, (3,))
    ]
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        failed = list(pool.map(run_trial, [t for _, _, t in plan], chunksize=4))
    took = time.perf_counter() - started
    by: dict[tuple[str, int], list[bool]] = {}
    for (what, n, _), fail in zip(plan, failed, strict=True):
        by.setdefault((what, n), []).append(fail)
    print(
        f"gate-calibration: k = {K}, max-regression {TOLERANCE} (every metric), "
        f"min-group-n {MIN_GROUP_N}, require-significance on; A/A: {RESHUFFLE:.0%} of the "
        "rankings re-drawn, retriever (deterministic / non-deterministic) and cases (binary / "
        "graded) cycled, 1, 3 and 6 languages (1 and 3 at n = 1000)"
    )
    print()
    print(
        "| n per language | A/A pull requests failed (95 % CI) | 10 % drop in one language caught |"
    )
    print("|---|---|---|")
    worst = 0.0
    for n in sizes:
        aa = by[("aa", n)]
        worst = max(worst, sum(aa) / len(aa))
        print(f"| {n} | {_rate(aa)} | {_rate(by[('small', n)])} |")
    caught = by[("bar", 20)]
    power = sum(caught) / len(caught)
    print()
    print(f"Planted drop, 3 languages × 20 cases, {BAR_SHARE:.0%} of one language's hit cases "
          f"lose their gold (about 11 of 20): caught {_rate(caught)}")  # fmt: skip
    print(f"With require-significance off, the same A/A pairs (3 languages × 20 cases) fail "
          f"{_rate(by[('off', 20)])}: every drop beyond the tolerance, noise or not.")  # fmt: skip
    print()
    ok_false = worst <= FALSE_FAIL_BAR
    ok_power = power >= POWER_BAR
    met = {True: "MET", False: "MISSES"}
    print(f"{met[ok_false]}: false-fail ≤ 5 % at every n (worst {worst * 100:.1f} %)")
    print(f"{met[ok_power]}: planted 11-of-20 drop caught ≥ 80 % ({power * 100:.1f} %)")
    python = sys.version.split()[0]
    print(f"({len(plan)} pull requests in {took:.0f} s, {args.jobs} worker(s); Python {python})")
    return 0 if ok_false and ok_power else 1
