"""KB coverage through the command line: `check` states it, `cards` adds a
column of the cases citing each card, `cards --uncovered` lists the rest."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def page(title: str) -> str:
    return f"# {title}\n\nSome text about {title}.\n"


# Hand count: en has 3 cards, 2 cited (en/a by q1 and q2, en/b by q2 as relevant);
# de has 2 cards, 1 cited (de/x by q3) → 3 of 5 covered.
DATASET = {
    "recall-gate.yaml": "kb: docs\ncases: cases.yaml\n",
    "docs/en/a.md": page("Alpha"),
    "docs/en/b.md": page("Beta"),
    "docs/en/c.md": page("Gamma"),
    "docs/de/x.md": page("Iks"),
    "docs/de/y.md": page("Ypsilon"),
    "cases.yaml": (
        "- {id: q1, language: en, case_type: golden, query: alpha?, must_cite_one_of: [en/a]}\n"
        "- {id: q2, language: en, case_type: golden, query: beta?, must_cite_one_of: [en/a],\n"
        "   relevant_ids: [en/a, en/b]}\n"
        "- {id: q3, language: de, case_type: golden, query: iks?, must_cite_one_of: [de/x]}\n"
    ),
}


def test_check_states_kb_coverage_overall_and_per_language(tmp_path: Path) -> None:
    write(tmp_path, DATASET)
    run = run_cli(["check"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert (
        "recall-gate check: KB coverage: 3 of 5 cards (60.0%) cited by a case — "
        "de 1/2 (50.0%), en 2/3 (66.7%)\n"
    ) in run.out


def test_cards_has_a_column_of_the_cases_citing_each_card(tmp_path: Path) -> None:
    write(tmp_path, DATASET)
    run = run_cli(["cards", "--json", "cards.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    rows = {line.split()[0]: line.split()[-1] for line in run.out.splitlines() if "/" in line}
    assert rows["en/a"] == "2"
    assert rows["en/b"] == "1"
    assert rows["en/c"] == "0"
    listing = json.loads((tmp_path / "cards.json").read_text(encoding="utf-8"))
    assert {c["id"]: c["cases"] for c in listing["cards"]}["en/a"] == ["q1", "q2"]
    assert listing["coverage"]["covered"] == 3
    assert listing["coverage"]["uncovered"] == ["de/y", "en/c"]


def test_cards_uncovered_lists_only_the_cards_no_case_cites(tmp_path: Path) -> None:
    write(tmp_path, DATASET)
    run = run_cli(["cards", "--uncovered"], cwd=tmp_path)
    assert run.code == 0, run.err
    table = run.out.split("\n\nid ", 1)[1].splitlines()[1:]
    assert [line.split()[0] for line in table] == ["de/y", "en/c"]
    assert "Uncovered: 2 cards" in run.out


def test_cards_uncovered_without_cases_is_refused_with_a_fix(tmp_path: Path) -> None:
    write(tmp_path, {"docs/en/a.md": page("Alpha")})
    run = run_cli(["cards", "--kb", "docs", "--uncovered"], cwd=tmp_path)
    assert run.code == 2
    assert "cards --uncovered needs cases" in run.err
    assert "--cases PATH" in run.err
    assert "Traceback" not in run.err


def test_the_score_report_and_results_carry_kb_coverage(tmp_path: Path) -> None:
    write(tmp_path, DATASET)
    capture = "".join(
        json.dumps({"case_id": case, "retrieved": [card]}) + "\n"
        for case, card in (("q1", "en/a"), ("q2", "en/c"), ("q3", "de/x"))
    )
    (tmp_path / "capture.jsonl").write_text(capture, encoding="utf-8")
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--json", "r.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert (
        "KB coverage: 3 of 5 cards (60.0%) cited by a case — de 1/2 (50.0%), en 2/3 (66.7%): "
        "a card no case cites moves no metric here"
    ) in run.out
    # Retrieved: en/a, en/c, de/x; never: de/y and en/b.
    assert (
        "Never retrieved: 2 of 5 cards (40.0%) in no case's top 5 — de 1/2, en 1/3: "
        "a card no case retrieves is a card the gate cannot see lost from the index."
    ) in run.out
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert results["kb_retrieved"]["overall"] == {"covered": 3, "cards": 5}
    assert results["kb_coverage"] == {
        "overall": {"covered": 3, "cards": 5},
        "by_language": {"de": {"covered": 1, "cards": 2}, "en": {"covered": 2, "cards": 3}},
    }


def test_a_score_without_a_kb_says_nothing_of_coverage(tmp_path: Path) -> None:
    write(tmp_path, {k: v for k, v in DATASET.items() if not k.startswith("docs/")})
    (tmp_path / "recall-gate.yaml").write_text("cases: cases.yaml\n", encoding="utf-8")
    (tmp_path / "capture.jsonl").write_text(
        "".join(json.dumps({"case_id": f"q{i}", "retrieved": ["en/a"]}) + "\n" for i in (1, 2, 3)),
        encoding="utf-8",
    )
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--json", "r.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert "KB coverage" not in run.out
    assert "kb_coverage" not in json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def test_a_card_a_logged_query_retrieves_is_not_never_retrieved(tmp_path: Path) -> None:
    from recall_gate.adapters.query_snapshot import QuerySnapshot, write_snapshot

    write(tmp_path, DATASET)
    config = (tmp_path / "recall-gate.yaml").read_text(encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text(config + "queries: queries.jsonl\n", "utf-8")
    logged = [{"id": f"l{i}", "query": f"logged {i}", "language": "en"} for i in (1, 2)]
    (tmp_path / "queries.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in logged), encoding="utf-8"
    )
    capture = "".join(
        json.dumps({"case_id": case, "retrieved": [card]}) + "\n"
        for case, card in (("q1", "en/a"), ("q2", "en/a"), ("q3", "de/x"))
    )
    (tmp_path / "capture.jsonl").write_text(capture, encoding="utf-8")
    # The capture's snapshot of the logged queries: en/c in a top 5, en/b too.
    write_snapshot(
        tmp_path / "capture.jsonl",
        QuerySnapshot(k=5, rankings={"l1": ("en/c", "en/a"), "l2": ("en/b",)}),
    )
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--json", "r.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    # Retrieved: en/a, de/x by the cases, en/b and en/c by the logged queries; never: de/y.
    assert (
        "Never retrieved: 1 of 5 cards (20.0%) in the top 5 of no case and no logged query "
        "(2 queries) — de 1/2, en 0/3"
    ) in run.out
    results = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert results["kb_retrieved"]["overall"] == {"covered": 4, "cards": 5}
    assert results["kb_retrieved"]["logged_queries"] == 2
