"""The settings of one command, resolved once from the table
(:mod:`recall_gate.settings.table`) in one loop: flag > environment (the
action's inputs) > ``recall-gate.yaml`` > default. The resolved
:class:`Settings` says where each value came from.

Path rule: every path inside the config file — and the default
``baselines/<profile>.json`` — resolves against the config file's folder;
paths given as flags or environment variables resolve against the current
directory. So ``cd ~ && recall-gate run --config app/recall-gate.yaml`` reads
and compares exactly what ``cd app && recall-gate run`` does.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recall_gate.adapters.config import Config, find_config, load_config
from recall_gate.adapters.dataset import KbFiles
from recall_gate.console import DEFAULT_CONFIG, Console, display_path, warn
from recall_gate.core.gate import Floors, Tolerances
from recall_gate.core.metric_registry import GATED_METRICS, METRIC_KEYS
from recall_gate.core.profile import baseline_relpath
from recall_gate.errors import InputError
from recall_gate.settings.table import ROWS, Row, Source, fix_for, row

__all__ = [
    "ConfigFile",
    "Resolved",
    "Settings",
    "given",
    "load_config_file",
    "read_config",
    "resolve_from",
    "resolve_settings",
    "write_settings_header",
]


@dataclass(frozen=True)
class Resolved:
    """A setting's value, the layer it came from, and how the user named it there
    (``--k``, ``RECALL_GATE_K``, ``gate.floors.hit``; None for a default)."""

    value: Any
    source: Source
    named_as: str | None = None


@dataclass(frozen=True, kw_only=True)
class ConfigFile:
    """The config a command reads: its path (None: there is none) and contents,
    and whether it was found by looking up from the current directory."""

    path: Path | None
    config: Config | None
    discovered: bool = False


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
    # The metric keys scored and reported: the selection, plus every floored metric.
    metrics: tuple[str, ...]
    # The largest tolerated drop by metric key (a metric without one is not
    # tolerance-gated), with its noise rule (see core.gate).
    tolerances: Tolerances
    min_group_n: int
    require_significance: bool
    baseline: Path
    baseline_given: bool  # named by a flag, the environment or the config (not the default)
    baseline_ref: str | None
    # Found by looking up from the current directory (not named by flag or environment).
    config_discovered: bool = False
    # Where each setting of the table came from, by row name.
    sources: Mapping[str, Resolved] = field(default_factory=dict)

    def source(self, name: str) -> Source:
        return self.sources[name].source

    def value(self, name: str) -> Any:
        """A row's value that has no field of its own (``capture.concurrency``)."""
        return self.sources[name].value

    def explain(self) -> list[str]:
        """One line per setting that is set: its value and where it came from."""
        lines = []
        for name, found in self.sources.items():
            if found.value is None or found.value == ():
                continue
            where = found.source + (f" {found.named_as}" if found.named_as else "")
            lines.append(f"{name} = {_shown(found.value)} ({where})")
        return lines

    def explained(self) -> dict[str, dict[str, Any]]:
        """Every setting as JSON-ready values: name → value, source, how it was named."""
        return {
            name: {"value": _plain(found.value), "source": found.source, "as": found.named_as}
            for name, found in self.sources.items()
        }

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
            strict_front_matter="`kb_strict_front_matter: true` in recall-gate.yaml"
            if config.kb_strict_front_matter
            else None,
        )

    def config_shown(self, console: Console) -> str:
        """The config file as the header names it; one found in a parent folder
        is shown relative to the current one, so where it came from is plain."""
        if self.config_path is None:
            return f"none (no {DEFAULT_CONFIG} here or in a parent folder)"
        if self.config_discovered and self.config_path.parent != console.cwd:
            relative = Path(os.path.relpath(self.config_path, console.cwd)).as_posix()
            return f"{relative} (the nearest, in a parent folder)"
        return display_path(self.config_path, console)

    def paths(self, console: Console) -> list[tuple[str, str]]:
        """The resolved paths, as the report header shows them."""
        baseline = display_path(self.baseline, console)
        if self.baseline_ref:
            baseline += f" at {self.baseline_ref}"
        elif not self.baseline.is_file():
            baseline += " (not found)"
        rows = [("config", self.config_shown(console))]
        if self.kb is not None:
            rows.append(("KB", display_path(self.kb, console)))
        if self.cases:
            rows.append(("cases", ", ".join(display_path(p, console) for p in self.cases)))
        return [*rows, ("baseline", baseline)]


def _shown(value: Any) -> str:
    if isinstance(value, tuple | list):
        return ", ".join(_shown(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _against_cwd(console: Console, value: str | Path) -> Path:
    """A flag's or variable's path against the current directory, ``..`` folded."""
    return Path(os.path.normpath(console.cwd / value))


def _input_name(variable: str) -> str:
    return variable.removeprefix("RECALL_GATE_").lower().replace("_", "-")


def given(r: Row, args: argparse.Namespace, console: Console) -> Resolved | None:
    """The row's value from a flag, else from the environment (parsed); None
    when neither sets it. A path resolves against the current directory."""
    found = r.from_flags(args)
    if found is not None:
        value, named_as = found
        if r.is_path:
            value = (
                tuple(_against_cwd(console, v) for v in value)
                if isinstance(value, list | tuple)
                else _against_cwd(console, value)
            )
        return Resolved(value, "flag", named_as)
    for variable in r.env:
        text = console.environ.get(variable, "").strip()
        if not text:
            continue
        try:
            value = r.parse(text)
        except (ValueError, argparse.ArgumentTypeError) as exc:
            raise InputError(
                f"{variable}={text!r} (the action input `{_input_name(variable)}`): {exc}",
                fix=fix_for(variable),
            ) from None
        if value is None:
            continue
        if r.is_path:
            value = _against_cwd(console, text)
            value = (value,) if r.default == () else value
        return Resolved(value, "environment", variable)
    return None


def read_config(args: argparse.Namespace, console: Console, path: Path) -> Config:
    """The config at ``path`` with the ``--set`` overrides applied."""
    allow = given(row("allow_outside_repo"), args, console)
    return load_config(
        path,
        overrides=getattr(args, "set", None) or (),
        warn=lambda line: warn(console, line),
        allow_outside_repository=bool(allow.value) if allow is not None else False,
    )


def load_config_file(
    args: argparse.Namespace, console: Console, *, required: bool = False
) -> ConfigFile:
    """The config named by ``--config`` / ``RECALL_GATE_CONFIG`` (which must
    exist), else the nearest ``recall-gate.yaml`` up to the repository root."""
    overrides: Sequence[str] = getattr(args, "set", None) or ()
    named = given(row("config"), args, console)
    if named is not None:
        path: Path | None = named.value
        assert path is not None
        if not path.is_file():
            shown = named.named_as
            raise InputError(
                f"{path}: config file not found (named by {shown})"
                if not path.is_dir()
                else f"{path}: is a directory, not a config file (named by {shown})",
                fix=f"point {shown} at an existing {DEFAULT_CONFIG}, or leave it unset to use "
                "the nearest one from the current directory up to the repository root",
            )
        return ConfigFile(path=path, config=read_config(args, console, path))
    path = find_config(console.cwd, DEFAULT_CONFIG)
    if path is None:
        if required or overrides:
            raise InputError(
                f"no {DEFAULT_CONFIG} in {console.cwd} or a parent folder up to the repository "
                "root" + (" for --set to override" if overrides else ""),
                fix=f"create {DEFAULT_CONFIG} (docs/reference/config.md) or pass --config PATH",
            )
        return ConfigFile(path=None, config=None)
    return ConfigFile(path=path, config=read_config(args, console, path), discovered=True)


def _resolve_rows(
    args: argparse.Namespace,
    console: Console,
    config: Config | None,
    *,
    base_keys: frozenset[str],
) -> dict[str, Resolved]:
    """Every row of the table, resolved: flag > environment > config > default.
    A config key in ``base_keys`` is the base revision's (it judges)."""
    resolved: dict[str, Resolved] = {}
    for r in ROWS:
        found = given(r, args, console)
        if found is None and config is not None and (at := r.from_config(config)) is not None:
            top = (r.config_key or "").split(".")[0]
            found = Resolved(at[0], "base config" if top in base_keys else "config", at[1])
        resolved[r.name] = found if found is not None else Resolved(r.default, "default")
    return resolved


def resolve_settings(
    args: argparse.Namespace, console: Console, *, config_required: bool = False
) -> Settings:
    """Resolve every setting of ``args`` once (see the module docstring for the rule)."""
    return resolve_from(args, console, load_config_file(args, console, required=config_required))


def resolve_from(
    args: argparse.Namespace,
    console: Console,
    loaded: ConfigFile,
    *,
    baseline_ref: Resolved | None = None,
    base_keys: frozenset[str] = frozenset(),
) -> Settings:
    """The settings over a config already read: ``base_keys`` are the config keys
    a base revision's config set (see :mod:`recall_gate.judging.revision`)."""
    config_path, config = loaded.path, loaded.config
    folder = config_path.resolve().parent if config_path is not None else console.cwd
    values = _resolve_rows(args, console, config, base_keys=base_keys)
    # A ref judges only a gated run, which finds it (see judging.revision).
    values["baseline_ref"] = baseline_ref or Resolved(None, "default")
    profile: str = values["profile"].value
    baseline = values["baseline"]
    if baseline.value is None:
        baseline = Resolved(folder / baseline_relpath(profile), "default")
        values["baseline"] = baseline
    floors = Floors(
        {
            spec.key: found.value
            for spec in GATED_METRICS
            if (found := values.get(f"floor.{spec.name}")) is not None and found.value is not None
        }
    )
    tolerances: dict[str, float] = {}
    named: set[str] = set()  # the metrics a tolerance of their own names
    for spec in GATED_METRICS:
        found = values.get(f"tolerance.{spec.name}")
        if found is None or found.value is None:
            continue
        tolerances[spec.key] = found.value
        if found.named_as in (f"--{spec.tolerance_flag}", spec.tolerance_env) or (
            found.named_as or ""
        ).startswith("gate.max_regression."):
            named.add(spec.key)
    # A gate judges what is computed: every floored or tolerated metric is scored.
    selected = values["metrics"].value
    gated = set(floors.values) | named
    metrics = tuple(key for key in METRIC_KEYS if key in selected or key in gated)
    return Settings(
        config_path=config_path,
        config=config,
        profile=profile,
        k=values["k"].value,
        kb=values["kb"].value,
        cases=tuple(values["cases"].value),
        floors=floors,
        metrics=metrics,
        tolerances=Tolerances(tolerances),
        min_group_n=values["min_group_n"].value,
        require_significance=values["require_significance"].value,
        baseline=baseline.value,
        baseline_given=baseline.source != "default",
        baseline_ref=values["baseline_ref"].value,
        config_discovered=loaded.discovered,
        sources=values,
    )


def write_settings_header(settings: Settings, console: Console) -> None:
    """The report's header: which config, KB, cases and baseline this run used,
    so a comparison that was skipped or aimed elsewhere is never silent."""
    rows = settings.paths(console)
    width = max(len(name) for name, _ in rows) + 2
    console.stdout.write("".join(f"{name + ':':<{width}}{value}\n" for name, value in rows) + "\n")


def _plain(value: Any) -> Any:
    if isinstance(value, tuple | list | frozenset | set):
        return [_plain(v) for v in value]
    return str(value) if isinstance(value, Path) else value
