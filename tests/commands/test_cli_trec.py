"""`score --run --qrels`: TREC runs and TREC / BEIR qrels scored as trec_eval scores
them, checked against pytrec_eval on generated data (synthetic, seeded)."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from cli_runner import run_cli
from recall_gate.core.metrics import HIT, MRR, NDCG, PRECISION, RECALL

pytrec_eval = pytest.importorskip("pytrec_eval")

K = 10


def generate(tmp_path: Path, *, queries: int = 300, seed: int = 21, graded: bool = False) -> None:
    """A BEIR qrels file (1–4 relevant documents and 2 judged non-relevant per query)
    and a TREC run of 20 documents per query with tied scores, its lines shuffled,
    plus 5 queries the qrels do not judge."""
    rng = random.Random(seed)
    docs = [f"doc{i}" for i in range(500)]
    qrels = ["query-id\tcorpus-id\tscore"]
    run = []
    for q in range(queries):
        qid = f"q{q}"
        relevant = rng.sample(docs, rng.randint(1, 4))
        qrels += [f"{qid}\t{d}\t{rng.choice((1, 2, 3)) if graded else 1}" for d in relevant]
        others = [d for d in docs if d not in relevant]
        qrels += [f"{qid}\t{d}\t0" for d in rng.sample(others, 2)]
        retrieved = rng.sample(others, 20 - len(relevant)) + rng.sample(relevant, len(relevant))
        rng.shuffle(retrieved)
        for rank, doc in enumerate(retrieved, start=1):
            score = rng.choice((1.0, 2.0, 3.5, round(rng.random(), 3)))  # ties on purpose
            run.append(f"{qid} Q0 {doc} {rank} {score} synthetic")
    run += [f"unjudged{q} Q0 doc1 1 1.0 synthetic" for q in range(5)]
    rng.shuffle(run)
    (tmp_path / "qrels").mkdir()
    (tmp_path / "qrels" / "test.tsv").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (tmp_path / "run.trec").write_text("\n".join(run) + "\n", encoding="utf-8")


def pytrec_means(
    tmp_path: Path, measures: dict[str, str], *, binary: bool = False, top: int | None = None
) -> dict[str, float]:
    """pytrec_eval's mean of each measure; ``top``: each query's run cut to its first
    ``top`` documents in trec_eval's order (score, then docid, descending) first —
    recip_rank on the top k."""
    qrels: dict[str, dict[str, int]] = {}
    lines = (tmp_path / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()[1:]
    for line in lines:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = min(int(grade), 1) if binary else int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (tmp_path / "run.trec").read_text(encoding="utf-8").splitlines():
        qid, _, doc, _, score, _ = line.split()
        run.setdefault(qid, {})[doc] = float(score)
    if top is not None:
        for qid, docs in run.items():
            best = sorted(((score, doc) for doc, score in docs.items()), reverse=True)[:top]
            run[qid] = {doc: score for score, doc in best}
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures.values()))
    per_query = evaluator.evaluate(run)
    names = {
        "success.10": "success_10",
        "recall.10": "recall_10",
        "ndcg_cut.10": "ndcg_cut_10",
        "recip_rank": "recip_rank",
        "P.10": "P_10",
    }
    return {
        key: math.fsum(q[names[m]] for q in per_query.values()) / len(per_query)
        for key, m in measures.items()
    } | {"n": float(len(per_query))}


def score(tmp_path: Path, *extra: str) -> dict[str, dict[str, float]]:
    done = run_cli(
        [
            "score",
            "--run",
            "run.trec",
            "--qrels",
            "qrels/test.tsv",
            "--k",
            str(K),
            "--json",
            "results.json",
            *extra,
        ],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    overall: dict[str, dict[str, float]] = json.loads(
        (tmp_path / "results.json").read_text(encoding="utf-8")
    )["aggregates"]["overall"]
    return overall


def test_score_of_beir_qrels_and_shuffled_trec_run_equals_pytrec_eval(tmp_path: Path) -> None:
    generate(tmp_path)
    ours = score(tmp_path, "--metrics", "hit,recall,ndcg,mrr,precision")
    theirs = pytrec_means(
        tmp_path,
        {HIT: "success.10", RECALL: "recall.10", NDCG: "ndcg_cut.10", PRECISION: "P.10"},
    )
    theirs[MRR] = pytrec_means(tmp_path, {MRR: "recip_rank"}, top=K)[MRR]
    for key in (HIT, RECALL, NDCG, MRR, PRECISION):
        assert ours[key]["mean"] == pytest.approx(theirs[key], abs=1e-4), key
        assert ours[key]["n"] == theirs["n"] == 300


def test_mrr_and_precision_are_scored_only_on_request(tmp_path: Path) -> None:
    generate(tmp_path, queries=5)
    assert set(score(tmp_path)) == {HIT, RECALL, NDCG}


def test_graded_qrels_count_every_grade_above_zero_as_relevant_with_binary_gains(
    tmp_path: Path,
) -> None:
    generate(tmp_path, graded=True)
    ours = score(tmp_path)
    graded = pytrec_means(tmp_path, {HIT: "success.10", RECALL: "recall.10"})
    binary = pytrec_means(tmp_path, {NDCG: "ndcg_cut.10"}, binary=True)
    assert ours[HIT]["mean"] == pytest.approx(graded[HIT], abs=1e-4)
    assert ours[RECALL]["mean"] == pytest.approx(graded[RECALL], abs=1e-4)
    assert ours[NDCG]["mean"] == pytest.approx(binary[NDCG], abs=1e-4)


def test_graded_qrels_are_told_that_ndcg_uses_binary_gains(tmp_path: Path) -> None:
    generate(tmp_path, queries=3, graded=True)
    done = run_cli(["score", "--run", "run.trec", "--qrels", "qrels/test.tsv"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert "nDCG uses binary gains (trec_eval's ndcg_cut uses the grades as gains)" in done.err


def test_run_queries_without_judgments_are_counted_and_left_out(tmp_path: Path) -> None:
    generate(tmp_path, queries=4)
    done = run_cli(["score", "--run", "run.trec", "--qrels", "qrels/test.tsv"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert "recall-gate: 5 queries of run.trec have no judgment in qrels/test.tsv: left out" in (
        done.err
    )
    assert " · n = 4" in done.out


def test_unjudged_queries_are_noted_on_stderr_and_counted_in_the_results_not_the_report(
    tmp_path: Path,
) -> None:
    generate(tmp_path, queries=4)
    done = run_cli(
        [
            "score",
            "--run",
            "run.trec",
            "--qrels",
            "qrels/test.tsv",
            "--json",
            "results.json",
            "--markdown",
            "report.md",
        ],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    note = "5 queries of run.trec have no judgment in qrels/test.tsv: left out"
    assert note in done.err
    report = done.out + (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "judgment" not in report
    assert "unjudged" not in report
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["unjudged_queries"] == 5
    assert results["aggregates"]["overall"][HIT]["n"] == 4


def test_a_run_whose_queries_are_all_judged_writes_no_unjudged_count(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\n", encoding="utf-8")
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 1.0 s\n", encoding="utf-8")
    done = run_cli(
        ["score", "--run", "run.trec", "--qrels", "qrels.txt", "--json", "r.json"], cwd=tmp_path
    )
    assert done.code == 0, done.err
    assert "unjudged_queries" not in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def test_judged_query_missing_from_the_run_scores_as_an_empty_ranking(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 1.0 s\n", encoding="utf-8")
    done = run_cli(
        ["score", "--run", "run.trec", "--qrels", "qrels.txt", "--json", "r.json"], cwd=tmp_path
    )
    assert done.code == 0, done.err
    assert (
        "1 query judged in qrels.txt has no line in run.trec: scored as an empty ranking (q2)"
        in (done.err)
    )
    overall = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["aggregates"]["overall"]
    assert overall[HIT] == {"mean": 0.5, "n": 2}


def test_query_judged_without_a_relevant_document_is_not_scored(tmp_path: Path) -> None:
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 0\n", encoding="utf-8")
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 1.0 s\nq2 Q0 b 1 1.0 s\n", encoding="utf-8")
    done = run_cli(
        ["score", "--run", "run.trec", "--qrels", "qrels.txt", "--json", "r.json"], cwd=tmp_path
    )
    assert done.code == 0, done.err
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert results["aggregates"]["overall"][HIT] == {"mean": 1.0, "n": 1}
    assert [(c["case_id"], c["case_type"], c["metrics"]) for c in results["cases"]][1] == (
        "q2",
        "no_match",
        {},
    )


@pytest.mark.parametrize(
    ("run", "qrels", "says"),
    [
        ("q1 Q0 a 1 1.0\n", "q1 0 a 1\n", "run.trec:1: a TREC run line has 6 columns"),
        ("q1 Q0 a 1 x s\n", "q1 0 a 1\n", "run.trec:1: the score 'x' is not a finite number"),
        ("q1 Q0 a 1 1 s\nq1 Q0 a 2 0 s\n", "q1 0 a 1\n", "run.trec:2: document 'a' appears twice"),
        ("q1 Q0 a 1 1 s\n", "q1 0 a high\n", "qrels.txt:1: the relevance grade 'high' is not"),
    ],
)
def test_bad_trec_input_exits_2_naming_file_line_and_fix(
    tmp_path: Path, run: str, qrels: str, says: str
) -> None:
    (tmp_path / "run.trec").write_text(run, encoding="utf-8")
    (tmp_path / "qrels.txt").write_text(qrels, encoding="utf-8")
    done = run_cli(["score", "--run", "run.trec", "--qrels", "qrels.txt"], cwd=tmp_path)
    assert done.code == 2
    assert says in done.err
    assert "fix:" in done.err
    assert "Traceback" not in done.err


def test_beir_tsv_without_header_exits_2(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 1 s\n", encoding="utf-8")
    (tmp_path / "test.tsv").write_text("q1\ta\t1\n", encoding="utf-8")
    done = run_cli(["score", "--run", "run.trec", "--qrels", "test.tsv"], cwd=tmp_path)
    assert done.code == 2
    assert "test.tsv:1: a BEIR qrels file starts with the header" in done.err


def test_score_needs_run_and_qrels_together(tmp_path: Path) -> None:
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 1 s\n", encoding="utf-8")
    done = run_cli(["score", "--run", "run.trec"], cwd=tmp_path)
    assert done.code == 2
    assert "score --run needs --qrels" in done.err


def test_artifacts_jsonl_scored_against_qrels(tmp_path: Path) -> None:
    # A capture is a run too: its own label fields give way to the qrels.
    (tmp_path / "qrels.txt").write_text("q1 0 a 1\nq2 0 b 1\n", encoding="utf-8")
    lines = [
        {
            "case_id": "q1",
            "retrieved": ["a"],
            "language": "en",
            "case_type": "golden",
            "must_cite_one_of": ["zzz"],
        },
        {"case_id": "q2", "retrieved": ["c", "b"]},
    ]
    (tmp_path / "capture.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    done = run_cli(
        ["score", "--run", "capture.jsonl", "--qrels", "qrels.txt", "--json", "r.json"],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    overall = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["aggregates"]["overall"]
    assert overall[HIT] == {"mean": 1.0, "n": 2}


def test_a_yaml_cases_file_given_as_qrels_scores_as_those_cases(tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(
        "cases:\n"
        "  - {id: q1, language: en, case_type: golden, query: first, must_cite_one_of: [a]}\n"
        "  - {id: q2, language: en, case_type: golden, query: second, must_cite_one_of: [b]}\n",
        encoding="utf-8",
    )
    (tmp_path / "run.trec").write_text("q1 Q0 a 1 2 s\nq2 Q0 c 1 2 s\n", encoding="utf-8")
    done = run_cli(
        ["score", "--run", "run.trec", "--qrels", "cases.yaml", "--json", "r.json"],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    overall = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["aggregates"]["overall"]
    assert overall[HIT] == {"mean": 0.5, "n": 2}
