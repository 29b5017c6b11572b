"""A synthetic query log with known truth, for the traffic diff's tests.

5,000 queries in three languages (en 60 %, es-419 25 %, pt-BR 15 %), traffic
skewed like real logs (Zipf weights: a few head queries carry most of it), each
with a base top-10 of its language's cards. Two planted pull requests:

- :func:`permute_tail`: ranks 6–10 of every query reversed (top 5 untouched);
- :func:`rechunk`: in each language, queries drawn in a seeded order get one of
  their top-5 cards replaced by a re-chunked card id until the weighted share
  of that language's traffic so changed reaches its target; the function
  returns the exact share planted (the truth the diff must find).

Generated, not recorded: no real queries, no personal data.
"""

from __future__ import annotations

import random

from recall_gate.core.logged_query import LoggedQuery

__all__ = ["LANGUAGE_MIX", "base_rankings", "permute_tail", "query_log", "rechunk"]

LANGUAGE_MIX = {"en": 0.60, "es-419": 0.25, "pt-BR": 0.15}
CARDS_PER_LANGUAGE = 400


def query_log(n: int = 5_000, *, seed: int = 28) -> list[LoggedQuery]:
    rng = random.Random(seed)
    languages = list(LANGUAGE_MIX)
    weights = list(LANGUAGE_MIX.values())
    return [
        LoggedQuery(
            id=f"q{i:05d}",
            query=f"synthetic query {i}",
            language=rng.choices(languages, weights)[0],
            # Zipf over the log's order: q00000 is asked most.
            weight=max(1, round(20_000 / (i + 1) ** 1.1)),
        )
        for i in range(n)
    ]


def base_rankings(queries: list[LoggedQuery], *, seed: int = 28) -> dict[str, list[str]]:
    rng = random.Random(seed + 1)
    cards = {
        language: [f"{language}-card-{i:04d}" for i in range(CARDS_PER_LANGUAGE)]
        for language in LANGUAGE_MIX
    }
    return {q.id: rng.sample(cards[q.group], 10) for q in queries}


def permute_tail(rankings: dict[str, list[str]]) -> dict[str, list[str]]:
    return {qid: [*cards[:5], *reversed(cards[5:10])] for qid, cards in rankings.items()}


def rechunk(
    queries: list[LoggedQuery],
    rankings: dict[str, list[str]],
    *,
    targets: dict[str, float],
    seed: int = 28,
) -> tuple[dict[str, list[str]], dict[str, float]]:
    """The rankings after the planted churn, and the weighted moved share planted
    in each language (what was changed, computed from the planting itself)."""
    rng = random.Random(seed + 2)
    order = list(queries)
    rng.shuffle(order)
    changed = {qid: list(cards) for qid, cards in rankings.items()}
    total = dict.fromkeys(LANGUAGE_MIX, 0.0)
    for q in queries:
        total[q.group] += q.weight
    planted = dict.fromkeys(LANGUAGE_MIX, 0.0)
    for q in order:
        language = q.group
        if (planted[language] + q.weight) / total[language] > targets[language]:
            continue
        rank = rng.randrange(5)
        changed[q.id][rank] = f"{changed[q.id][rank]}#rechunked"
        planted[language] += q.weight
    return changed, {language: planted[language] / total[language] for language in planted}
