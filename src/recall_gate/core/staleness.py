"""What differs between the settings of a baseline and of this run, in words (pure).

A fingerprint says *that* something changed; a reviewer needs *what*. Runs
record their retrieval settings as a flat mapping (``chunking.max_chars: 500``)
next to the fingerprints (:attr:`Provenance.settings`), so a stale baseline
can be described as "chunk size (characters) 500 → 120" instead of two hashes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "SettingChange",
    "SettingValue",
    "describe_embedder",
    "diff_settings",
    "flatten_settings",
    "setting_label",
]

SettingValue = str | int | float | bool | None

# The names a reviewer knows a setting by; any other key is shown as it is.
_LABELS: Mapping[str, str] = {
    "k": "k",
    "embedder.model": "embedder",
    "embedder.normalize": "embedding normalisation",
    "embedder.query_prefix": "query prefix",
    "embedder.document_prefix": "document prefix",
    "chunking.max_chars": "chunk size (characters)",
    "chunking.overlap_chars": "chunk overlap (characters)",
    "chunking.title": "chunk title",
    "retrieval.mode": "retrieval mode",
    "retrieval.candidates": "candidates per query",
    "retrieval.same_language": "same-language search",
    "retrieval.hybrid.dense_weight": "hybrid dense weight",
    "retrieval.hybrid.bm25_weight": "hybrid BM25 weight",
    "retrieval.hybrid.rrf_k": "hybrid RRF k",
    "reranker.enabled": "reranker",
    "reranker.model": "reranker model",
    "reranker.candidates": "reranker candidates",
    "reranker.batch_size": "reranker batch size",
    "ef_search": "HNSW search breadth (ef_search)",
    "kb.cards": "knowledge-base cards",
    "retriever.label": "retriever label",
    "retriever.adapter": "retriever adapter",
    "retriever.class": "retriever class",
}


@dataclass(frozen=True, kw_only=True)
class SettingChange:
    """One recorded setting that differs; ``None`` = not set on that side."""

    setting: str
    label: str
    baseline: str | None
    current: str | None


def flatten_settings(payload: Mapping[str, Any], *, prefix: str = "") -> dict[str, SettingValue]:
    """Nested settings as ``section.key: value`` (lists become comma-separated text)."""
    out: dict[str, SettingValue] = {}
    for key, value in payload.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_settings(value, prefix=f"{name}."))
        elif isinstance(value, list | tuple):
            out[name] = ", ".join(str(v) for v in value)
        elif value is None or isinstance(value, str | int | float | bool):
            out[name] = value
        else:
            out[name] = str(value)
    return out


def setting_label(setting: str) -> str:
    if setting.startswith("retriever.params."):
        return f"retriever {setting.removeprefix('retriever.params.')}"
    return _LABELS.get(setting, setting)


def _shown(value: SettingValue) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return "on" if value else "off"
    if value == "":
        return "(empty)"
    text = str(value)
    # A prefix such as "query: " differs from "query:" only by its space.
    return f'"{text}"' if text != text.strip() else text


def diff_settings(
    baseline: Mapping[str, SettingValue], current: Mapping[str, SettingValue]
) -> tuple[SettingChange, ...]:
    """Every setting whose value differs, in the order of :data:`_LABELS`, then by name."""
    keys = [k for k in baseline.keys() | current.keys() if baseline.get(k) != current.get(k)]
    order = {key: i for i, key in enumerate(_LABELS)}
    keys.sort(key=lambda k: (order.get(k, len(order)), k))
    return tuple(
        SettingChange(
            setting=k,
            label=setting_label(k),
            baseline=_shown(baseline.get(k)),
            current=_shown(current.get(k)),
        )
        for k in keys
    )


def describe_embedder(baseline: str, current: str) -> tuple[str, str]:
    """Embedder ids are ``name@sha256:…``: show the names when they differ, the
    whole ids when only the weights do."""
    old, new = baseline.split("@", 1)[0], current.split("@", 1)[0]
    return (old, new) if old != new else (baseline, current)
