"""The command handlers are thin adapters over the rooms below them: no handler
imports another, the judge and the settings import no handler, and the house
stays small enough to read (``commands/`` at most 3,000 lines, no module of
``src/`` over 700).

Imports are read with ``ast`` (lazy imports inside functions included), so a
handler that reaches for another one's helper fails here before it ships."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import recall_gate
from recall_gate import cli

PACKAGE = Path(recall_gate.__file__).parent
COMMANDS = PACKAGE / "commands"

HANDLERS = frozenset(cli.COMMAND_MODULES)
# What a handler may import from commands/: the shared flags and its inputs.
SHARED = frozenset({"arguments", "context"})

MAX_COMMANDS_LINES = 3_000
MAX_MODULE_LINES = 700
# None today: a module that outgrows the limit is split by concept, not listed here.
OVER_THE_LIMIT: frozenset[str] = frozenset()


def imported_modules(source: str) -> set[str]:
    """Every absolute module name ``source`` imports, at the top or in a function
    (``from a.b import c`` names both ``a.b`` and ``a.b.c``: c may be a module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def commands_imported(source: str) -> set[str]:
    """The modules of ``recall_gate.commands`` that ``source`` imports (by short name)."""
    prefix = "recall_gate.commands."
    return {
        name.removeprefix(prefix).split(".")[0]
        for name in imported_modules(source)
        if name.startswith(prefix)
    }


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_every_handler_module_is_a_module_of_commands() -> None:
    assert HANDLERS, "cli.COMMAND_MODULES names the handlers"
    for name in HANDLERS:
        assert (COMMANDS / f"{name}.py").is_file(), name
    assert not SHARED & HANDLERS


@pytest.mark.parametrize("handler", sorted(HANDLERS))
def test_no_handler_imports_another_handler(handler: str) -> None:
    imported = commands_imported(_source(COMMANDS / f"{handler}.py"))
    assert imported <= SHARED, (
        f"commands/{handler}.py imports {sorted(imported - SHARED)}: move what they share "
        "into the judge (recall_gate.judging), the settings or a lower room"
    )


def test_the_shared_modules_of_commands_import_no_handler() -> None:
    for name in SHARED:
        assert not commands_imported(_source(COMMANDS / f"{name}.py")) & HANDLERS, name


@pytest.mark.parametrize("room", ["judging", "settings", "console.py"])
def test_the_judge_and_the_settings_import_no_command_module(room: str) -> None:
    path = PACKAGE / room
    files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
    assert files
    for file in files:
        upward = {
            name
            for name in imported_modules(_source(file))
            if name == "recall_gate.cli" or name.startswith("recall_gate.commands")
        }
        assert upward == set(), f"{file.relative_to(PACKAGE)} imports {sorted(upward)}"


# The pieces of "the base judges": only the judge composes them.
BASE_JUDGING = ("recall_gate.core.base_judging", "recall_gate.adapters.base_revision")


@pytest.mark.parametrize("handler", sorted(HANDLERS | SHARED))
def test_only_the_judge_composes_the_base_revision(handler: str) -> None:
    imported = imported_modules(_source(COMMANDS / f"{handler}.py"))
    assert not {m for m in imported if m.startswith(BASE_JUDGING)}, (
        f"commands/{handler}.py reaches for the base revision itself: ask recall_gate.judging"
    )


def test_the_checks_catch_a_handler_importing_another() -> None:
    lazy = "def f():\n    from recall_gate.commands.evaluation import unique_cases\n"
    assert commands_imported(lazy) == {"evaluation"}
    eager = "from recall_gate.commands import capturing, arguments\n"
    assert commands_imported(eager) == {"capturing", "arguments"}
    assert commands_imported("from recall_gate.judging.oracle import unique_cases\n") == set()


def test_commands_stays_thin() -> None:
    lines = sum(len(_source(p).splitlines()) for p in COMMANDS.glob("*.py"))
    assert lines <= MAX_COMMANDS_LINES, (
        f"commands/ holds {lines:,} lines (at most {MAX_COMMANDS_LINES:,}): move the logic "
        "a handler grew into the room it belongs to"
    )


def test_no_module_is_over_the_line_limit() -> None:
    over = {
        str(p.relative_to(PACKAGE)): n
        for p in PACKAGE.rglob("*.py")
        if (n := len(_source(p).splitlines())) > MAX_MODULE_LINES
    }
    assert set(over) <= OVER_THE_LIMIT, {k: v for k, v in over.items() if k not in OVER_THE_LIMIT}
