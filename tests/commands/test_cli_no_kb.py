"""No KB: retrieved ids that are file paths cannot be mapped to card ids, so
every case would score 0. That is exit 2 naming `kb:`, never an all-zero pass."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "cases.yaml").write_text(
        "- {id: q1, language: en, case_type: golden, query: reset, must_cite_one_of: [en/reset]}\n"
        "- {id: q2, language: en, case_type: golden, query: token, must_cite_one_of: [en/token]}\n",
        encoding="utf-8",
    )
    lines = [
        {"case_id": "q1", "retrieved": ["/srv/app/docs/en/reset.md", "docs/en/token.md"]},
        {"case_id": "q2", "retrieved": ["docs/en/token.md"]},
    ]
    (tmp_path / "paths.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    (tmp_path / "no_kb_app.py").write_text(
        "def search(query, k):\n    return [{'metadata': {'source': f'docs/en/{query}.md'}}]\n",
        encoding="utf-8",
    )
    return tmp_path


def test_score_with_path_ids_and_no_kb_is_exit_2_naming_kb(project: Path) -> None:
    run = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "paths.jsonl", "--json", "r.json"],
        cwd=project,
    )
    assert run.code == 2, run.out + run.err
    assert (
        "paths.jsonl: the retrieved ids look like file paths ('/srv/app/docs/en/reset.md', "
        "'docs/en/token.md') and no `kb:` is set to map them to card ids: every case would "
        "score 0" in run.err
    )
    assert "fix: set `kb:` in recall-gate.yaml (or pass --kb PATH)" in run.err
    assert not (project / "r.json").exists()


def test_score_with_path_ids_maps_them_once_a_kb_is_given(project: Path) -> None:
    for name in ("reset", "token"):
        card = project / "docs" / "en" / f"{name}.md"
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(f"# {name}\n\nAbout {name}.\n", encoding="utf-8")
    run = run_cli(
        ["score", "--cases", "cases.yaml", "--artifacts", "paths.jsonl", "--kb", "docs"],
        cwd=project,
    )
    assert run.code == 0, run.err


def test_capture_with_path_ids_and_no_kb_is_exit_2_naming_kb(project: Path) -> None:
    run = run_cli(
        ["capture", "--retriever", "no_kb_app:search", "--cases", "cases.yaml", "--out", "o.jsonl"],
        cwd=project,
    )
    assert run.code == 2, run.out + run.err
    assert "metadata.source 'docs/en/reset.md' looks like a file path and no `kb:` is set" in (
        run.err
    )
    assert not (project / "o.jsonl").exists()


def test_ids_that_are_card_ids_need_no_kb(project: Path) -> None:
    lines = [{"case_id": "q1", "retrieved": ["en/reset"]}, {"case_id": "q2", "retrieved": ["x"]}]
    (project / "ids.jsonl").write_text(
        "".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8"
    )
    run = run_cli(["score", "--cases", "cases.yaml", "--artifacts", "ids.jsonl"], cwd=project)
    assert run.code == 0, run.err
