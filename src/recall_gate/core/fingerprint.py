"""Stable content fingerprints: a baseline made on other data is stale.

``run`` and ``score`` compute each fingerprint from the same fields, so a
capture scored later matches the baseline its run made (and a real change
shows up whichever path made either side).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from recall_gate.core.records import Card, CaseLabel

__all__ = ["fingerprint_cards", "fingerprint_cases", "fingerprint_queries", "fingerprint_settings"]


def _digest(payload: Any) -> str:
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def fingerprint_cases(cases: Iterable[CaseLabel]) -> str:
    """Of the case labels: id, language, case type, gold and relevance set.

    Only the label fields, even when whole cases are given, so that ``run``
    (which has the cases) and ``score`` (which may have only the labels a
    capture carries) agree. Gold and relevance sets are sets: their order in a
    file does not count. Queries have their own :func:`fingerprint_queries`.
    """
    labels = [
        {
            "id": c.id,
            "language": c.language,
            "case_type": c.case_type,
            "must_cite_one_of": sorted(c.must_cite_one_of),
            "relevant_ids": None if c.relevant_ids is None else sorted(c.relevant_ids),
        }
        for c in cases
    ]
    return _digest(sorted(labels, key=lambda d: d["id"]))


def fingerprint_queries(queries: Iterable[tuple[str, str]]) -> str:
    """Of each case's query, as ``(case id, query)``: an edited query makes a baseline stale."""
    return _digest(sorted(queries))


def fingerprint_cards(cards: Iterable[Card]) -> str:
    return _digest(sorted((c.model_dump(mode="json") for c in cards), key=lambda d: d["id"]))


def fingerprint_settings(settings: Mapping[str, Any]) -> str:
    return _digest(dict(settings))
