"""BEIR's query and corpus files (adapter: file I/O).

A BEIR dataset holds ``corpus.jsonl`` (``{"_id", "title", "text",
"metadata"?}`` per line), ``queries.jsonl`` (``{"_id", "text", "metadata"?}``)
and ``qrels/<split>.tsv`` (read by :mod:`recall_gate.adapters.trec`). Queries
become cases together with the qrels; corpus documents become KB cards (id =
``_id``, title = ``title`` or else the id, body = ``text``, language = the
given default), for the built-in runner.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recall_gate.adapters.files import ensure_readable, iter_jsonl_lines
from recall_gate.core.records import Card
from recall_gate.errors import InputError

__all__ = ["is_beir_line", "read_beir_corpus", "read_beir_queries"]

_QUERY_FIX = 'write one {"_id": "...", "text": "..."} object per line (BEIR queries.jsonl)'
_CORPUS_FIX = (
    'write one {"_id": "...", "title": "...", "text": "..."} object per line (BEIR corpus.jsonl)'
)


def is_beir_line(obj: Any) -> bool:
    """A BEIR queries or corpus line: an object with ``_id`` and ``text``."""
    return isinstance(obj, dict) and "_id" in obj and "text" in obj


def _objects(path: Path, *, what: str, fix: str) -> list[tuple[str, dict[str, Any]]]:
    source = str(path)
    ensure_readable(path, what=what)
    out = []
    for number, line in iter_jsonl_lines(path, what=what):
        where = f"{source}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(
                f"{where}: invalid JSON: {exc.msg} (column {exc.colno})", fix=fix
            ) from None
        if not is_beir_line(obj):
            raise InputError(f"{where}: expected an object with `_id` and `text`", fix=fix)
        ident, text = obj["_id"], obj["text"]
        if not isinstance(ident, str | int) or not str(ident).strip():
            raise InputError(f"{where}: `_id` must be a non-empty string", fix=fix)
        if not isinstance(text, str):
            raise InputError(f"{where}: `text` must be a string", fix=fix)
        out.append((where, obj))
    return out


def read_beir_queries(path: Path) -> dict[str, str]:
    """Query id → text; a repeated id is an error naming both lines."""
    queries: dict[str, str] = {}
    lines: dict[str, str] = {}
    for where, obj in _objects(path, what="BEIR queries file", fix=_QUERY_FIX):
        qid = str(obj["_id"])
        if qid in queries:
            raise InputError(
                f"{where}: query {qid!r} is listed twice (first at {lines[qid]})",
                fix="keep one line per query id",
            )
        if not obj["text"].strip():
            raise InputError(f"{where}: query {qid!r} has an empty `text`", fix=_QUERY_FIX)
        queries[qid], lines[qid] = obj["text"], where
    return queries


def read_beir_corpus(path: Path, *, language: str) -> list[tuple[str, Card]]:
    """KB cards of a BEIR corpus, with the line each came from."""
    cards = []
    for where, obj in _objects(path, what="BEIR corpus", fix=_CORPUS_FIX):
        ident = str(obj["_id"])
        title = obj.get("title")
        text = obj["text"].strip() or (title or "").strip()
        if not text:
            raise InputError(
                f"{where}: document {ident!r} has no text and no title", fix=_CORPUS_FIX
            )
        cards.append(
            (
                where,
                Card(
                    id=ident,
                    language=language,
                    title=title.strip() if isinstance(title, str) and title.strip() else ident,
                    body=text,
                ),
            )
        )
    return cards
