"""The stale baseline in words (pure): one line per real change since the
baseline was made, settings old → new, never a bare fingerprint."""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.core.comparison_json import ComparisonDocument, SettingChangeRecord, StaleRecord
from recall_gate.core.staleness import describe_embedder
from recall_gate.report import phrases
from recall_gate.report.style import Style, plural

__all__ = [
    "stale_advice",
    "stale_changes",
    "stale_headline",
    "stale_reason_lines",
    "stale_reason_phrases",
]


def _old_new(old: str | None, new: str | None, style: Style) -> str:
    return (
        f"{style.literal(old) if old is not None else 'unset'} → "
        f"{style.literal(new) if new is not None else 'unset'}"
    )


_STALE_NAMES = {"k": "k", "embedder": "embedder", "retrieval_mode": "retrieval mode"}


_STALE_UNRECORDED = {
    "retriever": "the retriever that made the capture changed",
    "dataset": "the cases changed outside their ids and labels (queries or other fields)",
    "kb": "the knowledge base's card texts changed",
    "config": "the retrieval settings changed (the baseline predates recorded settings: "
    "refresh it and later reports name each one)",
}


# What identifies a retriever: when one of these differs, it was swapped.
_RETRIEVER_IDENTITY = ("retriever.adapter", "retriever.class")


def _setting_line(c: SettingChangeRecord, style: Style) -> str:
    return f"{c.label} {_old_new(c.baseline, c.current, style)}"


def _retriever_lines(changes: Sequence[SettingChangeRecord], style: Style) -> list[str]:
    """A retriever swapped for another (another framework or class) is ONE change:
    its label and settings belong to each side, not to a list of "… → unset"."""
    identity = [c for c in changes if c.setting in _RETRIEVER_IDENTITY]
    if not identity:
        return [_setting_line(c, style) for c in changes]
    old = " ".join(style.literal(c.baseline) for c in identity if c.baseline is not None)
    new = " ".join(style.literal(c.current) for c in identity if c.current is not None)
    line = f"retriever {old or 'unset'} → {new or 'unset'}"
    with_it = [c for c in changes if c.setting not in _RETRIEVER_IDENTITY]
    if with_it:
        line += f" (with its own label and settings: {plural(len(with_it), 'difference')})"
    return [line]


def stale_reason_lines(reason: StaleRecord, doc: ComparisonDocument, style: Style) -> list[str]:
    """What differs, in words (settings old → new, never a bare fingerprint), one
    line per real change."""
    c = doc.cases
    if reason.what == "dataset" and phrases.cases_changed(doc):
        return [
            f"cases: {len(c.added)} added, {len(c.removed)} removed, {len(c.relabelled)} relabelled"
        ]
    if reason.what == "queries" and not reason.changes:
        return [f"queries: {doc.run.edited_queries} edited"]
    return stale_reason_phrases(reason, style)


def stale_reason_phrases(reason: StaleRecord, style: Style) -> list[str]:
    """What one stale reason changed, in words, one phrase per real change; the
    case set and the queries, which need both runs' cases, are said by the caller
    (this is the phrase when it cannot tell)."""
    what = reason.what
    if what in _STALE_NAMES:
        old, new = reason.baseline, reason.current
        if what == "embedder":
            old, new = describe_embedder(old, new)
        return [f"{_STALE_NAMES[what]} {_old_new(old, new, style)}"]
    if what == "retriever" and reason.changes:
        return _retriever_lines(reason.changes, style)
    if reason.changes:
        return [_setting_line(change, style) for change in reason.changes]
    if what == "config" and reason.settings_recorded:
        return ["the retrieval config changed in a way no recorded setting names"]
    return [_STALE_UNRECORDED.get(what, f"{what.replace('_', ' ')} changed")]


def stale_changes(doc: ComparisonDocument, style: Style, *, skip_k: bool = False) -> list[str]:
    """Every real change since the baseline was made, one phrase each."""
    return [
        line
        for reason in doc.baseline.stale
        if not (skip_k and reason.what == "k")
        for line in stale_reason_lines(reason, doc, style)
    ]


def stale_headline(count: int) -> str:
    return f"Stale baseline: {plural(count, 'change')} since it was made"


def stale_advice(style: Style) -> str:
    return (
        "The deltas include the effect of these changes. If they are intended, refresh the "
        f"baseline ({style.code('recall-gate baseline update')}, or the update-baseline workflow)."
    )
