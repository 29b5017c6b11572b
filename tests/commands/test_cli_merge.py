"""`capture --shard I/N` and `recall-gate merge`: shards merged score exactly as one
capture; a shard alone, or a merge that lacks one, never scores as complete;
shards of other case sets or retrievers, and overlaps, exit 2. Synthetic cases."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from cli_runner import run_cli, without_latency
from recall_gate.core.shards import Shard, parse_shard, shard_of

N = 45

APP = """
def search(query, k):
    i = int(query.rsplit(" ", 1)[1])
    if i % 5 == 0:  # a miss: the gold card is not among them
        return [f"card-{(i + j) % 7}" for j in range(1, k + 1)]
    cards = [f"card-{(i + j) % 7}" for j in range(k)]
    return cards if i % 3 else [cards[2], cards[0], cards[1]]
"""


def write_cases(path: Path, order: list[int]) -> None:
    lines = ["cases:"]
    for i in order:
        lines.append(
            f"  - {{id: c{i:03d}, language: {'en' if i % 2 else 'de'}, case_type: golden, "
            f"query: 'synthetic question {i}', must_cite_one_of: [card-{i % 7}]}}"
        )
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def app(tmp_path: Path) -> Path:
    write_cases(tmp_path / "cases.yaml", list(range(N)))
    (tmp_path / "recall-gate.yaml").write_text("k: 3\ncases: cases.yaml\n", encoding="utf-8")
    (tmp_path / "shard_rag.py").write_text(APP, encoding="utf-8")
    sys.modules.pop("shard_rag", None)
    return tmp_path


def shard(app: Path, spec: str, out: str, *extra: str) -> None:
    argv = ["capture", "--retriever", "shard_rag:search", "--out", out, "--shard", spec]
    result = run_cli([*argv, *extra], cwd=app)
    assert result.code == 0, result.err
    assert result.out == ""  # a shard is not scored
    assert "is not scored on its own" in result.err


def lines_without_latency(path: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        line.pop("latency_ms")
    return lines


def case_ids(path: Path) -> list[str]:
    return [json.loads(line)["case_id"] for line in path.read_text().splitlines()]


def test_three_shards_merged_score_exactly_as_one_capture(app: Path) -> None:
    for i in (1, 2, 3):
        shard(app, f"{i}/3", f"shard-{i}.jsonl")
    sizes = [len(case_ids(app / f"shard-{i}.jsonl")) for i in (1, 2, 3)]
    assert sum(sizes) == N
    assert all(sizes)
    merged = run_cli(
        ["merge", "shard-3.jsonl", "shard-1.jsonl", "shard-2.jsonl", "--out", "all.jsonl"], cwd=app
    )
    assert merged.code == 0, merged.err
    assert merged.err == "recall-gate: merged 3 file(s), all 3 shards, 45 cases → all.jsonl\n"
    whole = run_cli(["capture", "--retriever", "shard_rag:search", "--out", "one.jsonl"], cwd=app)
    assert whole.code == 0
    from_shards = run_cli(["score", "--artifacts", "all.jsonl", "--json", "a.json"], cwd=app)
    from_one = run_cli(["score", "--artifacts", "one.jsonl", "--json", "b.json"], cwd=app)
    assert from_shards.code == from_one.code == 0, from_shards.err
    a, b = (json.loads((app / name).read_text()) for name in ("a.json", "b.json"))
    a.pop("latency"), b.pop("latency")  # wall times differ from run to run
    assert a == b  # every case, in the same order, with the same provenance
    assert a["aggregates"]["overall"]["retrieval_hit_at_k"]["mean"] < 1  # some misses listed
    assert lines_without_latency(app / "all.jsonl") == lines_without_latency(app / "one.jsonl")
    # the same report, but for the wall times of the two captures
    assert (
        without_latency(from_shards.out).split("\n\n", 1)[1]
        == without_latency(from_one.out).split("\n\n", 1)[1]
    )


def test_a_shard_alone_is_refused_by_score(app: Path) -> None:
    shard(app, "2/3", "shard-2.jsonl")
    result = run_cli(["score", "--artifacts", "shard-2.jsonl"], cwd=app)
    assert result.code == 2
    assert result.out == ""
    assert "shard-2.jsonl:1: holds only shard 2 of 3 of a case set of 45 cases" in result.err
    assert "fix: capture every shard and merge them first" in result.err


def test_a_merge_missing_a_shard_does_not_score_as_complete(app: Path) -> None:
    for i in (1, 2, 3):
        shard(app, f"{i}/3", f"shard-{i}.jsonl")
    partial = run_cli(["merge", "shard-1.jsonl", "shard-2.jsonl", "--out", "p.jsonl"], cwd=app)
    assert partial.code == 0
    assert "recall-gate: warning: merged shards 1, 2 of 3" in partial.err
    assert "shard(s) 3 missing: `score` refuses this file" in partial.err
    for argv in (["score", "--artifacts", "p.jsonl"], ["score", "--artifacts", "p.jsonl",
                                                       "--cases", "cases.yaml"]):  # fmt: skip
        scored = run_cli(argv, cwd=app)
        assert scored.code == 2, scored.out
        assert scored.out == ""
    completed = run_cli(["merge", "p.jsonl", "shard-3.jsonl", "--out", "all.jsonl"], cwd=app)
    assert completed.code == 0, completed.err
    assert run_cli(["score", "--artifacts", "all.jsonl"], cwd=app).code == 0


def test_shards_are_stable_under_case_order(app: Path) -> None:
    shard(app, "1/3", "before.jsonl")
    order = list(range(N))
    random.Random(3).shuffle(order)
    write_cases(app / "cases.yaml", order)
    shard(app, "1/3", "after.jsonl")
    assert sorted(case_ids(app / "before.jsonl")) == sorted(case_ids(app / "after.jsonl"))


def test_shard_assignment_depends_on_the_case_id_alone() -> None:
    ids = [f"case-{i}" for i in range(300)]
    counts = [sum(Shard(i, 3).holds(c) for c in ids) for i in (1, 2, 3)]
    assert sum(counts) == 300
    assert min(counts) > 60  # a hash spreads them; none is empty
    assert [shard_of(c, 3) for c in ids] == [shard_of(c, 3) for c in ids]
    assert parse_shard(" 2 / 3 ") == Shard(2, 3)


def test_merging_shards_of_different_case_sets_exits_2(app: Path) -> None:
    shard(app, "1/3", "shard-1.jsonl")
    write_cases(app / "cases.yaml", list(range(N - 1)))
    shard(app, "2/3", "shard-2.jsonl")
    result = run_cli(["merge", "shard-1.jsonl", "shard-2.jsonl", "--out", "m.jsonl"], cwd=app)
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: shard-2.jsonl is not a shard of the same case set as shard-1.jsonl "
        "(shard-1.jsonl: shard 1 of 3 of 45 cases, "
    )
    assert result.err.count("recall-gate: error:") == 1
    assert not (app / "m.jsonl").exists()


def test_merging_shards_of_different_retrievers_exits_2(app: Path) -> None:
    shard(app, "1/2", "shard-1.jsonl", "--label", "v1")
    shard(app, "2/2", "shard-2.jsonl", "--label", "v2")
    result = run_cli(["merge", "shard-1.jsonl", "shard-2.jsonl", "--out", "m.jsonl"], cwd=app)
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: shard-2.jsonl was captured by another retriever than shard-1.jsonl "
        "(shard-1.jsonl: label=v1; shard-2.jsonl: label=v2)"
    )
    assert not (app / "m.jsonl").exists()


def test_a_shard_given_twice_exits_2(app: Path) -> None:
    shard(app, "1/2", "shard-1.jsonl")
    result = run_cli(["merge", "shard-1.jsonl", "shard-1.jsonl", "--out", "m.jsonl"], cwd=app)
    assert result.code == 2
    assert "shard 1 of 2 is in both shard-1.jsonl and shard-1.jsonl" in result.err
    assert not (app / "m.jsonl").exists()


def test_a_whole_capture_is_not_merged_as_a_shard(app: Path) -> None:
    run_cli(["capture", "--retriever", "shard_rag:search", "--out", "one.jsonl"], cwd=app)
    shard(app, "1/2", "shard-1.jsonl")
    result = run_cli(["merge", "shard-1.jsonl", "one.jsonl", "--out", "m.jsonl"], cwd=app)
    assert result.code == 2
    assert "one.jsonl: holds every case of its capture (no shard marker" in result.err


def test_a_shard_with_report_outputs_exits_2(app: Path) -> None:
    argv = ["capture", "--retriever", "shard_rag:search", "--out", "s.jsonl", "--shard", "1/2"]
    result = run_cli([*argv, "--json", "r.json"], cwd=app)
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: --shard 1/2 with --json: a shard holds part of the cases and is "
        "not scored"
    )


def test_without_cases_the_merged_lines_come_shard_by_shard(app: Path) -> None:
    for i in (1, 2):
        shard(app, f"{i}/2", f"shard-{i}.jsonl")
    (app / "recall-gate.yaml").write_text("k: 3\n", encoding="utf-8")
    merged = run_cli(["merge", "shard-2.jsonl", "shard-1.jsonl", "--out", "m.jsonl"], cwd=app)
    assert merged.code == 0, merged.err
    expected = case_ids(app / "shard-1.jsonl") + case_ids(app / "shard-2.jsonl")
    assert case_ids(app / "m.jsonl") == expected


def test_merging_with_the_cases_of_another_set_exits_2(app: Path) -> None:
    for i in (1, 2):
        shard(app, f"{i}/2", f"shard-{i}.jsonl")
    write_cases(app / "other.yaml", list(range(N + 1)))
    argv = ["merge", "shard-1.jsonl", "shard-2.jsonl", "--cases", "other.yaml", "--out", "m.jsonl"]
    result = run_cli(argv, cwd=app)
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: the shards were captured from another case set than other.yaml "
        "(45 cases, "
    )
    assert not (app / "m.jsonl").exists()


def test_merge_with_the_cases_refuses_a_line_whose_case_is_not_in_them(app: Path) -> None:
    for i in (1, 2):
        shard(app, f"{i}/2", f"shard-{i}.jsonl")
    # A line edited by hand: its case is in no cases file (the set's fingerprint,
    # on the first line, is unchanged).
    path = app / "shard-2.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[2])
    edited["case_id"] = "c999"
    lines[2] = json.dumps(edited)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    argv = ["merge", "shard-1.jsonl", "shard-2.jsonl", "--cases", "cases.yaml", "--out", "m.jsonl"]
    result = run_cli(argv, cwd=app)
    assert result.code == 2, result.err
    assert result.err.startswith(
        "recall-gate: error: shard-2.jsonl:3: case 'c999' is not in the case set (cases.yaml)"
    )
    assert not (app / "m.jsonl").exists()
    # The config's cases are the case set too.
    result = run_cli(["merge", "shard-1.jsonl", "shard-2.jsonl", "--out", "m.jsonl"], cwd=app)
    assert result.code == 2
    assert "shard-2.jsonl:3: case 'c999' is not in the case set (cases.yaml)" in result.err
