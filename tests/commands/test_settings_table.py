"""The settings resolve from one table: each row names its flag, environment
variable, config key, parser and default, and the resolved settings say where
each value came from. The gated metrics' rows are the registry's."""

from __future__ import annotations

import argparse
import io
from pathlib import Path

import pytest

from recall_gate.console import Console
from recall_gate.core.gates import DEFAULT_MAX_UNANSWERED_SHARE
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.errors import InputError
from recall_gate.settings import ENVIRONMENT, ROWS, resolve_settings
from recall_gate.settings.gate_settings import GATE_SETTINGS


def console(cwd: Path, **environ: str) -> Console:
    return Console(stdout=io.StringIO(), stderr=io.StringIO(), environ=environ, cwd=cwd)


def flags(**given: object) -> argparse.Namespace:
    return argparse.Namespace(**given)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 3\ngate:\n  floors: {hit: 0.7}\n  max_regression: {ndcg: 0.04}\n", encoding="utf-8"
    )
    return tmp_path


def test_each_value_says_which_layer_set_it(project: Path) -> None:
    settings = resolve_settings(
        flags(profile="nightly"), console(project, RECALL_GATE_MIN_GROUP_N="7")
    )

    assert (settings.profile, settings.k, settings.min_group_n) == ("nightly", 3, 7)
    assert settings.source("profile") == "flag"
    assert settings.source("min_group_n") == "environment"
    assert settings.source("k") == "config"
    assert settings.source("floor.hit") == "config"
    assert settings.source("require_significance") == "default"
    assert settings.source("baseline") == "default"
    assert settings.sources["min_group_n"].named_as == "RECALL_GATE_MIN_GROUP_N"
    assert settings.sources["floor.hit"].named_as == "gate.floors.hit"


def test_a_key_the_config_leaves_out_is_the_default_not_the_config(project: Path) -> None:
    settings = resolve_settings(flags(), console(project))

    assert settings.source("profile") == "default"
    assert settings.source("metrics") == "default"


def test_explain_lists_each_set_value_with_its_source(project: Path) -> None:
    settings = resolve_settings(flags(k=9), console(project, RECALL_GATE_KB="kb"))

    lines = settings.explain()

    assert "k = 9 (flag --k)" in lines
    assert f"kb = {project / 'kb'} (environment RECALL_GATE_KB)" in lines
    assert "floor.hit = 0.7 (config gate.floors.hit)" in lines
    assert "tolerance.ndcg = 0.04 (config gate.max_regression.ndcg)" in lines
    assert "profile = default (default)" in lines


def test_within_a_layer_a_metric_named_beats_the_one_number(project: Path) -> None:
    settings = resolve_settings(
        flags(tolerances={None: 0.05, "retrieval_hit_at_k": 0.01}), console(project)
    )

    by_key = {spec.name: settings.tolerances.values.get(spec.key) for spec in GATED_METRICS}
    assert by_key["hit"] == 0.01
    assert settings.sources["tolerance.hit"].named_as == "--max-regression-hit"
    assert settings.sources["tolerance.ndcg"].named_as == "--max-regression"
    assert by_key["ndcg"] == 0.05  # the flag's one number beats the config's mapping


def test_a_bad_variable_names_the_action_input_and_the_fix(project: Path) -> None:
    with pytest.raises(InputError) as raised:
        resolve_settings(flags(), console(project, RECALL_GATE_K="zero"))

    assert raised.value.message.startswith("RECALL_GATE_K='zero' (the action input `k`)")


def test_the_floor_and_tolerance_rows_are_the_registrys() -> None:
    names = {r.name for r in ROWS}
    for spec in GATED_METRICS:
        assert f"floor.{spec.name}" in names
        assert f"tolerance.{spec.name}" in names
        assert ENVIRONMENT[(spec.floor_flag or "").replace("-", "_")] == spec.floor_env
        assert ENVIRONMENT[(spec.tolerance_flag or "").replace("-", "_")] == spec.tolerance_env


def test_every_action_input_the_cli_reads_is_a_row_of_the_table() -> None:
    per_metric = {
        (spec.floor_flag or "").replace("-", "_"): spec.floor_env for spec in GATED_METRICS
    } | {
        (spec.tolerance_flag or "").replace("-", "_"): spec.tolerance_env for spec in GATED_METRICS
    }
    assert dict(ENVIRONMENT) == {
        "config": "RECALL_GATE_CONFIG",
        "profile": "RECALL_GATE_PROFILE",
        "k": "RECALL_GATE_K",
        "kb": "RECALL_GATE_KB",
        "cases": "RECALL_GATE_CASES",
        "baseline": "RECALL_GATE_BASELINE",
        "baseline_ref": "RECALL_GATE_BASELINE_REF",
        "metrics": "RECALL_GATE_METRICS",
        "max_regression": "RECALL_GATE_MAX_REGRESSION",
        "min_group_n": "RECALL_GATE_MIN_GROUP_N",
        "require_significance": "RECALL_GATE_REQUIRE_SIGNIFICANCE",
        "allow_outside_repo": "RECALL_GATE_ALLOW_OUTSIDE_REPO",
        "max_moved_share": "RECALL_GATE_MAX_MOVED_SHARE",
        "min_new_card_coverage": "RECALL_GATE_MIN_NEW_CARD_COVERAGE",
        "max_unanswered_share": "RECALL_GATE_MAX_UNANSWERED_SHARE",
        "min_reader_language_share": "RECALL_GATE_MIN_READER_LANGUAGE_SHARE",
        **per_metric,
    }
    assert len({r.name for r in ROWS}) == len(ROWS)


def test_every_gate_setting_is_a_row_with_its_flag_input_and_config_key(project: Path) -> None:
    names = {r.name: r for r in ROWS}
    for setting in GATE_SETTINGS:
        r = names[setting.name]
        assert (r.flag, r.env, r.config_key) == (
            f"--{setting.name.replace('_', '-')}",
            (f"RECALL_GATE_{setting.name.upper()}",),
            f"gate.{setting.name}",
        )
    assert {s.name for s in GATE_SETTINGS} == {
        "max_moved_share", "min_new_card_coverage", "max_unanswered_share",
        "min_reader_language_share",
    }  # fmt: skip
    settings = resolve_settings(
        flags(max_moved_share=0.3), console(project, RECALL_GATE_MIN_NEW_CARD_COVERAGE="0.5")
    )
    assert settings.value("max_moved_share") == 0.3
    assert settings.value("min_new_card_coverage") == 0.5
    assert settings.value("max_unanswered_share") == DEFAULT_MAX_UNANSWERED_SHARE
    assert settings.source("max_unanswered_share") == "default"


def test_a_gate_setting_out_of_range_names_its_action_input(project: Path) -> None:
    with pytest.raises(InputError) as raised:
        resolve_settings(flags(), console(project, RECALL_GATE_MAX_MOVED_SHARE="1.5"))

    assert raised.value.message == (
        "RECALL_GATE_MAX_MOVED_SHARE='1.5' (the action input `max-moved-share`): "
        "must be in [0, 1], got 1.5"
    )


def test_the_captures_settings_are_rows_of_the_table_too(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "recall-gate.yaml").write_text(
        "capture:\n  retriever: app.rag:build\n  concurrency: 4\n", encoding="utf-8"
    )

    settings = resolve_settings(flags(concurrency=2), console(tmp_path))

    assert (settings.value("capture.concurrency"), settings.source("capture.concurrency")) == (
        2,
        "flag",
    )
    assert settings.value("capture.retriever") == "app.rag:build"
    assert settings.source("capture.retriever") == "config"
    assert settings.source("capture.retries") == "default"
    assert "concurrency" not in ENVIRONMENT  # no action input carries it
