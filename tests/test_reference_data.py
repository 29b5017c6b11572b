"""The repository's reference evaluation data: synthetic, complete, and consistent.

`recall-gate check` is the integrity gate of the decision record; the rest pins the shape it
describes: a 38-card KB in three languages, at least 29 gold-labelled cases
for each of es-419 and pt-BR (more for en), every case type, disjunctive gold
and the optional `relevant_ids` (future work 2).
"""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest

from recall_gate.adapters.config import load_config
from recall_gate.adapters.dataset import load_cards, load_cases
from recall_gate.cli import main
from recall_gate.core.records import CASE_TYPES, LANGUAGES, Card, Case


@pytest.fixture(scope="module")
def cards(repo_root: Path) -> list[tuple[str, Card]]:
    return load_cards(repo_root / "reference" / "kb")


@pytest.fixture(scope="module")
def cases(repo_root: Path) -> list[tuple[str, Case]]:
    return load_cases([repo_root / "reference" / "cases"])


def test_recall_gate_check_passes_on_the_reference_data(repo_root: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main(["check"], environ={}, stdout=stdout, stderr=stderr, cwd=repo_root)
    assert (code, stderr.getvalue()) == (0, "")
    assert stdout.getvalue().startswith("recall-gate check: ok — 38 cards, ")


def test_the_config_points_at_the_reference_data(repo_root: Path) -> None:
    config = load_config(repo_root / "recall-gate.yaml")
    assert config.kb == repo_root / "reference" / "kb"
    assert config.cases == (repo_root / "reference" / "cases",)


def test_the_kb_has_38_cards_in_three_languages(cards: list[tuple[str, Card]]) -> None:
    assert len(cards) == 38
    assert set(Counter(card.language for _, card in cards)) == set(LANGUAGES)
    for where, card in cards:
        assert Path(where).parent.name == card.language, where  # kb/<language>/<id>.md


def test_every_card_is_tagged_synthetic(cards: list[tuple[str, Card]]) -> None:
    # Synthetic data only (docs/decisions/retrieval-recall.md); the tag makes it
    # visible in every card.
    untagged = [where for where, card in cards if "synthetic" not in card.tags]
    assert untagged == []


def test_gold_labelled_cases_per_language(cases: list[tuple[str, Case]]) -> None:
    gold = Counter(case.language for _, case in cases if case.gold_labelled)
    assert gold["es-419"] >= 29
    assert gold["pt-BR"] >= 29
    assert gold["en"] > max(gold["es-419"], gold["pt-BR"])


def test_every_case_type_is_present(cases: list[tuple[str, Case]]) -> None:
    assert set(Counter(case.case_type for _, case in cases)) == set(CASE_TYPES)
    for language in LANGUAGES:
        types = {case.case_type for _, case in cases if case.language == language}
        assert types == set(CASE_TYPES), language


def test_every_adversarial_case_carries_gold(cases: list[tuple[str, Case]]) -> None:
    # The right card must be retrieved even when the answer must refuse: an
    # adversarial case without gold is an integrity error (a prompt no card
    # applies to is a no_match case).
    adversarial = [case for _, case in cases if case.case_type == "adversarial"]
    assert len(adversarial) >= 3 * len(LANGUAGES)
    assert [case.id for case in adversarial if not case.gold_labelled] == []


def test_capability_and_no_match_cases_carry_no_gold(cases: list[tuple[str, Case]]) -> None:
    for _, case in cases:
        if case.case_type in ("capability", "no_match"):
            assert case.must_cite_one_of == (), case.id


def test_some_gold_is_disjunctive(cases: list[tuple[str, Case]]) -> None:
    assert sum(1 for _, case in cases if len(case.must_cite_one_of) > 1) >= 3


def test_some_cases_carry_relevant_ids(cases: list[tuple[str, Case]]) -> None:
    with_relevant = [case for _, case in cases if case.relevant_ids is not None]
    assert len(with_relevant) >= 3
    assert {case.language for case in with_relevant} == set(LANGUAGES)


def test_gold_points_at_cards_of_the_case_language(
    cards: list[tuple[str, Card]], cases: list[tuple[str, Case]]
) -> None:
    # Per-language corpora are written independently.
    language_of = {card.id: card.language for _, card in cards}
    crossing = [
        (case.id, card_id)
        for _, case in cases
        for card_id in (*case.must_cite_one_of, *(case.relevant_ids or ()))
        if language_of.get(card_id) != case.language
    ]
    assert crossing == []


def test_case_files_are_one_per_language(cases: list[tuple[str, Case]]) -> None:
    for where, case in cases:
        assert Path(where.split(" case #")[0]).name == f"{case.language}.yaml", where
