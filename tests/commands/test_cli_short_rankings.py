"""A case whose ranking holds fewer than k cards did not retrieve its gold card
at all: a flip says "not retrieved (3 returned)", never "out of top 5"."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli


def write_capture(path: Path, retrieved: list[list[str]]) -> None:
    lines = [
        {
            "case_id": f"c{i}",
            "retrieved": ids,
            "language": "en",
            "case_type": "golden",
            "must_cite_one_of": [f"gold-{i}"],
        }
        for i, ids in enumerate(retrieved)
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def test_a_lost_hit_on_a_short_ranking_says_not_retrieved_with_the_count(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    full = [[f"gold-{i}", "a", "b", "c", "d"] for i in range(3)]
    write_capture(tmp_path / "good.jsonl", full)
    made = run_cli(
        ["score", "--artifacts", "good.jsonl", "--k", "5", "--json", "good.json"], cwd=tmp_path
    )
    assert made.code == 0, made.err
    assert run_cli(["baseline", "update", "--results", "good.json"], cwd=tmp_path).code == 0
    write_capture(tmp_path / "short.jsonl", [["a", "b", "c"], *full[1:]])
    run = run_cli(["score", "--artifacts", "short.jsonl", "--k", "5"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert "1 → not retrieved (3 returned)" in run.out
    assert "out of top 5" not in run.out
