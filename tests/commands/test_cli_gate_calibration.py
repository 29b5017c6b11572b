"""The gate's calibration end to end: the report says how often this gate fails a
no-op pull request and the smallest drop it catches at the team's n, `floors
suggest` names the smallest tolerance each group can enforce, and `python -m
benchmarks gate-calibration` measures both through the same commands."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]


def capture(path: Path, lost: int) -> None:
    """20 English and 20 German cases, gold at rank 1; the first ``lost`` English miss."""
    lines = []
    for language in ("en", "de"):
        for i in range(20):
            case_id = f"{language}-{i:02d}"
            retrieved = [f"other-{case_id}-{j}" for j in range(5)]
            if not (language == "en" and i < lost):
                retrieved[0] = f"card-{case_id}"
            lines.append(
                {
                    "case_id": case_id,
                    "retrieved": retrieved,
                    "language": language,
                    "case_type": "golden",
                    "must_cite_one_of": [f"card-{case_id}"],
                }
            )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def baseline(tmp_path: Path) -> None:
    capture(tmp_path / "base.jsonl", lost=0)
    made = run_cli(["score", "--artifacts", "base.jsonl", "--json", "base.json"], cwd=tmp_path)
    assert made.code == 0, made.err
    update = ["baseline", "update", "--results", "base.json", "--created-at",
              "2026-01-01T00:00:00Z"]  # fmt: skip
    assert run_cli(update, cwd=tmp_path).code == 0


def test_the_report_says_how_often_this_gate_fails_a_no_op_and_what_it_catches(
    tmp_path: Path,
) -> None:
    baseline(tmp_path)
    capture(tmp_path / "pr.jsonl", lost=3)
    run = run_cli(
        ["score", "--artifacts", "pr.jsonl", "--max-regression", "0.02",
         "--comment-markdown", "c.md", "--comparison-json", "c.json"],
        cwd=tmp_path,
    )  # fmt: skip
    assert run.code == 0, run.out + run.err  # 3 of 20 lost: within noise
    line = (
        "This gate at this n: a no-op pull request fails at most 5 % of the time (12 gated "
        "rows tested together at the 3 % level); smallest hit@5 drop caught 80 % of the "
        "time: overall −"
    )
    assert line in (tmp_path / "c.md").read_text()
    assert line in run.out
    calibration = json.loads((tmp_path / "c.json").read_text())["calibration"]
    assert (calibration["cells"], calibration["fewest_lost"]) == (12, 6)


def test_floors_suggest_names_the_smallest_tolerance_each_group_can_enforce(
    tmp_path: Path,
) -> None:
    baseline(tmp_path)
    run = run_cli(["floors", "suggest"], cwd=tmp_path)
    assert run.code == 0, run.err
    # 4 groups × 3 metrics = 12 rows; Bonferroni z(1 − 0.03/12) = 2.807 < √8.
    assert (
        "recall-gate: the smallest hit@5 drop each group can enforce (lost hits alone, none "
        "gained; 12 rows tested together at 3 %, bounded by Bonferroni)"
    ) in run.out
    assert re.search(r"\nlanguage en +20 +8 +0\.40 +0\.\d{3}\n", run.out)
    assert "max-regression: 0.20  (overall: a smaller tolerance gates no drop more" in run.out


def test_the_calibration_benchmark_runs_the_commands_and_prints_its_bars() -> None:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{ROOT}"}
    argv = [sys.executable, "-m", "benchmarks", "gate-calibration",
            "--quick", "--sizes", "10", "--trials", "4", "--jobs", "1"]  # fmt: skip
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    out = done.stdout
    assert "| n per language | A/A pull requests failed (95 % CI) |" in out
    assert "| 10 | " in out
    # The planted 11-of-20 drop always fails the gate: 12 of 12 trials.
    assert "(about 11 of 20): caught 12/12 = 100.0 %" in out
    assert "MET: planted 11-of-20 drop caught ≥ 80 % (100.0 %)" in out
    assert "false-fail ≤ 5 % at every n" in out
