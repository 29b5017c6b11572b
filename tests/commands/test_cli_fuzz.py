"""Every command, driven with generated malformed files, flags and environment:
never a traceback, always a documented exit code.

The commands and their flags are read from the parser itself, so a command
added later is fuzzed too. Each flag that takes a path gets a file inside a
fresh temporary folder — hostile content (deep nesting, alias bombs, unknown
YAML tags, binary, not UTF-8, empty), plausible JSON records with wrong types,
a folder, or nothing at all; every other flag gets edge-case text. The GitHub
commands talk to the fake GitHub with a fuzzed token, which must never show.

Exit 3 is documented too, but it means a bug in recall-gate: here it fails.
Examples are derandomized so that CI is reproducible; set
``RECALL_GATE_FUZZ_EXAMPLES`` to explore more (a fresh random seed each run).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fake_github import TOKEN, FakeGitHub
from recall_gate import cli
from recall_gate.settings.values import optional_path

EXPLORE = int(os.environ.get("RECALL_GATE_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=EXPLORE or 15,
    deadline=None,
    derandomize=not EXPLORE,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
DOCUMENTED_EXITS = {0, 1, 2}

# -- what the commands are ---------------------------------------------------------


def _commands() -> dict[str, argparse.ArgumentParser]:
    """Every leaf command (``baseline update``, ``score`` …) with its parser."""
    parser, _ = cli._build_parser()
    found: dict[str, argparse.ArgumentParser] = {}

    def walk(prefix: str, p: argparse.ArgumentParser) -> None:
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            found[prefix.strip()] = p
        for sub in subs:
            for name, child in sub.choices.items():
                walk(f"{prefix} {name}", child)

    walk("", parser)
    return found


COMMANDS = _commands()
_PATH_METAVARS = {"PATH", "FILE", "DIR", "CONFIG", "F"}


def _takes_path(action: argparse.Action) -> bool:
    return (
        action.type in {Path, optional_path}
        or str(action.metavar or "").upper() in _PATH_METAVARS
        or not action.option_strings  # positionals are files (merge A B …)
    )


# -- what goes in --------------------------------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", blacklist_characters="\x00"), max_size=40)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _TEXT,
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(_TEXT, kids, max_size=4),
    max_leaves=12,
)
_FIELDS = [
    "case_id",
    "retrieved",
    "cited",
    "must_cite_one_of",
    "relevant_ids",
    "language",
    "case_type",
    "id",
    "query",
    "title",
    "body",
    "tags",
    "kind",
    "schema_version",
    "k",
    "cases",
    "aggregates",
    "provenance",
    "created_at",
    "reason",
    "git_sha",
    "parent_id",
    "score",
    "latency_ms",
    "metrics",
    "overall",
    "by_language",
    "kb",
    "baseline",
    "gate",
    "min_hit",
    "profile",
    "embedder",
    "retrieval",
    "verdict",
    "comparison",
]
_RECORD = st.dictionaries(st.sampled_from(_FIELDS), _JSON, max_size=6)
_HOSTILE = [
    "[" * 5_000 + "]" * 5_000,
    '{"a": ' * 3_000 + "1" + "}" * 3_000,
    "".join("  " * i + "a:\n" for i in range(300)),
    "a: !!python/object:os.system {}\n",
    "a: !custom 1\n",
    "a: &x [1, *x]\n",
    "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
    "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
    "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
    "g: [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
    "---\na: 1\n---\nb: 2\n",
    "%YAML 9.9\n---\nx: 1\n",
    "kb: ../../..\ncases: /\n",
    "k: 1e999\ngate: {min_hit: 2}\n",
    "---\ntitle: x\n",
    '{"case_id": "c", "retrieved": [{"id": null}]}\n',
    '{"case_id": "c", "retrieved": ["a"], "latency_ms": NaN}\n',
    "\ufeff\u2028\n\r\n",
]
_CONTENT = st.one_of(
    _JSON.map(json.dumps),
    _RECORD.map(json.dumps),
    st.lists(_RECORD.map(json.dumps) | _TEXT, max_size=4).map("\n".join),
    st.lists(_RECORD, max_size=3).map(lambda items: json.dumps({"cases": items})),
    st.sampled_from(_HOSTILE),
    _TEXT,
    st.binary(max_size=60),
    st.sampled_from(["", "MISSING", "FOLDER"]),
)
_SUFFIX = st.sampled_from([".json", ".jsonl", ".yaml", ".md", ".txt", ""])
_VALUE = st.one_of(
    _TEXT.filter(lambda t: not t.startswith("-")),
    st.sampled_from(
        [
            "",
            "0",
            "-1",
            "0.5",
            "nan",
            "inf",
            "1e309",
            "99999999999999999999999",
            "true",
            "maybe",
            "retrieval.mode=hybrid",
            "k=-1",
            "kb=",
            "a.b.c=1",
            "gate=[1]",
            "default",
            "HEAD",
            "HEAD~999",
            "octo/app",
            "main",
            "1/0",
            "3/2",
        ]
    ),
)
# A retriever spec is imported and called: only harmless ones.
_RETRIEVERS = st.sampled_from(
    ["", "nope", "no_such_module:make", "json:loads", "json:nope", "os.path:join", ":", "a:b:c"]
)


def _write(folder: Path, name: str, content: str | bytes) -> str:
    path = folder / name
    if content == "MISSING":
        return name
    if content == "FOLDER":
        path.mkdir(exist_ok=True)
        (path / "inside.md").write_text("# x\n")
        return name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return name


def _argv(data: st.DataObject, command: str, folder: Path) -> list[str]:
    parser = COMMANDS[command]
    argv = command.split()
    actions = [
        a
        for a in parser._actions
        if not isinstance(a, argparse._HelpAction) and a.dest not in {"debug", "help"}
    ]
    for number, action in enumerate(actions):
        wanted = action.required or not action.option_strings
        if not wanted and not data.draw(st.booleans(), label=f"use {action.dest}"):
            continue
        flag = [action.option_strings[-1]] if action.option_strings else []
        if action.nargs == 0:
            argv += flag
            continue
        if action.dest == "retriever":
            argv += [*flag, data.draw(_RETRIEVERS, label="retriever")]
        elif _takes_path(action):
            name = f"in{number}{data.draw(_SUFFIX, label='suffix')}"
            argv += [*flag, _write(folder, name, data.draw(_CONTENT, label=action.dest))]
        else:
            argv += [*flag, data.draw(_VALUE, label=action.dest)]
    return argv


# -- the property ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo("octo/app")
        fake.add_pull("octo/app", head_sha="a" * 40)
        yield fake


def test_every_command_of_the_parser_is_fuzzed() -> None:
    assert {"check", "score", "run", "capture", "compare", "baseline update"} <= set(COMMANDS)
    assert {"floors suggest", "history", "comment", "actions-report"} <= set(COMMANDS)


@pytest.mark.parametrize("command", sorted(COMMANDS))
@FUZZ
@given(data=st.data())
def test_malformed_input_never_gives_a_traceback_or_an_undocumented_exit(
    github: FakeGitHub, command: str, data: st.DataObject
) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        argv = _argv(data, command, folder)
        token = data.draw(st.one_of(st.just(TOKEN), st.just(TOKEN + "\n"), _TEXT), label="token")
        environ: dict[str, Any] = {
            "GITHUB_TOKEN": token,
            "GITHUB_API_URL": github.url,
            "GITHUB_REPOSITORY": data.draw(st.sampled_from(["octo/app", "", "a/b/c"])),
            "GITHUB_OUTPUT": str(folder / "output"),
            "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
            "GITHUB_EVENT_PATH": _write(folder, "event.json", data.draw(_CONTENT)),
        }
        out, err = io.StringIO(), io.StringIO()
        code = cli.main(argv, environ, stdout=out, stderr=err, cwd=folder)
        said = out.getvalue() + err.getvalue()

    assert code in DOCUMENTED_EXITS, f"{argv} exited {code}:\n{said}"
    assert "Traceback" not in said, argv
    if code == 2:
        assert "recall-gate: error: " in err.getvalue(), (argv, said)
    if len(token.strip()) >= 8:
        assert token.strip() not in said, argv
