"""Seeded synthetic RAG captures for the benchmarks: one artifacts JSONL line per case.

Each line is self-contained (``language``, ``case_type``, ``must_cite_one_of``), so
``recall-gate score --artifacts F`` scores it alone. The shape follows a RAG retriever:

* 10–20 retrieved items; about half of the lines carry chunk items
  ``{"id": "card-…#n", "parent_id": "card-…", "score": …}`` (several chunks of one
  card → duplicate card ids), the other half bare card ids with explicit repeats;
* 1–5 gold cards, planted in the ranking with some probability (so that hit,
  recall and nDCG all take many values), and ``empty_gold`` of the cases with
  ``"must_cite_one_of": []`` (scored by nobody: no gold, no score).

Usage: ``python -m benchmarks.gen_cases --cases 100000 --out /tmp/artifacts.jsonl``.
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Iterator
from pathlib import Path

__all__ = ["generate_lines", "write_artifacts"]

LANGUAGES = ("en", "es-419", "pt-BR")
CASE_TYPES = ("golden", "adversarial", "capability", "no_match")
N_CARDS = 50_000


def _card(rng: random.Random) -> str:
    return f"card-{rng.randrange(N_CARDS):05d}"


def _case(rng: random.Random, index: int, *, empty_gold: float) -> dict[str, object]:
    gold: list[str] = []
    if rng.random() >= empty_gold:
        gold = list(dict.fromkeys(_card(rng) for _ in range(rng.randint(1, 5))))
    n_items = rng.randint(10, 20)
    # Distinct cards in rank order: some gold planted at random ranks, the rest noise.
    cards = [_card(rng) for _ in range(n_items)]
    for g in gold:
        if rng.random() < 0.55:
            cards[rng.randrange(n_items)] = g
    retrieved: list[object]
    if rng.random() < 0.5:
        # Chunks: a card may come back as several chunks (duplicates by parent_id).
        retrieved = []
        score = 1.0
        for i in range(n_items):
            parent = cards[i] if i == 0 or rng.random() >= 0.25 else cards[rng.randrange(i)]
            score -= rng.random() * 0.05
            retrieved.append(
                {
                    "id": f"{parent}#{rng.randrange(8)}",
                    "parent_id": parent,
                    "score": round(score, 4),
                }
            )
    else:
        # Bare card ids with repeats.
        retrieved = [
            cards[i] if i == 0 or rng.random() >= 0.25 else cards[rng.randrange(i)]
            for i in range(n_items)
        ]
    return {
        "case_id": f"case-{index:07d}",
        "retrieved": retrieved,
        "must_cite_one_of": gold,
        "language": rng.choice(LANGUAGES),
        "case_type": "no_match" if not gold else rng.choice(CASE_TYPES[:3]),
    }


def generate_lines(n_cases: int, *, seed: int = 20240601, empty_gold: float = 0.1) -> Iterator[str]:
    """``n_cases`` artifact lines (with their newline), deterministic for a seed."""
    rng = random.Random(seed)
    for index in range(n_cases):
        yield json.dumps(_case(rng, index, empty_gold=empty_gold), separators=(",", ":")) + "\n"


def write_artifacts(
    path: Path, n_cases: int, *, seed: int = 20240601, empty_gold: float = 0.1
) -> Path:
    """Write the artifacts file (buffered, streaming: memory stays flat)."""
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        batch: list[str] = []
        for line in generate_lines(n_cases, seed=seed, empty_gold=empty_gold):
            batch.append(line)
            if len(batch) >= 10_000:
                handle.write("".join(batch))
                batch.clear()
        handle.write("".join(batch))
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gen_cases", description=__doc__)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=20240601)
    parser.add_argument("--empty-gold", type=float, default=0.1)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    write_artifacts(args.out, args.cases, seed=args.seed, empty_gold=args.empty_gold)
    print(f"wrote {args.cases} cases to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
