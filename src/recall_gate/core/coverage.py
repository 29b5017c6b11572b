"""KB coverage (pure): which cards some labelled case cites, and which some
case retrieves (a card in no case's top k is "never retrieved").

A card is *covered* when at least one case names it as gold
(``must_cite_one_of``) or as relevant (``relevant_ids``): a change to a card no
case cites cannot move any metric, so an uncovered card is a blind spot of the
gate, not a card that retrieves well. Coverage is counted overall and per card
language (the card's, not the case's: a Spanish card cited by an English case
is covered).

A card is (language, id) (core/card_language.py): where the KB holds an id in
several languages, a case cites the card of its own language, and another
language's only where its own has none of that id (the page its reader is
served instead). Likewise a case retrieves the card its ranking names: its own
language's for an id, another language's where its ranking says so
(``introduction@en``) or where its language has no card of that id.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass

from recall_gate.core.card_language import in_another_language
from recall_gate.core.records import Card, CaseLabel, CoverageCount, KbCoverageCounts

__all__ = [
    "KbCoverage",
    "card_name",
    "cited_cards",
    "cited_ids",
    "kb_coverage",
    "kb_retrieved",
    "languages_held",
    "render_coverage",
    "render_never_retrieved",
    "retrieved_cards",
]


@dataclass(frozen=True, kw_only=True)
class KbCoverage:
    """The cases citing each card (in case order), and the shares they make."""

    # every card, (language, id), in KB order
    citing: Mapping[tuple[str, str], tuple[str, ...]]
    overall: CoverageCount
    by_language: Mapping[str, CoverageCount]  # sorted by tag
    # the ids the KB holds in two or more languages
    translated: frozenset[str] = frozenset()

    def cases_citing(self, card: Card) -> tuple[str, ...]:
        """The cases citing ``card``, in case order."""
        return self.citing.get((card.language, card.id), ())

    @property
    def counts(self) -> KbCoverageCounts:
        """The shares alone, as results files keep them."""
        return KbCoverageCounts(overall=self.overall, by_language=dict(self.by_language))

    @property
    def uncovered(self) -> tuple[str, ...]:
        """The cards no case cites, in KB order: each by its id, a translated one as
        ``id@language`` (:func:`card_name`)."""
        return tuple(
            card_name(ident, language, self.translated)
            for (language, ident), cases in self.citing.items()
            if not cases
        )


def card_name(card_id: str, language: str, translated: Set[str]) -> str:
    """A card named alone: its id, or ``id@language`` for an id the KB holds in
    several languages."""
    return in_another_language(card_id, language) if card_id in translated else card_id


def languages_held(cards: Iterable[Card]) -> dict[str, frozenset[str]]:
    """Card id → the languages the KB holds it in."""
    held: dict[str, set[str]] = {}
    for card in cards:
        held.setdefault(card.id, set()).add(card.language)
    return {ident: frozenset(languages) for ident, languages in held.items()}


def _cards_of(
    card_id: str, language: str | None, held: Mapping[str, frozenset[str]]
) -> Iterator[tuple[str, str]]:
    """The cards an id names for a reader of ``language`` (None: any language's)."""
    languages = held.get(card_id)
    if not languages:
        return
    if language in languages:
        yield language, card_id
    else:
        for other in sorted(languages):
            yield other, card_id


def cited_ids(case: CaseLabel) -> tuple[str, ...]:
    """The card ids a case cites: its gold, then its relevant ids, each once."""
    return tuple(dict.fromkeys((*case.must_cite_one_of, *(case.relevant_ids or ()))))


def cited_cards(case: CaseLabel, held: Mapping[str, frozenset[str]]) -> tuple[tuple[str, str], ...]:
    """The cards, (language, id), a case cites: of each cited id, the card in the
    case's language, else (none in it) the id's cards in the other languages."""
    return tuple(
        card for card_id in cited_ids(case) for card in _cards_of(card_id, case.language, held)
    )


def kb_coverage(cards: Sequence[Card], cases: Sequence[CaseLabel]) -> KbCoverage:
    """Which cases cite each card, and the covered share overall and per language.
    Ids no card has (an integrity problem, reported by the check) count nowhere."""
    citing: dict[tuple[str, str], list[str]] = {(card.language, card.id): [] for card in cards}
    held = languages_held(cards)
    for case in cases:
        for card in cited_cards(case, held):
            citing[card].append(case.id)
    counts: dict[str, list[int]] = {}
    for (language, _), citing_cases in citing.items():
        tally = counts.setdefault(language, [0, 0])
        tally[0] += bool(citing_cases)
        tally[1] += 1
    covered = sum(1 for ids in citing.values() if ids)
    return KbCoverage(
        citing={card: tuple(ids) for card, ids in citing.items()},
        overall=CoverageCount(covered=covered, cards=len(citing)),
        by_language={
            lang: CoverageCount(covered=c, cards=t) for lang, (c, t) in sorted(counts.items())
        },
        translated=frozenset(ident for ident, languages in held.items() if len(languages) > 1),
    )


def _share(part: CoverageCount) -> str:
    share = part.share
    return "n/a" if share is None else f"{share:.1%}"


def render_coverage(coverage: KbCoverage | KbCoverageCounts) -> str:
    """One line: ``KB coverage: 3 of 4 cards (75.0%) cited by a case — en 2/2 (100.0%), …``."""
    overall = coverage.overall
    line = (
        f"KB coverage: {overall.covered} of {overall.cards} "
        f"card{'' if overall.cards == 1 else 's'} ({_share(overall)}) cited by a case"
    )
    if len(coverage.by_language) > 1:
        line += " — " + ", ".join(
            f"{lang} {part.covered}/{part.cards} ({_share(part)})"
            for lang, part in coverage.by_language.items()
        )
    return line


def retrieved_cards(
    cards: Iterable[Card], ranked: Mapping[str | None, Set[str]]
) -> set[tuple[str, str]]:
    """The cards, (language, id), that rankings name: ``ranked`` maps a reader's
    language (None: unknown, e.g. logged queries) to the ids its rankings hold,
    another language's card of an id its language has written ``id@language``."""
    held = languages_held(cards)
    found: set[tuple[str, str]] = set()
    for language, ids in ranked.items():
        for entry in ids:
            if entry not in held:
                card_id, at, other = entry.rpartition("@")
                if at and other in held.get(card_id, ()):
                    found.add((other, card_id))
                continue
            found.update(_cards_of(entry, language, held))
    return found


def kb_retrieved(
    cards: Sequence[Card],
    retrieved: Set[str] | Set[tuple[str, str]],
    *,
    logged_queries: int | None = None,
) -> KbCoverageCounts:
    """How many cards some case's top k holds (``covered``), overall and per card
    language: the rest are never retrieved by any labelled case, the early sign
    of an index that lost a section when it grows against the baseline.
    ``retrieved``: the cards, (language, id) (:func:`retrieved_cards`), or ids of
    any language. ``logged_queries``: ``retrieved`` also holds the top k of that
    many logged queries (a card real traffic retrieves is not "never retrieved")."""
    counts: dict[str, list[int]] = {}
    for card in cards:
        tally = counts.setdefault(card.language, [0, 0])
        tally[0] += card.id in retrieved or (card.language, card.id) in retrieved
        tally[1] += 1
    return KbCoverageCounts(
        overall=CoverageCount(
            covered=sum(c for c, _ in counts.values()), cards=sum(t for _, t in counts.values())
        ),
        by_language={
            lang: CoverageCount(covered=c, cards=t) for lang, (c, t) in sorted(counts.items())
        },
        logged_queries=logged_queries,
    )


def _by_whom(counts: KbCoverageCounts, k: int) -> str:
    queries = counts.logged_queries
    if queries is None:
        return f"in no case's top {k}"
    return (
        f"in the top {k} of no case and no logged query "
        f"({queries:,} quer{'y' if queries == 1 else 'ies'})"
    )


def render_never_retrieved(
    retrieved: KbCoverageCounts, *, k: int, baseline: KbCoverageCounts | None = None
) -> str:
    """``Never retrieved: 2 of 32 cards (6.2%) are in no case's top 5 — de 1/12, en 1/20
    (baseline: 0 of 31)``; with logged queries counted, ``in the top 5 of no case
    and no logged query (1,204 queries)``."""
    overall = retrieved.overall
    never = overall.cards - overall.covered
    line = (
        f"Never retrieved: {never} of {overall.cards} card{'' if overall.cards == 1 else 's'} "
        f"({never / overall.cards if overall.cards else 0:.1%}) {_by_whom(retrieved, k)}"
    )
    if len(retrieved.by_language) > 1:
        line += " — " + ", ".join(
            f"{lang} {part.cards - part.covered}/{part.cards}"
            for lang, part in retrieved.by_language.items()
        )
    if baseline is not None:
        then = baseline.overall
        line += f" (baseline: {then.cards - then.covered} of {then.cards}"
        if (baseline.logged_queries is None) != (retrieved.logged_queries is None):
            # Counted another way: said, so a jump is not read as an index change.
            line += (
                ", with logged queries"
                if baseline.logged_queries is not None
                else ", without logged queries"
            )
        line += ")"
    return line
