"""Unwinnable at depth N in `score`: a capture deeper than k tells the missed
cases whose gold is nowhere in it (a labelling or index problem) from those
ranked low. Synthetic captures, no git."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_runner import run_cli


def write(folder: Path, lines: list[dict[str, object]]) -> None:
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (folder / "capture.jsonl").write_text(text, encoding="utf-8")


def line(case_id: str, retrieved: list[str]) -> dict[str, object]:
    return {
        "case_id": case_id,
        "retrieved": retrieved,
        "must_cite_one_of": ["gold"],
        "language": "en",
        "case_type": "golden",
    }


def deep(*front: str, depth: int = 10) -> list[str]:
    return [*front, *(f"other-{i}" for i in range(depth - len(front)))]


def score(folder: Path) -> tuple[int, str, dict[str, Any]]:
    run = run_cli(
        [
            "score",
            "--artifacts",
            "capture.jsonl",
            "--k",
            "2",
            "--json",
            "results.json",
            "--markdown",
            "report.md",
            "--comparison-json",
            "comparison.json",
        ],
        cwd=folder,
    )
    assert run.code == 0, run.err
    doc = json.loads((folder / "comparison.json").read_text(encoding="utf-8"))
    return run.code, (folder / "report.md").read_text(encoding="utf-8"), doc


def test_score_reports_the_cases_unwinnable_at_the_depth_the_capture_recorded(
    tmp_path: Path,
) -> None:
    ranked_low = deep()
    ranked_low[6] = "gold"
    write(
        tmp_path,
        [
            line("hit", deep("gold")),
            line("ranked-low", ranked_low),  # gold at rank 7: a ranking problem
            line("lost-1", deep()),  # gold nowhere in 10 cards
            line("lost-2", deep(depth=12)),
            line("shallow", ["a", "b"]),  # captured only k deep: not told
        ],
    )
    _, report, doc = score(tmp_path)
    assert (
        "<details><summary>Unwinnable at depths 10–12: 2 of 3 missed cases captured deeper "
        "than 2 have none of their labelled cards anywhere in the capture (a labelling or "
        "index problem, not a ranking one); 1 more captured no deeper than 2, not told "
        "(capture deeper to tell)</summary>"
    ) in report
    assert "- `lost-1`: not in the 10 cards captured\n- `lost-2`: not in the 12 cards" in report
    assert doc["run"]["unwinnable"] == {
        "cases": [{"case_id": "lost-1", "depth": 10}, {"case_id": "lost-2", "depth": 12}],
        "total": 2,
        "depths": [10, 12],
        "checked": 3,
        "shallow": 1,
    }
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["unwinnable"] == doc["run"]["unwinnable"]


def test_a_capture_no_deeper_than_k_says_nothing_of_unwinnable_cases(tmp_path: Path) -> None:
    write(tmp_path, [line("hit", ["gold", "x"]), line("miss", ["a", "b"])])
    _, report, doc = score(tmp_path)
    assert "Unwinnable" not in report
    assert doc["run"]["unwinnable"] is None
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert "unwinnable" not in results


def test_missed_cases_all_ranked_low_are_said_to_be_winnable(tmp_path: Path) -> None:
    ranked_low = deep()
    ranked_low[6] = "gold"
    write(tmp_path, [line("hit", deep("gold")), line("ranked-low", ranked_low)])
    _, report, doc = score(tmp_path)
    assert (
        "Unwinnable: none of the 1 missed case captured deeper than 2: each has a labelled "
        "card further down its capture (ranked low, not lost)."
    ) in report
    assert doc["run"]["unwinnable"] == {
        "cases": [],
        "total": 0,
        "depths": None,
        "checked": 1,
        "shallow": 0,
    }
