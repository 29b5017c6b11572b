"""`recall-gate settings`: each value a run would use, with the layer it came from —
and in a pull request, the base branch's gate settings, not the PR's."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli
from git_repo import git, needs_git


def test_each_setting_names_its_layer_flag_environment_config_or_default(
    tmp_path: Path,
) -> None:
    (tmp_path / "recall-gate.yaml").write_text("k: 3\ngate:\n  floors: {ndcg: 0.5}\n")

    run = run_cli(
        ["settings", "--max-regression", "0.05"],
        cwd=tmp_path,
        environ={"RECALL_GATE_MIN_HIT": "0.8"},
    )

    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert "k = 3 (config k)" in lines
    assert "floor.hit = 0.8 (environment RECALL_GATE_MIN_HIT)" in lines
    assert "floor.ndcg = 0.5 (config gate.floors.ndcg)" in lines
    assert "tolerance.recall = 0.05 (flag --max-regression)" in lines
    assert "min_group_n = 10 (default)" in lines


def test_the_json_form_holds_value_and_source(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("k: 7\n")

    run = run_cli(["settings", "--json"], cwd=tmp_path)

    assert run.code == 0, run.err
    shown = json.loads(run.out)
    assert shown["k"] == {"value": 7, "source": "config", "as": "k"}


@needs_git
def test_in_a_pull_request_the_bases_floor_is_shown_as_the_one_that_judges(
    tmp_path: Path,
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  floors: {hit: 0.8}\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  floors: {hit: 0.1}\n")  # the PR lowers it

    run = run_cli(["settings", "--baseline-ref", "main"], cwd=tmp_path)

    assert run.code == 0, run.err
    assert "floor.hit = 0.8 (base config gate.floors.hit)" in run.out.splitlines(), run.out
    assert "judged by: main (--baseline-ref)" in run.out


def test_every_gate_setting_shows_its_source_flag_environment_or_config(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  min_new_card_coverage: 0.5\n")

    run = run_cli(
        ["settings", "--max-moved-share", "0.2"],
        cwd=tmp_path,
        environ={"RECALL_GATE_MAX_UNANSWERED_SHARE": "0.05"},
    )

    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert "max_moved_share = 0.2 (flag --max-moved-share)" in lines
    assert "min_new_card_coverage = 0.5 (config gate.min_new_card_coverage)" in lines
    assert "max_unanswered_share = 0.05 (environment RECALL_GATE_MAX_UNANSWERED_SHARE)" in lines


def test_max_unanswered_share_defaults_to_a_tenth(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("k: 3\n")

    run = run_cli(["settings"], cwd=tmp_path)

    assert run.code == 0, run.err
    assert "max_unanswered_share = 0.1 (default)" in run.out.splitlines()


@needs_git
def test_in_a_pull_request_the_bases_traffic_and_new_card_gates_judge(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    base = "gate:\n  max_moved_share: 0.2\n  min_new_card_coverage: 0.5\n"
    (tmp_path / "recall-gate.yaml").write_text(base)
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    # The pull request switches both off and lets every query go unanswered.
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  max_unanswered_share: 1.0\n")

    run = run_cli(["settings", "--baseline-ref", "main"], cwd=tmp_path)

    assert run.code == 0, run.err
    lines = run.out.splitlines()
    assert "max_moved_share = 0.2 (base config gate.max_moved_share)" in lines, run.out
    assert "min_new_card_coverage = 0.5 (base config gate.min_new_card_coverage)" in lines
    assert "max_unanswered_share = 0.1 (default)" in lines
