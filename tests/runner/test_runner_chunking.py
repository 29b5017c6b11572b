"""Chunking: paragraph-aware packing, title placement, overlap, deterministic ids."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from recall_gate.adapters.config import ChunkingSettings
from recall_gate.core.records import Card
from recall_gate.runner.chunking import chunk_card, chunk_cards, chunk_id

TITLE = "Parking"


def card(body: str, card_id: str = "en-parking", title: str = TITLE) -> Card:
    return Card(id=card_id, language="en", title=title, body=body)


def bodies(chunks: list[str], title: str = TITLE) -> list[str]:
    prefix = f"{title}\n\n"
    return [c.removeprefix(prefix) for c in chunks]


def para(letter: str, n: int) -> str:
    """A paragraph of exactly n characters: words of 9 letters and a space."""
    words = (n + 1) // 10
    text = " ".join([letter * 9] * words)
    return text + letter * (n - len(text))


def test_short_card_is_one_chunk_with_the_title() -> None:
    chunks = chunk_card(card("Level B is free."), ChunkingSettings())
    assert [(c.id, c.parent_id, c.text) for c in chunks] == [
        ("en-parking#1", "en-parking", "Parking\n\nLevel B is free.")
    ]


def test_chunk_ids_count_from_one() -> None:
    assert chunk_id("en-a", 1) == "en-a#1"


def test_paragraphs_are_packed_greedily_up_to_max_chars() -> None:
    # Paragraph lengths 250, 250, 250, 400 with max 600 (separator "\n\n" = 2):
    # 250 + 2 + 250 = 502 ≤ 600 → chunk 1 = p1 + p2; + 2 + 250 = 754 > 600 → new chunk;
    # p3 + 2 + p4 = 652 > 600 → p3 alone, then p4 alone.
    p1, p2, p3, p4 = para("a", 250), para("b", 250), para("c", 250), para("d", 400)
    body = "\n\n".join([p1, p2, p3, p4])
    chunks = chunk_card(card(body), ChunkingSettings(max_chars=600))
    assert bodies([c.text for c in chunks]) == [f"{p1}\n\n{p2}", p3, p4]
    assert [c.id for c in chunks] == ["en-parking#1", "en-parking#2", "en-parking#3"]


def test_max_chars_bounds_the_body_and_the_title_comes_on_top() -> None:
    body = "\n\n".join(para(ch, 300) for ch in "abcd")
    chunks = chunk_card(card(body, title="T" * 80), ChunkingSettings(max_chars=300))
    assert all(len(b) <= 300 for b in bodies([c.text for c in chunks], title="T" * 80))
    assert all(c.text.startswith("T" * 80 + "\n\n") for c in chunks)


def test_a_long_paragraph_splits_at_sentence_ends_not_abbreviations() -> None:
    sentence = "Open 7:30 a.m. to 6:00 p.m. on weekdays at every site we run. "
    body = (sentence * 8).strip()  # one paragraph of 8 sentences, 61 chars each
    chunks = chunk_card(card(body), ChunkingSettings(max_chars=130))
    for text in bodies([c.text for c in chunks]):
        assert len(text) <= 130
        # whole sentences only: "a.m." never ends a chunk
        assert text.startswith("Open 7:30 a.m.")
        assert text.endswith("we run.")


def test_a_bullet_list_splits_at_line_breaks() -> None:
    items = [f"- item {i}: " + "x" * 60 for i in range(6)]
    chunks = chunk_card(card("\n".join(items)), ChunkingSettings(max_chars=150))
    assert bodies([c.text for c in chunks]) == [
        "\n".join(items[0:2]),
        "\n".join(items[2:4]),
        "\n".join(items[4:6]),
    ]


def test_a_word_longer_than_max_chars_is_cut_hard() -> None:
    chunks = chunk_card(card("z" * 250), ChunkingSettings(max_chars=100))
    assert bodies([c.text for c in chunks]) == ["z" * 100, "z" * 100, "z" * 50]


def test_title_first_puts_the_title_on_the_first_chunk_only() -> None:
    body = "\n\n".join(para(ch, 300) for ch in "abc")
    chunks = chunk_card(card(body), ChunkingSettings(max_chars=300, title="first"))
    assert chunks[0].text == f"{TITLE}\n\n{para('a', 300)}"
    assert [c.text for c in chunks[1:]] == [para("b", 300), para("c", 300)]


def test_overlap_starts_a_chunk_with_the_previous_tail_at_a_word_boundary() -> None:
    p1 = "alpha beta gamma delta epsilon zeta eta theta"  # 46 chars
    p2 = "one two three four five six seven eight nine"  # 44 chars
    chunks = chunk_card(card(f"{p1}\n\n{p2}"), ChunkingSettings(max_chars=100, overlap_chars=12))
    # p1 + 2 + p2 = 92 ≤ 100 → one chunk; no overlap needed.
    assert len(chunks) == 1
    p3 = "ten eleven twelve thirteen fourteen fifteen sixteen"  # 51 chars
    chunks = chunk_card(
        card(f"{p1}\n\n{p2}\n\n{p3}"), ChunkingSettings(max_chars=100, overlap_chars=12)
    )
    # chunk 1 = p1 + p2; its last 12 chars "eight nine" after the cut at a space
    # ("ight nine" would start mid-word): "seven eight nine"[-12:] = "n eight nine" → "eight nine".
    assert bodies([c.text for c in chunks]) == [f"{p1}\n\n{p2}", f"eight nine\n\n{p3}"]


def test_overlap_is_dropped_when_it_would_overflow_the_budget() -> None:
    p1, p2 = para("a", 90), para("b", 95)
    chunks = chunk_card(card(f"{p1}\n\n{p2}"), ChunkingSettings(max_chars=100, overlap_chars=20))
    assert bodies([c.text for c in chunks]) == [p1, p2]


def test_chunk_cards_keeps_card_order_and_is_deterministic() -> None:
    cards = [card("First.", "en-b"), card("Second.", "en-a")]
    once = chunk_cards(cards, ChunkingSettings())
    assert [c.id for c in once] == ["en-b#1", "en-a#1"]
    assert once == chunk_cards(cards, ChunkingSettings())


words = st.text(alphabet="abcdefghij", min_size=1, max_size=30)
sentences = st.lists(words, min_size=1, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
paragraphs = st.lists(sentences, min_size=1, max_size=6).map(" ".join)
card_bodies = st.lists(paragraphs, min_size=1, max_size=8).map("\n\n".join)


@settings(max_examples=200, deadline=None)
@given(body=card_bodies, max_chars=st.integers(min_value=100, max_value=700))
def test_no_text_is_lost_and_no_body_exceeds_max_chars(body: str, max_chars: int) -> None:
    chunks = chunk_card(card(body), ChunkingSettings(max_chars=max_chars))
    texts = bodies([c.text for c in chunks])
    assert all(len(t) <= max_chars for t in texts)
    assert _normalise(" ".join(texts)) == _normalise(body)


def _normalise(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
