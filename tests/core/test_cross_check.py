"""Cross-check against two independent implementations: ranx and pytrec_eval.

Thousands of seeded random cases, RAG-like: 0–20 retrieved ids drawn with
replacement (so duplicates are common), 0–5 gold ids (empty gold is common too).
Both libraries key a run by doc id, so the ranking is de-duplicated by first
occurrence before it is handed to them; that is the decision record's rule, and the
properties/rule tests check it separately. Empty-gold cases are skipped on both
sides: we emit no keys, and they never enter the qrels.

ranx runs in a subprocess with ``NUMBA_DISABLE_JIT=1``: its kernels are the same
Python source, interpreted instead of compiled. A cold numba compile of ranx
costs about a minute in a fresh virtualenv (CI), far over this test's budget.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import sys
from functools import cache
from typing import NamedTuple

import pytest
import pytrec_eval

from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import score_case
from recall_gate.core.metrics import HIT, NDCG, RECALL, dedupe_first, score_ranking
from recall_gate.core.records import CaseLabel

N_CASES = 3000
SEED = 20260529
KS = (1, 3, 5, 10)
TOL = 1e-9
POOL = [f"card-{i:02d}" for i in range(40)]

# (our key, ranx metric, trec_eval measure)
MEASURES = (
    (HIT, "hit_rate", "success"),
    (RECALL, "recall", "recall"),
    (NDCG, "ndcg", "ndcg_cut"),
)

_RANX = """
import json, sys
from ranx import Qrels, Run, evaluate
data = json.load(sys.stdin)
run = Run(data["run"])
evaluate(Qrels(data["qrels"]), run, data["metrics"], make_comparable=True)
json.dump({m: {q: float(v) for q, v in run.scores[m].items()} for m in data["metrics"]}, sys.stdout)
"""


class Case(NamedTuple):
    qid: str
    ranking: list[str]
    gold: frozenset[str]


@cache
def cases() -> tuple[Case, ...]:
    rng = random.Random(SEED)
    out = []
    for i in range(N_CASES):
        ranking = [rng.choice(POOL) for _ in range(rng.randint(0, 20))]
        if ranking and rng.random() < 0.3:  # a stray duplicate of an early id, later on
            ranking.insert(rng.randint(1, len(ranking)), ranking[0])
        n_gold = 0 if rng.random() < 0.15 else rng.randint(1, 5)
        out.append(Case(f"q{i:05d}", ranking, frozenset(rng.sample(POOL, n_gold))))
    return tuple(out)


def scored() -> list[Case]:
    return [case for case in cases() if case.gold]


def qrels() -> dict[str, dict[str, int]]:
    return {case.qid: dict.fromkeys(sorted(case.gold), 1) for case in scored()}


def run_with_scores(*, keep_empty: bool) -> dict[str, dict[str, float]]:
    """De-duplicated rankings as strictly decreasing scores (no ties to break)."""
    out = {}
    for case in scored():
        ranked = dedupe_first(case.ranking)
        if ranked or keep_empty:
            out[case.qid] = {doc: float(len(ranked) - i) for i, doc in enumerate(ranked)}
    return out


@cache
def pytrec_eval_results() -> dict[str, dict[str, float]]:
    ks = ",".join(map(str, KS))
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels(), {f"{measure}.{ks}" for _, _, measure in MEASURES}
    )
    results: dict[str, dict[str, float]] = evaluator.evaluate(run_with_scores(keep_empty=True))
    return results


@cache
def ranx_results() -> dict[str, dict[str, float]]:
    payload = {
        "qrels": qrels(),
        "run": run_with_scores(keep_empty=False),  # ranx fills missing queries with no results
        "metrics": [f"{metric}@{k}" for _, metric, _ in MEASURES for k in KS],
    }
    done = subprocess.run(
        [sys.executable, "-c", _RANX],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**os.environ, "NUMBA_DISABLE_JIT": "1"},
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, dict[str, float]] = json.loads(done.stdout)
    return results


def test_the_random_cases_exercise_duplicates_and_empty_gold() -> None:
    all_cases = cases()
    assert len(all_cases) == N_CASES
    assert sum(1 for c in all_cases if not c.gold) > N_CASES // 10
    assert sum(1 for c in all_cases if len(set(c.ranking)) < len(c.ranking)) > N_CASES // 2
    assert sum(1 for c in all_cases if not c.ranking) > 0
    assert sum(1 for c in all_cases if len(c.gold) > 1) > N_CASES // 2


def test_empty_gold_is_skipped_on_both_sides() -> None:
    empty = [case for case in cases() if not case.gold]
    assert all(score_ranking(c.ranking, gold=c.gold, k=5) == {} for c in empty)
    assert set(pytrec_eval_results()) == {case.qid for case in scored()}


@pytest.mark.parametrize("k", KS)
@pytest.mark.parametrize(("key", "measure"), [(key, measure) for key, _, measure in MEASURES])
def test_matches_pytrec_eval(key: str, measure: str, k: int) -> None:
    theirs = pytrec_eval_results()
    mismatches = [
        (case.qid, ours, theirs[case.qid][f"{measure}_{k}"])
        for case in scored()
        if not math.isclose(
            ours := score_ranking(case.ranking, gold=case.gold, k=k)[key],
            theirs[case.qid][f"{measure}_{k}"],
            abs_tol=TOL,
        )
    ]
    assert mismatches == []


def test_matches_ranx() -> None:
    # One test, not a parametrised family: under xdist each worker would start
    # its own ranx subprocess.
    results = ranx_results()
    expected_queries = {case.qid for case in scored()}  # empty gold skipped there too
    mismatches: dict[str, list[tuple[str, float, float]]] = {}
    for key, metric, _ in MEASURES:
        for k in KS:
            theirs = results[f"{metric}@{k}"]
            assert set(theirs) == expected_queries
            wrong = [
                (case.qid, ours, theirs[case.qid])
                for case in scored()
                if not math.isclose(
                    ours := score_ranking(case.ranking, gold=case.gold, k=k)[key],
                    theirs[case.qid],
                    abs_tol=TOL,
                )
            ]
            if wrong:
                mismatches[f"{metric}@{k}"] = wrong[:5]
    assert mismatches == {}


def test_aggregate_mean_and_n_match_pytrec_eval_over_the_scored_cases() -> None:
    k = 5
    results = [
        score_case(
            CaseLabel(id=c.qid, language="en", case_type="golden", must_cite_one_of=tuple(c.gold)),
            c.ranking,
            k=k,
        )
        for c in cases()
    ]
    overall = aggregate(results).overall
    theirs = pytrec_eval_results()
    for key, _, measure in MEASURES:
        values = [per_query[f"{measure}_{k}"] for per_query in theirs.values()]
        assert overall[key].n == len(values) == len(scored())
        assert overall[key].mean == pytest.approx(math.fsum(values) / len(values), abs=TOL)
