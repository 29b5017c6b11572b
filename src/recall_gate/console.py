"""What a command is given to talk to the user: the streams, the environment and
the working directory ``cli.main`` received, and a path as the user sees it.

Below the command handlers, the settings and the judge: each of them writes to
the same console and names paths the same way."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

__all__ = ["DEFAULT_CONFIG", "Console", "display_path", "warn"]

DEFAULT_CONFIG = "recall-gate.yaml"


@dataclass(frozen=True)
class Console:
    """The streams, environment and working directory ``cli.main`` was given."""

    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    cwd: Path


def display_path(path: Path, console: Console) -> str:
    """A path as the user thinks of it: relative to the working directory when inside."""
    try:
        return path.relative_to(console.cwd).as_posix()
    except ValueError:
        return str(path)


def warn(console: Console, line: str) -> None:
    """One warning line on stderr (a deprecated spelling, a suspicious setting)."""
    console.stderr.write(f"recall-gate: warning: {line}\n")
