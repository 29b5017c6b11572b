"""Leakage and near-duplicates in an evaluation set (pure).

Two checks that ``recall-gate check`` runs over the KB and the cases:

* **Leakage**: a case whose query is (nearly) copied into a card measures
  string matching, not retrieval. The query's word n-grams (``NGRAM`` = 3
  words, lower-cased, ``\\w+`` words) are looked up in each card's (title and
  body); the *containment* is the share of the query's n-grams found in the
  card. At ``LEAK_CONTAINMENT`` (0.8) or above, the case is named with the
  card. A query shorter than ``NGRAM`` words is not checked: a one- or
  two-word query found in a card is ordinary vocabulary, not a copy.
* **Near-duplicate cards**: two cards whose bodies' word n-gram sets overlap with a
  Jaccard similarity of ``DUPLICATE_JACCARD`` (0.9) or above make gold
  ambiguous (a retriever that returns the twin scores a miss); titles are left
  out, as twins often differ only there ("Refills", "Refills (old)"). N-grams shared
  by more than ``COMMON_NGRAM_CARDS`` cards (boilerplate: footers, headers)
  do not propose pairs; every proposed pair is measured on its full sets.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from recall_gate.core.records import Card, Case

__all__ = [
    "COMMON_NGRAM_CARDS",
    "DUPLICATE_JACCARD",
    "LEAK_CONTAINMENT",
    "NGRAM",
    "DuplicateCards",
    "Leak",
    "find_leaks",
    "find_near_duplicates",
    "word_ngrams",
]

NGRAM = 3
LEAK_CONTAINMENT = 0.8
DUPLICATE_JACCARD = 0.9
COMMON_NGRAM_CARDS = 50

_WORD = re.compile(r"\w+")


def word_ngrams(text: str, n: int = NGRAM) -> frozenset[tuple[str, ...]]:
    """The set of ``n``-word sequences of ``text`` (lower-cased ``\\w+`` words)."""
    words = _WORD.findall(text.casefold())
    return frozenset(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def _card_text(card: Card) -> str:
    return f"{card.title}\n{card.body}"


@dataclass(frozen=True, kw_only=True)
class Leak:
    """A case whose query is found in a card."""

    where: str
    case_id: str
    card_id: str
    containment: float  # share of the query's n-grams found in the card

    def __str__(self) -> str:
        return (
            f"{self.where}: the query of case {self.case_id!r} is copied into card "
            f"{self.card_id!r} ({self.containment:.0%} of its {NGRAM}-word sequences)"
        )


@dataclass(frozen=True, kw_only=True)
class DuplicateCards:
    """Two cards whose texts are nearly the same."""

    first: str
    second: str
    jaccard: float

    def __str__(self) -> str:
        return (
            f"cards {self.first!r} and {self.second!r} are near-duplicates "
            f"({self.jaccard:.0%} of their {NGRAM}-word sequences shared): gold that names "
            "one scores the other as a miss"
        )


def find_leaks(
    cards: Sequence[Card],
    cases: Sequence[tuple[str, Case]],
    *,
    threshold: float = LEAK_CONTAINMENT,
) -> list[Leak]:
    """Every case whose query's n-gram containment in some card reaches ``threshold``
    (the card with the highest containment is named; ties: the first card)."""
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, card in enumerate(cards):
        for gram in word_ngrams(_card_text(card)):
            index[gram].append(i)
    leaks = []
    for where, case in cases:
        grams = word_ngrams(case.query)
        if not grams:
            continue
        found: Counter[int] = Counter()
        for gram in grams:
            found.update(index.get(gram, ()))
        if not found:
            continue
        best, count = min(found.items(), key=lambda item: (-item[1], item[0]))
        share = count / len(grams)
        if share >= threshold:
            leaks.append(
                Leak(where=where, case_id=case.id, card_id=cards[best].id, containment=share)
            )
    return leaks


def find_near_duplicates(
    cards: Sequence[Card], *, threshold: float = DUPLICATE_JACCARD
) -> list[DuplicateCards]:
    """Every pair of cards whose n-gram Jaccard similarity reaches ``threshold``,
    but a page and its translation (one card id in two languages: gold that
    names the id names both, so neither scores the other as a miss)."""
    grams = [word_ngrams(card.body) for card in cards]
    index: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for i, card_grams in enumerate(grams):
        for gram in card_grams:
            index[gram].append(i)
    pairs: set[tuple[int, int]] = set()
    for holders in index.values():
        if 1 < len(holders) <= COMMON_NGRAM_CARDS:
            pairs.update((a, b) for n, a in enumerate(holders) for b in holders[n + 1 :])
    found = []
    for a, b in sorted(pairs):
        if cards[a].id == cards[b].id:
            continue
        union = len(grams[a] | grams[b])
        jaccard = len(grams[a] & grams[b]) / union if union else 0.0
        if jaccard >= threshold:
            first, second = sorted((cards[a].id, cards[b].id))
            found.append(DuplicateCards(first=first, second=second, jaccard=jaccard))
    return sorted(found, key=lambda pair: (pair.first, pair.second))
