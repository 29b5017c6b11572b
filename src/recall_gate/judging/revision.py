"""Which revision judges a run: in a pull request, the base. Its gate settings
apply, its cases are the oracle, and what the working tree changes of them is
reported, never applied — a pull request does not judge itself.

The ref comes from ``--baseline-ref``, else the environment (the action input),
else the pull request event's base SHA, else the config's ``baseline_ref``.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, replace
from pathlib import Path

from recall_gate.adapters.base_revision import find_config_at
from recall_gate.adapters.config import Config, parse_config
from recall_gate.adapters.git import BaseTree
from recall_gate.console import DEFAULT_CONFIG, Console, display_path
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.core.staleness import SettingChange, SettingValue, diff_settings, flatten_settings
from recall_gate.errors import InputError
from recall_gate.settings import ConfigFile, Resolved, Settings, load_config_file, resolve_from
from recall_gate.settings.resolution import given, read_config
from recall_gate.settings.table import row

__all__ = ["GATE_KEYS", "BaseJudge", "JudgedSettings", "resolve_judged"]

# The config keys that make the gate: in a pull request the base revision's
# values apply (a key a newer config adds joins by being listed here). The query
# log is one: a pull request that drops `queries:` must not switch the base's
# traffic gate off.
GATE_KEYS: tuple[str, ...] = tuple(
    key
    for key in ("profile", "k", "baseline", "gate", "floors", "metrics", "queries")
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
class JudgedSettings(Settings):
    """The settings of a gated run: with a baseline ref, the base revision that
    judges it (its gate settings already applied)."""

    base: BaseJudge | None = None


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
    for key in ("baseline", "queries"):
        path = getattr(config, key)
        if path is not None:
            dumped[key] = os.path.relpath(path, folder)
    one = config.gate.max_regression
    if tolerance_by_metric and isinstance(one, float | int) and "gate" in dumped:
        dumped["gate"]["max_regression"] = {m.name: one for m in GATED_METRICS}
    return flatten_settings(dumped)


def gate_changes(
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


def event_base_sha(console: Console) -> str | None:
    """The pull request's base SHA from the Actions event payload; ``None``
    outside a pull request event (or a ``workflow_run`` of one: a fork's
    names none, and its run checks out the base repository's own tree)."""
    if console.environ.get("GITHUB_ACTIONS") != "true":
        return None
    event = console.environ.get("GITHUB_EVENT_NAME", "")
    path = console.environ.get("GITHUB_EVENT_PATH", "")
    if event not in _PULL_REQUEST_EVENTS or not path:
        return None
    # Read only in a pull request's check: the event's models are built then.
    from recall_gate.adapters.actions_runner import load_event

    sha = load_event(Path(os.path.normpath(console.cwd / path))).base_sha
    if sha is None and event != "workflow_run":
        field = "merge_group.base_sha" if event == "merge_group" else "pull_request.base.sha"
        raise InputError(
            f"{path}: the {event} event names no {field}",
            fix="run the check on a pull request event, or set the baseline-ref input",
        )
    return sha


def find_baseline_ref(
    args: argparse.Namespace, console: Console, loaded: ConfigFile
) -> Resolved | None:
    """The ref that judges, with where it came from: the flag, the environment
    (the action input), the pull request event's base SHA, the config's."""
    named = given(row("baseline_ref"), args, console)
    if named is not None and named.value:
        return named
    if (sha := event_base_sha(console)) is not None:
        return Resolved(sha, "environment", "the pull request's base SHA")
    ref = loaded.config.baseline_ref if loaded.config is not None else None
    if ref:
        return Resolved(ref, "config", f"{loaded.path}: baseline_ref")
    return None


def _relative(path: Path, console: Console) -> str:
    """A found config as the report names it: relative to the current directory."""
    return Path(os.path.relpath(path, console.cwd)).as_posix()


def _config_at(
    tree: BaseTree, where: Path, relative: str, args: argparse.Namespace
) -> tuple[Config | None, str | None]:
    """The config the base has at ``where`` (None: it has none), and its ``REF:path``."""
    data = tree.read(relative)
    if data is None:
        return None, None
    source = tree.source(relative)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            f"{source}: the base's config is not UTF-8 text",
            fix="fix the config on the base branch",
        ) from None
    config = parse_config(
        text,
        source=source,
        folder=where.resolve().parent,
        overrides=getattr(args, "set", None) or (),
    )
    return config, source


def open_base(
    args: argparse.Namespace, console: Console, *, ref: Resolved, loaded: ConfigFile
) -> tuple[BaseJudge, ConfigFile]:
    """Open the base revision, read its config, and say what the working tree
    changes of the gate. Returns the judge and the config that applies: the
    working tree's copy of the base's config file, with the base's gate settings
    (the path is the base's, perhaps deleted by the pull request).

    A config no flag or variable named is found in the base's tree from the
    current directory up, as on disk; a nearer config that only the working
    tree has is named (:attr:`BaseJudge.config_after_merge`) and never judges."""
    config_path, config = loaded.path, loaded.config
    discovered = config_path is None or loaded.discovered
    given_as = ref.named_as or ref.source
    folder = config_path.resolve().parent if config_path is not None else console.cwd
    tree = BaseTree(
        ref.value,
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
            config = read_config(args, console, at_base) if at_base.is_file() else None
    # The config the base has at the same place (a pull request may delete its own).
    where = config_path if config_path is not None else console.cwd / DEFAULT_CONFIG
    relative = tree.relative(where)
    if relative is None:
        base_config, source = config, None  # outside the repository: no pull request edits it
    else:
        base_config, source = _config_at(tree, where, relative, args)
    judged = base_config if base_config is not None else Config()
    applied = (
        base_config
        if config is None
        else config.model_copy(update={key: getattr(judged, key) for key in GATE_KEYS})
    )
    judge = BaseJudge(
        tree=tree,
        given_as=given_as,
        config_source=source,
        config_shown=(_relative(where, console) if discovered else display_path(where, console))
        if (config or base_config)
        else None,
        cases=base_config.cases if base_config is not None else (),
        gate_changes=gate_changes(base_config, config, where.resolve().parent),
        config_after_merge=after_merge,
    )
    return judge, ConfigFile(
        path=(config_path if config_path is not None else where)
        if applied is not None
        else loaded.path,
        config=applied,
        discovered=loaded.discovered,
    )


def resolve_judged(
    args: argparse.Namespace, console: Console, *, config_required: bool = False
) -> JudgedSettings:
    """The settings of a gated run: when a baseline ref is set (in a pull request
    event it always is), the base revision's gate settings and cases apply."""
    loaded = load_config_file(args, console, required=config_required)
    ref = find_baseline_ref(args, console, loaded)
    base = None
    base_keys: frozenset[str] = frozenset()
    if ref is not None:
        base, loaded = open_base(args, console, ref=ref, loaded=loaded)
        base_keys = frozenset(GATE_KEYS)
    settings = resolve_from(args, console, loaded, baseline_ref=ref, base_keys=base_keys)
    if base is not None and settings.source("cases") in ("flag", "environment"):
        base = replace(base, cases=settings.cases)  # named outside the config: the same paths
    return JudgedSettings(
        **{name: getattr(settings, name) for name in Settings.__dataclass_fields__},
        base=base,
    )
