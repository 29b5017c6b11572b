"""`check` warns when a case's language has no card in that language, naming the
nearest card language ("pt-BR cases, pt cards"), in every mode."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_cli


def project(tmp_path: Path, case_languages: list[str]) -> Path:
    (tmp_path / ".git").mkdir()
    for lang in ("en", "pt"):
        card = tmp_path / "docs" / lang / "a.md"
        card.parent.mkdir(parents=True)
        card.write_text("# A\n\nText.\n", encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(
        "".join(
            f"- {{id: c{i}, language: {lang}, case_type: golden, query: q, "
            f"must_cite_one_of: [{lang.split('-')[0]}/a]}}\n"
            for i, lang in enumerate(case_languages)
        ),
        encoding="utf-8",
    )
    (tmp_path / "recall-gate.yaml").write_text("kb: docs\ncases: cases.yaml\n", encoding="utf-8")
    return tmp_path


def test_check_names_the_nearest_card_language_of_a_case_language_without_cards(
    tmp_path: Path,
) -> None:
    run = run_cli(["check"], cwd=project(tmp_path, ["en", "pt-BR", "pt-BR"]))
    assert run.code == 0, run.err
    assert run.err.startswith(
        "recall-gate: warning: 2 pt-BR cases, no pt-BR card: the nearest is pt "
        "(pt-BR cases, pt cards)."
    )
    assert "`languages:` folder map in recall-gate.yaml" in run.err


def test_check_says_when_no_related_card_language_exists(tmp_path: Path) -> None:
    root = project(tmp_path, ["en", "de"])
    (root / "cases.yaml").write_text(
        "- {id: c1, language: de, case_type: golden, query: q, must_cite_one_of: [en/a]}\n",
        encoding="utf-8",
    )
    run = run_cli(["check"], cwd=root)
    assert run.code == 0, run.err
    assert (
        "recall-gate: warning: 1 de case, and no card in de or a related language (the cards "
        "are in en, pt)"
    ) in run.err


def test_a_folder_map_makes_the_languages_match(tmp_path: Path) -> None:
    root = project(tmp_path, ["en", "pt-BR"])
    (root / "recall-gate.yaml").write_text(
        "kb: docs\ncases: cases.yaml\nlanguages: {pt: pt-BR}\n", encoding="utf-8"
    )
    run = run_cli(["check"], cwd=root)
    assert (run.code, run.err) == (0, "")
