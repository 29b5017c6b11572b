"""BEIR `cases:` (DATASET/qrels/<split>.tsv beside DATASET/queries.jsonl) judged at a
base revision: the base's qrels and its queries are read from the base tree, and
every message names REF:path, never a temporary file. A real git repository."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli
from git_repo import commit_all, git, needs_git, write_files

pytestmark = needs_git

QUERIES = "\n".join(json.dumps({"_id": f"q{i}", "text": f"question {i}"}) for i in range(4))
QRELS = "query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(4))


def beir_repo(root: Path, *, queries: bool = True) -> Path:
    files = {
        "recall-gate.yaml": "k: 3\ncases: data/scifact/qrels/test.tsv\n",
        "data/scifact/qrels/test.tsv": QRELS,
    }
    if queries:
        files["data/scifact/queries.jsonl"] = QUERIES + "\n"
    git(root, "init", "-q", "-b", "main")
    write_files(root, files)
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "pr")
    capture = [{"case_id": f"q{i}", "retrieved": [f"d{i}", "x", "y"]} for i in range(4)]
    (root / "capture.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in capture), encoding="utf-8"
    )
    return root


def test_beir_cases_are_judged_at_the_base_with_the_bases_queries(tmp_path: Path) -> None:
    root = beir_repo(tmp_path)
    argv = ["score", "--artifacts", "capture.jsonl", "--baseline-ref", "main", "--json", "r.json"]
    run = run_cli(argv, cwd=root)
    assert run.code == 0, run.err
    results = json.loads((root / "r.json").read_text(encoding="utf-8"))
    assert {c["case_id"] for c in results["cases"]} == {"q0", "q1", "q2", "q3"}
    assert "recall-gate-base." not in run.err


def test_a_base_without_the_beir_queries_names_them_at_the_ref(tmp_path: Path) -> None:
    root = beir_repo(tmp_path, queries=False)
    # The pull request adds the queries: the base's cases still lack them.
    write_files(root, {"data/scifact/queries.jsonl": QUERIES + "\n"})
    commit_all(root, "pr")
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--baseline-ref", "main"], cwd=root)
    assert run.code == 2
    assert (
        "main:data/scifact/qrels/test.tsv: no main:data/scifact/queries.jsonl beside the "
        "qrels folder"
    ) in run.err
    assert "recall-gate-base." not in run.err
