"""Running git (adapter: a subprocess): the one place recall-gate calls it.

Used to read a baseline as it is at a revision (``--baseline-ref``) and every
committed version of it (``history``). A missing git or a hung one is an
InputError that says what needed git.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from recall_gate.errors import InputError

__all__ = ["GIT_TIMEOUT", "first_error_line", "is_safe_ref", "run_git"]

GIT_TIMEOUT = 60


def run_git(
    args: list[str], *, cwd: Path, needed_by: str, fix: str
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd``, its output captured; the caller reads the return code."""
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, check=False, timeout=GIT_TIMEOUT
        )
    except FileNotFoundError:
        raise InputError(f"{needed_by} needs git, and git is not installed", fix=fix) from None
    except subprocess.TimeoutExpired:
        raise InputError(
            f"git {' '.join(args)} did not answer within {GIT_TIMEOUT} s",
            fix="check the repository",
        ) from None


def is_safe_ref(ref: str) -> bool:
    """No option-looking or whitespace refs: the ref goes on git's command line."""
    return (
        bool(ref)
        and not ref.startswith("-")
        and all(c.isprintable() and not c.isspace() for c in ref)
    )


def first_error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The first line git wrote to stderr (``error`` when it wrote none)."""
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else "error"
