"""The labelling queue as a cases file (adapter: text): each queued logged query
as a ready-to-label case, its cards before → after as comments.

Each case is written as ``case_type: capability`` with empty gold, so the file
is a valid cases file as it is (``recall-gate check`` accepts it); a reviewer
labels one by setting ``case_type: golden`` and ``must_cite_one_of`` to the
right card ids (the comments list the candidates). Strings are written as JSON
strings, which YAML reads as they are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from recall_gate.core.label_queue import QueueEntry
from recall_gate.core.logged_query import UNDETERMINED
from recall_gate.core.rank_overlap import DEFAULT_PERSISTENCE

__all__ = ["CASE_ID_PREFIX", "render_queue"]

CASE_ID_PREFIX = "queue-"


def _comment(text: str) -> str:
    return " ".join(text.split())  # one line: a newline would end the comment


def _cards(label: str, cards: Sequence[str], titles: Mapping[str, str]) -> list[str]:
    lines = [f"  #   {label}:"]
    for rank, card in enumerate(cards, start=1):
        title = f" — {_comment(titles[card])}" if card in titles else ""
        lines.append(f"  #     {rank}. {_comment(card)}{title}")
    return lines


def render_queue(
    entries: Sequence[QueueEntry],
    *,
    titles: Mapping[str, str],
    source: str,
    p: float = DEFAULT_PERSISTENCE,
) -> str:
    """The cases file's text (``p``: the RBO persistence the entries were ranked at)."""
    lines = [
        f"# Logged queries to label next, from {_comment(source)}: weight × (1 − RBO) × unjudged"
        f" (RBO_ext, p = {p:g}).",
        "# To label one: set case_type: golden and must_cite_one_of to the card id(s) that",
        "# answer it (the candidates are listed), then move it into your cases.",
        "cases:",
    ]
    for entry in entries:
        q = entry.query
        lines.append(
            f"  # weight {q.weight:g}, RBO {entry.rbo:.3f}, "
            f"{entry.unjudged * 100:.0f} % of its cards unjudged"
        )
        lines += _cards("before (base)", entry.before, titles)
        lines += _cards("after (this revision)", entry.after, titles)
        lines += [
            f"  - id: {json.dumps(CASE_ID_PREFIX + q.id, ensure_ascii=False)}",
            f"    language: {json.dumps(q.language or UNDETERMINED)}",
            "    case_type: capability",
            f"    query: {json.dumps(q.query, ensure_ascii=False)}",
            "    must_cite_one_of: []",
        ]
    return "\n".join(lines) + "\n"
