"""A synthetic retriever for the sharded-capture act test: deterministic card ids
for each invented query (no model, no network)."""

from __future__ import annotations


def search(query: str, k: int) -> list[str]:
    i = int(query.rsplit(" ", 1)[1])
    cards = [f"card-{(i + j) % 5}" for j in range(k)]
    return cards if i % 4 else [cards[1], cards[0], *cards[2:]]
