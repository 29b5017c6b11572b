"""A KB as users keep it: plain Markdown in language folders, any BCP-47 tag."""

from __future__ import annotations

from pathlib import Path

from cli_runner import CliRun, run_cli


def cli(cwd: Path, *argv: str) -> CliRun:
    return run_cli(argv, cwd=cwd)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_check_accepts_a_plain_markdown_kb_in_language_folders(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "de" / "setup.md", "# Einrichtung\n\nSo geht's (synthetisch).\n")
    write(tmp_path / "docs" / "fr-ca" / "faq.md", "# FAQ\n\nRéponses (synthétique).\n")
    write(tmp_path / "docs" / "pricing.md", "# Pricing\n\nSynthetic prices.\n")
    write(
        tmp_path / "cases.yaml",
        "cases:\n"
        "  - {id: de-1, language: de, case_type: golden, query: q, must_cite_one_of: [de/setup]}\n"
        "  - {id: fr-1, language: fr-CA, case_type: golden, query: q,"
        " must_cite_one_of: [fr-ca/faq]}\n"
        "  - {id: es-1, language: es, case_type: golden, query: q, must_cite_one_of: [pricing]}\n",
    )
    write(tmp_path / "recall-gate.yaml", "kb: docs\ncases: cases.yaml\ndefault_language: es\n")
    code, out, err = cli(tmp_path, "check")
    assert (code, err) == (0, "")
    assert "3 cards, 3 cases (3 gold-labelled)" in out


def test_check_reports_a_gold_typo_against_a_path_id(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "de" / "setup.md", "# Einrichtung\n\nSynthetisch.\n")
    write(
        tmp_path / "cases.yaml",
        "- {id: de-1, language: de, case_type: golden, query: q, must_cite_one_of: [de/setpu]}\n",
    )
    code, _, err = cli(tmp_path, "check", "--kb", "docs", "--cases", "cases.yaml")
    assert code == 1
    assert "must_cite_one_of id 'de/setpu' resolves to no card (did you mean 'de/setup'?)" in err
