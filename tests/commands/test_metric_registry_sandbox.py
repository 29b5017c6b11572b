"""A metric is one registry entry: add one to a copy of the repository and its
flags, config keys, environment variables, results and comparison JSON, action
outputs and report rows all follow, with no other edit; `make generate`'s
generator then writes its action inputs, outputs and variables and its row of
the docs' metric reference, and touches no other file.

The copy runs in a subprocess (the registry is read at import time); the
metric added is "top1": 1 if the first card is relevant. Synthetic data only.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import recall_gate
from cli_runner import run_cli

PACKAGE = Path(recall_gate.__file__).parent
ROOT = Path(__file__).resolve().parents[2]
ANCHOR = "    MetricSpec(\n        key=CITATION_COVERAGE,"
ENTRY = """    MetricSpec(
        key="retrieval_top1_at_k",
        name="top1",
        label="top1",
        definition="1 if the first card is relevant, else 0 (synthetic test metric).",
        formula="trec_eval success_1",
        binary=True,
        kernel=lambda top, gold, relevant, k: 1.0 if top and top[0] in relevant else 0.0,
    ),
"""
DRIVER = """\
import contextlib, io, json, sys
from pathlib import Path
from recall_gate.cli import main

runs = []
for argv, environ in json.loads(sys.stdin.read()):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out):  # argparse prints --help to sys.stdout
        code = main(argv, environ, stdout=out, stderr=err, cwd=Path.cwd())
    runs.append({"code": code, "out": out.getvalue(), "err": err.getvalue()})
print(json.dumps(runs))
"""


def _artifacts(path: Path) -> None:
    """12 self-contained lines: gold at rank 1 for 4 cases, at rank 2 for 8
    (hit@5 = 1.0, top1 = 4/12 = 0.333)."""
    lines = []
    for i in range(12):
        gold = f"card-{i}"
        ranked = [gold, "other"] if i < 4 else ["other", gold]
        lines.append(
            {
                "case_id": f"c{i:02d}",
                "retrieved": ranked,
                "must_cite_one_of": [gold],
                "language": "en",
                "case_type": "golden",
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def _sandbox(tmp_path: Path) -> Path:
    """A copy of the package, action.yml and the docs whose registry has one more
    entry; returns its src folder."""
    src = tmp_path / "src"
    shutil.copytree(PACKAGE, src / "recall_gate", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "action.yml", tmp_path / "action.yml")
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    registry = src / "recall_gate" / "core" / "metric_registry.py"
    text = registry.read_text(encoding="utf-8")
    assert text.count(ANCHOR) == 1, "the registry's citation entry moved: update ANCHOR"
    registry.write_text(text.replace(ANCHOR, ENTRY + ANCHOR), encoding="utf-8")
    return src


def _run(src: Path, cwd: Path, runs: list[tuple[list[str], dict[str, str]]]) -> list[Any]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_GATE_")}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER],
        input=json.dumps(runs),
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**env, "PYTHONPATH": str(src)},
        check=True,
    )
    result: list[Any] = json.loads(done.stdout)
    return result


def test_a_metric_added_to_the_registry_reaches_every_surface(tmp_path: Path) -> None:
    src = _sandbox(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    _artifacts(work / "run.jsonl")
    (work / "config").mkdir()
    (work / "config" / "recall-gate.yaml").write_text("gate:\n  floors: {top1: 0.9}\n")
    # A baseline made before the metric existed (by this, unmodified tree).
    made = run_cli(["score", "--artifacts", "run.jsonl", "--json", "old.json"], cwd=work)
    assert made.code == 0, made.err
    assert (
        run_cli(["baseline", "update", "--results", "old.json", "--reason", "old"], cwd=work).code
        == 0
    )
    score = ["score", "--artifacts", "run.jsonl"]
    outputs = work / "outputs.txt"
    help_, by_flag, by_name, by_config, by_env, report = _run(
        src,
        work,
        [
            (["score", "--help"], {}),
            (
                [
                    *score,
                    *("--min-top1", "0.9", "--json", "results.json"),
                    *("--comparison-json", "comparison.json", "--markdown", "report.md"),
                ],
                {},
            ),
            ([*score, "--min", "top1=0.9"], {}),
            ([*score, "--config", "config/recall-gate.yaml", "--baseline", "none.json"], {}),
            (score, {"RECALL_GATE_MIN_TOP1": "0.9"}),
            (
                ["actions-report", "--comparison", "comparison.json"],
                {"GITHUB_OUTPUT": str(outputs)},
            ),
        ],
    )
    # Flags: generated from the entry, and both spellings gate.
    assert "--min-top1 X" in help_["out"]
    assert "(metrics: hit, recall, ndcg, mrr, precision, top1;" in " ".join(help_["out"].split())
    assert [r["code"] for r in (by_flag, by_name, by_config, by_env)] == [1, 1, 1, 1], by_config
    # Results JSON: the aggregates carry it, per case and overall.
    results = json.loads((work / "results.json").read_text())
    assert results["aggregates"]["overall"]["retrieval_top1_at_k"]["mean"] == round(4 / 12, 6)
    assert results["cases"][0]["metrics"]["retrieval_top1_at_k"] == 1.0
    # Comparison JSON: its mean, its floor, its failed floor; the old baseline lacks it.
    comparison = json.loads((work / "comparison.json").read_text())
    assert comparison["metrics"]["top1"] == pytest.approx(4 / 12)
    assert comparison["gate"]["floors"] == {"top1": 0.9}
    assert [f["metric"] for f in comparison["gate"]["failed_floors"]] == ["retrieval_top1_at_k"]
    assert comparison["delta"]["top1"] is None
    assert comparison["delta"]["hit"] == 0.0
    # Action outputs.
    assert report["code"] == 0, report["err"]
    heredocs = re.findall(r"^(\S+)<<(\S+)\n(.*?)\n\2$", outputs.read_text(), re.M | re.S)
    written = {name: value for name, _, value in heredocs}
    assert written["top1"] == "0.333333"
    # Report rows: its column in the tables, its floor named by its flag.
    markdown = (work / "report.md").read_text()
    assert "top1@5" in markdown
    assert "min-top1" in markdown
    # The unmodified tree knows no such metric: the entry is what made all of the above.
    plain = run_cli([*score, "--min", "top1=0.9"], cwd=work)
    assert plain.code == 2
    assert "unknown metric 'top1' (known: hit, recall, ndcg, mrr, precision)" in plain.err


def test_a_metric_added_to_the_registry_gets_its_own_tolerance_everywhere(
    tmp_path: Path,
) -> None:
    src = _sandbox(tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    _artifacts(work / "run.jsonl")  # hit@5 1.0, top1 4/12
    # A baseline of the sandbox's own tree, every gold card at rank 1: hit and top1 1.0.
    base = work / "base.jsonl"
    base.write_text(
        "".join(
            json.dumps(line | {"retrieved": line["must_cite_one_of"]}) + "\n"
            for line in map(json.loads, (work / "run.jsonl").read_text().splitlines())
        ),
        encoding="utf-8",
    )
    (work / "config").mkdir()
    (work / "config" / "recall-gate.yaml").write_text("gate:\n  max_regression: {top1: 0.1}\n")
    score = ["score", "--artifacts", "run.jsonl", "--comparison-json", "c.json"]
    runs = _run(
        src,
        work,
        [
            (["score", "--artifacts", "base.jsonl", "--json", "base.json"], {}),
            (["baseline", "update", "--results", "base.json", "--reason", "top1"], {}),
            (["score", "--help"], {}),
            ([*score, "--max-regression", "top1=0.1"], {}),
            ([*score, "--max-regression-top1", "0.1", "--markdown", "report.md"], {}),
            (
                [
                    *score,
                    "--config",
                    "config/recall-gate.yaml",
                    "--baseline",
                    "baselines/default.json",
                ],
                {},
            ),
            (score, {"RECALL_GATE_MAX_REGRESSION_TOP1": "0.1"}),
            ([*score, "--max-regression", "hit=0.1"], {}),
        ],
    )
    made, updated, help_, by_name, by_flag, by_config, by_env, other = runs
    assert (made["code"], updated["code"]) == (0, 0), made["err"] + updated["err"]
    # Flags: generated from the entry.
    assert "--max-regression-top1 X" in help_["out"]
    # top1 drops 0.667: its own tolerance fails it, by every spelling; hit's alone does not.
    assert [r["code"] for r in (by_name, by_flag, by_config, by_env)] == [1, 1, 1, 1], by_config
    assert other["code"] == 0, other["out"]
    assert "top1@5 not tolerance-gated" in other["out"]
    # Comparison JSON: its tolerance by its name (the last run: hit's alone).
    gate = json.loads((work / "c.json").read_text())["gate"]
    assert gate["tolerances"] == {"hit": 0.1}
    # Report rows: the drop line and the verdict name its tolerance.
    markdown = (work / "report.md").read_text()
    assert "top1@5 1.000 → 0.333" in markdown
    assert "beyond the tolerance of each metric (top1@5 0.100" in markdown
    # The unmodified tree knows no such metric.
    plain = run_cli([*score, "--max-regression", "top1=0.1"], cwd=work)
    assert plain.code == 2
    assert "unknown metric 'top1' (known: hit, recall, ndcg, mrr, precision)" in plain.err


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _generate(src: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_GATE_")}
    return subprocess.run(
        [sys.executable, "-m", "recall_gate.tools.generate", *args],
        capture_output=True,
        text=True,
        cwd=src.parent,
        env={**env, "PYTHONPATH": str(src)},
        check=False,
    )


def test_a_metric_added_to_the_registry_reaches_the_action_and_the_docs_by_generation(
    tmp_path: Path,
) -> None:
    src = _sandbox(tmp_path)
    edited = _tree(tmp_path)
    # Before generation the check names every file that must follow (as the test of
    # the committed files does): nothing can be forgotten.
    stale = _generate(src, "--check")
    assert stale.returncode == 1, stale.stdout + stale.stderr
    assert sorted(stale.stdout.splitlines()) == [
        f"{path} is out of date with the metric registry: run `make generate`"
        for path in ("action.yml", "docs/reference/action.md", "docs/reference/metrics.md")
    ]
    done = _generate(src)
    assert done.returncode == 0, done.stderr
    generated = _tree(tmp_path)
    changed = sorted(path for path in generated if generated[path] != edited.get(path))
    assert changed == ["action.yml", "docs/reference/action.md", "docs/reference/metrics.md"]
    assert _generate(src, "--check").returncode == 0
    # action.yml: its inputs and output, passed to the CLI under the names it reads.
    action = YAML(typ="safe").load((tmp_path / "action.yml").read_text(encoding="utf-8"))
    for name in ("min-top1", "max-regression-top1"):
        assert action["inputs"][name]["default"] == ""
        assert "top1@k" in action["inputs"][name]["description"]
    assert action["outputs"]["top1"]["value"] == "${{ steps.report.outputs.top1 }}"
    steps = {step.get("id"): step for step in action["runs"]["steps"]}
    evaluate = steps["evaluate"]["env"]
    assert evaluate["RECALL_GATE_MIN_TOP1"] == "${{ inputs.min-top1 }}"
    assert evaluate["RECALL_GATE_MAX_REGRESSION_TOP1"] == "${{ inputs.max-regression-top1 }}"
    # The capture role refuses it like every gate input (run together: empty when unset).
    gate_inputs = steps["plan"]["env"]["RG_GATE_INPUTS"]
    assert "${{ inputs.min-top1 }}" in gate_inputs
    assert "${{ inputs.max-regression-top1 }}" in gate_inputs
    assert "}} " not in gate_inputs
    assert "besides hit, recall, ndcg and top1" in action["inputs"]["metrics"]["description"]
    # The docs: the metric reference's row, the action reference's rows.
    metrics_doc = (tmp_path / "docs/reference/metrics.md").read_text(encoding="utf-8")
    assert (
        "| `top1` (top1@k) | `retrieval_top1_at_k` | 1 if the first card is relevant, else 0 "
        "(synthetic test metric). | trec_eval success_1 | always |"
    ) in metrics_doc
    action_doc = (tmp_path / "docs/reference/action.md").read_text(encoding="utf-8")
    assert "| `min-top1` |  | Floor on overall top1@k, in [0, 1]. Empty = inactive. |" in action_doc
    assert "| `max-regression-top1` |" in action_doc
    assert "| `top1` | Overall top1@k (mean over the gold-labelled cases). |" in action_doc
    # The config's `metrics:` list accepts it, and `score --json` carries it; the
    # unmodified tree refuses the name.
    work = tmp_path / "work"
    work.mkdir()
    _artifacts(work / "run.jsonl")
    (work / "recall-gate.yaml").write_text("metrics: [top1]\n", encoding="utf-8")
    score = ["score", "--artifacts", "run.jsonl", "--json", "r.json"]
    (scored,) = _run(src, work, [(score, {})])
    assert scored["code"] == 0, scored["err"]
    overall = json.loads((work / "r.json").read_text())["aggregates"]["overall"]
    assert overall["retrieval_top1_at_k"] == {"mean": round(4 / 12, 6), "n": 12}
    plain = run_cli(score, cwd=work)
    assert plain.code == 2
    assert "unknown metric 'top1'" in plain.err
