"""The action's PR check under act, install included: pip, uv and a kept environment.

    python -m benchmarks pr-check                  # 3 rounds: score, capture, two-job
    python -m benchmarks pr-check --rounds 5 --modes score --json out.json

One run prepares a copy of this repository as a git work tree with a
committed v1 baseline (the act tests' synthetic data; ``tests/act_harness.py``,
shared with the act tests), starts the fake GitHub API on loopback, and runs
whole jobs with act (self-hosted, no network but the fake and the package
index), in turn, round after round:

* **act alone**: ``benchmarks/act/empty-check.yml``, the PR check's shape with
  an empty composite step: what act costs before any step of ours;
* per mode — **score** (``tests/act/workflows/pr-check.yml``: a 12-case
  capture) and **capture** (``tests/act/workflows/capture-check.yml``: a plain
  retriever, 24 cases) — three ways:
  **pip, cold** and **uv, cold** (the action's default environment location is
  empty, as on a runner without a kept environment; the installers' download
  caches are warm, as on a runner that caches them) and **kept environment**
  (the location holds the environment of an earlier run with the same key, as
  after an ``actions/cache`` hit: nothing is installed).

Each job is timed whole (act's start to its exit) and per step as act logs it;
the report gives min / median / max, each way's ratio to pip's, what is ours
(the job minus act alone), and uv's own resolve / prepare / install times.
A warm-up round (not reported) fills the installers' caches and the kept
environments. Speed claims come from here, never from a timed test.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from act_harness import REPO, ActRun, git, pr_event, prepare_base_tree, run_act  # noqa: E402
from fake_github import TOKEN, FakeGitHub  # noqa: E402

EMPTY = "benchmarks/act/empty-check.yml"
WORKFLOWS = {
    "score": ("tests/act/workflows/pr-check.yml", {"ARTIFACTS": "tests/act/data/capture-v1.jsonl"}),
    "capture": ("tests/act/workflows/capture-check.yml", {}),
    # The same capture in two jobs: the capture job, then the judge installed fresh
    # from the hash-locked set (docs/pr-check.md). "kept environment" keeps the
    # capture job's; the judge's is new in every job, by design.
    "two-job": ("tests/act/workflows/two-job-check.yml", {}),
}
WAYS = ("pip, cold", "uv, cold", "kept environment")
INSTALL_STEPS = ("Install recall-gate", "Install the judge")
# The action's other steps: recall-gate's own commands (capture, evaluate, report, comment).
OTHER_STEPS = (
    "Capture (runs the code under test)",
    "Report the capture",
    "Evaluate and compare with the baseline",
    "Report to GitHub Actions",
    "Comment on the pull request",
    "Enforce the verdict",
)
_UV_PHASE = re.compile(
    r"\b(Resolved|Prepared|Installed|Bytecode compiled) \d+ (?:packages?|files)"
    r" in ([0-9.]+)(ms|s)\b"
)


@dataclass
class Timing:
    wall: list[float] = field(default_factory=list)
    install: list[float] = field(default_factory=list)
    other: list[float] = field(default_factory=list)
    uv: dict[str, list[float]] = field(default_factory=dict)


@dataclass
class Bench:
    tree: Path
    scratch: Path
    tools: Path
    base_sha: str
    caches: Mapping[str, str]
    runs: int = 0

    def job(self, workflow: str, variables: Mapping[str, str], cache_home: Path) -> ActRun:
        """One whole job; fails the benchmark unless it succeeded."""
        self.runs += 1
        with FakeGitHub() as fake:
            fake.add_actions_token(TOKEN)
            fake.add_repo(REPO)
            number = fake.add_pull(REPO, head_sha="1" * 40)
            run = run_act(
                self.tree,
                "pull_request",
                workflow=workflow,
                event=pr_event(number, "1" * 40, base_sha=self.base_sha),
                scratch=self.scratch / f"run-{self.runs}",
                api_url=fake.url,
                token=TOKEN,
                env={
                    "XDG_CACHE_HOME": str(cache_home),
                    **self.caches,
                    "ACT_OUTPUTS_FILE": str(self.scratch / "outputs.json"),
                    # The two-job check hands its capture over through the artifact store.
                    "ACT_STUB_ARTIFACTS": str(self.scratch / f"artifacts-{self.runs}"),
                },
                variables=variables,
                path_prefix=[self.tools],
            )
        if run.job_result != "success":
            sys.stderr.write(run.text[-4000:])
            raise SystemExit(f"the job {workflow} {dict(variables)} did not succeed")
        return run


def _timed(
    bench: Bench,
    workflow: str,
    variables: Mapping[str, str],
    cache_home: Path,
    into: Timing | None,
) -> None:
    start = time.perf_counter()
    run = bench.job(workflow, variables, cache_home)
    wall = time.perf_counter() - start
    if into is None:
        return
    into.wall.append(wall)
    steps = run.step_seconds()
    into.install.append(sum(steps.get(name, 0.0) for name in INSTALL_STEPS))
    into.other.append(sum(steps.get(name, 0.0) for name in OTHER_STEPS))
    for phase, amount, unit in _UV_PHASE.findall(run.step_output):
        into.uv.setdefault(phase, []).append(float(amount) / (1000 if unit == "ms" else 1))


def _setup(folder: Path) -> Bench:
    tree = prepare_base_tree(folder / "repo")
    tools = folder / "bin"
    tools.mkdir()
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    (tools / "uv").symlink_to(uv)

    def cache_dir(argv: list[str]) -> str:
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()

    caches = {  # the machine's own download caches, wherever XDG_CACHE_HOME points
        "UV_CACHE_DIR": cache_dir([uv, "cache", "dir"]),
        "PIP_CACHE_DIR": cache_dir([sys.executable, "-m", "pip", "cache", "dir"]),
    }
    return Bench(tree, folder / "scratch", tools, git(tree, "rev-parse", "HEAD"), caches)


def measure(folder: Path, rounds: int, modes: list[str]) -> dict[str, Timing]:
    bench = _setup(folder)
    timings: dict[str, Timing] = {"act alone": Timing()}
    cold = iter(range(10**6))

    def fresh() -> Path:
        return folder / f"cold-{next(cold)}"  # an empty default location

    kept = {mode: folder / f"kept-{mode}" for mode in modes}
    for round_ in range(rounds + 1):  # round 0 warms the caches and is not reported
        report = round_ > 0
        _timed(bench, EMPTY, {}, fresh(), timings["act alone"] if report else None)
        for mode in modes:
            workflow, variables = WORKFLOWS[mode]
            for way in WAYS:
                key = f"{mode}: {way}"
                timing = timings.setdefault(key, Timing()) if report else None
                if way == "kept environment":
                    _timed(bench, workflow, variables, kept[mode], timing)
                else:
                    installer = way.split(",")[0]
                    _timed(bench, workflow, {**variables, "INSTALLER": installer}, fresh(), timing)
        for path in folder.glob("cold-*"):
            shutil.rmtree(path, ignore_errors=True)
    return timings


def _stats(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def render(timings: Mapping[str, Timing], rounds: int) -> str:
    act = statistics.median(timings["act alone"].wall)
    lines = [
        f"PR check under act, {rounds} rounds in turn (seconds, min / median / max)",
        "",
        "| job | whole job | install step (median) | the action's other steps (median) "
        "| ours: job − act alone (median) | ÷ pip, cold (median) |",
        "|---|---:|---:|---:|---:|---:|",
        f"| act alone (empty composite step) | {_stats(timings['act alone'].wall)} | | | | |",
    ]
    for key, timing in timings.items():
        if key == "act alone":
            continue
        mode = key.split(":")[0]
        pip = statistics.median(timings[f"{mode}: pip, cold"].wall)
        median = statistics.median(timing.wall)
        lines.append(
            f"| {key} | {_stats(timing.wall)} | {statistics.median(timing.install):.2f} "
            f"| {statistics.median(timing.other):.2f} | {median - act:.2f} | {median / pip:.2f}× |"
        )
    lines.append("")
    for way in WAYS:
        two, one = timings.get(f"two-job: {way}"), timings.get(f"capture: {way}")
        if two and one:
            ratio = statistics.median(two.wall) / statistics.median(one.wall)
            lines.append(f"two jobs ÷ one job, {way} (medians): {ratio:.2f}×")
    lines.append("")
    for key, timing in timings.items():
        if timing.uv and "uv, cold" in key:
            phases = ", ".join(
                f"{phase.lower()} {statistics.median(values):.2f} s"
                for phase, values in timing.uv.items()
            )
            lines.append(f"uv's own times, {key} (medians): {phases}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks pr-check",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--rounds", type=int, default=3, help="reported rounds (default 3)")
    parser.add_argument(
        "--modes",
        default="score,capture,two-job",
        help="score, capture (one job), two-job (default all three)",
    )
    parser.add_argument("--folder", type=Path, help="work folder (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write the raw timings here")
    args = parser.parse_args(argv)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or set(modes) - set(WORKFLOWS) or args.rounds < 1:
        parser.error("--modes takes score, capture and/or two-job; --rounds at least 1")
    with tempfile.TemporaryDirectory(prefix="pr-check-") as temporary:
        folder = args.folder or Path(temporary)
        if args.folder and args.folder.exists() and any(args.folder.iterdir()):
            parser.error(f"--folder {args.folder} is not empty")
        folder.mkdir(parents=True, exist_ok=True)
        timings = measure(folder, args.rounds, modes)
    print(render(timings, args.rounds))
    if args.json:
        raw = {
            k: {"wall": t.wall, "install": t.install, "other": t.other, "uv": t.uv}
            for k, t in timings.items()
        }
        args.json.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return 0
