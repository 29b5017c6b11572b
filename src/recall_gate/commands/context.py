"""What a command handler receives from ``cli.main``, and the lookups the
handlers share: the config file, the profile, a path as the user sees it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeAlias

from recall_gate.core.profile import DEFAULT_PROFILE
from recall_gate.errors import InputError
from recall_gate.io.config import Config, load_config

DEFAULT_CONFIG = "recall-gate.yaml"


@dataclass(frozen=True)
class Io:
    """The streams, environment and working directory ``cli.main`` was given."""

    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    cwd: Path


Handler: TypeAlias = Callable[[argparse.Namespace, Io], int]


def load_command_config(args: argparse.Namespace, io: Io, *, required: bool) -> Config | None:
    """--config, else ./recall-gate.yaml if present, with the --set overrides."""
    overrides = getattr(args, "set", None) or ()
    if args.config is not None:
        return load_config(args.config, overrides=overrides)
    default = io.cwd / DEFAULT_CONFIG
    if default.is_file():
        return load_config(default, overrides=overrides)
    if required or overrides:
        raise InputError(
            f"{default}: no config file" + (" for --set to override" if overrides else ""),
            fix=f"create {DEFAULT_CONFIG} (see the README) or pass --config PATH",
        )
    return None


def profile_of(args: argparse.Namespace, config: Config | None) -> str:
    if args.profile:
        return str(args.profile)
    return config.profile if config is not None else DEFAULT_PROFILE


def display_path(path: Path, io: Io) -> str:
    """A path as the user thinks of it: relative to the working directory when inside."""
    try:
        return path.relative_to(io.cwd).as_posix()
    except ValueError:
        return str(path)
