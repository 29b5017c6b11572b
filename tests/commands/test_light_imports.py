"""Commands that do not need the model never import it: score, compare, check,
baseline, comment and history leave torch, sentence-transformers and chromadb
(and the BM25 index) unimported, so they start in a fraction of a second."""

from __future__ import annotations

import argparse
import importlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from recall_gate import cli
from recall_gate.commands.arguments import Parser, add_subcommands

HEAVY = ("torch", "sentence_transformers", "chromadb", "bm25s", "transformers")

CAPTURE = "".join(
    json.dumps(
        {
            "case_id": f"c{i}",
            "retrieved": ["a", "b"],
            "language": "en",
            "case_type": "golden",
            "must_cite_one_of": ["a"],
        }
    )
    + "\n"
    for i in range(3)
)
CASES = "cases:\n  - {id: c1, language: en, case_type: golden, query: q, must_cite_one_of: [a]}\n"
CARD = "---\nid: a\nlanguage: en\ntitle: A\n---\nSynthetic body.\n"

# Each command run for real in a fresh interpreter; `history` where it exists.
COMMANDS = {
    "score": ["score", "--artifacts", "run.jsonl", "--json", "r.json"],
    "check": ["check", "--kb", "kb", "--cases", "cases.yaml"],
    "baseline": ["baseline", "update", "--results", "r.json", "--created-at", "2026-01-01"],
    "compare": ["compare", "--current", "r.json"],
    "comment": ["comment", "--body", "r.json", "--repo", "o/r", "--pr", "1"],
    "history": ["history", "--help"],
}

SCRIPT = """
import io, json, sys
from pathlib import Path
from recall_gate import cli
argv = json.loads(sys.argv[1])
for name in sys.argv[3:]:  # the probe's own check: a module imported on purpose
    __import__(name)
code = None
try:
    code = cli.main(argv, environ={}, stdout=io.StringIO(), stderr=io.StringIO(), cwd=Path.cwd())
except SystemExit as exc:  # --help, or a command this version does not have
    code = exc.code
print(json.dumps({"code": code, "heavy": [m for m in json.loads(sys.argv[2]) if m in sys.modules]}))
"""


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("light")
    (root / "run.jsonl").write_text(CAPTURE, encoding="utf-8")
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")
    (root / "kb").mkdir()
    (root / "kb" / "a.md").write_text(CARD, encoding="utf-8")
    return root


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_a_command_without_the_model_imports_no_model_library(
    workdir: Path, argv: list[str]
) -> None:
    if argv[0] != "score" and not (workdir / "r.json").exists():
        run(workdir, COMMANDS["score"])
    done = run(workdir, argv)
    assert done["heavy"] == [], f"{argv[0]} imported {done['heavy']}"


def run(cwd: Path, argv: list[str], *preload: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(argv), json.dumps(HEAVY), *preload],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_the_probe_sees_a_model_library_once_imported(workdir: Path) -> None:
    done = run(workdir, COMMANDS["check"], "chromadb")
    assert done["heavy"] == ["chromadb"]


OTHER_COMMANDS = [f"recall_gate.commands.{m}" for m in cli.COMMAND_MODULES if m != "evaluation"]


def test_a_command_imports_only_its_own_command_module(workdir: Path) -> None:
    done = run_probe(workdir, COMMANDS["score"], OTHER_COMMANDS)
    assert done["code"] == 0
    assert done["heavy"] == [], f"score imported {done['heavy']}"


def test_the_probe_sees_another_command_module_once_imported(workdir: Path) -> None:
    done = run_probe(workdir, COMMANDS["score"], OTHER_COMMANDS, "recall_gate.commands.capturing")
    assert done["heavy"] == ["recall_gate.commands.capturing"]


def run_probe(cwd: Path, argv: list[str], watched: list[str], *preload: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(argv), json.dumps(watched), *preload],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


def test_the_command_table_names_what_each_module_adds() -> None:
    for module, commands in cli.COMMAND_MODULES.items():
        parser = Parser(prog="recall-gate")
        sub = add_subcommands(parser, dest="command", metavar="COMMAND")
        added = importlib.import_module(f"recall_gate.commands.{module}").add_commands(sub)
        assert tuple(added) == commands, module


def test_the_top_level_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["--help"], environ={}, stderr=io.StringIO()) == 0
    listed = capsys.readouterr().out
    for commands in cli.COMMAND_MODULES.values():
        for command in commands:
            assert f"    {command} " in listed or f"    {command}\n" in listed, command


# What a parser never needs: the readers and models a handler loads when it runs.
READERS = ("pydantic", "ruamel", "msgspec", "orjson", "requests", "recall_gate.core.records")
# Commands whose help (and flags) load the parser alone: `score --help` starts in a blink.
PARSER_ONLY = (
    "score",
    "check",
    "run",
    "compare",
    "baseline",
    "floors",
    "history",
    "comment",
    "actions-report",
    "propose-baseline",
)


@pytest.mark.parametrize("command", PARSER_ONLY)
def test_a_command_s_help_imports_no_reader_nor_model(workdir: Path, command: str) -> None:
    done = run_probe(workdir, [command, "--help"], [*READERS, *HEAVY])
    assert done["code"] == 0
    assert done["heavy"] == [], f"{command} --help imported {done['heavy']}"


def test_the_probe_sees_a_reader_once_imported(workdir: Path) -> None:
    done = run_probe(workdir, ["score", "--help"], list(READERS), "pydantic")
    assert done["heavy"] == ["pydantic"]


# Every subcommand, from the command table: each one's `--help` loads the parser
# alone, whatever its handler needs when it runs.
EVERY_COMMAND = [command for commands in cli.COMMAND_MODULES.values() for command in commands]
# The parts of recall-gate a parser may load: the line guard and the exit codes
# (cli.py's own), the proposal's branch prefix and the names of the judge's outputs
# (constants importing nothing heavy). Every other adapter and the judge's code
# load when a handler runs.
PARSER_PARTS = (
    "recall_gate.adapters",
    "recall_gate.adapters.baseline_proposal",
    "recall_gate.adapters.log_lines",
    "recall_gate.adapters.process_exit",
    "recall_gate.judging",
    "recall_gate.judging.outputs",
)
HANDLER_PACKAGES = ("recall_gate.adapters.", "recall_gate.judging.")

HELP_SCRIPT = """
import io, json, sys
from pathlib import Path
from recall_gate import cli
argv, watched, packages, allowed = (json.loads(a) for a in sys.argv[1:5])
for name in sys.argv[5:]:  # the probe's own check: a module imported on purpose
    __import__(name)
code = None
try:
    code = cli.main(argv, environ={}, stdout=io.StringIO(), stderr=io.StringIO(), cwd=Path.cwd())
except SystemExit as exc:
    code = exc.code
loaded = [m for m in watched if m in sys.modules]
loaded += sorted(
    m for m in sys.modules if m.startswith(tuple(packages)) and m not in allowed
)
print(json.dumps({"code": code, "heavy": loaded}))
"""


def run_help_probe(cwd: Path, command: str, *preload: str) -> dict[str, object]:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            HELP_SCRIPT,
            json.dumps([*command.split(), "--help"]),
            json.dumps([*READERS, *HEAVY]),
            json.dumps(HANDLER_PACKAGES),
            json.dumps(PARSER_PARTS),
            *preload,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result: dict[str, object] = json.loads(out.stdout.splitlines()[-1])
    return result


@pytest.mark.parametrize("command", EVERY_COMMAND)
def test_every_command_s_help_imports_no_reader_adapter_nor_judge(
    workdir: Path, command: str
) -> None:
    done = run_help_probe(workdir, command)
    assert done["code"] == 0
    assert done["heavy"] == [], f"{command} --help imported {done['heavy']}"


def _nested(parser: argparse.ArgumentParser) -> list[str]:
    """The commands below a command (`baseline update`), from the whole parser."""
    return [
        f"{name} {inner}"
        for name, child in _subcommands(parser).items()
        for inner in _subcommands(child)
    ]


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    return {
        name: child
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for name, child in action.choices.items()
    }


NESTED = _nested(cli._build_parser()[0])


@pytest.mark.parametrize("command", NESTED)
def test_a_nested_command_s_help_imports_no_reader_adapter_nor_judge(
    workdir: Path, command: str
) -> None:
    done = run_help_probe(workdir, command)
    assert done["code"] == 0
    assert done["heavy"] == [], f"{command} --help imported {done['heavy']}"


def test_every_command_of_the_table_is_probed() -> None:
    assert len(EVERY_COMMAND) == len(set(EVERY_COMMAND)) >= 16
    assert {"cards", "capture", "merge", "queue", "convert", "settings"} <= set(EVERY_COMMAND)
    assert "baseline update" in NESTED


def test_the_help_probe_sees_an_adapter_once_imported(workdir: Path) -> None:
    done = run_help_probe(workdir, "settings", "recall_gate.adapters.files")
    seen = done["heavy"]
    assert isinstance(seen, list)
    assert "recall_gate.adapters.files" in seen


def test_the_help_probe_sees_a_reader_once_imported(workdir: Path) -> None:
    done = run_help_probe(workdir, "score", "msgspec")
    assert done["heavy"] == ["msgspec"]
