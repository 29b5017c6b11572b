"""Hugo section pages that render none of the pages below them (adapter: reads the
KB's ``_index.md`` files): a headless bundle of snippets, such as hugoDocs'
``content/en/_common`` (``cascade: {build: {render: never}}``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from recall_gate.adapters.files import read_text
from recall_gate.adapters.front_matter import cascades_unrendered, split_front_matter
from recall_gate.errors import InputError

__all__ = ["below", "unrendered_sections"]


def below(page: Path, section: Path) -> bool:
    """Whether ``page`` is a descendant of the section (not its own ``_index``)."""
    return section in page.parents and not (page.parent == section and page.stem == "_index")


def unrendered_sections(paths: Sequence[Path]) -> list[Path]:
    """The folders of the section pages (``_index.md``) among ``paths`` whose
    cascade renders none of the pages below them."""
    found = []
    for path in paths:
        if path.stem != "_index":
            continue
        try:
            meta, _ = split_front_matter(read_text(path, what="card"), source=str(path))
        except InputError:
            continue  # reported when the page itself is read
        if isinstance(meta, Mapping) and cascades_unrendered(meta):
            found.append(path.parent)
    return found
