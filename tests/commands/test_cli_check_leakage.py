"""`recall-gate check` names leaked cases and near-duplicate cards: warnings by
default, a failed check (exit 1) with --strict (synthetic KB and cases)."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_cli

CARDS = {
    "refills": "Prescription refills can be requested in the patient portal. Refills are "
    "processed within two business days; controlled substances need a visit.",
    "billing": "Invoices are sent monthly. You can pay online by card or by bank transfer; "
    "a payment plan is available on request.",
    "parking": "Visitor parking is on level two of the north garage and costs two euros per "
    "hour. Validate your ticket at the front desk.",
}

QUERIES = {
    "en-1": ("how long does a refill take?", "refills"),
    "en-2": ("can I pay my invoice in instalments", "billing"),
    "en-3": ("Visitor parking is on level two of the north garage", "parking"),  # copied
    "en-4": ("where do visitors park", "parking"),
    "en-5": ("pay online", "billing"),  # two words, found in a card: vocabulary, not a copy
}
CASES = "".join(
    f"- {{id: {case_id}, language: en, case_type: golden, query: {query},"
    f" must_cite_one_of: [{gold}]}}\n"
    for case_id, (query, gold) in QUERIES.items()
)


def write_dataset(root: Path, cards: dict[str, str]) -> None:
    (root / "kb").mkdir()
    for card_id, body in cards.items():
        (root / "kb" / f"{card_id}.md").write_text(
            f"---\nid: {card_id}\nlanguage: en\ntitle: {card_id}\n---\n{body}\n", encoding="utf-8"
        )
    (root / "cases.yaml").write_text(CASES, encoding="utf-8")


def test_check_names_the_case_copied_verbatim_into_a_card_and_only_it(tmp_path: Path) -> None:
    write_dataset(tmp_path, CARDS)
    done = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml"], cwd=tmp_path)
    assert done.code == 0, done.err
    leak_lines = [line for line in done.err.splitlines() if "is copied into card" in line]
    assert len(leak_lines) == 1
    assert "the query of case 'en-3' is copied into card 'parking' (100%" in leak_lines[0]
    assert "recall-gate check: warning: 1 case(s) whose query is copied into a card" in done.err
    assert "recall-gate check: ok" in done.out


def test_check_lists_near_duplicate_cards(tmp_path: Path) -> None:
    write_dataset(tmp_path, {**CARDS, "parking-old": CARDS["parking"]})
    done = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert "cards 'parking' and 'parking-old' are near-duplicates (100%" in done.err


def test_check_strict_fails_on_leakage(tmp_path: Path) -> None:
    write_dataset(tmp_path, CARDS)
    done = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml", "--strict"], cwd=tmp_path)
    assert done.code == 1
    assert "recall-gate check: error: 1 case(s) whose query is copied into a card" in done.err
    assert "--strict: 1 leaked case(s), 0 near-duplicate card pair(s)" in done.err


def test_check_without_leakage_prints_no_warning(tmp_path: Path) -> None:
    cards = dict(CARDS)
    write_dataset(tmp_path, cards)
    cases = (tmp_path / "cases.yaml").read_text().splitlines()
    (tmp_path / "cases.yaml").write_text("\n".join(c for c in cases if "en-3" not in c) + "\n")
    done = run_cli(["check", "--kb", "kb", "--cases", "cases.yaml", "--strict"], cwd=tmp_path)
    assert done.code == 0, done.err
    assert done.err == ""
