"""The KB as ``recall-gate cards`` lists it: its cards per language and folder, and
the ``--json`` document (every card with where it came from and the URLs its site
publishes, the pages skipped; with KB coverage, the cases citing each card)."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import PurePosixPath
from typing import Any

from recall_gate.adapters.knowledge_base import Kb, KbCard
from recall_gate.core.coverage import KbCoverage

__all__ = ["cards_by_language", "cards_json"]


def _folder(entry: KbCard) -> str:
    if entry.path is None:
        return "(card file)"
    parent = PurePosixPath(entry.path).parent.as_posix()
    return "./" if parent == "." else parent + "/"


def cards_by_language(entries: Sequence[KbCard]) -> dict[str, Counter[str]]:
    """Cards per folder, per language (topic folders under their parent language)."""
    folders: dict[str, Counter[str]] = defaultdict(Counter)
    for entry in entries:
        folders[entry.card.language][_folder(entry)] += 1
    return {lang: folders[lang] for lang in sorted(folders)}


def cards_json(
    entries: Sequence[KbCard],
    *,
    kb: str,
    coverage: KbCoverage | None = None,
    read: Kb | None = None,
) -> dict[str, Any]:
    """The ``--json`` document: every card (with the URLs its site publishes), the
    cards per language and folder, and the pages skipped; with ``coverage``, the
    cases citing each card and the covered shares."""
    document: dict[str, Any] = {
        "kb": kb,
        "site": None if read is None or read.site is None else read.site.layout.generator,
        "skipped": []
        if read is None
        else [{"path": s.path, "reason": s.reason} for s in read.skipped],
        "cards": [
            {
                "id": e.card.id,
                "language": e.card.language,
                "language_source": e.language_source,
                "title": e.card.title,
                "path": e.path,
                "source": e.where,
                "size": e.size,
                "urls": list(e.urls),
                "tags": list(e.card.tags),
                "metadata": e.card.metadata,
                **({} if coverage is None else {"cases": list(coverage.cases_citing(e.card))}),
            }
            for e in entries
        ],
        "languages": {
            lang: {"cards": sum(folders.values()), "folders": dict(sorted(folders.items()))}
            for lang, folders in cards_by_language(entries).items()
        },
    }
    if coverage is not None:
        document["coverage"] = {
            "covered": coverage.overall.covered,
            "cards": coverage.overall.cards,
            "by_language": {
                lang: {"covered": part.covered, "cards": part.cards}
                for lang, part in coverage.by_language.items()
            },
            "uncovered": list(coverage.uncovered),
        }
    return document
