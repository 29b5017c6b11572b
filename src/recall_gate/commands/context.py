"""What a command handler receives from ``cli.main``, and a path as the user sees it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO, TypeAlias

DEFAULT_CONFIG = "recall-gate.yaml"


@dataclass(frozen=True)
class Console:
    """The streams, environment and working directory ``cli.main`` was given."""

    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    cwd: Path


Handler: TypeAlias = Callable[[argparse.Namespace, Console], int]


def display_path(path: Path, console: Console) -> str:
    """A path as the user thinks of it: relative to the working directory when inside."""
    try:
        return path.relative_to(console.cwd).as_posix()
    except ValueError:
        return str(path)


def warn(console: Console, line: str) -> None:
    """One warning line on stderr (a deprecated spelling, a suspicious setting)."""
    console.stderr.write(f"recall-gate: warning: {line}\n")
