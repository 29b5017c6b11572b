"""The settings table: one row per setting, naming its flag, its environment
variable (the action input it carries), its key in ``recall-gate.yaml``, its
parser and its default. :mod:`recall_gate.settings.resolution` resolves every
row in one loop; the gated metrics' floor and tolerance rows are generated from
:data:`recall_gate.core.metric_registry.GATED_METRICS`, so a metric added there
has its flag, input and config key here without an edit.

The environment layer is how the GitHub Action passes its inputs: each
``RECALL_GATE_<NAME>`` variable stands for the flag ``--<name>``; an empty
value means unset (an action input left empty).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from recall_gate.adapters.config import CaptureSettings, Config
from recall_gate.core.gate import MIN_GROUP_N, REQUIRE_SIGNIFICANCE
from recall_gate.core.metric_registry import (
    DEFAULT_METRIC_KEYS,
    GATED_METRICS,
    MetricSpec,
    select_metrics,
)
from recall_gate.core.metrics import DEFAULT_K
from recall_gate.core.profile import DEFAULT_PROFILE
from recall_gate.settings.gate_settings import GATE_SETTINGS, GateSetting
from recall_gate.settings.values import (
    fraction,
    metric_selection,
    positive_int,
    profile_name,
    strict_boolean,
)

__all__ = ["ENVIRONMENT", "GATE_ROWS", "ROWS", "Row", "Source", "fix_for", "row"]

# Where a resolved value came from, highest first.
Source = Literal["flag", "environment", "config", "base config", "default"]

# A layer's lookup: the value and how the user named it (``--min-hit``,
# ``gate.floors.hit``), or None when the layer does not set it.
Found = tuple[Any, str] | None

_INPUT_FIX = "set the input to a valid value or leave it empty"


@dataclass(frozen=True, kw_only=True)
class Row:
    """One setting: where each layer sets it, how its text parses, its default."""

    name: str  # the key of Settings.sources ("k", "floor.hit", "tolerance.hit")
    dest: str  # the flag's argparse dest; the action input is its kebab-case spelling
    # Variables in the order they apply (a metric's own, then the shared); none: no input.
    env: tuple[str, ...]
    config_key: str | None  # the config's key, dotted as a reviewer reads it
    parse: Callable[[str], Any]  # an environment value's parser
    default: Any = None
    is_path: bool = False  # a flag's or variable's value resolves against the current directory
    fix: str = _INPUT_FIX  # what to do about a variable that does not parse
    # Lookups that differ from "the flag's dest" and "the config's dotted key".
    flag_lookup: Callable[[argparse.Namespace], Found] | None = None
    config_lookup: Callable[[Config], Found] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.dest.replace("_", "-")

    def from_flags(self, args: argparse.Namespace) -> Found:
        if self.flag_lookup is not None:
            return self.flag_lookup(args)
        value = getattr(args, self.dest, None)
        return None if value is None or value == [] else (value, self.flag)

    def from_config(self, config: Config) -> Found:
        if self.config_lookup is not None:
            return self.config_lookup(config)
        if self.config_key is None:
            return None
        value: Any = config
        for part in self.config_key.split("."):
            if part not in value.model_fields_set:
                return None  # the file leaves it to the default
            value = getattr(value, part)
        return None if value is None or value == () else (value, self.config_key)


def _floor_row(spec: MetricSpec) -> Row:
    assert spec.floor_flag is not None
    assert spec.floor_env is not None

    def flag(args: argparse.Namespace) -> Found:
        value = (getattr(args, "floors", None) or {}).get(spec.key)
        return None if value is None else (value, f"--{spec.floor_flag}")

    def config(config: Config) -> Found:
        value = config.gate.floors_by_key().get(spec.key)
        return None if value is None else (value, f"gate.floors.{spec.name}")

    return Row(
        name=f"floor.{spec.name}",
        dest=spec.floor_flag.replace("-", "_"),
        env=(spec.floor_env,),
        config_key=f"gate.floors.{spec.name}",
        parse=fraction,
        flag_lookup=flag,
        config_lookup=config,
    )


_EVERY_TOLERANCE_ENV = "RECALL_GATE_MAX_REGRESSION"
_EVERY_TOLERANCE_FIX = (
    "give `max-regression` one number for every metric (e.g. 0.05); for one metric, set its "
    "own input instead (" + ", ".join(f"{m.tolerance_flag}" for m in GATED_METRICS) + ")"
)


def _tolerance_row(spec: MetricSpec) -> Row:
    """Per metric, the first layer that sets it wins; within a layer the metric
    named beats the one number (``--max-regression hit=0.02`` over
    ``--max-regression 0.05``), and a higher layer's one number beats a lower
    layer's mapping."""
    assert spec.tolerance_flag is not None
    assert spec.tolerance_env is not None
    own = f"--{spec.tolerance_flag}"

    def flag(args: argparse.Namespace) -> Found:
        given = getattr(args, "tolerances", None) or {}
        if given.get(spec.key) is not None:
            return given[spec.key], own
        if given.get(None) is not None:
            return given[None], "--max-regression"
        return None

    def config(config: Config) -> Found:
        value = config.gate.max_regression
        if isinstance(value, float | int):
            return float(value), "gate.max_regression"
        mine = config.gate.tolerances_by_key().get(spec.key)
        return None if mine is None else (mine, f"gate.max_regression.{spec.name}")

    return Row(
        name=f"tolerance.{spec.name}",
        dest=spec.tolerance_flag.replace("-", "_"),
        env=(spec.tolerance_env, _EVERY_TOLERANCE_ENV),
        config_key=f"gate.max_regression.{spec.name}",
        parse=fraction,
        flag_lookup=flag,
        config_lookup=config,
    )


def _every_tolerance_row() -> Row:
    """``max-regression``: the one number, as an action input of its own (its value
    applies through each metric's tolerance row)."""
    return Row(
        name="max_regression",
        dest="max_regression",
        env=(_EVERY_TOLERANCE_ENV,),
        config_key=None,
        parse=fraction,
        fix=_EVERY_TOLERANCE_FIX,
        flag_lookup=lambda args: None,
    )


def _gate_row(setting: GateSetting) -> Row:
    """A gate setting beside the metric ones: ``--NAME``, the input ``NAME``, ``gate.NAME``."""
    return Row(
        name=setting.name,
        dest=setting.name,
        env=(setting.env,),
        config_key=f"gate.{setting.name}",
        parse=fraction,
        default=setting.default,
    )


# The gates beside the metrics' floors and tolerances (core/gate_list.py).
GATE_ROWS: tuple[Row, ...] = tuple(_gate_row(s) for s in GATE_SETTINGS)

ROWS: tuple[Row, ...] = (
    Row(name="config", dest="config", env=("RECALL_GATE_CONFIG",), config_key=None,
        parse=str, is_path=True),
    Row(name="profile", dest="profile", env=("RECALL_GATE_PROFILE",), config_key="profile",
        parse=profile_name, default=DEFAULT_PROFILE),
    Row(name="k", dest="k", env=("RECALL_GATE_K",), config_key="k", parse=positive_int,
        default=DEFAULT_K),
    Row(name="kb", dest="kb", env=("RECALL_GATE_KB",), config_key="kb", parse=Path,
        is_path=True),
    Row(name="cases", dest="cases", env=("RECALL_GATE_CASES",), config_key="cases",
        parse=Path, default=(), is_path=True),
    Row(name="baseline", dest="baseline", env=("RECALL_GATE_BASELINE",),
        config_key="baseline", parse=Path, is_path=True),
    Row(name="baseline_ref", dest="baseline_ref", env=("RECALL_GATE_BASELINE_REF",),
        config_key="baseline_ref", parse=str),
    *(_floor_row(spec) for spec in GATED_METRICS if spec.floor_flag and spec.floor_env),
    Row(name="metrics", dest="metrics", env=("RECALL_GATE_METRICS",), config_key="metrics",
        parse=metric_selection, default=DEFAULT_METRIC_KEYS,
        config_lookup=lambda c: None if c.metrics is None else (
            select_metrics(c.metrics), "metrics")),
    _every_tolerance_row(),
    *(_tolerance_row(s) for s in GATED_METRICS if s.tolerance_flag and s.tolerance_env),
    Row(name="min_group_n", dest="min_group_n", env=("RECALL_GATE_MIN_GROUP_N",),
        config_key="gate.min_group_n", parse=positive_int, default=MIN_GROUP_N),
    Row(name="require_significance", dest="require_significance",
        env=("RECALL_GATE_REQUIRE_SIGNIFICANCE",), config_key="gate.require_significance",
        parse=strict_boolean, default=REQUIRE_SIGNIFICANCE),
    *GATE_ROWS,
    Row(name="allow_outside_repo", dest="allow_outside_repo",
        env=("RECALL_GATE_ALLOW_OUTSIDE_REPO",), config_key=None, parse=strict_boolean,
        default=False),
    # `capture`: the retriever it runs and how it paces it (flag > config > default).
    *(
        Row(name=f"capture.{name}", dest=name, env=(), config_key=f"capture.{name}", parse=str,
            default=CaptureSettings.model_fields[name].default)
        for name in ("retriever", "label", "id_from", "concurrency", "retries", "timeout",
                     "max_failures", "max_qps")
    ),
)  # fmt: skip

_BY_NAME: Mapping[str, Row] = {r.name: r for r in ROWS}


def row(name: str) -> Row:
    """The table's row for one setting."""
    return _BY_NAME[name]


# Flag (argparse dest) → the environment variable the action sets from its input.
ENVIRONMENT: Mapping[str, str] = {r.dest: r.env[0] for r in ROWS if r.env}


def fix_for(variable: str) -> str:
    """What to do about a variable whose value does not parse."""
    return next(r.fix for r in ROWS if r.env and r.env[0] == variable)
