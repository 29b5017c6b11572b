"""Cards → chunks: paragraph-aware packing (pure).

Why this shape:

* **Paragraphs are the unit.** A card's author already grouped one idea per
  paragraph (or per bullet list); packing whole paragraphs greedily up to
  ``max_chars`` keeps a chunk about one thing. Only a paragraph longer than
  ``max_chars`` is split: at line breaks, then sentence ends, then spaces, and a
  single unbroken token longer than the budget is cut hard.
* **The title on every chunk** (``title: every``, the default): a chunk deep in
  a card ("Cancel at least 24 hours ahead…") rarely names its subject; the
  title line gives each chunk the card's topic, for both the dense and the
  BM25 side. ``title: first`` keeps it on the first chunk only.
  ``max_chars`` bounds the body; the title is added on top, so chunk sizes do
  not depend on title length.
* **Optional overlap** (``overlap_chars``): a new chunk starts with the tail of
  the previous one, cut at a word boundary, when it fits the budget beside the
  next paragraph; otherwise that chunk goes without it (no chunk ever exceeds
  ``max_chars`` of body).
* **Deterministic ids** ``<card-id>#<n>`` (``n`` from 1, in body order): the
  same card and settings always give the same ids and texts, which is what
  lets a persistent store be diffed card by card.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from recall_gate.adapters.config import ChunkingSettings
from recall_gate.core.records import Card, Chunk

__all__ = ["chunk_card", "chunk_cards", "chunk_id"]

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# A sentence ends at . ! ? … followed by space and an upper-case letter, a
# digit or an opening mark, so "7:30 a.m. to 6:00" stays one sentence.
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'“«¿¡(\[]?[A-ZÀ-ÖØ-Þ0-9])")
_SPACE = re.compile(r"\s+")

_PARAGRAPH_SEP = "\n\n"


class _Piece(NamedTuple):
    """A packable piece of body text and how it joins the piece before it."""

    text: str
    sep: str


def chunk_id(card_id: str, n: int) -> str:
    """The id of a card's ``n``-th chunk (1-based)."""
    return f"{card_id}#{n}"


def _hard_split(text: str, limit: int) -> Iterator[str]:
    """Words packed up to ``limit``; a word longer than ``limit`` is cut."""
    line = ""
    for token in _SPACE.split(text):
        word = token
        while len(word) > limit:
            if line:
                yield line
                line = ""
            yield word[:limit]
            word = word[limit:]
        if not word:
            continue
        if line and len(line) + 1 + len(word) > limit:
            yield line
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        yield line


def _split(text: str, limit: int, sep: str) -> Iterator[_Piece]:
    """``text`` as pieces of at most ``limit`` characters, coarsest split first."""
    if len(text) <= limit:
        yield _Piece(text, sep)
        return
    levels: list[tuple[re.Pattern[str] | None, str]] = [
        (re.compile(r"\n"), "\n"),
        (_SENTENCE_END, " "),
        (None, " "),
    ]
    for pattern, inner_sep in levels:
        if pattern is None:
            parts = list(_hard_split(text, limit))
        else:
            parts = [p.strip() for p in pattern.split(text) if p.strip()]
            if len(parts) < 2:
                continue
        for i, part in enumerate(parts):
            yield from _split(part, limit, sep if i == 0 else inner_sep)
        return


def _pieces(body: str, limit: int) -> Iterator[_Piece]:
    for raw in _PARAGRAPH_BREAK.split(body):
        paragraph = raw.strip()
        if paragraph:
            yield from _split(paragraph, limit, _PARAGRAPH_SEP)


def _tail(text: str, size: int) -> str:
    """The last ``size`` characters of ``text``, starting at a word boundary."""
    if size <= 0:
        return ""
    if len(text) <= size:
        return text
    cut = text[-size:]
    space = cut.find(" ")
    return cut[space + 1 :].strip() if space >= 0 else ""


def _pack(pieces: Iterable[_Piece], max_chars: int, overlap_chars: int) -> list[str]:
    bodies: list[str] = []
    current = ""
    for piece in pieces:
        if not current:
            current = piece.text
            continue
        joined = current + piece.sep + piece.text
        if len(joined) <= max_chars:
            current = joined
            continue
        bodies.append(current)
        carry = _tail(current, overlap_chars)
        with_carry = carry + piece.sep + piece.text if carry else ""
        current = with_carry if with_carry and len(with_carry) <= max_chars else piece.text
    if current:
        bodies.append(current)
    return bodies


def chunk_card(card: Card, settings: ChunkingSettings) -> list[Chunk]:
    """Split one card into chunks (see the module docstring for the rules)."""
    pieces = _pieces(card.body, settings.max_chars)
    bodies = _pack(pieces, settings.max_chars, settings.overlap_chars)
    if not bodies:
        bodies = [card.body.strip() or card.title]
    title = card.title.strip()
    chunks = []
    for n, body in enumerate(bodies, start=1):
        with_title = settings.title == "every" or n == 1
        text = f"{title}{_PARAGRAPH_SEP}{body}" if with_title else body
        chunks.append(Chunk(id=chunk_id(card.id, n), parent_id=card.id, text=text))
    return chunks


def chunk_cards(cards: Iterable[Card], settings: ChunkingSettings) -> list[Chunk]:
    """Chunks of every card, cards in the given order, each card's in body order."""
    return [chunk for card in cards for chunk in chunk_card(card, settings)]
