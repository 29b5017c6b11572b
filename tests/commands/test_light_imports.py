"""Commands that do not need the model never import it: score, compare, check,
baseline, comment and history leave torch, sentence-transformers and chromadb
(and the BM25 index) unimported, so they start in a fraction of a second."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

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
