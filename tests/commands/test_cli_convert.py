"""`recall-gate convert` and `capture --trec-out`: a capture checked by pytrec_eval
scores what `score` scores; a BEIR dataset becomes cases (synthetic data)."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli
from recall_gate.core.metrics import HIT, NDCG, RECALL

pytrec_eval = pytest.importorskip("pytrec_eval")


def jsonl(path: Path, *objects: Any) -> None:
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")


CAPTURE = [
    {
        "case_id": "c1",
        "language": "en",
        "case_type": "golden",
        "must_cite_one_of": ["refills"],
        "retrieved": [{"id": "refills#0", "parent_id": "refills"}, "billing", "refills"],
    },
    {
        "case_id": "c2",
        "language": "en",
        "case_type": "golden",
        "must_cite_one_of": ["billing", "hours"],
        "retrieved": ["hours", "refills", "parking", "billing"],
    },
    {
        "case_id": "c3",
        "language": "de",
        "case_type": "adversarial",
        "must_cite_one_of": ["parking"],
        "retrieved": ["billing", "hours"],
    },
]


def pytrec(tmp_path: Path, run_file: str, qrels_file: str, k: int) -> dict[str, float]:
    qrels: dict[str, dict[str, int]] = {}
    for line in (tmp_path / qrels_file).read_text(encoding="utf-8").splitlines():
        qid, _, doc, grade = line.split()
        qrels.setdefault(qid, {})[doc] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (tmp_path / run_file).read_text(encoding="utf-8").splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    measures = {HIT: f"success_{k}", RECALL: f"recall_{k}", NDCG: f"ndcg_cut_{k}"}
    per_query = pytrec_eval.RelevanceEvaluator(
        qrels, {m.replace(f"_{k}", f".{k}") for m in measures.values()}
    ).evaluate(run)
    return {
        key: math.fsum(q[m] for q in per_query.values()) / len(per_query)
        for key, m in measures.items()
    }


def test_converted_capture_scores_in_pytrec_eval_as_in_recall_gate(tmp_path: Path) -> None:
    jsonl(tmp_path / "capture.jsonl", *CAPTURE)
    for target, out in (("trec-run", "run.trec"), ("trec-qrels", "qrels.txt")):
        done = run_cli(
            ["convert", "--artifacts", "capture.jsonl", "--to", target, "--out", out], cwd=tmp_path
        )
        assert done.code == 0, done.err
    assert (tmp_path / "run.trec").read_text(encoding="utf-8").splitlines()[:2] == [
        "c1 Q0 refills 1 2 recall-gate",  # card identity = parent_id; the duplicate dropped
        "c1 Q0 billing 2 1 recall-gate",
    ]
    done = run_cli(
        ["score", "--artifacts", "capture.jsonl", "--k", "3", "--json", "r.json"], cwd=tmp_path
    )
    assert done.code == 0, done.err
    ours = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["aggregates"]["overall"]
    theirs = pytrec(tmp_path, "run.trec", "qrels.txt", 3)
    for key in (HIT, RECALL, NDCG):
        assert ours[key]["mean"] == pytest.approx(theirs[key], abs=1e-6), key


def test_run_and_qrels_convert_to_a_capture_that_scores_the_same(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text(
        "q1 Q0 a 1 0.5 s\nq1 Q0 b 2 0.9 s\nq2 Q0 c 1 1 s\nq9 Q0 a 1 1 s\n", encoding="utf-8"
    )
    (tmp_path / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\ta\t1\nq2\td\t1\n", encoding="utf-8"
    )
    done = run_cli(
        [
            "convert",
            "--run",
            "run.trec",
            "--qrels",
            "qrels.tsv",
            "--to",
            "artifacts",
            "--out",
            "capture.jsonl",
        ],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    assert "1 query of the run without a judgment: left out" in done.err
    lines = [json.loads(x) for x in (tmp_path / "capture.jsonl").read_text().splitlines()]
    assert lines[0] == {
        "case_id": "q1",
        "case_type": "golden",
        "language": "und",
        "must_cite_one_of": ["a"],
        "retrieved": ["b", "a"],
    }
    scored = []
    for argv in (["--artifacts", "capture.jsonl"], ["--run", "run.trec", "--qrels", "qrels.tsv"]):
        done = run_cli(["score", *argv, "--k", "2", "--json", "r.json"], cwd=tmp_path)
        assert done.code == 0, done.err
        scored.append(json.loads((tmp_path / "r.json").read_text())["aggregates"])
    assert scored[0] == scored[1]


def test_beir_qrels_and_queries_convert_to_cases(tmp_path: Path) -> None:
    (tmp_path / "qrels.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t2\nq2\td3\t0\n", encoding="utf-8"
    )
    jsonl(
        tmp_path / "queries.jsonl",
        {"_id": "q1", "text": "how do I refill?", "metadata": {}},
        {"_id": "q2", "text": "parking?"},
    )
    done = run_cli(
        [
            "convert",
            "--qrels",
            "qrels.tsv",
            "--queries",
            "queries.jsonl",
            "--language",
            "en",
            "--to",
            "cases",
            "--out",
            "cases.jsonl",
        ],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    cases = [json.loads(x) for x in (tmp_path / "cases.jsonl").read_text().splitlines()]
    assert cases == [
        {
            "id": "q1",
            "language": "en",
            "case_type": "golden",
            "query": "how do I refill?",
            "must_cite_one_of": ["d1", "d2"],
        },
        {
            "id": "q2",
            "language": "en",
            "case_type": "no_match",
            "query": "parking?",
            "must_cite_one_of": [],
        },
    ]


def test_cases_without_query_text_are_refused_naming_the_query(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    done = run_cli(
        ["convert", "--qrels", "qrels.txt", "--to", "cases", "--out", "cases.jsonl"], cwd=tmp_path
    )
    assert done.code == 2
    assert "query 'q1' of " in done.err
    assert "qrels.txt has no text" in done.err
    assert not (tmp_path / "cases.jsonl").exists()


def test_cases_convert_to_beir_qrels_with_relevant_ids(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(
        "- {id: a, language: en, case_type: golden, query: q, must_cite_one_of: [x],"
        " relevant_ids: [x, y]}\n"
        "- {id: b, language: en, case_type: no_match, query: r, must_cite_one_of: []}\n",
        encoding="utf-8",
    )
    done = run_cli(
        ["convert", "--cases", "cases.yaml", "--to", "beir-qrels", "--out", "test.tsv"],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    assert (tmp_path / "test.tsv").read_text() == "query-id\tcorpus-id\tscore\na\tx\t1\na\ty\t1\n"


def test_an_id_with_whitespace_cannot_become_a_trec_column(tmp_path: Path) -> None:
    jsonl(tmp_path / "capture.jsonl", {"case_id": "c 1", "retrieved": ["a"]})
    done = run_cli(
        ["convert", "--artifacts", "capture.jsonl", "--to", "trec-run", "--out", "run.trec"],
        cwd=tmp_path,
    )
    assert done.code == 2
    assert "the case id 'c 1' holds whitespace" in done.err
    assert not (tmp_path / "run.trec").exists()


def test_capture_trec_out_writes_the_capture_as_a_trec_run(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(
        "def build():\n    return lambda query, k: ['b', 'a'] if 'one' in query else ['c']\n",
        encoding="utf-8",
    )
    (tmp_path / "cases.yaml").write_text(
        "- {id: c1, language: en, case_type: golden, query: one, must_cite_one_of: [a]}\n"
        "- {id: c2, language: en, case_type: golden, query: two, must_cite_one_of: [c]}\n",
        encoding="utf-8",
    )
    sys.modules.pop("app", None)
    done = run_cli(
        [
            "capture",
            "--retriever",
            "app:build",
            "--cases",
            "cases.yaml",
            "--out",
            "a.jsonl",
            "--trec-out",
            "run.trec",
            "--k",
            "2",
        ],
        cwd=tmp_path,
    )
    sys.modules.pop("app", None)
    assert done.code == 0, done.err
    assert (tmp_path / "run.trec").read_text(encoding="utf-8") == (
        "c1 Q0 b 1 2 recall-gate\nc1 Q0 a 2 1 recall-gate\nc2 Q0 c 1 1 recall-gate\n"
    )


def test_a_language_that_is_not_bcp_47_exits_2(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n", encoding="utf-8")
    done = run_cli(
        ["convert", "--qrels", "qrels.txt", "--language", "en_US", "--to", "cases", "--out", "c"],
        cwd=tmp_path,
    )
    assert done.code == 2
    assert "use '-', not '_' (en-US)" in done.err
    assert "Traceback" not in done.err
