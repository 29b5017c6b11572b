"""Every command's `--help` is held byte for byte to tests/golden/help: making a
command start faster (what its module imports, and when) never changes its text.

The texts are printed by the installed entry point in a fresh interpreter, 100
columns wide. A deliberate change of a flag or of its help rewrites them:

    RECALL_GATE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/commands/test_help_texts.py
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import pytest

from golden import assert_golden
from recall_gate import cli

ENTRY = (
    "import sys; from recall_gate.cli import entry_point; "
    "sys.argv[0] = 'recall-gate'; entry_point()"
)
COLUMNS = "100"


def _command_paths(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """Every (sub)command of the parser, nested ones (`baseline update`) too."""
    found: list[tuple[str, ...]] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                found.append((*path, name))
                found.extend(_command_paths(child, (*path, name)))
    return found


PATHS = [(), *_command_paths(cli._build_parser()[0])]


def _help(path: tuple[str, ...]) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RECALL_GATE_")}
    env |= {"COLUMNS": COLUMNS, "LINES": "50", "PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-c", ENTRY, *path, "--help"],
        capture_output=True,
        check=False,
        env=env,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    return done.stdout.decode("utf-8")


@pytest.mark.parametrize("path", PATHS, ids=[" ".join(p) or "recall-gate" for p in PATHS])
def test_a_command_s_help_text_is_unchanged(path: tuple[str, ...]) -> None:
    assert_golden(f"help/{'-'.join(path) or 'recall-gate'}.txt", _help(path))


def test_every_command_of_the_table_has_a_help_text() -> None:
    named = {p[0] for p in PATHS if p}
    assert named == {c for commands in cli.COMMAND_MODULES.values() for c in commands}
