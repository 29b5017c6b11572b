"""`recall-gate cards` before any case is written: listing the KB is the first step
of labelling, so a cases file that does not exist yet, is empty or holds an empty
list lists the KB, its citation column saying so; and every count is of cards,
(language, id), not of ids."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import run_cli


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


# Two languages, one id written in both: 3 cards, 2 ids.
KB = {
    "recall-gate.yaml": "kb: docs\ncases: cases.yaml\n",
    "docs/en/a.md": "---\nid: a\n---\n# Alpha\n\nAlpha text.\n",
    "docs/en/b.md": "# Beta\n\nBeta text.\n",
    "docs/de/a.md": "---\nid: a\n---\n# Alpha (de)\n\nAlpha-Text.\n",
}


@pytest.mark.parametrize("cases", [None, "", "[]\n", "cases: []\n"])
def test_cards_lists_the_kb_before_a_case_is_written(tmp_path: Path, cases: str | None) -> None:
    write(tmp_path, KB if cases is None else {**KB, "cases.yaml": cases})
    run = run_cli(["cards"], cwd=tmp_path)
    assert run.code == 0, run.err
    rows = {" ".join(line.split()[:2]): line for line in run.out.splitlines() if line.strip()}
    assert rows["a en"].endswith("no cases yet")
    assert rows["a de"].endswith("no cases yet")
    assert "KB coverage: no cases yet: 0 of 3 cards cited by a case\n" in run.out


def test_cards_without_cases_yet_lists_every_card_as_uncovered(tmp_path: Path) -> None:
    write(tmp_path, {**KB, "cases.yaml": ""})
    run = run_cli(["cards", "--uncovered", "--json", "cards.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert "Uncovered: 3 cards\n" in run.out
    listing = json.loads((tmp_path / "cards.json").read_text(encoding="utf-8"))
    assert listing["coverage"]["uncovered"] == ["a@de", "a@en", "en/b"]


def test_cards_counts_each_language_of_an_id_as_a_card(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            **KB,
            "cases.yaml": "- {id: q, language: de, case_type: golden, query: alpha?, "
            "must_cite_one_of: [a]}\n",
        },
    )
    run = run_cli(["cards", "--json", "cards.json"], cwd=tmp_path)
    assert run.code == 0, run.err
    assert "(3 cards" in run.out
    assert "de: 1 card (language from folder de/)" in run.out
    assert "en: 2 cards (language from folder en/)" in run.out
    assert "KB coverage: 1 of 3 cards (33.3%) cited by a case — de 1/1 (100.0%), en 0/2" in run.out
    listing = json.loads((tmp_path / "cards.json").read_text(encoding="utf-8"))
    assert listing["coverage"]["cards"] == 3
    assert listing["languages"]["en"]["cards"] == 2


def test_a_cases_file_with_a_broken_case_is_still_an_error(tmp_path: Path) -> None:
    write(tmp_path, {**KB, "cases.yaml": "- {id: q, language: en}\n"})
    run = run_cli(["cards"], cwd=tmp_path)
    assert run.code == 2
    assert "cases.yaml" in run.err
