"""TREC runs, TREC qrels and BEIR qrels, read as trec_eval reads them (synthetic data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.trec import (
    detect_qrels_format,
    detect_run_format,
    format_qrels,
    format_trec_run,
    read_qrels,
    read_trec_run,
)
from recall_gate.errors import InputError


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_run_ranks_by_score_descending_then_docid_descending(tmp_path: Path) -> None:
    # trec_eval sorts by score, then breaks ties by docno compared in reverse (strcmp(b, a)).
    run = write(
        tmp_path,
        "run.trec",
        "q1 Q0 a 1 2.0 sys\nq1 Q0 c 2 2.0 sys\nq1 Q0 b 3 2.0 sys\nq1 Q0 z 4 1.5 sys\n"
        "q1 Q0 top 5 9 sys\n",
    )
    assert read_trec_run(run).ranked_ids("q1") == ["top", "c", "b", "a", "z"]


def test_run_rank_column_and_line_order_are_ignored(tmp_path: Path) -> None:
    run = write(
        tmp_path, "run.trec", "q1 Q0 low 1 0.1 sys\nq2 Q0 x 1 1 sys\nq1 Q0 high 99 0.9 sys\n"
    )
    read = read_trec_run(run)
    assert read.ranked_ids("q1") == ["high", "low"]
    assert list(read.rankings) == ["q1", "q2"]
    assert read.tag == "sys"


def test_run_separated_by_tabs_reads_as_by_spaces(tmp_path: Path) -> None:
    run = write(tmp_path, "run.trec", "q1\tQ0\ta\t1\t1.0\tsys\n")
    assert read_trec_run(run).ranked_ids("q1") == ["a"]


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            "q1 Q0 a 1 1.0",
            "a TREC run line has 6 columns (qid Q0 docid rank score tag), this one has 5",
        ),
        ("q1 Q0 a 1 high sys", "the score 'high' is not a finite number"),
        ("q1 Q0 a 1 nan sys", "the score 'nan' is not a finite number"),
    ],
)
def test_bad_run_line_names_file_line_and_fix(tmp_path: Path, line: str, says: str) -> None:
    run = write(tmp_path, "run.trec", f"q1 Q0 ok 1 2.0 sys\n\n{line}\n")
    with pytest.raises(InputError) as caught:
        read_trec_run(run)
    assert caught.value.message == f"{run}:3: {says}"
    assert caught.value.fix


def test_run_with_a_document_twice_for_one_query_is_refused(tmp_path: Path) -> None:
    run = write(tmp_path, "run.trec", "q1 Q0 a 1 2.0 sys\nq2 Q0 a 1 2.0 sys\nq1 Q0 a 2 1.0 sys\n")
    with pytest.raises(InputError) as caught:
        read_trec_run(run)
    assert caught.value.message == (
        f"{run}:3: document 'a' appears twice for query 'q1' (first on line 1)"
    )


def test_trec_qrels_grade_above_zero_is_relevant(tmp_path: Path) -> None:
    qrels = write(tmp_path, "qrels.txt", "q1 0 a 1\nq1 0 b 0\nq1 0 c 2\nq2 0 d -1\n")
    judged = read_qrels(qrels, "trec")
    assert judged.relevant("q1") == ("a", "c")
    assert judged.relevant("q2") == ()
    assert list(judged.grades) == ["q1", "q2"]
    assert judged.graded


def test_beir_qrels_header_is_read_and_skipped(tmp_path: Path) -> None:
    qrels = write(tmp_path, "test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n")
    judged = read_qrels(qrels, "beir")
    assert judged.relevant("q1") == ("d1",)
    assert not judged.graded


def test_beir_qrels_without_header_is_refused_with_the_header_to_add(tmp_path: Path) -> None:
    qrels = write(tmp_path, "test.tsv", "q1\td1\t1\n")
    with pytest.raises(InputError) as caught:
        read_qrels(qrels, "beir")
    assert caught.value.message.startswith(f"{qrels}:1: a BEIR qrels file starts with the header")
    assert "add the header line `query-id<TAB>corpus-id<TAB>score`" in caught.value.fix


@pytest.mark.parametrize(
    ("fmt", "text", "says"),
    [
        ("trec", "q1 0 a 1\nq1 0 b yes\n", "the relevance grade 'yes' is not an integer"),
        ("trec", "q1 0 a 1\nq1 0 b 0.5\n", "the relevance grade '0.5' is not an integer"),
        ("trec", "q1 0 a 1\nq1 b 1\n", "a TREC qrels line has 4 columns"),
        ("beir", "query-id\tcorpus-id\tscore\nq1\ta\thigh\n", "the relevance grade 'high'"),
        ("beir", "query-id\tcorpus-id\tscore\nq1\ta\n", "a BEIR qrels line has 3 tab-separated"),
    ],
)
def test_bad_qrels_line_names_file_and_line(tmp_path: Path, fmt: str, text: str, says: str) -> None:
    qrels = write(tmp_path, "qrels", text)
    with pytest.raises(InputError) as caught:
        read_qrels(qrels, fmt)  # type: ignore[arg-type]
    assert caught.value.message.startswith(f"{qrels}:2: {says}")
    assert caught.value.fix


def test_qrels_judging_a_document_twice_is_refused(tmp_path: Path) -> None:
    qrels = write(tmp_path, "qrels.txt", "q1 0 a 1\nq1 0 a 0\n")
    with pytest.raises(InputError) as caught:
        read_qrels(qrels, "trec")
    assert caught.value.message == (
        f"{qrels}:2: document 'a' is judged twice for query 'q1' (first on line 1)"
    )


def test_formats_are_detected_from_the_first_line(tmp_path: Path) -> None:
    assert (
        detect_run_format(write(tmp_path, "a", '{"case_id": "q1", "retrieved": []}\n')) == "jsonl"
    )
    assert detect_run_format(write(tmp_path, "b", "q1 Q0 a 1 1 s\n")) == "trec"
    assert detect_qrels_format(write(tmp_path, "c", '{"id": "q1"}\n')) == "jsonl"
    assert detect_qrels_format(write(tmp_path, "d", "query-id\tcorpus-id\tscore\n")) == "beir"
    assert detect_qrels_format(write(tmp_path, "e.tsv", "q1\td\t1\n")) == "beir"
    assert detect_qrels_format(write(tmp_path, "f", "q1 0 d 1\n")) == "trec"


def test_a_cases_file_given_as_qrels_is_read_as_cases_yaml_or_jsonl(tmp_path: Path) -> None:
    yaml_cases = "cases:\n  - id: q1\n    query: a question\n    must_cite_one_of: [d]\n"
    assert detect_qrels_format(write(tmp_path, "cases.yaml", yaml_cases)) == "jsonl"
    assert detect_qrels_format(write(tmp_path, "cases.yml", yaml_cases)) == "jsonl"
    assert detect_qrels_format(write(tmp_path, "cases", yaml_cases)) == "jsonl"
    (tmp_path / "folder").mkdir()
    assert detect_qrels_format(tmp_path / "folder") == "jsonl"


def test_written_run_reads_back_in_the_same_order(tmp_path: Path) -> None:
    # The score column is derived from the rank: trec_eval's re-sort keeps the order,
    # and a later duplicate is dropped as the metrics drop it.
    rankings = [("q1", ["b", "a", "c", "a"]), ("q2", ["x"])]
    run = write(tmp_path, "run.trec", "".join(format_trec_run(rankings, tag="t")))
    read = read_trec_run(run)
    assert read.ranked_ids("q1") == ["b", "a", "c"]
    assert read.ranked_ids("q2") == ["x"]


@pytest.mark.parametrize("fmt", ["trec", "beir"])
def test_written_qrels_read_back(tmp_path: Path, fmt: str) -> None:
    text = "".join(format_qrels([("q1", ["a", "b"]), ("q2", ["c"])], fmt=fmt))  # type: ignore[arg-type]
    judged = read_qrels(write(tmp_path, "qrels", text), fmt)  # type: ignore[arg-type]
    assert judged.relevant("q1") == ("a", "b")
    assert judged.relevant("q2") == ("c",)
