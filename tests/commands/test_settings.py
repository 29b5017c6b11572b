"""Settings are resolved once: flags > environment (the action's inputs) >
recall-gate.yaml > defaults; config paths and the default baseline resolve
against the config's folder, flag paths against the current directory."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli, write_capture


def cli(argv: list[str], cwd: Path, environ: Mapping[str, str] | None = None) -> CliRun:
    return run_cli(argv, cwd=cwd, environ=environ)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """A user's project: a config, a capture and a committed baseline (all hits)."""
    root = tmp_path / "app"
    root.mkdir()
    (root / "recall-gate.yaml").write_text("k: 2\n", encoding="utf-8")
    write_capture(root / "captures" / "good.jsonl", hits=20)
    made = cli(["score", "--artifacts", "captures/good.jsonl", "--json", "good.json"], root)
    assert made.code == 0, made.err
    update = cli(["baseline", "update", "--results", "good.json"], root)
    assert update.code == 0, update.err
    assert (root / "baselines" / "default.json").is_file()
    write_capture(root / "captures" / "bad.jsonl", hits=10)
    return root


def test_the_default_baseline_resolves_against_the_config_folder_from_any_directory(
    app: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    run = cli(
        [
            "score",
            "--config",
            str(app / "recall-gate.yaml"),
            "--artifacts",
            str(app / "captures" / "bad.jsonl"),
            "--max-regression",
            "0.05",
        ],
        elsewhere,
    )
    # The gate compared with the app's baseline, not a missing ./baselines/default.json.
    assert run.code == 1, run.out + run.err
    assert f"baseline: {app / 'baselines' / 'default.json'}\n" in run.out
    assert f"config:   {app / 'recall-gate.yaml'}\n" in run.out
    assert "No baseline yet" not in run.out


def test_the_report_header_names_a_baseline_that_is_not_there(app: Path, tmp_path: Path) -> None:
    (app / "baselines" / "default.json").unlink()
    run = cli(["score", "--artifacts", "captures/bad.jsonl", "--max-regression", "0.05"], app)
    assert run.code == 0
    assert "baseline: baselines/default.json (not found)\n" in run.out


def test_flag_paths_resolve_against_the_current_directory(app: Path) -> None:
    sub = app / "captures"
    run = cli(["score", "--artifacts", "bad.jsonl", "--baseline", "../baselines/default.json"], sub)
    assert run.code == 0, run.err
    assert "baseline: " + str(app / "baselines" / "default.json") in run.out


def test_a_config_profile_names_the_baseline_and_a_flag_overrides_it(app: Path) -> None:
    (app / "recall-gate.yaml").write_text("k: 2\nprofile: nightly\n", encoding="utf-8")
    by_config = cli(["score", "--artifacts", "captures/bad.jsonl", "--max-regression", "0"], app)
    assert "baseline: baselines/nightly.json (not found)" in by_config.out
    assert "recall-gate nightly:" in by_config.out
    by_flag = cli(
        [
            "score",
            "--artifacts",
            "captures/bad.jsonl",
            "--profile",
            "default",
            "--max-regression",
            "0",
        ],
        app,
    )
    assert "baseline: baselines/default.json\n" in by_flag.out
    assert by_flag.code == 1


def test_flags_override_the_environment_which_overrides_the_config(app: Path) -> None:
    (app / "recall-gate.yaml").write_text("k: 2\ngate: {floors: {hit: 0.9}}\n", encoding="utf-8")
    argv = ["score", "--artifacts", "captures/bad.jsonl", "--json", "r.json"]
    # config: floors.hit 0.9 against hit 0.5 → fail
    assert cli(argv, app).code == 1
    # environment (the action's input) over the config: 0.4 → pass
    assert cli(argv, app, {"RECALL_GATE_MIN_HIT": "0.4"}).code == 0
    # flag over the environment: 0.6 → fail
    assert cli([*argv, "--min-hit", "0.6"], app, {"RECALL_GATE_MIN_HIT": "0.4"}).code == 1
    # k: the config's 2, the environment's 1, the flag's 3
    for flags, environ, k in [
        ([], {"RECALL_GATE_MIN_HIT": "0"}, 2),
        ([], {"RECALL_GATE_K": "1", "RECALL_GATE_MIN_HIT": "0"}, 1),
        (["--k", "3"], {"RECALL_GATE_K": "1", "RECALL_GATE_MIN_HIT": "0"}, 3),
    ]:
        assert cli([*argv, *flags], app, environ).code == 0
        assert json.loads((app / "r.json").read_text(encoding="utf-8"))["k"] == k


def test_an_empty_environment_variable_is_unset(app: Path) -> None:
    environ = {"RECALL_GATE_MIN_HIT": "", "RECALL_GATE_PROFILE": " ", "RECALL_GATE_K": ""}
    run = cli(["score", "--artifacts", "captures/bad.jsonl", "--json", "r.json"], app, environ)
    assert run.code == 0, run.err
    assert json.loads((app / "r.json").read_text(encoding="utf-8"))["k"] == 2


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("RECALL_GATE_MIN_HIT", "high", "RECALL_GATE_MIN_HIT='high' (the action input `min-hit`)"),
        ("RECALL_GATE_MAX_REGRESSION", "2", "(the action input `max-regression`): must be"),
        (
            "RECALL_GATE_K",
            "0",
            "RECALL_GATE_K='0' (the action input `k`): must be a positive integer, got 0",
        ),
        ("RECALL_GATE_PROFILE", "a b", "RECALL_GATE_PROFILE='a b' (the action input `profile`)"),
    ],
)
def test_a_bad_environment_value_names_the_input_and_exits_2(
    app: Path, name: str, value: str, message: str
) -> None:
    run = cli(["score", "--artifacts", "captures/bad.jsonl"], app, {name: value})
    assert run.code == 2
    assert message in run.err
    assert "Traceback" not in run.err
    assert run.out == ""


def test_a_baseline_named_in_the_config_resolves_against_the_config_folder(
    app: Path, tmp_path: Path
) -> None:
    (app / "baselines" / "default.json").rename(app / "reference.json")
    (app / "recall-gate.yaml").write_text("k: 2\nbaseline: reference.json\n", encoding="utf-8")
    run = cli(
        [
            "score",
            "--config",
            str(app / "recall-gate.yaml"),
            "--artifacts",
            str(app / "captures" / "good.jsonl"),
        ],
        tmp_path,
    )
    assert run.code == 0, run.err
    assert "baseline: app/reference.json\n" in run.out  # shown relative to the cwd
    assert "No baseline yet" not in run.out
