"""Our hit/recall/nDCG against trec_eval's own expected output (external reference).

The fixtures in tests/data/trec_eval/ are trec_eval's test files (see the README
there): a run over three TREC topics with binary qrels, and the values
`trec_eval -q -a` printed for it. trec_eval orders a topic's documents by score
descending and breaks ties by docno descending; it ignores the rank column.

Mapping: `success_k` = hit@k, `recall_k` = recall@k, `ndcg_cut_k` = binary nDCG@k
with the ideal ranking cut at k. Values are printed with 4 decimals.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import NamedTuple

import pytest

from recall_gate.core.metrics import HIT, NDCG, RECALL, score_ranking

DATA = Path(__file__).resolve().parents[1] / "data" / "trec_eval"
SHARED = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "trec_eval"
TOL = 5e-5
MEASURE = re.compile(r"^(success|recall|ndcg_cut)_(\d+)$")
KEY_OF = {"success": HIT, "recall": RECALL, "ndcg_cut": NDCG}


class Expected(NamedTuple):
    output: str  # the expected-output file
    run: str  # the run it was computed from
    complete: bool  # `-c`: a qrels topic missing from the run scores 0
    measure: str
    topic: str
    value: float


# expected-output file → (run file, computed with -c)
OUTPUTS = {
    "out.test.aq": ("results.test", False),
    "out.test.meas_params": ("results.test", False),
    "out.test.aqc": ("results.trunc", True),
}


@cache
def gold_by_topic() -> dict[str, frozenset[str]]:
    """qrels: `topic 0 docno rel`; rel > 0 is gold."""
    gold: dict[str, set[str]] = defaultdict(set)
    for line in (DATA / "qrels.test").read_text().splitlines():
        if line.strip():
            topic, _, docno, rel = line.split()
            if int(rel) > 0:
                gold[topic].add(docno)
    return {topic: frozenset(docs) for topic, docs in gold.items()}


@cache
def rankings(run: str) -> dict[str, tuple[str, ...]]:
    """A run file → each topic's docnos by score descending, ties by docno descending.

    Fields after the sixth (the run tag) are free text, as trec_eval allows."""
    rows: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in (DATA / run).read_text().splitlines():
        if line.strip():
            topic, _, docno, _rank, score, _tag = line.split()[:6]
            rows[topic].append((float(score), docno))
    out = {}
    for topic, docs in rows.items():
        ordered = tuple(docno for _, docno in sorted(docs, reverse=True))
        assert len(set(ordered)) == len(ordered), f"duplicate docno in topic {topic}"
        out[topic] = ordered
    return out


def expected_values() -> list[Expected]:
    out = []
    for output, (run, complete) in OUTPUTS.items():
        for line in (DATA / output).read_text().splitlines():
            measure, topic, value = line.split()
            if MEASURE.match(measure):
                out.append(Expected(output, run, complete, measure, topic, float(value)))
    return out


EXPECTED = expected_values()


def ours(run: str, *, measure: str, topic: str, complete: bool) -> float:
    """Our value of a trec_eval measure for one topic, or `all` (the mean over topics)."""
    match = MEASURE.match(measure)
    assert match is not None
    key, k = KEY_OF[match.group(1)], int(match.group(2))
    gold, ranked = gold_by_topic(), rankings(run)
    if topic != "all":
        return score_ranking(ranked.get(topic, ()), gold=gold[topic], k=k)[key]
    # trec_eval averages over the topics in both qrels and run; with -c, over all
    # qrels topics (a topic missing from the run scores 0).
    topics = sorted(gold) if complete else sorted(set(gold) & set(ranked))
    return math.fsum(
        score_ranking(ranked.get(t, ()), gold=gold[t], k=k)[key] for t in topics
    ) / len(topics)


@pytest.mark.parametrize(
    "expected", EXPECTED, ids=[f"{e.output}-{e.measure}-{e.topic}" for e in EXPECTED]
)
def test_matches_trec_eval_per_topic_and_overall(expected: Expected) -> None:
    value = ours(
        expected.run, measure=expected.measure, topic=expected.topic, complete=expected.complete
    )
    assert value == pytest.approx(expected.value, abs=TOL)


def test_the_measures_the_issue_names_are_all_checked() -> None:
    checked = {(e.measure, e.topic) for e in EXPECTED if e.output == "out.test.aq"}
    required = [
        "success_1",
        "success_5",
        "success_10",
        "recall_5",
        "recall_10",
        "ndcg_cut_5",
        "ndcg_cut_10",
    ]
    for measure in required:
        for topic in ("301", "302", "303", "all"):
            assert (measure, topic) in checked
    # Sanity of the conversion: the fixtures hold the documented counts.
    assert {t: len(r) for t, r in rankings("results.test").items()} == {
        "301": 500,
        "302": 500,
        "303": 500,
    }
    assert {t: len(g) for t, g in gold_by_topic().items()} == {"301": 474, "302": 77, "303": 10}


def test_ties_are_broken_by_docno_descending() -> None:
    # The fixture has tied scores, so the comparison above depends on the tie-break.
    scores: dict[tuple[str, str], float] = {}
    for line in (DATA / "results.test").read_text().splitlines():
        topic, _, docno, _rank, score, _tag = line.split()[:6]
        scores[topic, docno] = float(score)
    ties = [
        (a, b)
        for topic, ranked in rankings("results.test").items()
        for a, b in pairwise(ranked)
        if scores[topic, a] == scores[topic, b]
    ]
    assert ties
    assert all(a > b for a, b in ties)


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/ is not beside the repository")
def test_fixture_copies_match_the_shared_originals() -> None:
    for original in sorted(SHARED.iterdir()):
        copy = DATA / original.name
        assert copy.is_file(), f"{original.name} is missing from {DATA}"
        if original.name != "README.md":  # ours adds a provenance section
            assert copy.read_bytes() == original.read_bytes(), original.name
    readme = (DATA / "README.md").read_text()
    assert readme.startswith((SHARED / "README.md").read_text())
