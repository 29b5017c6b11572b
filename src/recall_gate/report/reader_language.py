"""The report's lines on a translated KB (pure): how often each case language was
answered in its reader's language, and how often from another language's page
(core/card_language.py). Nothing is said of a KB whose ids each have one language."""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.core.comparison_records import ReaderLanguageRecord

__all__ = ["reader_language_notes"]


def _share(record: ReaderLanguageRecord) -> str:
    return "n/a" if record.share is None else f"{record.share:.0%}"


def reader_language_notes(doc: ComparisonDocument, *, comparable: bool) -> list[str]:
    """``Answered in the reader's language: en 100% (3 of 3), zh 0% (0 of 3;
    baseline 100%) …`` and, when some case was, ``Answered from another language:
    zh 1 of 3 scored cases …``; each language once per line. ``comparable``: the
    baseline's own figures are named where they differ."""
    run: Sequence[ReaderLanguageRecord] = doc.run.reader_language
    if not run:
        return []
    before = {r.language: r for r in doc.baseline.reader_language} if comparable else {}
    parts = []
    for record in run:
        then = before.get(record.language)
        baseline = (
            f"; baseline {_share(then)}"
            if then is not None and _share(then) != _share(record)
            else ""
        )
        parts.append(
            f"{record.language} {_share(record)} ({record.in_language} of {record.found}{baseline})"
        )
    notes = [
        f"Answered in the reader's language: {', '.join(parts)}: of the cases whose gold "
        "page is in their top k in some language, the share that found it in their own "
        "(a translation shares its page's id, but not its reader)."
    ]
    other = [r for r in run if r.from_other_language]
    if other:
        counted = ", ".join(
            f"{r.language} {r.from_other_language} of {r.scored} scored case"
            f"{'' if r.scored == 1 else 's'}"
            for r in other
        )
        notes.append(
            f"Answered from another language: {counted}: their language has no page of the "
            "gold id, and another language's page (the one a reader is served) met it."
        )
    return notes
