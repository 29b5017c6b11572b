"""Stable content fingerprints: a baseline made on other data is stale.

A fingerprint is ``sha256:`` and 16 hex digits of the canonical JSON (sorted
keys, no spaces, UTF-8) of the records sorted by id. :func:`label_text` and
:func:`fingerprint_texts` let a caller that streams its records (the scorer)
compute the same digest without holding the records.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from recall_gate.core.records import Card, CaseLabel

__all__ = [
    "canonical_json",
    "fingerprint_cards",
    "fingerprint_cases",
    "fingerprint_labels",
    "fingerprint_queries",
    "fingerprint_settings",
    "fingerprint_texts",
    "label_text",
]


def canonical_json(payload: Any) -> bytes:
    """Sorted keys, no spaces, non-ASCII kept: ``json.dumps``'s bytes, at orjson's speed."""
    try:
        return orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # lone surrogates, non-str keys: the standard library's text
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return blob.encode("utf-8", errors="surrogatepass")


def _hexdigest(hasher: Any) -> str:
    return "sha256:" + str(hasher.hexdigest())[:16]


def fingerprint_texts(texts: Iterable[bytes]) -> str:
    """The fingerprint of a list whose items' canonical JSON texts are given in order."""
    hasher = hashlib.sha256(b"[")
    separator = b""
    for text in texts:
        hasher.update(separator)
        hasher.update(text)
        separator = b","
    hasher.update(b"]")
    return _hexdigest(hasher)


def label_text(
    case_id: str,
    language: str,
    case_type: str,
    must_cite_one_of: Iterable[str],
    relevant_ids: Iterable[str] | None,
) -> bytes:
    """The canonical JSON of a :class:`CaseLabel` with these fields."""
    return canonical_json(
        {
            "case_type": case_type,
            "id": case_id,
            "language": language,
            "must_cite_one_of": tuple(must_cite_one_of),
            "relevant_ids": None if relevant_ids is None else tuple(relevant_ids),
        }
    )


def _of_records(records: Iterable[Mapping[str, Any]]) -> str:
    return fingerprint_texts(canonical_json(r) for r in sorted(records, key=lambda d: d["id"]))


def fingerprint_cases(cases: Iterable[CaseLabel]) -> str:
    """Of the case labels (id, language, case type, gold, relevance set) alone, even
    when whole cases are given: ``run`` (which has the cases) and ``score`` (which
    may have only the labels a capture carries) must agree. Queries have their own
    :func:`fingerprint_queries`."""
    return fingerprint_labels(cases)


def fingerprint_queries(queries: Iterable[tuple[str, str]]) -> str:
    """Of each case's query, as ``(case id, query)``: an edited query makes a baseline stale."""
    return _of_records({"id": case_id, "query": query} for case_id, query in queries)


def fingerprint_cards(cards: Iterable[Card]) -> str:
    # Metadata (front-matter keys beyond the card's own) does not change what is retrieved.
    return _of_records(c.model_dump(mode="json", exclude={"metadata"}) for c in cards)


def fingerprint_settings(settings: Mapping[str, Any]) -> str:
    hasher = hashlib.sha256(canonical_json(dict(settings)))
    return _hexdigest(hasher)


def fingerprint_labels(cases: Iterable[CaseLabel]) -> str:
    """Of the cases' labels (what ``run`` and ``score`` both fingerprint)."""
    ordered = sorted(cases, key=lambda c: c.id)
    return fingerprint_texts(
        label_text(c.id, c.language, c.case_type, c.must_cite_one_of, c.relevant_ids)
        for c in ordered
    )
