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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from recall_gate.adapters.actions_runner import load_event
from recall_gate.adapters.base_revision import find_config_at
from recall_gate.adapters.config import (
    Config,
    GateSettings,
    find_config,
    load_config,
    parse_config,
)
from recall_gate.adapters.dataset import KbFiles
from recall_gate.adapters.git import BaseTree
from recall_gate.commands.arguments import (
    fraction,
    metric_selection,
    positive_int,
    profile_name,
    strict_boolean,
)
from recall_gate.commands.context import DEFAULT_CONFIG, Console, display_path, warn
from recall_gate.core.gate import MIN_GROUP_N, REQUIRE_SIGNIFICANCE, Floors, Tolerances
from recall_gate.core.metric_registry import (
    DEFAULT_METRIC_KEYS,
    GATED_METRICS,
    METRIC_KEYS,
    select_metrics,
)
from recall_gate.core.metrics import DEFAULT_K
from recall_gate.core.profile import (
    DEFAULT_PROFILE,
    baseline_relpath,
)
from recall_gate.core.staleness import SettingChange, SettingValue, diff_settings, flatten_settings
from recall_gate.errors import InputError

__all__ = ["ENVIRONMENT", "GATE_KEYS", "BaseJudge", "Settings", "resolve_settings"]

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
    "metrics": "RECALL_GATE_METRICS",
    "max_regression": "RECALL_GATE_MAX_REGRESSION",
    # And one tolerance per gated metric: max_regression_hit → RECALL_GATE_MAX_REGRESSION_HIT.
    **{
        spec.tolerance_flag.replace("-", "_"): spec.tolerance_env
        for spec in GATED_METRICS
        if spec.tolerance_flag and spec.tolerance_env
    },
    "min_group_n": "RECALL_GATE_MIN_GROUP_N",
    "require_significance": "RECALL_GATE_REQUIRE_SIGNIFICANCE",
    "allow_outside_repo": "RECALL_GATE_ALLOW_OUTSIDE_REPO",
}


# The config keys that make the gate: in a pull request the base revision's
# values apply (a key a newer config adds joins by being listed here).
GATE_KEYS: tuple[str, ...] = tuple(
    key
    for key in ("profile", "k", "baseline", "gate", "floors", "metrics")
    if key in Config.model_fields
)

# Events whose payload names the pull request's base commit.
_PULL_REQUEST_EVENTS = ("pull_request", "pull_request_target", "merge_group", "workflow_run")


@dataclass(frozen=True, kw_only=True)
class BaseJudge:
    """The base revision that judges this run: its gate settings apply, its
    cases are the oracle; what the working tree changes of them is reported."""

    tree: BaseTree
    given_as: str  # where the ref came from, as messages name it
    config_source: str | None  # ``REF:path`` of the base's config, when it has one
    config_shown: str | None  # the config's path, as the report names it
    cases: tuple[Path, ...]  # the base config's cases paths (read at the ref)
    gate_changes: tuple[SettingChange, ...]
    # A config nearer the working directory that only the working tree has: it
    # applies after merge and never judges (shown as the report names it).
    config_after_merge: str | None = None

    @property
    def ref(self) -> str:
        return self.tree.ref


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
    # Set when a baseline ref is: the base revision judges (see BaseJudge).
    base: BaseJudge | None = None

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


def _env(console: Console, dest: str) -> str | None:
    name = ENVIRONMENT.get(dest)
    value = console.environ.get(name, "").strip() if name else ""
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
    args: argparse.Namespace, console: Console, dest: str, parse: Callable[[str], T]
) -> T | None:
    """The flag's value, else the environment variable's (parsed), else None."""
    value = getattr(args, dest, None)
    if value is not None:
        return value  # type: ignore[no-any-return]
    text = _env(console, dest)
    if text is None:
        return None
    return _parsed(dest, text, parse, fix="set the input to a valid value or leave it empty")


def _against_cwd(console: Console, value: str | Path) -> Path:
    """A flag's or variable's path against the current directory, ``..`` folded."""
    return Path(os.path.normpath(console.cwd / value))


def _path_flag_or_env(args: argparse.Namespace, console: Console, dest: str) -> Path | None:
    value = getattr(args, dest, None)
    if value is None:
        value = _env(console, dest)
    return None if value is None else _against_cwd(console, value)


def _load_config(
    args: argparse.Namespace, console: Console, *, required: bool
) -> tuple[Path | None, Config | None]:
    """The config named by ``--config`` / ``RECALL_GATE_CONFIG`` (which must
    exist), else the nearest ``recall-gate.yaml`` up to the repository root."""
    overrides: Sequence[str] = getattr(args, "set", None) or ()
    path = _path_flag_or_env(args, console, "config")
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
        path = find_config(console.cwd, DEFAULT_CONFIG)
        if path is None:
            if required or overrides:
                raise InputError(
                    f"no {DEFAULT_CONFIG} in {console.cwd} or a parent folder up to the repository "
                    "root" + (" for --set to override" if overrides else ""),
                    fix=f"create {DEFAULT_CONFIG} (docs/reference/config.md) or pass --config PATH",
                )
            return None, None
    return path, _read_config(args, console, path)


def _read_config(args: argparse.Namespace, console: Console, path: Path) -> Config:
    allow = _flag_or_env(args, console, "allow_outside_repo", strict_boolean)
    return load_config(
        path,
        overrides=getattr(args, "set", None) or (),
        warn=lambda line: warn(console, line),
        allow_outside_repository=bool(allow),
    )


def _floors(args: argparse.Namespace, console: Console, gate: GateSettings | None) -> Floors:
    """Each gated metric's floor: ``--min METRIC=X`` / ``--min-NAME``, else
    ``RECALL_GATE_MIN_NAME`` (the action input ``min-NAME``), else the config's
    ``gate.floors``; none of them = no floor."""
    flags: dict[str, float | None] = getattr(args, "floors", None) or {}
    configured = gate.floors_by_key() if gate is not None else {}
    floors: dict[str, float] = {}
    for spec in GATED_METRICS:
        value = flags.get(spec.key)
        text = console.environ.get(spec.floor_env or "", "").strip()
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


def _fraction_input(variable: str, input_name: str, *, fix: str) -> Callable[[str], float | None]:
    def parse(text: str) -> float | None:
        try:
            return fraction(text)
        except argparse.ArgumentTypeError as exc:
            raise InputError(
                f"{variable}={text!r} (the action input `{input_name}`): {exc}", fix=fix
            ) from None

    return parse


def _tolerances(
    args: argparse.Namespace, console: Console, gate: GateSettings | None
) -> tuple[Tolerances, frozenset[str]]:
    """Each gated metric's tolerance, and the metrics named one by one.

    Per metric, the first layer that sets it wins — flags (``--max-regression
    METRIC=X`` / ``--max-regression-NAME X``, else ``--max-regression X``), the
    environment (``RECALL_GATE_MAX_REGRESSION_NAME``, else
    ``RECALL_GATE_MAX_REGRESSION``: the action inputs), the config's
    ``gate.max_regression`` — so within a layer a metric named beats the one
    number, and a higher layer's one number beats a lower layer's mapping."""
    given: dict[str | None, float | None] = getattr(args, "tolerances", None) or {}
    flags: dict[str | None, float] = {
        key: value for key, value in given.items() if value is not None
    }
    every_name = ENVIRONMENT["max_regression"]
    one_input = _fraction_input(
        every_name,
        "max-regression",
        fix="give `max-regression` one number for every metric (e.g. 0.05); for one metric, "
        "set its own input instead ("
        + ", ".join(f"{m.tolerance_flag}" for m in GATED_METRICS)
        + ")",
    )
    environment: dict[str | None, float] = {}
    if (text := console.environ.get(every_name, "").strip()) and (
        value := one_input(text)
    ) is not None:
        environment[None] = value
    for spec in GATED_METRICS:
        variable, input_name = spec.tolerance_env or "", spec.tolerance_flag or ""
        text = console.environ.get(variable, "").strip()
        parse = _fraction_input(
            variable, input_name, fix="set the input to a valid value or leave it empty"
        )
        if text and (value := parse(text)) is not None:
            environment[spec.key] = value
    configured: dict[str | None, float] = {}
    if gate is not None and isinstance(gate.max_regression, float | int):
        configured[None] = gate.max_regression
    elif gate is not None:
        configured.update(gate.tolerances_by_key())
    tolerances: dict[str, float] = {}
    named: set[str] = set()
    for spec in GATED_METRICS:
        for layer in (flags, environment, configured):
            if spec.key in layer:
                tolerances[spec.key] = layer[spec.key]
                named.add(spec.key)
                break
            if None in layer:
                tolerances[spec.key] = layer[None]
                break
    return Tolerances(tolerances), frozenset(named)


def _metrics(
    args: argparse.Namespace,
    console: Console,
    config: Config | None,
    floors: Floors,
    *,
    tolerated: frozenset[str] = frozenset(),
) -> tuple[str, ...]:
    """The metrics scored: ``--metrics``, else ``RECALL_GATE_METRICS`` (the action
    input ``metrics``), else the config's ``metrics:``, else the registry's default
    set; every metric with a floor, or a tolerance of its own (``tolerated``), is
    added (a gate judges what is computed)."""
    selected = _flag_or_env(args, console, "metrics", metric_selection)
    if selected is None:
        selected = (
            select_metrics(config.metrics)
            if config is not None and config.metrics is not None
            else DEFAULT_METRIC_KEYS
        )
    gated = set(floors.values) | tolerated
    return tuple(key for key in METRIC_KEYS if key in selected or key in gated)


def _cases(
    args: argparse.Namespace, console: Console, config: Config | None
) -> tuple[tuple[Path, ...], bool]:
    """The cases paths, and whether a flag or the environment named them."""
    case_flags = getattr(args, "cases", None)
    if case_flags:
        return tuple(_against_cwd(console, p) for p in case_flags), True
    if (text := _env(console, "cases")) is not None:
        return (_against_cwd(console, text),), True
    return (config.cases if config is not None else ()), False


def _gate_view(
    config: Config | None, folder: Path, *, tolerance_by_metric: bool = False
) -> dict[str, SettingValue]:
    """The gate settings of a config, flat (``gate.floors.hit: 0.8``), as a
    reviewer compares them; paths relative to the config's folder.
    ``tolerance_by_metric``: one ``gate.max_regression`` number is shown as
    every gated metric's (for comparing with a config that keys it by metric)."""
    if config is None:
        config = Config()
    dumped = config.model_dump(mode="json", include=set(GATE_KEYS))
    if config.baseline is not None:
        dumped["baseline"] = os.path.relpath(config.baseline, folder)
    one = config.gate.max_regression
    if tolerance_by_metric and isinstance(one, float | int) and "gate" in dumped:
        dumped["gate"]["max_regression"] = {m.name: one for m in GATED_METRICS}
    return flatten_settings(dumped)


def _gate_changes(
    base: Config | None, pull_request: Config | None, folder: Path
) -> tuple[SettingChange, ...]:
    """What the pull request changes of the base's gate settings; a tolerance that
    is one number on one side and keyed by metric on the other is compared per metric."""
    by_metric = any(
        c is not None and isinstance(c.gate.max_regression, dict) for c in (base, pull_request)
    )
    return diff_settings(
        _gate_view(base, folder, tolerance_by_metric=by_metric),
        _gate_view(pull_request, folder, tolerance_by_metric=by_metric),
    )


def _event_base_sha(console: Console) -> str | None:
    """The pull request's base SHA from the Actions event payload; ``None``
    outside a pull request event (or a ``workflow_run`` of one: a fork's
    names none, and its run checks out the base repository's own tree)."""
    if console.environ.get("GITHUB_ACTIONS") != "true":
        return None
    event = console.environ.get("GITHUB_EVENT_NAME", "")
    path = console.environ.get("GITHUB_EVENT_PATH", "")
    if event not in _PULL_REQUEST_EVENTS or not path:
        return None
    sha = load_event(_against_cwd(console, path)).base_sha
    if sha is None and event != "workflow_run":
        field = "merge_group.base_sha" if event == "merge_group" else "pull_request.base.sha"
        raise InputError(
            f"{path}: the {event} event names no {field}",
            fix="run the check on a pull request event, or set the baseline-ref input",
        )
    return sha


def _baseline_ref(
    args: argparse.Namespace, console: Console, config_path: Path | None, config: Config | None
) -> tuple[str, str] | None:
    """The ref that judges, with where it came from: the flag, the environment
    (the action input), the pull request event's base SHA, the config's."""
    flag = getattr(args, "baseline_ref", None)
    if flag:
        return flag, "--baseline-ref"
    if (text := _env(console, "baseline_ref")) is not None:
        return text, ENVIRONMENT["baseline_ref"]
    if (sha := _event_base_sha(console)) is not None:
        return sha, "the pull request's base SHA"
    ref = getattr(config, "baseline_ref", None) if config is not None else None
    if ref:
        return ref, f"{config_path}: baseline_ref"
    return None


def _relative(path: Path, console: Console) -> str:
    """A found config as the report names it: relative to the current directory."""
    return Path(os.path.relpath(path, console.cwd)).as_posix()


def _base_judge(
    args: argparse.Namespace,
    console: Console,
    *,
    ref: str,
    given_as: str,
    config_path: Path | None,
    config: Config | None,
    discovered: bool,
) -> tuple[BaseJudge, Path | None, Config | None]:
    """Open the base revision, read its config, and say what the working tree
    changes of the gate. Returns the judge, the config file that judges and the
    config that applies: the working tree's copy of the base's config file, with
    the base's gate settings.

    ``discovered``: no flag or variable named the config, so it is found in the
    base's tree from the current directory up, as on disk; a nearer config that
    only the working tree has is named (:attr:`BaseJudge.config_after_merge`)
    and never judges."""
    folder = config_path.resolve().parent if config_path is not None else console.cwd
    tree = BaseTree(
        ref,
        cwd=next((p for p in (folder, *folder.parents) if p.is_dir()), console.cwd),
        given_as=given_as,
        fetch=console.environ.get("GITHUB_ACTIONS") == "true",
    )
    after_merge = None
    if discovered:
        at_base = find_config_at(tree, console.cwd, DEFAULT_CONFIG)
        if at_base is not None and at_base != config_path:
            if config_path is not None and at_base.parent in config_path.parents:
                after_merge = _relative(config_path, console)  # only the working tree has it
            config_path = at_base
            config = _read_config(args, console, at_base) if at_base.is_file() else None
    # The config the base has at the same place (a pull request may delete its own).
    where = config_path if config_path is not None else console.cwd / DEFAULT_CONFIG
    relative = tree.relative(where)
    base_config: Config | None
    if relative is None:
        base_config = config  # outside the repository: no pull request edits it
        source = None
    else:
        data = tree.read(relative)
        source = tree.source(relative) if data is not None else None
        base_config = None
        if data is not None:
            try:
                text = data.decode("utf-8-sig")
            except UnicodeDecodeError:
                raise InputError(
                    f"{source}: the base's config is not UTF-8 text",
                    fix="fix the config on the base branch",
                ) from None
            assert source is not None
            base_config = parse_config(
                text,
                source=source,
                folder=where.resolve().parent,
                overrides=getattr(args, "set", None) or (),
            )
    changes = _gate_changes(base_config, config, where.resolve().parent)
    judged = base_config if base_config is not None else Config()
    if config is None:
        applied = base_config
    else:
        applied = config.model_copy(update={key: getattr(judged, key) for key in GATE_KEYS})
    return (
        BaseJudge(
            tree=tree,
            given_as=given_as,
            config_source=source,
            config_shown=(_relative(where, console) if discovered else display_path(where, console))
            if (config or base_config)
            else None,
            cases=base_config.cases if base_config is not None else (),
            gate_changes=changes,
            config_after_merge=after_merge,
        ),
        config_path if config_path is not None else where,
        applied,
    )


def resolve_settings(
    args: argparse.Namespace,
    console: Console,
    *,
    config_required: bool = False,
    judged: bool = False,
) -> Settings:
    """Resolve every setting of ``args`` once (see the module docstring for the rule).

    ``judged``: the command gates a run; when a baseline ref is set (in a pull
    request event it always is), the base revision's gate settings and cases
    apply (:class:`BaseJudge`)."""
    config_path, config = _load_config(args, console, required=config_required)
    config_discovered = (
        config_path is not None and _path_flag_or_env(args, console, "config") is None
    )
    base = None
    baseline_ref = None
    if judged and (found := _baseline_ref(args, console, config_path, config)) is not None:
        baseline_ref, given_as = found
        base, judging_path, config = _base_judge(
            args,
            console,
            ref=baseline_ref,
            given_as=given_as,
            config_path=config_path,
            config=config,
            discovered=config_path is None or config_discovered,
        )
        if config is not None:
            config_path = judging_path  # the base's (perhaps deleted by the pull request)
    folder = config_path.resolve().parent if config_path is not None else console.cwd

    profile = _flag_or_env(args, console, "profile", profile_name)
    if profile is None:
        profile = config.profile if config is not None else DEFAULT_PROFILE

    k = _flag_or_env(args, console, "k", positive_int)
    if k is None:
        k = config.k if config is not None else DEFAULT_K

    kb = _path_flag_or_env(args, console, "kb")
    if kb is None and config is not None:
        kb = config.kb
    cases, named = _cases(args, console, config)
    if base is not None and named:
        base = replace(base, cases=cases)  # named outside the config: the same paths at the base

    gate = config.gate if config is not None else None
    tolerances, tolerated = _tolerances(args, console, gate)

    min_group_n = _flag_or_env(args, console, "min_group_n", positive_int)
    if min_group_n is None:
        min_group_n = gate.min_group_n if gate else MIN_GROUP_N
    require_significance = _flag_or_env(args, console, "require_significance", strict_boolean)
    if require_significance is None:
        require_significance = gate.require_significance if gate else REQUIRE_SIGNIFICANCE

    baseline = _path_flag_or_env(args, console, "baseline")
    baseline_given = baseline is not None
    if baseline is None and config is not None and config.baseline is not None:
        baseline, baseline_given = config.baseline, True
    if baseline is None:
        baseline = folder / baseline_relpath(profile)

    if config is not None and config.k != k:
        config = config.model_copy(update={"k": k})  # the runner retrieves the top k
    floors = _floors(args, console, gate)
    return Settings(
        config_path=config_path,
        config=config,
        profile=profile,
        k=k,
        kb=kb,
        cases=tuple(cases),
        floors=floors,
        metrics=_metrics(args, console, config, floors, tolerated=tolerated),
        tolerances=tolerances,
        min_group_n=min_group_n,
        require_significance=require_significance,
        baseline=baseline,
        baseline_given=baseline_given,
        baseline_ref=baseline_ref,
        base=base,
        config_discovered=config_discovered,
    )


def write_settings_header(settings: Settings, console: Console) -> None:
    """The report's header: which config, KB, cases and baseline this run used,
    so a comparison that was skipped or aimed elsewhere is never silent."""
    rows = settings.paths(console)
    width = max(len(name) for name, _ in rows) + 2
    console.stdout.write("".join(f"{name + ':':<{width}}{value}\n" for name, value in rows) + "\n")
