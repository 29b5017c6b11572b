"""Stable content fingerprints: a baseline made on other data is stale."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from typing import Any

from recall_gate.core.records import Card, CaseLabel

__all__ = ["fingerprint_cards", "fingerprint_cases", "fingerprint_settings"]


def _digest(payload: Any) -> str:
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


def fingerprint_cases(cases: Iterable[CaseLabel]) -> str:
    """Of every field of the records given: `run` passes whole cases, so a query
    edit makes a baseline stale; `score` has only labels (id, groups, gold)."""
    return _digest(sorted((c.model_dump(mode="json") for c in cases), key=lambda d: d["id"]))


def fingerprint_cards(cards: Iterable[Card]) -> str:
    return _digest(sorted((c.model_dump(mode="json") for c in cards), key=lambda d: d["id"]))


def fingerprint_settings(settings: Mapping[str, Any]) -> str:
    return _digest(dict(settings))
