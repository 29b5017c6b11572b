"""Dataset integrity (always a gate, docs/decisions/retrieval-recall.md): a
labelling error must not pass for a retrieval failure. Pure: takes located
records, returns every problem found.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.core.records import Card, Case, CaseLabel

__all__ = [
    "Problem",
    "duplicate_cases",
    "find_problems",
    "languages_without_cards",
    "unresolved_gold",
]


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One integrity problem: where it is, what is wrong, and a hint."""

    where: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


def _duplicates(kind: str, located: Sequence[tuple[str, str]]) -> list[Problem]:
    seen: dict[str, list[str]] = defaultdict(list)
    for where, ident in located:
        seen[ident].append(where)
    # Every repeat is listed, not only the second one: a fix must find them all.
    return [
        Problem(
            where=place,
            message=f"duplicate {kind} id {ident!r}",
            hint=f"first defined at {places[0]}; give each {kind} a unique id",
        )
        for ident, places in seen.items()
        for place in places[1:]
    ]


def duplicate_cases(cases: Sequence[tuple[str, CaseLabel]]) -> list[Problem]:
    """Every repeated case id (what scoring needs without a KB at hand)."""
    return _duplicates("case", [(w, c.id) for w, c in cases])


def find_problems(
    *, cards: Sequence[tuple[str, Card]], cases: Sequence[tuple[str, CaseLabel]]
) -> list[Problem]:
    """Every integrity problem: duplicate card or case ids, and gold or
    relevant ids that resolve to no card (with the nearest existing id as a hint).
    Field validity (languages, case types) is enforced when files are loaded."""
    problems = _duplicates("card", [(w, c.id) for w, c in cards])
    problems += duplicate_cases(cases)
    card_ids = frozenset(c.id for _, c in cards)
    for where, case in cases:
        problems += unresolved_gold(
            where,
            case.id,
            must_cite_one_of=case.must_cite_one_of,
            relevant_ids=case.relevant_ids,
            card_ids=card_ids,
        )
    return problems


def unresolved_gold(
    where: str,
    case_id: str,
    *,
    must_cite_one_of: Sequence[str] | None,
    relevant_ids: Sequence[str] | None,
    card_ids: frozenset[str],
) -> list[Problem]:
    """The gold and relevant ids of one case that resolve to no card, each with
    the nearest existing id as a hint."""
    known = card_ids
    problems = []
    for field, ids in (("must_cite_one_of", must_cite_one_of), ("relevant_ids", relevant_ids)):
        for gold_id in ids or ():
            if gold_id in known:
                continue
            near = difflib.get_close_matches(gold_id, sorted(known), n=1, cutoff=0.5)
            problems.append(
                Problem(
                    where=where
                    if where.endswith(f"(id {case_id})")
                    else f"{where} (case {case_id})",
                    message=f"{field} id {gold_id!r} resolves to no card",
                    hint=f"did you mean {near[0]!r}?" if near else "no similar card id",
                )
            )
    return problems


def languages_without_cards(cards: Sequence[Card], cases: Sequence[Case]) -> dict[str, int]:
    """Case languages no card is written in, with how many cases each: under
    ``same_language`` those cases search an empty set and all score as misses."""
    card_languages = {card.language for card in cards}
    missing: dict[str, int] = {}
    for case in cases:
        if case.language not in card_languages:
            missing[case.language] = missing.get(case.language, 0) + 1
    return dict(sorted(missing.items()))
