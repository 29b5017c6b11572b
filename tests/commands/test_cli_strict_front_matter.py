"""Strict front matter, through the command line: front-matter keys beyond a
card's own are kept as metadata by default; `kb_strict_front_matter: true` in
the config (every command that reads the KB) or `check --strict` make each
one an error (exit 2) naming the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    docs = tmp_path / "docs" / "en"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text(
        "---\nhide: [navigation, toc]\n---\n\n# Welcome\n\nStart here.\n", encoding="utf-8"
    )
    (docs / "billing.md").write_text(
        "---\ntitle: Billing\n---\n\nPlans and invoices.\n", encoding="utf-8"
    )
    (tmp_path / "cases.yaml").write_text(
        "- {id: q1, language: en, case_type: golden, query: invoices, "
        "must_cite_one_of: [en/billing]}\n",
        encoding="utf-8",
    )
    (tmp_path / "recall-gate.yaml").write_text("kb: docs\ncases: cases.yaml\n", encoding="utf-8")
    return tmp_path


def test_unknown_front_matter_keys_are_metadata_by_default(project: Path) -> None:
    run = run_cli(["check"], cwd=project)
    assert run.code == 0, run.err
    assert run.out.startswith("recall-gate check: ok — 2 cards, 1 cases")


def test_the_config_key_makes_an_unknown_front_matter_key_an_error_naming_file_and_key(
    project: Path,
) -> None:
    config = project / "recall-gate.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "kb_strict_front_matter: true\n", encoding="utf-8"
    )
    for argv in (["check"], ["cards"]):
        run = run_cli(argv, cwd=project)
        assert run.code == 2, run.out + run.err
        assert (
            f"{Path('docs') / 'en' / 'index.md'}: front-matter key `hide` is not a card field "
            "(strict front matter: only id, language, title, tags are read)"
        ) in run.err
        assert "turn off `kb_strict_front_matter: true` in recall-gate.yaml" in run.err
        assert "Traceback" not in run.err


def test_check_strict_refuses_an_unknown_front_matter_key(project: Path) -> None:
    run = run_cli(["check", "--strict"], cwd=project)
    assert run.code == 2, run.out + run.err
    assert "index.md: front-matter key `hide` is not a card field" in run.err
    assert "or turn off --strict: other keys are then kept as the card's metadata" in run.err


def test_the_config_key_must_be_a_boolean(project: Path) -> None:
    config = project / "recall-gate.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "kb_strict_front_matter: yes please\n",
        encoding="utf-8",
    )
    run = run_cli(["check"], cwd=project)
    assert run.code == 2
    assert "kb_strict_front_matter" in run.err
