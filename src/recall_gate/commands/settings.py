"""The settings of one command, resolved once: flags > environment (the
action's inputs) > ``recall-gate.yaml`` > defaults.

Path rule: every path inside the config file — and the default
``baselines/<profile>.json`` — resolves against the config file's folder;
paths given as flags or environment variables resolve against the current
directory. So ``cd ~ && recall-gate run --config app/recall-gate.yaml`` reads
and compares exactly what ``cd app && recall-gate run`` does.

The environment layer is how the GitHub Action passes its inputs: each
``RECALL_GATE_<NAME>`` variable stands for the flag ``--<name>``; an empty
value means unset (an action input left empty).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from recall_gate.adapters.config import Config, GateSettings, find_config, load_config
from recall_gate.adapters.dataset import KbFiles
from recall_gate.commands.arguments import fraction, positive_int, profile_name, strict_boolean
from recall_gate.commands.context import DEFAULT_CONFIG, Io, display_path, warn
from recall_gate.core.gate import MIN_GROUP_N, REQUIRE_SIGNIFICANCE, Floors
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.core.metrics import DEFAULT_K
from recall_gate.core.profile import (
    DEFAULT_PROFILE,
    baseline_relpath,
)
from recall_gate.errors import InputError

__all__ = ["ENVIRONMENT", "Settings", "resolve_settings"]

T = TypeVar("T")

# Flag (argparse dest) → the environment variable the action sets from its input.
ENVIRONMENT: Mapping[str, str] = {
    "config": "RECALL_GATE_CONFIG",
    "profile": "RECALL_GATE_PROFILE",
    "k": "RECALL_GATE_K",
    "kb": "RECALL_GATE_KB",
    "cases": "RECALL_GATE_CASES",
    "baseline": "RECALL_GATE_BASELINE",
    "baseline_ref": "RECALL_GATE_BASELINE_REF",
    # One floor per gated metric of the registry: min_hit → RECALL_GATE_MIN_HIT.
    **{
        spec.floor_flag.replace("-", "_"): spec.floor_env
        for spec in GATED_METRICS
        if spec.floor_flag and spec.floor_env
    },
    "max_regression": "RECALL_GATE_MAX_REGRESSION",
    "min_group_n": "RECALL_GATE_MIN_GROUP_N",
    "require_significance": "RECALL_GATE_REQUIRE_SIGNIFICANCE",
}


@dataclass(frozen=True, kw_only=True)
class Settings:
    """Everything a command acts on, each value from exactly one source."""

    config_path: Path | None
    config: Config | None
    profile: str
    k: int
    kb: Path | None
    cases: tuple[Path, ...]
    floors: Floors
    max_regression: float | None
    # The noise rule of max_regression (see core.gate).
    min_group_n: int
    require_significance: bool
    baseline: Path
    baseline_given: bool  # named by a flag, the environment or the config (not the default)
    baseline_ref: str | None
    # Found by looking up from the current directory (not named by flag or environment).
    config_discovered: bool = False

    def kb_files(self) -> KbFiles:
        """How the KB directory's files become cards (the config's KB keys)."""
        config = self.config
        if config is None:
            return KbFiles()
        return KbFiles(
            default_language=config.default_language,
            languages=config.languages,
            include=config.kb_include,
            exclude=config.kb_exclude,
        )

    def config_shown(self, io: Io) -> str:
        """The config file as the header names it; one found in a parent folder
        is shown relative to the current one, so where it came from is plain."""
        if self.config_path is None:
            return f"none (no {DEFAULT_CONFIG} here or in a parent folder)"
        if self.config_discovered and self.config_path.parent != io.cwd:
            relative = Path(os.path.relpath(self.config_path, io.cwd)).as_posix()
            return f"{relative} (the nearest, in a parent folder)"
        return display_path(self.config_path, io)

    def paths(self, io: Io) -> list[tuple[str, str]]:
        """The resolved paths, as the report header shows them."""
        baseline = display_path(self.baseline, io)
        if self.baseline_ref:
            baseline += f" at {self.baseline_ref}"
        elif not self.baseline.is_file():
            baseline += " (not found)"
        rows = [("config", self.config_shown(io))]
        if self.kb is not None:
            rows.append(("KB", display_path(self.kb, io)))
        if self.cases:
            rows.append(("cases", ", ".join(display_path(p, io) for p in self.cases)))
        return [*rows, ("baseline", baseline)]


def _env(io: Io, dest: str) -> str | None:
    name = ENVIRONMENT.get(dest)
    value = io.environ.get(name, "").strip() if name else ""
    return value or None


def _parsed(dest: str, text: str, parse: Callable[[str], T], *, fix: str) -> T:
    try:
        return parse(text)
    except (ValueError, argparse.ArgumentTypeError) as exc:
        flag = "--" + dest.replace("_", "-")
        raise InputError(
            f"{ENVIRONMENT[dest]}={text!r} (the action input `{flag[2:]}`): {exc}", fix=fix
        ) from None


def _flag_or_env(
    args: argparse.Namespace, io: Io, dest: str, parse: Callable[[str], T]
) -> T | None:
    """The flag's value, else the environment variable's (parsed), else None."""
    value = getattr(args, dest, None)
    if value is not None:
        return value  # type: ignore[no-any-return]
    text = _env(io, dest)
    if text is None:
        return None
    return _parsed(dest, text, parse, fix="set the input to a valid value or leave it empty")


def _against_cwd(io: Io, value: str | Path) -> Path:
    """A flag's or variable's path against the current directory, ``..`` folded."""
    return Path(os.path.normpath(io.cwd / value))


def _path_flag_or_env(args: argparse.Namespace, io: Io, dest: str) -> Path | None:
    value = getattr(args, dest, None)
    if value is None:
        value = _env(io, dest)
    return None if value is None else _against_cwd(io, value)


def _load_config(
    args: argparse.Namespace, io: Io, *, required: bool
) -> tuple[Path | None, Config | None]:
    """The config named by ``--config`` / ``RECALL_GATE_CONFIG`` (which must
    exist), else the nearest ``recall-gate.yaml`` up to the repository root."""
    overrides: Sequence[str] = getattr(args, "set", None) or ()
    path = _path_flag_or_env(args, io, "config")
    if path is not None:
        if not path.is_file():
            named = (
                "--config" if getattr(args, "config", None) is not None else ENVIRONMENT["config"]
            )
            raise InputError(
                f"{path}: config file not found (named by {named})"
                if not path.is_dir()
                else f"{path}: is a directory, not a config file (named by {named})",
                fix=f"point {named} at an existing {DEFAULT_CONFIG}, or leave it unset to use "
                "the nearest one from the current directory up to the repository root",
            )
    else:
        path = find_config(io.cwd, DEFAULT_CONFIG)
        if path is None:
            if required or overrides:
                raise InputError(
                    f"no {DEFAULT_CONFIG} in {io.cwd} or a parent folder up to the repository "
                    "root" + (" for --set to override" if overrides else ""),
                    fix=f"create {DEFAULT_CONFIG} (see the README) or pass --config PATH",
                )
            return None, None
    return path, load_config(path, overrides=overrides, warn=lambda line: warn(io, line))


def _floors(args: argparse.Namespace, io: Io, gate: GateSettings | None) -> Floors:
    """Each gated metric's floor: ``--min METRIC=X`` / ``--min-NAME``, else
    ``RECALL_GATE_MIN_NAME`` (the action input ``min-NAME``), else the config's
    ``gate.floors``; none of them = no floor."""
    flags: dict[str, float | None] = getattr(args, "floors", None) or {}
    configured = gate.floors_by_key() if gate is not None else {}
    floors: dict[str, float] = {}
    for spec in GATED_METRICS:
        value = flags.get(spec.key)
        text = io.environ.get(spec.floor_env or "", "").strip()
        if value is None and text:
            try:
                value = fraction(text)
            except argparse.ArgumentTypeError as exc:
                raise InputError(
                    f"{spec.floor_env}={text!r} (the action input `{spec.floor_flag}`): {exc}",
                    fix="set the input to a valid value or leave it empty",
                ) from None
        if value is None:
            value = configured.get(spec.key)
        if value is not None:
            floors[spec.key] = value
    return Floors(floors)


def resolve_settings(
    args: argparse.Namespace, io: Io, *, config_required: bool = False
) -> Settings:
    """Resolve every setting of ``args`` once (see the module docstring for the rule)."""
    config_path, config = _load_config(args, io, required=config_required)
    config_discovered = config_path is not None and _path_flag_or_env(args, io, "config") is None
    folder = config_path.resolve().parent if config_path is not None else io.cwd

    profile = _flag_or_env(args, io, "profile", profile_name)
    if profile is None:
        profile = config.profile if config is not None else DEFAULT_PROFILE

    k = _flag_or_env(args, io, "k", positive_int)
    if k is None:
        k = config.k if config is not None else DEFAULT_K

    kb = _path_flag_or_env(args, io, "kb")
    if kb is None and config is not None:
        kb = config.kb
    case_flags = getattr(args, "cases", None)
    if case_flags:
        cases = tuple(_against_cwd(io, p) for p in case_flags)
    elif (text := _env(io, "cases")) is not None:
        cases = (_against_cwd(io, text),)
    else:
        cases = config.cases if config is not None else ()

    gate = config.gate if config is not None else None
    max_regression = _flag_or_env(args, io, "max_regression", fraction)
    if max_regression is None and gate is not None:
        max_regression = gate.max_regression

    min_group_n = _flag_or_env(args, io, "min_group_n", positive_int)
    if min_group_n is None:
        min_group_n = gate.min_group_n if gate else MIN_GROUP_N
    require_significance = _flag_or_env(args, io, "require_significance", strict_boolean)
    if require_significance is None:
        require_significance = gate.require_significance if gate else REQUIRE_SIGNIFICANCE

    baseline = _path_flag_or_env(args, io, "baseline")
    baseline_given = baseline is not None
    if baseline is None and config is not None and config.baseline is not None:
        baseline, baseline_given = config.baseline, True
    if baseline is None:
        baseline = folder / baseline_relpath(profile)
    baseline_ref = _flag_or_env(args, io, "baseline_ref", str)

    if config is not None and config.k != k:
        config = config.model_copy(update={"k": k})  # the runner retrieves the top k
    return Settings(
        config_path=config_path,
        config=config,
        profile=profile,
        k=k,
        kb=kb,
        cases=tuple(cases),
        floors=_floors(args, io, gate),
        max_regression=max_regression,
        min_group_n=min_group_n,
        require_significance=require_significance,
        baseline=baseline,
        baseline_given=baseline_given,
        baseline_ref=baseline_ref,
        config_discovered=config_discovered,
    )


def write_settings_header(settings: Settings, io: Io) -> None:
    """The report's header: which config, KB, cases and baseline this run used,
    so a comparison that was skipped or aimed elsewhere is never silent."""
    rows = settings.paths(io)
    width = max(len(name) for name, _ in rows) + 2
    io.stdout.write("".join(f"{name + ':':<{width}}{value}\n" for name, value in rows) + "\n")
