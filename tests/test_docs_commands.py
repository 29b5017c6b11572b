"""Every command the docs show in a shell block runs, as a reader would type it.

Each ``bash`` / ``sh`` / ``shell`` / ``console`` block of the README and the docs
pages is run line by line in a sandbox project (an invented shop: its docs,
cases, a query log, a word-overlap retriever at ``app.rag:build_retriever`` and a
git history), ``recall-gate`` through its real entry point and ``git`` as git.
A block may need files an earlier step of the same story made (a TREC run
before scoring it): :data:`BEFORE` lists those steps, written as a reader would
run them. A block that cannot run here says why in :data:`NOT_RUN`; a new
block that is in neither list is run, so a command the docs add is tested the
day it is written.

The workflows the docs show are run by the act suite (tests/action/); this
file does the same for shell commands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli_runner import run_cli

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "data"

# Blocks that are not run, by the first command line of the block, with the reason.
NOT_RUN: dict[str, str] = {
    "make run": "the README's two commands: CI runs `make check` itself, and "
    "tests/test_readme.py pins both to the Makefile",
    "make bench": "the benchmarks take minutes and time peers side by side: "
    "`make bench` is their test",
    **{
        f"/usr/bin/time -v recall-gate score --artifacts artifacts-{n}.jsonl --k 10 "
        "--json out.json": f"the benchmark's {n}-case capture, made by `python -m benchmarks "
        "scoring`"
        for n in (200000, 1000000)
    },
    "python -m benchmarks scoring --json-out scoring.json": "the scoring benchmark takes "
    "minutes: `make bench` is its test",
    "python -m benchmarks pr-check": "the PR-check benchmark runs act for minutes",
    "python -m benchmarks scoring --startup-only": "times every command's start-up in "
    "fresh processes, several runs each: part of `make bench`; what it measures is held "
    "by tests/commands/test_light_imports.py",
    "PYTHONPATH=src:. python -m benchmarks front-matter": "the front matter benchmark "
    "parses 10,000 pages 5 times (and 36 s with --full-yaml): `make bench` is its test",
    "pip install recall-gate": "installs from PyPI (the wheel's own test installs it)",
}

# Commands run before a block, in its sandbox: what the reader has made by then.
BEFORE: dict[str, list[str]] = {
    # One matrix job of three: the other two shards exist when the merge runs.
    "recall-gate capture --retriever app.rag:build_retriever --shard 2/3 --out shard-2.jsonl": [
        "recall-gate capture --retriever app.rag:build_retriever --shard 1/3 --out shard-1.jsonl",
        "recall-gate capture --retriever app.rag:build_retriever --shard 3/3 --out shard-3.jsonl",
    ],
    # --resume continues a capture that stopped: one stops at a failing case first.
    "recall-gate capture --retriever app.rag:build_retriever --out capture.jsonl --resume": [
        "! SHOP_FAIL_ON=password recall-gate capture --retriever app.rag:build_retriever "
        "--out capture.jsonl",
    ],
    "recall-gate queue --artifacts capture.jsonl --out to-label.yaml --top 10": [
        "recall-gate capture --out capture.jsonl --json results.json",
        "recall-gate baseline update --results results.json "
        "--queries-snapshot capture.queries.jsonl",
    ],
    "recall-gate score --run run.trec --qrels qrels/test.tsv --k 10": [
        "recall-gate capture --out capture.jsonl",
        "recall-gate convert --artifacts capture.jsonl --to trec-run --out run.trec",
        "recall-gate convert --cases evals/cases.yaml --to beir-qrels --out qrels/test.tsv",
    ],
    "# a capture → a TREC run and its qrels (from the capture's own gold, or --cases)": [
        "recall-gate capture --out capture.jsonl",
    ],
    "recall-gate run --json out/results.json": [],
    "git switch main": [],
}

# Programs a block may name that the sandbox does not have; their lines are skipped.
ABSENT = {"trec_eval": "the TREC tool itself (its numbers are compared in tests/core)"}

SHELL_BLOCK = re.compile(r"^```(?:bash|sh|shell|console)\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    page: str
    text: str

    @property
    def commands(self) -> list[str]:
        """The block's commands: prompts dropped, continuations joined, output and
        comment lines left out (a console block's output follows a ``$ `` line)."""
        lines = self.text.splitlines()
        console = any(line.startswith("$ ") for line in lines)
        out: list[str] = []
        pending = ""
        for raw in lines:
            if console and not raw.startswith("$ "):
                continue
            line = raw[2:] if console else raw
            if pending:
                line = pending + " " + line.strip()
                pending = ""
            if line.rstrip().endswith("\\"):
                pending = line.rstrip()[:-1].rstrip()
                continue
            if line.strip() and not line.lstrip().startswith("#"):
                out.append(line.strip())
        return out

    @property
    def key(self) -> str:
        """The block's first line, without its prompt or trailing comment."""
        first = next(line for line in self.text.splitlines() if line.strip())
        first = first.removeprefix("$ ").strip()
        return first if first.startswith("#") else first.split("  #")[0].strip()


def shell_blocks() -> list[Block]:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    return [
        Block(page.relative_to(ROOT).as_posix(), found.group(1))
        for page in pages
        for found in SHELL_BLOCK.finditer(page.read_text(encoding="utf-8"))
    ]


RETRIEVER = '''\
"""The shop's retriever (synthetic docs): word overlap, nothing to install."""

import os
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def build_retriever():
    pages = [
        (path.relative_to(DOCS).with_suffix("").as_posix(), set(path.read_text().lower().split()))
        for path in sorted(DOCS.rglob("*.md"))
    ]

    def search(query, k):
        fail = os.environ.get("SHOP_FAIL_ON")
        if fail and fail in query:  # an outage, for --resume
            raise RuntimeError("the search service is down")
        words = set(query.lower().split())
        ranked = sorted(pages, key=lambda page: (-len(words & page[1]), page[0]))
        return [card for card, _ in ranked[:k]]

    return search
'''

CONFIG = """\
# The docs' sandbox: an invented shop (synthetic docs and cases).
kb: docs
cases: evals/cases.yaml
queries: evals/queries.jsonl
k: 3
capture:
  retriever: app.rag:build_retriever
"""

QUERY_LOG = "".join(
    f'{{"id": "q{i}", "query": "{q}", "weight": {w}}}\n'
    for i, (q, w) in enumerate(
        [("how do I return an item", 40), ("express shipping", 25), ("passwort", 5)]
    )
)


def beir_queries() -> str:
    """The cases' queries as BEIR's queries.jsonl (``_id``, ``text``)."""
    from ruamel.yaml import YAML

    cases = YAML(typ="safe").load((EXAMPLES / "cases.yaml").read_text(encoding="utf-8"))
    return "".join(json.dumps({"_id": c["id"], "text": c["query"]}) + "\n" for c in cases["cases"])


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=docs", "-c", "user.email=docs@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def sandbox(root: Path) -> Path:
    app = root / "shop"
    shutil.copytree(EXAMPLES / "docs", app / "docs")
    (app / "evals").mkdir()
    shutil.copy(EXAMPLES / "cases.yaml", app / "evals" / "cases.yaml")
    shutil.copy(EXAMPLES / "cases.yaml", app / "cases.yaml")  # where the docs' examples name it
    (app / "evals" / "queries.jsonl").write_text(QUERY_LOG, encoding="utf-8")
    (app / "queries.jsonl").write_text(beir_queries(), encoding="utf-8")
    (app / "app").mkdir()
    (app / "app" / "__init__.py").write_text("", encoding="utf-8")
    (app / "app" / "rag.py").write_text(RETRIEVER, encoding="utf-8")
    (app / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    git(app, "init", "-q", "-b", "main")
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "the shop")
    git(app, "update-ref", "refs/remotes/origin/main", "HEAD")
    return app


def _forget_app() -> None:
    for module in [m for m in sys.modules if m.split(".")[0] == "app"]:
        del sys.modules[module]


def run_line(app: Path, line: str) -> None:
    """One line of a block: ``a && b`` runs both; ``NAME=value cmd`` sets the
    variable for that command; a leading ``! `` expects it to fail."""
    for part in line.split("&&"):
        run_command(app, part.strip())


def run_command(app: Path, line: str) -> None:
    fails = line.startswith("! ")
    words = shlex.split(line.removeprefix("! "), comments=True)
    variables: dict[str, str] = {}
    while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
        name, _, value = words.pop(0).partition("=")
        variables[name] = value
    if not words:
        return
    program, *args = words
    if program in ABSENT:
        return
    if program == "recall-gate":
        environ = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        _forget_app()  # another test's `app` module must not stand in for the shop's
        saved = {name: os.environ.get(name) for name in variables}
        os.environ.update(variables)  # the retriever reads the process environment
        try:
            done = run_cli(args, cwd=app, environ=environ)
        finally:
            for name, before in saved.items():
                if before is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = before
            _forget_app()  # the next capture imports it afresh
        if fails:
            assert done.code != 0, f"`{line}` was to fail and exited 0"
        else:
            assert done.code == 0, f"`{line}` exited {done.code}:\n{done.err}"
        return
    if program == "git":
        git(app, *args)
        return
    raise AssertionError(
        f"`{line}`: the docs run {program!r}, which this test does not know; run it here or "
        "list the block in NOT_RUN with the reason"
    )


BLOCKS = shell_blocks()


def test_every_shell_block_is_run_or_says_why_not() -> None:
    keys = {block.key for block in BLOCKS}
    assert keys, "no shell block found: the pattern no longer matches the docs"
    stale = sorted((set(NOT_RUN) | set(BEFORE)) - keys)
    assert not stale, f"listed here, gone from the docs (remove them): {stale}"


@pytest.mark.parametrize(
    "block",
    [
        pytest.param(
            b,
            id=f"{b.page}:{b.key[:50]}",
            marks=[pytest.mark.integration] if "recall-gate run" in b.text else [],
        )
        for b in BLOCKS
        if b.key not in NOT_RUN
    ],
)
def test_the_shell_block_runs_in_a_sandbox_project(block: Block, tmp_path: Path) -> None:
    app = sandbox(tmp_path)
    previous = os.getcwd()
    try:
        for line in [*BEFORE.get(block.key, []), *block.commands]:
            run_line(app, line)
    finally:
        os.chdir(previous)
