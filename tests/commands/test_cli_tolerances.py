"""Tolerances are keyed by metric, like the floors: ``gate.max_regression`` is
one number (every gated metric) or a mapping by metric name; ``--max-regression
X`` means every metric, ``--max-regression METRIC=X`` and ``--max-regression-NAME
X`` one; ``RECALL_GATE_MAX_REGRESSION[_NAME]`` from the action. Synthetic data only.

The baseline has 20 cases with their gold card at rank 1; the current run
loses one and moves four to rank 3: hit and recall drop 0.05, nDCG 0.15
(rank 3 scores 1/log2(4) = 0.5). Within noise, so the runs turn
require-significance off: every drop beyond its tolerance fails.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli

# The drops are within noise: these tests hold them to the tolerance alone.
SCORE = [
    "score",
    "--artifacts",
    "run.jsonl",
    "--comparison-json",
    "c.json",
    "--require-significance",
    "false",
]
KNOWN = "(known: hit, recall, ndcg, mrr, precision)"


def _capture(path: Path, ranks: dict[int, int | None]) -> None:
    lines = []
    for i in range(20):
        gold = f"card-{i}"
        rank = ranks.get(i, 1)
        retrieved = [f"other-{i}-{r}" for r in range(4)]
        if rank is not None:
            retrieved.insert(rank - 1, gold)
        lines.append(
            {
                "case_id": f"c{i:02d}",
                "retrieved": retrieved,
                "must_cite_one_of": [gold],
                "language": "en",
                "case_type": "golden",
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


@pytest.fixture
def work(tmp_path: Path) -> Path:
    _capture(tmp_path / "base.jsonl", {})
    made = run_cli(["score", "--artifacts", "base.jsonl", "--json", "base.json"], cwd=tmp_path)
    assert made.code == 0, made.err
    update = ["baseline", "update", "--results", "base.json", "--reason", "synthetic"]
    assert run_cli(update, cwd=tmp_path).code == 0
    _capture(tmp_path / "run.jsonl", {0: None, 1: 3, 2: 3, 3: 3, 4: 3})
    return tmp_path


def gate_of(work: Path) -> dict[str, Any]:
    gate: dict[str, Any] = json.loads((work / "c.json").read_text())["gate"]
    return gate


def failed(work: Path) -> set[str]:
    return {r["metric"] for r in gate_of(work)["regressions"]}


def test_a_tolerance_keyed_by_metric_gates_only_that_metric(work: Path) -> None:
    # hit drops 0.05, within 0.1; nDCG's 0.15 drop has no tolerance: not gated.
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: {hit: 0.1}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 0, run.err
    assert gate_of(work)["tolerances"] == {"hit": 0.1}
    assert "recall@5, nDCG@5 not tolerance-gated" in run.out
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: {ndcg: 0.1, hit: null}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 1
    assert gate_of(work)["tolerances"] == {"ndcg": 0.1}
    assert failed(work) == {"retrieval_ndcg_at_k"}


def test_each_metric_is_judged_against_its_own_tolerance(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: {hit: 0.01, ndcg: 0.2}\n")
    assert run_cli(SCORE, cwd=work).code == 1
    assert failed(work) == {"retrieval_hit_at_k"}
    assert {r["tolerance"] for r in gate_of(work)["regressions"]} == {0.01}


def test_one_number_in_the_config_still_applies_to_every_gated_metric(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: 0.04\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 1
    assert gate_of(work)["tolerances"] == dict.fromkeys(
        ("hit", "recall", "ndcg", "mrr", "precision"), 0.04
    )
    assert failed(work) == {"retrieval_hit_at_k", "retrieval_recall_at_k", "retrieval_ndcg_at_k"}
    assert "beyond the 0.040 tolerance" in run.out


def test_an_unknown_metric_in_tolerance_is_exit_2_naming_the_key(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: {hit: 0.1, map: 0.1}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 2
    assert run.err.startswith(f"recall-gate: error: {work / 'recall-gate.yaml'}: ")
    assert f"field `gate.max_regression`: unknown metric 'map' {KNOWN}" in run.err


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("{hit: 2}", "hit: must be in [0, 1], got 2"),
        ("{hit: abc}", "hit: expected a number in [0, 1], got 'abc'"),
        ("true", "expected a number in [0, 1] or a mapping of metric name to one"),
        ("[0.1]", "expected a number in [0, 1] or a mapping of metric name to one"),
        ("1.5", "must be in [0, 1], got 1.5"),
    ],
)
def test_a_malformed_tolerance_in_the_config_is_exit_2_naming_the_field(
    work: Path, value: str, message: str
) -> None:
    (work / "recall-gate.yaml").write_text(f"gate:\n  max_regression: {value}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 2
    assert f"field `gate.max_regression`: {message}" in run.err
    assert "Traceback" not in run.err


def test_max_regression_metric_equals_x_and_the_generated_flag_set_the_same_tolerance(
    work: Path,
) -> None:
    assert run_cli([*SCORE, "--max-regression", "ndcg=0.1"], cwd=work).code == 1
    assert gate_of(work)["tolerances"] == {"ndcg": 0.1}
    assert run_cli([*SCORE, "--max-regression-ndcg", "0.1"], cwd=work).code == 1
    assert gate_of(work)["tolerances"] == {"ndcg": 0.1}
    # Repeatable; the last one given for a metric wins, whichever spelling.
    run = run_cli(
        [*SCORE, "--max-regression-ndcg", "0.1", "--max-regression", "ndcg=0.2"], cwd=work
    )
    assert run.code == 0
    argv = [*SCORE, "--max-regression", "hit=0.1", "--max-regression", "ndcg=0.2"]
    assert run_cli(argv, cwd=work).code == 0
    assert gate_of(work)["tolerances"] == {"hit": 0.1, "ndcg": 0.2}


def test_max_regression_x_means_every_metric_and_a_metric_given_beside_it_wins(
    work: Path,
) -> None:
    assert run_cli([*SCORE, "--max-regression", "0.2"], cwd=work).code == 0
    assert set(gate_of(work)["tolerances"].values()) == {0.2}
    for argv in (
        ["--max-regression", "0.2", "--max-regression", "hit=0.01"],
        ["--max-regression", "hit=0.01", "--max-regression", "0.2"],
    ):
        assert run_cli([*SCORE, *argv], cwd=work).code == 1
        tolerances = gate_of(work)["tolerances"]
        assert (tolerances["hit"], tolerances["ndcg"], tolerances["recall"]) == (0.01, 0.2, 0.2)
        assert failed(work) == {"retrieval_hit_at_k"}


def test_a_tolerance_flag_beats_the_environment_which_beats_the_config(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  max_regression: {hit: 0.01, ndcg: 0.01}\n")
    environ = {"RECALL_GATE_MAX_REGRESSION_NDCG": "0.2"}
    assert run_cli(SCORE, cwd=work, environ=environ).code == 1
    assert gate_of(work)["tolerances"] == {"hit": 0.01, "ndcg": 0.2}
    # The one-number input covers every metric, over the config's mapping.
    environ = {"RECALL_GATE_MAX_REGRESSION": "0.2"}
    assert run_cli(SCORE, cwd=work, environ=environ).code == 0
    assert set(gate_of(work)["tolerances"].values()) == {0.2}
    # A flag beats both; an empty input is unset.
    environ = {"RECALL_GATE_MAX_REGRESSION": "0.01", "RECALL_GATE_MAX_REGRESSION_HIT": ""}
    run = run_cli([*SCORE, "--max-regression", "0.2"], cwd=work, environ=environ)
    assert run.code == 0
    assert set(gate_of(work)["tolerances"].values()) == {0.2}


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("map=0.1", f"argument --max-regression: unknown metric 'map' {KNOWN}"),
        ("hit", "argument --max-regression: expected X or METRIC=X (e.g. 0.05 or hit=0.02), "),
        ("hit=2", "argument --max-regression: must be in [0, 1], got 2"),
        ("5", "argument --max-regression: must be in [0, 1], got 5"),
        ("=0.1", "argument --max-regression: unknown metric ''"),
    ],
)
def test_a_bad_max_regression_flag_is_exit_2_with_a_fix(
    work: Path, flag: str, message: str
) -> None:
    run = run_cli([*SCORE, "--max-regression", flag], cwd=work)
    assert run.code == 2
    assert message in run.err
    assert "fix: see `recall-gate score --help`" in run.err


def test_a_bad_tolerance_input_is_exit_2_naming_the_input(work: Path) -> None:
    run = run_cli(SCORE, cwd=work, environ={"RECALL_GATE_MAX_REGRESSION_HIT": "lots"})
    assert run.code == 2
    assert (
        "RECALL_GATE_MAX_REGRESSION_HIT='lots' (the action input `max-regression-hit`): "
        "expected a number in [0, 1], got 'lots'" in run.err
    )
    run = run_cli(SCORE, cwd=work, environ={"RECALL_GATE_MAX_REGRESSION": "hit=0.02"})
    assert run.code == 2
    assert "(the action input `max-regression`)" in run.err
    assert (
        "fix: give `max-regression` one number for every metric (e.g. 0.05); for one metric, "
        "set its own input instead (max-regression-hit, max-regression-recall, " in run.err
    )


def test_a_tolerance_on_a_metric_outside_the_default_set_scores_it(work: Path) -> None:
    # A baseline that scored MRR too; MRR: 1.0 → (15 + 4 × 1/3) / 20 = 0.8167 (−0.183).
    made = run_cli(
        ["score", "--artifacts", "base.jsonl", "--metrics", "hit,mrr", "--json", "base.json"],
        cwd=work,
    )
    assert made.code == 0, made.err
    update = ["baseline", "update", "--results", "base.json", "--reason", "with MRR"]
    assert run_cli(update, cwd=work).code == 0
    run = run_cli([*SCORE, "--max-regression", "mrr=0.1"], cwd=work)
    assert run.code == 1, run.err
    comparison = json.loads((work / "c.json").read_text())
    assert comparison["metrics"]["mrr"] == pytest.approx(0.816667)
    assert failed(work) == {"retrieval_mrr_at_k"}
    # One number for every metric adds none.
    assert run_cli([*SCORE, "--max-regression", "0.5"], cwd=work).code == 0
    assert json.loads((work / "c.json").read_text())["metrics"]["mrr"] is None


def test_a_tolerance_on_a_metric_the_baseline_lacks_is_reported_as_not_checked(
    work: Path,
) -> None:
    # The baseline scored the default three; MRR cannot be compared with it.
    run = run_cli([*SCORE, "--max-regression", "mrr=0.1"], cwd=work)
    assert run.code == 0, run.err
    assert "MRR@5 not checked: the baseline lacks it" in run.out
