"""Floors are keyed by metric, from the registry: ``gate.floors`` in the
config, ``--min METRIC=X`` or ``--min-NAME X`` on the command line,
``RECALL_GATE_MIN_NAME`` from the action; the old ``gate.min_<name>`` keys
still read, with a warning. Synthetic data only."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli

SCORE = ["score", "--artifacts", "run.jsonl", "--comparison-json", "c.json"]


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """20 cases, 10 of them hits at rank 1: hit@5 = recall@5 = nDCG@5 = 0.5."""
    lines = [
        {
            "case_id": f"c{i:02d}",
            "retrieved": [f"card-{i}" if i < 10 else "other"],
            "must_cite_one_of": [f"card-{i}"],
            "language": "en",
            "case_type": "golden",
        }
        for i in range(20)
    ]
    (tmp_path / "run.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return tmp_path


def floors_of(work: Path) -> dict[str, float]:
    floors: dict[str, float] = json.loads((work / "c.json").read_text())["gate"]["floors"]
    return floors


def test_config_floors_are_keyed_by_metric_name(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  floors: {hit: 0.6, ndcg: 0.4}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 1  # hit 0.5 < 0.6
    assert run.err == ""
    assert floors_of(work) == {"hit": 0.6, "ndcg": 0.4}


def test_min_metric_equals_x_and_the_generated_flag_set_the_same_floor(work: Path) -> None:
    assert run_cli([*SCORE, "--min", "ndcg=0.6"], cwd=work).code == 1
    assert floors_of(work) == {"ndcg": 0.6}
    assert run_cli([*SCORE, "--min-ndcg", "0.6"], cwd=work).code == 1
    assert floors_of(work) == {"ndcg": 0.6}
    # The last one given wins, whichever spelling.
    assert run_cli([*SCORE, "--min-ndcg", "0.6", "--min", "ndcg=0.4"], cwd=work).code == 0
    assert floors_of(work) == {"ndcg": 0.4}


def test_a_floor_flag_beats_the_environment_which_beats_the_config(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  floors: {recall: 0.9}\n")
    assert run_cli(SCORE, cwd=work, environ={"RECALL_GATE_MIN_RECALL": "0.4"}).code == 0
    assert floors_of(work) == {"recall": 0.4}
    run = run_cli(
        [*SCORE, "--min", "recall=0.45"], cwd=work, environ={"RECALL_GATE_MIN_RECALL": "1"}
    )
    assert run.code == 0
    assert floors_of(work) == {"recall": 0.45}


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        (
            "map=0.5",
            "argument --min: unknown metric 'map' (known: hit, recall, ndcg, mrr, precision)",
        ),
        ("hit", "argument --min: expected METRIC=X, e.g. hit=0.8, got 'hit'"),
        ("hit=2", "argument --min: must be in [0, 1], got 2"),
    ],
)
def test_a_bad_min_flag_names_the_known_metrics_and_exits_2(
    work: Path, flag: str, message: str
) -> None:
    run = run_cli([*SCORE, "--min", flag], cwd=work)
    assert run.code == 2
    assert message in run.err


def test_an_unknown_metric_in_the_config_names_the_known_ones(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  floors: {map: 0.5}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 2
    assert "gate.floors" in run.err
    assert "unknown metric 'map' (known: hit, recall, ndcg, mrr, precision)" in run.err


def test_the_old_min_keys_still_set_floors_with_a_deprecation_warning(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  min_hit: 0.6\n  min_ndcg: null\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 1
    assert floors_of(work) == {"hit": 0.6}
    config = work / "recall-gate.yaml"
    assert run.err == (
        f"recall-gate: warning: {config}: gate.min_hit is deprecated; "
        "write gate.floors.hit instead\n"
        f"recall-gate: warning: {config}: gate.min_ndcg is deprecated; "
        "write gate.floors.ndcg instead\n"
    )


def test_an_old_and_a_new_key_for_one_metric_is_an_error(work: Path) -> None:
    (work / "recall-gate.yaml").write_text("gate:\n  min_hit: 0.6\n  floors: {hit: 0.7}\n")
    run = run_cli(SCORE, cwd=work)
    assert run.code == 2
    assert "min_hit and floors.hit are both set; keep floors.hit (min_hit is deprecated)" in run.err


def test_a_floor_on_a_metric_outside_the_default_set_scores_it(work: Path) -> None:
    # 10 of 20 cases have their gold at rank 1: MRR@5 = 0.5.
    run = run_cli([*SCORE, "--min", "mrr=0.6"], cwd=work)
    assert run.code == 1, run.err
    assert "MRR@5" in run.out
    comparison = json.loads((work / "c.json").read_text())
    assert comparison["metrics"]["mrr"] == 0.5
    assert "precision" not in comparison["metrics"]
    assert [f["metric"] for f in comparison["gate"]["failed_floors"]] == ["retrieval_mrr_at_k"]
