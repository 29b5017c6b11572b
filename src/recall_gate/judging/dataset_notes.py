"""What the judge says of a dataset before it scores it: queries copied into
cards and near-duplicate cards (:mod:`recall_gate.core.leakage`), and case
languages no card is written in."""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.console import Console
from recall_gate.core.integrity import languages_without_cards
from recall_gate.core.language import nearest_language
from recall_gate.core.leakage import (
    DUPLICATE_JACCARD,
    LEAK_CONTAINMENT,
    NGRAM,
    find_leaks,
    find_near_duplicates,
)
from recall_gate.core.records import (
    Card,
    Case,
)
from recall_gate.errors import GateFailure


def report_leakage(
    cards: Sequence[Card], cases: Sequence[tuple[str, Case]], console: Console, *, strict: bool
) -> None:
    """Queries copied into cards and near-duplicate cards: warnings, or with
    ``strict`` a failed check (see :mod:`recall_gate.core.leakage`)."""
    leaks = find_leaks(cards, cases)
    twins = find_near_duplicates(cards)
    level = "error" if strict else "warning"
    if leaks:
        console.stderr.write(
            f"recall-gate check: {level}: {len(leaks)} case(s) whose query is copied into a "
            f"card (≥ {LEAK_CONTAINMENT:.0%} of its {NGRAM}-word sequences): they measure "
            "string matching, not retrieval\n"
        )
        console.stderr.writelines(f"  {leak}\n" for leak in leaks)
    if twins:
        console.stderr.write(
            f"recall-gate check: {level}: {len(twins)} pair(s) of near-duplicate cards "
            f"(≥ {DUPLICATE_JACCARD:.0%} of their {NGRAM}-word sequences shared)\n"
        )
        console.stderr.writelines(f"  {pair}\n" for pair in twins)
    if strict and (leaks or twins):
        raise GateFailure(
            f"--strict: {len(leaks)} leaked case(s), {len(twins)} near-duplicate card pair(s)",
            fix="rewrite the leaked queries in a user's words (or drop the copied text from the "
            "card), and merge or tell apart the near-duplicate cards",
        )


def warn_case_languages(cards: Sequence[Card], cases: Sequence[Case], console: Console) -> None:
    """A case language no card is written in: say so, and name the nearest card
    language (``pt-BR`` cases, ``pt`` cards) — a label mismatch more often than not."""
    card_languages = sorted({card.language for card in cards})
    for language, n in languages_without_cards(cards, cases).items():
        nearest = nearest_language(language, card_languages)
        plural = "s" if n != 1 else ""
        if nearest is not None:
            console.stderr.write(
                f"recall-gate: warning: {n} {language} case{plural}, no {language} card: the "
                f"nearest is {nearest} ({language} cases, {nearest} cards). If they are one "
                f"language, label them alike: `language:` in the cards' front matter, a "
                f"`languages:` folder map in recall-gate.yaml, or the cases' `language`\n"
            )
        else:
            console.stderr.write(
                f"recall-gate: warning: {n} {language} case{plural}, and no card in {language} "
                f"or a related language (the cards are in {', '.join(card_languages)}): "
                "cross-language retrieval, or a mislabelled case?\n"
            )


def warn_languages_without_cards(
    cards: Sequence[Card], cases: Sequence[Case], console: Console
) -> None:
    missing = languages_without_cards(cards, cases)
    if missing:
        total = sum(missing.values())
        listed = ", ".join(
            f"{lang} ({n} case{'s' if n != 1 else ''})" for lang, n in missing.items()
        )
        console.stderr.write(
            f"recall-gate: warning: retrieval.same_language is on but no card is in {listed}: "
            f"those {total} case(s) search no card and score as misses "
            "(add cards in that language, fix the case's language, or turn same_language off)\n"
        )
