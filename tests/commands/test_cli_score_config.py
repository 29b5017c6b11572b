"""`score` reads the config like `run` (cases, kb, k, profile), checks gold ids
against the KB when it knows one, and is honest about depth and provenance.
All data synthetic."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import CliRun, run_cli
from recall_gate.core.records import Results

# A plain-Markdown KB in language folders: de, es, fr-CA (synthetic).
KB = {
    "docs/de/einrichtung.md": "# Einrichtung\n\nSo richten Sie das Konto ein.\n",
    "docs/de/preise.md": "# Preise\n\nDie Preise pro Monat.\n",
    "docs/es/facturas.md": "# Facturas\n\nCómo descargar una factura.\n",
    "docs/fr-CA/connexion.md": "# Connexion\n\nComment se connecter.\n",
}
CASES = [
    ("de-1", "de", "golden", "Konto einrichten", ["de/einrichtung"]),
    ("de-2", "de", "golden", "was kostet es", ["de/preise"]),
    ("es-1", "es", "golden", "descargar factura", ["es/facturas"]),
    ("fr-1", "fr-ca", "golden", "se connecter", ["fr-CA/connexion"]),
    ("fr-2", "fr-CA", "capability", "que sais-tu faire", []),
]
# What a retriever returned per case (3 ids each; es-1 and fr-1 miss at rank 1).
RETRIEVED = {
    "de-1": ["de/einrichtung", "de/preise", "es/facturas"],
    "de-2": ["de/einrichtung", "de/preise", "fr-CA/connexion"],
    "es-1": ["de/preise", "fr-CA/connexion", "es/facturas"],
    "fr-1": ["es/facturas", "de/preise", "de/einrichtung"],
    "fr-2": ["de/preise", "es/facturas", "de/einrichtung"],
}
RETRIEVER = {"adapter": "callable", "name": "app.search", "label": "v1", "params": {"k": 3}}


def cli(cwd: Path, *argv: str) -> CliRun:
    return run_cli(argv, cwd=cwd)


def cases_yaml(cases: list[tuple[str, str, str, str, list[str]]]) -> str:
    return "cases:\n" + "".join(
        f"  - {{id: {i}, language: {lang}, case_type: {t}, query: {q}, "
        f"must_cite_one_of: [{', '.join(gold)}]}}\n"
        for i, lang, t, q, gold in cases
    )


def capture_lines(retriever: dict[str, Any] | None = RETRIEVER, /, **extra: Any) -> str:
    lines = []
    for number, (case_id, retrieved) in enumerate(RETRIEVED.items()):
        line: dict[str, Any] = {"case_id": case_id, "retrieved": retrieved, **extra}
        if number == 0 and retriever is not None:
            line["retriever"] = retriever
        lines.append(json.dumps(line) + "\n")
    return "".join(lines)


@pytest.fixture
def app(tmp_path: Path) -> Path:
    """An app repository: docs/, evals/cases.yaml, recall-gate.yaml, a capture."""
    for name, text in KB.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "cases.yaml").write_text(cases_yaml(CASES), encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 3\nkb: docs\ncases: evals/cases.yaml\n", encoding="utf-8"
    )
    (tmp_path / "capture.jsonl").write_text(capture_lines(), encoding="utf-8")
    return tmp_path


def test_score_takes_cases_kb_and_k_from_the_config(app: Path) -> None:
    code, out, err = cli(app, "score", "--artifacts", "capture.jsonl", "--json", "r.json")
    assert (code, err) == (0, "")
    results = Results.model_validate_json((app / "r.json").read_text())
    assert results.k == 3
    assert results.provenance.kb_fingerprint is not None
    assert results.provenance.queries_fingerprint is not None
    assert "not checked against a KB" not in out


def test_a_plain_markdown_kb_in_de_es_fr_ca_scores_by_those_languages(app: Path) -> None:
    code, out, _ = cli(app, "score", "--artifacts", "capture.jsonl", "--json", "r.json")
    assert code == 0
    results = Results.model_validate_json((app / "r.json").read_text())
    # fr-ca in the cases file is stored as fr-CA: one group, not two.
    assert list(results.aggregates.by_language) == ["de", "es", "fr-CA"]
    assert results.aggregates.by_language["de"]["retrieval_hit_at_k"].n == 2
    assert results.aggregates.by_language["fr-CA"]["retrieval_hit_at_k"].n == 1
    rows = [line.split() for line in out.splitlines() if line.startswith("language")]
    assert [row[1] for row in rows] == ["de", "es", "fr-CA"]
    assert rows[2][2:5] == ["†", "1", "0.000"]  # fr-CA: n 1, hit@3 0 (fr-1 missed)


def test_a_gold_typo_in_score_mode_with_the_configs_kb_exits_1_with_did_you_mean(app: Path) -> None:
    typo = [*CASES[:1], ("de-2", "de", "golden", "was kostet es", ["de/priese"]), *CASES[2:]]
    (app / "evals" / "cases.yaml").write_text(cases_yaml(typo), encoding="utf-8")
    code, out, err = cli(app, "score", "--artifacts", "capture.jsonl")
    assert code == 1
    assert out == ""
    assert "must_cite_one_of id 'de/priese' resolves to no card (did you mean 'de/preise'?)" in err
    assert "dataset integrity failed (1 problem(s))" in err


def test_a_gold_typo_in_a_self_contained_capture_is_checked_against_the_kb(app: Path) -> None:
    (app / "recall-gate.yaml").write_text("k: 3\nkb: docs\n", encoding="utf-8")
    labels = {"language": "de", "case_type": "golden", "must_cite_one_of": ["de/einrichtnug"]}
    (app / "capture.jsonl").write_text(capture_lines(**labels), encoding="utf-8")
    code, _, err = cli(app, "score", "--artifacts", "capture.jsonl")
    assert code == 1
    assert "capture.jsonl:1 (case de-1): must_cite_one_of id 'de/einrichtnug'" in err
    assert "did you mean 'de/einrichtung'?" in err


def test_without_a_kb_the_report_says_gold_ids_were_not_checked(app: Path) -> None:
    (app / "recall-gate.yaml").unlink()
    for argv in (
        ["--cases", "evals/cases.yaml"],  # labelled path
        [],  # streamed path (self-contained capture)
    ):
        if not argv:
            labels = {"language": "de", "case_type": "golden", "must_cite_one_of": ["typo"]}
            (app / "capture.jsonl").write_text(capture_lines(**labels), encoding="utf-8")
        code, out, _ = cli(app, "score", "--artifacts", "capture.jsonl", *argv)
        assert code == 0
        assert (
            "Gold ids were not checked against a KB (none was given): a mistyped gold id "
            "scores as a miss. Set kb: in recall-gate.yaml, or run recall-gate check." in out
        )


@pytest.mark.parametrize("streamed", [False, True])
def test_k_beyond_the_captured_depth_is_reported_with_a_count(app: Path, streamed: bool) -> None:
    argv = ["score", "--artifacts", "capture.jsonl", "--k", "5"]
    if streamed:
        (app / "recall-gate.yaml").unlink()
        labels = {"language": "de", "case_type": "golden", "must_cite_one_of": ["de/preise"]}
        (app / "capture.jsonl").write_text(capture_lines(**labels), encoding="utf-8")
    code, out, _ = cli(app, *argv)
    scored = 5 if streamed else 4
    assert code == 0
    assert (
        f"Depth: {scored} of {scored} scored cases hold fewer than k = 5 distinct retrieved "
        "cards: their metrics are computed on a shorter list than k" in out
    )
    if not streamed:
        cli(app, *argv, "--json", "r.json")
        results = Results.model_validate_json((app / "r.json").read_text())
        assert results.cases_short_of_k == 4


@pytest.mark.parametrize("streamed", [False, True])
def test_strict_makes_a_short_capture_exit_2(app: Path, streamed: bool) -> None:
    if streamed:
        (app / "recall-gate.yaml").unlink()
        labels = {"language": "de", "case_type": "golden", "must_cite_one_of": ["de/preise"]}
        (app / "capture.jsonl").write_text(capture_lines(**labels), encoding="utf-8")
    code, out, err = cli(
        app, "score", "--artifacts", "capture.jsonl", "--k", "4", "--strict", "--json", "r.json"
    )
    assert code == 2
    assert out == ""
    assert "--strict:" in err
    assert "hold fewer than k = 4 distinct retrieved cards" in err
    assert "fix: capture at least 4 ids per case" in err
    assert not (app / "r.json").exists()
    # At the depth the capture holds, --strict is quiet.
    code, _, _ = cli(app, "score", "--artifacts", "capture.jsonl", "--k", "3", "--strict")
    assert code == 0


def test_a_baseline_made_with_another_retriever_is_stale_saying_what_changed(app: Path) -> None:
    assert cli(app, "score", "--artifacts", "capture.jsonl", "--json", "r.json")[0] == 0
    code, _, err = cli(app, "baseline", "update", "--results", "r.json", "--reason", "v1")
    assert code == 0, err
    other = {**RETRIEVER, "label": "v2", "params": {"k": 3, "search_type": "mmr"}}
    (app / "capture.jsonl").write_text(capture_lines(other), encoding="utf-8")
    code, out, _ = cli(app, "score", "--artifacts", "capture.jsonl")
    assert code == 0
    # One line per change: the label, and a setting the new one has.
    assert (
        "Stale baseline: 2 changes since it was made:\n"
        "  - retriever label v1 → v2\n"
        "  - retriever search_type unset → mmr\n"
    ) in out
    # The same retriever again: no staleness.
    (app / "capture.jsonl").write_text(capture_lines(), encoding="utf-8")
    code, out, _ = cli(app, "score", "--artifacts", "capture.jsonl")
    assert "stale" not in out.lower()


def test_a_capture_that_mixes_retrievers_is_refused(app: Path) -> None:
    lines = capture_lines().splitlines(keepends=True)
    mixed = json.loads(lines[2])
    mixed["retriever"] = {**RETRIEVER, "name": "app.other"}
    lines[2] = json.dumps(mixed) + "\n"
    (app / "capture.jsonl").write_text("".join(lines), encoding="utf-8")
    code, _, err = cli(app, "score", "--artifacts", "capture.jsonl")
    assert code == 2
    assert "capture.jsonl:3: the capture mixes retrievers (line 1: class=app.search; " in err
