"""The query log (`queries:`): JSONL or CSV, validated like cases — every bad
line in one run, one message each naming the file, line and field — ids
unique, the size cap enforced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recall_gate.adapters import query_log
from recall_gate.adapters.query_log import load_query_log
from recall_gate.core.logged_query import MAX_QUERY_CHARS, UNDETERMINED
from recall_gate.errors import InputError


def write_jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_jsonl_query_log_is_read_in_file_order(tmp_path: Path) -> None:
    log = write_jsonl(
        tmp_path / "queries.jsonl",
        [
            {"id": "q2", "query": "reset my password", "language": "en", "weight": 40},
            {"id": "q1", "query": "cambiar contraseña", "language": "es-419"},
            {"id": "q3", "query": "refund", "metadata": {"source": "search box"}},
        ],
    )
    queries = load_query_log(log)
    assert [q.id for q in queries] == ["q2", "q1", "q3"]
    assert [q.weight for q in queries] == [40, 1, 1]  # weight defaults to 1
    assert [q.group for q in queries] == ["en", "es-419", UNDETERMINED]
    assert queries[2].metadata == {"source": "search box"}


def test_a_csv_query_log_keeps_other_columns_as_metadata(tmp_path: Path) -> None:
    log = tmp_path / "queries.csv"
    log.write_text(
        "id,query,language,weight,channel\n"
        'q1,"where, exactly, is parking",en,12,web\n'
        "q2,agendar consulta,pt-br,,app\n",
        encoding="utf-8",
    )
    first, second = load_query_log(log)
    assert first.query == "where, exactly, is parking"
    assert first.weight == 12
    assert first.metadata == {"channel": "web"}
    # An empty cell is a field not given; the language is stored in canonical case.
    assert second.weight == 1
    assert second.language == "pt-BR"


def test_every_bad_line_is_reported_in_one_run_one_message_each(tmp_path: Path) -> None:
    log = tmp_path / "queries.jsonl"
    log.write_text(
        '{"id": "q1", "query": "fine"}\n'
        '{"id": "q2", "query": "no weight", "weight": 0}\n'
        "{not json\n"
        '{"id": "q4", "query": "bad tag", "language": "english!"}\n'
        '{"id": "q5", "qeury": "typo"}\n',
        encoding="utf-8",
    )
    with pytest.raises(InputError) as caught:
        load_query_log(log)
    message = caught.value.message
    assert message.startswith("4 of 5 logged queries are unusable:")
    assert f"{log}:2 (query q2): field `weight`" in message
    assert f"{log}:3: invalid JSON" in message
    assert f"{log}:4 (query q4): field `language`" in message
    assert f"{log}:5 (query q5): field `query`: required field is missing" in message
    assert "(query q1)" not in message


def test_a_weight_must_be_a_positive_number(tmp_path: Path) -> None:
    for weight in (True, "ten", -1):
        log = write_jsonl(tmp_path / "q.jsonl", [{"id": "q", "query": "x", "weight": weight}])
        with pytest.raises(InputError, match="field `weight`"):
            load_query_log(log)


def test_a_repeated_id_names_both_lines(tmp_path: Path) -> None:
    log = write_jsonl(
        tmp_path / "queries.jsonl",
        [{"id": "q1", "query": "a"}, {"id": "q2", "query": "b"}, {"id": "q1", "query": "c"}],
    )
    with pytest.raises(InputError) as caught:
        load_query_log(log)
    assert caught.value.message == f"{log}:3: query id 'q1' is already used on line 1"
    assert "add their weights" in caught.value.fix


def test_a_csv_without_an_id_or_query_column_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "queries.csv"
    log.write_text("query_id,text\nq1,hello\n", encoding="utf-8")
    with pytest.raises(InputError, match="the CSV header has no id or query column"):
        load_query_log(log)


def test_a_csv_row_with_more_cells_than_columns_is_named(tmp_path: Path) -> None:
    log = tmp_path / "queries.csv"
    log.write_text("id,query\nq1,hello\nq2,where, is it\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"queries.csv:3: more cells than the header"):
        load_query_log(log)


def test_a_query_over_the_length_cap_is_refused(tmp_path: Path) -> None:
    log = write_jsonl(tmp_path / "q.jsonl", [{"id": "q", "query": "x" * (MAX_QUERY_CHARS + 1)}])
    with pytest.raises(InputError, match="field `query`: String should have at most"):
        load_query_log(log)


def test_a_log_over_the_size_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query_log, "MAX_LOGGED_QUERIES", 3)
    log = write_jsonl(tmp_path / "q.jsonl", [{"id": f"q{i}", "query": "x"} for i in range(4)])
    with pytest.raises(InputError, match="4 queries, more than the 3 a log may hold"):
        load_query_log(log)


def test_a_query_log_of_another_format_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "queries.yaml"
    log.write_text("- id: q1\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"a query log is a \.jsonl or \.csv file"):
        load_query_log(log)


def test_an_empty_query_log_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "q.jsonl"
    log.write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="empty"):
        load_query_log(log)
