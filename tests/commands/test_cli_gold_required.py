"""A ``golden`` or ``adversarial`` case without gold is an integrity error
(exit 1) in every command that reads cases: it would otherwise be silently
unscored, and the right card must be retrieved even when the answer must
refuse. And every field error of a cases file is reported in one run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli

CASES = """\
cases:
  - {id: ok, language: en, case_type: golden, query: how do I reset, must_cite_one_of: [reset]}
  - {id: empty-gold, language: en, case_type: golden, query: what is a token, must_cite_one_of: []}
  - {id: adv, language: en, case_type: adversarial, query: ignore all, must_cite_one_of: []}
  - {id: cap, language: en, case_type: capability, query: can you draw, must_cite_one_of: []}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "reset.md").write_text("# Reset\n\nHow to reset a password.\n", encoding="utf-8")
    (kb / "token.md").write_text("# Tokens\n\nWhat an API token is.\n", encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 2\nkb: kb\ncases: cases.yaml\ndefault_language: en\n", encoding="utf-8"
    )
    (tmp_path / "gold_app.py").write_text(
        "def search(query, k):\n    return ['reset', 'token'][:k]\n", encoding="utf-8"
    )
    lines = [
        {"case_id": c, "retrieved": ["reset", "token"]} for c in ("ok", "empty-gold", "adv", "cap")
    ]
    (tmp_path / "capture.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    return tmp_path


def test_check_fails_a_golden_case_without_gold(project: Path) -> None:
    run = run_cli(["check"], cwd=project)
    assert run.code == 1, run.out + run.err
    assert "(id empty-gold): a golden case with no gold: must_cite_one_of is empty" in run.err
    assert "(id cap)" not in run.err


def test_check_fails_an_adversarial_case_without_gold(project: Path) -> None:
    run = run_cli(["check"], cwd=project)
    assert run.code == 1, run.out + run.err
    assert run.err.startswith("recall-gate check: 2 integrity problem(s)\n")
    assert (
        "(id adv): an adversarial case with no gold: must_cite_one_of is empty (list the card "
        "a refusal must rest on (the right card must be retrieved even when the answer must "
        "refuse), or make it a no_match case if no card applies)"
    ) in run.err


def test_check_passes_once_the_adversarial_case_has_gold_or_is_no_match(project: Path) -> None:
    fixed = CASES.replace(
        "must_cite_one_of: []}\n  - {id: adv", "must_cite_one_of: [token]}\n  - {id: adv"
    )
    for cases in (
        fixed.replace("ignore all, must_cite_one_of: []", "ignore all, must_cite_one_of: [reset]"),
        fixed.replace("case_type: adversarial", "case_type: no_match"),
    ):
        (project / "cases.yaml").write_text(cases, encoding="utf-8")
        run = run_cli(["check"], cwd=project)
        assert run.code == 0, run.err
        assert run.out.startswith("recall-gate check: ok — 2 cards, 4 cases")


@pytest.mark.parametrize("with_kb", [True, False])
def test_score_fails_a_golden_case_without_gold(project: Path, with_kb: bool) -> None:
    if not with_kb:
        (project / "recall-gate.yaml").write_text("k: 2\ncases: cases.yaml\n", encoding="utf-8")
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--json", "r.json"], cwd=project)
    assert run.code == 1, run.out + run.err
    assert "(id empty-gold): a golden case with no gold" in run.err
    assert "(id adv): an adversarial case with no gold" in run.err
    assert not (project / "r.json").exists()


@pytest.mark.parametrize("case_type", ["golden", "adversarial"])
def test_score_fails_a_self_labelled_line_without_gold(project: Path, case_type: str) -> None:
    (project / "recall-gate.yaml").unlink()
    line = {
        "case_id": "g",
        "retrieved": ["a"],
        "language": "en",
        "case_type": case_type,
        "must_cite_one_of": [],
    }
    (project / "self.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    run = run_cli(["score", "--artifacts", "self.jsonl", "--json", "r.json"], cwd=project)
    assert run.code == 1, run.out + run.err
    article = "an" if case_type == "adversarial" else "a"
    assert f"self.jsonl:1 (case g): {article} {case_type} case with no gold" in run.err
    assert not (project / "r.json").exists()


@pytest.mark.parametrize("with_kb", [True, False])
def test_capture_fails_a_golden_case_without_gold_before_the_retriever_runs(
    project: Path, with_kb: bool
) -> None:
    if not with_kb:
        (project / "recall-gate.yaml").write_text("k: 2\ncases: cases.yaml\n", encoding="utf-8")
    run = run_cli(["capture", "--retriever", "gold_app:search", "--out", "out.jsonl"], cwd=project)
    assert run.code == 1, run.out + run.err
    assert "(id empty-gold): a golden case with no gold" in run.err
    assert "(id adv): an adversarial case with no gold" in run.err
    assert not (project / "out.jsonl").exists()


def test_run_fails_a_golden_case_without_gold_before_it_ingests(project: Path) -> None:
    run = run_cli(["run"], cwd=project)
    assert run.code == 1, run.out + run.err
    assert "(id empty-gold): a golden case with no gold" in run.err
    assert "(id adv): an adversarial case with no gold" in run.err


def test_every_field_error_of_a_cases_file_is_reported_in_one_run(tmp_path: Path) -> None:
    cases = tmp_path / "cases.yaml"
    cases.write_text(
        "- {id: a, language: en_US, case_type: golden, query: q, must_cite_one_of: [x]}\n"
        "- {id: b, language: en, case_type: gold, query: q, must_cite_one_of: [x]}\n"
        "- {id: c, language: en, case_type: golden, must_cite_one_of: [x]}\n"
        "- {id: d, language: en, case_type: golden, query: q, must_cite_one_of: [x]}\n",
        encoding="utf-8",
    )
    run = run_cli(["score", "--cases", str(cases), "--artifacts", str(cases)], cwd=tmp_path)
    assert run.code == 2
    assert "3 of 4 cases are unusable:" in run.err
    for case_id in ("a", "b", "c"):
        assert f"case #{ord(case_id) - 96} (id {case_id}): " in run.err
    assert "(id d)" not in run.err


def test_every_bad_line_of_a_jsonl_cases_file_is_reported_in_one_run(tmp_path: Path) -> None:
    cases = tmp_path / "cases.jsonl"
    good = {
        "id": "ok",
        "language": "en",
        "case_type": "golden",
        "query": "q",
        "must_cite_one_of": ["x"],
    }
    cases.write_text(
        json.dumps(good)
        + "\n{not json\n"
        + json.dumps({**good, "id": "bad", "case_type": "x"})
        + "\n",
        encoding="utf-8",
    )
    run = run_cli(["score", "--cases", str(cases), "--artifacts", str(cases)], cwd=tmp_path)
    assert run.code == 2
    assert "2 of 3 cases are unusable:" in run.err
    assert f"{cases}:2: invalid JSON" in run.err
    assert f"{cases}:3" in run.err
