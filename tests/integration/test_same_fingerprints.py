"""`run` and `score` fingerprint the same fields: a capture that `run` saved,
scored later against the baseline that run made, is comparable and unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli

pytestmark = pytest.mark.integration

CARDS = {
    "refills": "# Prescription refills\n\nAsk the pharmacy for a refill three days ahead.\n",
    "parking": "# Parking\n\nThe clinic garage is free for patients for two hours.\n",
    "billing": "# Billing\n\nPay your bill online, by phone, or at the front desk.\n",
}
# Plain-Markdown cards: the ids are the paths under docs/ (synthetic data).
CASE = "{{id: {}, language: en, case_type: {}, query: {}, must_cite_one_of: [{}]}}"
CASES = "cases:\n" + "".join(
    "  - " + CASE.format(*fields) + "\n"
    for fields in (
        ("c1", "golden", "how do I refill my pills", "en/refills"),
        ("c2", "golden", "where can I park my car", "en/parking"),
        ("c3", "golden", "how can I pay my bill", "en/billing"),
        ("c4", "capability", "what can you do", ""),
    )
)


def cli(cwd: Path, *argv: str) -> CliRun:
    return run_cli(argv, cwd=cwd)


def test_run_then_baseline_then_score_of_its_capture_is_comparable_and_unchanged(
    tmp_path: Path, embedding_cache: Path
) -> None:
    for name, text in CARDS.items():
        (tmp_path / "docs" / "en").mkdir(parents=True, exist_ok=True)
        (tmp_path / "docs" / "en" / f"{name}.md").write_text(text, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text(
        f"k: 2\nkb: docs\ncases: cases.yaml\ncache: {{path: {embedding_cache}}}\n",
        encoding="utf-8",
    )
    code, _, err = cli(tmp_path, "run", "--artifacts-out", "a.jsonl", "--json", "r.json")
    assert code == 0, err
    code, _, err = cli(
        tmp_path, "baseline", "update", "--results", "r.json", "--reason", "synthetic test"
    )
    assert code == 0, err
    assert (tmp_path / "baselines" / "default.json").is_file()

    code, out, err = cli(
        tmp_path, "score", "--artifacts", "a.jsonl", "--cases", "cases.yaml", "--json", "s.json"
    )
    assert code == 0, err
    assert "stale" not in out.lower()
    assert "not comparable" not in out
    assert "Baseline: baselines/default.json" in out
    run_provenance = json.loads((tmp_path / "r.json").read_text())["provenance"]
    score_provenance = json.loads((tmp_path / "s.json").read_text())["provenance"]
    for field in ("dataset_fingerprint", "queries_fingerprint", "kb_fingerprint", "retriever"):
        assert score_provenance[field] == run_provenance[field] is not None, field
    # The capture alone (no --cases: its lines carry the labels and queries) agrees too.
    code, out, err = cli(tmp_path, "score", "--artifacts", "a.jsonl", "--json", "t.json")
    assert code == 0, err
    assert "Stale" not in out
    alone = json.loads((tmp_path / "t.json").read_text())["provenance"]
    assert alone == score_provenance


def test_same_language_warns_with_a_count_when_a_language_has_no_cards(
    tmp_path: Path, embedding_cache: Path
) -> None:
    (tmp_path / "docs" / "en").mkdir(parents=True)
    for name, text in CARDS.items():
        (tmp_path / "docs" / "en" / f"{name}.md").write_text(text, encoding="utf-8")
    german = "".join(
        "  - "
        + CASE.format(ident, "golden", "Parkplatz", "en/parking").replace(
            "language: en", "language: de"
        )
        + "\n"
        for ident in ("de-1", "de-2")
    )
    (tmp_path / "cases.yaml").write_text(CASES + german, encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text(
        f"k: 2\nkb: docs\ncases: cases.yaml\ncache: {{path: {embedding_cache}}}\n"
        "retrieval: {same_language: true}\n",
        encoding="utf-8",
    )
    code, _, err = cli(tmp_path, "run")
    assert code == 0, err
    assert (
        "recall-gate: warning: retrieval.same_language is on but no card is in de (2 cases): "
        "those 2 case(s) search no card and score as misses" in err
    )
