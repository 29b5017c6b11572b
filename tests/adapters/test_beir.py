"""BEIR datasets as they are: corpus.jsonl as a KB, qrels/<split>.tsv (+ queries.jsonl)
as cases (synthetic data)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli
from recall_gate.adapters.dataset import load_cards, load_cases
from recall_gate.errors import InputError


def beir(root: Path) -> Path:
    """A tiny BEIR dataset: 3 documents, 2 queries, a test split."""
    docs = [
        {
            "_id": "d1",
            "title": "Refills",
            "text": "Refills take two business days.",
            "metadata": {},
        },
        {"_id": "d2", "title": "", "text": "Parking is on level two."},
        {"_id": "d3", "title": "Billing", "text": "Invoices are sent monthly."},
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = [
        {"_id": "q1", "text": "how long is a refill"},
        {"_id": "q2", "text": "where to park"},
    ]
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n")
    return root


def test_beir_corpus_is_a_kb_with_the_default_language(tmp_path: Path) -> None:
    cards = [card for _, card in load_cards(beir(tmp_path) / "corpus.jsonl", default_language="en")]
    assert [(c.id, c.title, c.language) for c in cards] == [
        ("d1", "Refills", "en"),
        ("d2", "d2", "en"),  # no title: the id
        ("d3", "Billing", "en"),
    ]
    assert cards[0].body == "Refills take two business days."


def test_beir_split_is_a_cases_file_with_its_queries(tmp_path: Path) -> None:
    cases = [case for _, case in load_cases([beir(tmp_path) / "qrels" / "test.tsv"])]
    assert [(c.id, c.query, c.must_cite_one_of, c.case_type, c.language) for c in cases] == [
        ("q1", "how long is a refill", ("d1",), "golden", "und"),
        ("q2", "where to park", ("d2",), "golden", "und"),
    ]


def test_beir_split_without_its_queries_file_is_refused(tmp_path: Path) -> None:
    root = beir(tmp_path)
    (root / "queries.jsonl").unlink()
    with pytest.raises(InputError) as caught:
        load_cases([root / "qrels" / "test.tsv"])
    assert "queries.jsonl beside the qrels folder" in caught.value.message


def test_check_reads_a_beir_dataset_as_it_is(tmp_path: Path) -> None:
    beir(tmp_path)
    done = run_cli(["check", "--kb", "corpus.jsonl", "--cases", "qrels/test.tsv"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert "3 cards, 2 cases (2 gold-labelled), every gold and relevant id resolves" in done.out


def test_score_checks_qrels_ids_against_a_beir_corpus(tmp_path: Path) -> None:
    root = beir(tmp_path)
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td9\t1\n")
    (root / "run.trec").write_text("q1 Q0 d1 1 1.0 s\n")
    done = run_cli(
        ["score", "--run", "run.trec", "--qrels", "qrels/test.tsv", "--kb", "corpus.jsonl"],
        cwd=tmp_path,
    )
    assert done.code == 1
    assert "must_cite_one_of id 'd9' resolves to no card" in done.err
