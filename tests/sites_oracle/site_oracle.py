"""The generator is the oracle: what a docs generator published for a fixture,
compared with the (language, card id, URLs) map recall-gate reads from the same
fixture.

Each generator's reader turns its own output into :class:`Published` rows (one
per page and language site it publishes the page in); :func:`differences`
compares them with recall-gate's cards and names every page that differs. The
generators are installed by ``make generators`` (pinned; nothing is fetched at
test time): :func:`generator_path` finds one there, and fails when it is missing
under CI (``CI`` set), else skips with the command that installs it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

import pytest

from recall_gate.adapters.dataset import read_kb
from recall_gate.adapters.knowledge_base import Kb, KbCard
from recall_gate.core.site_urls import address_key

REPO = Path(__file__).resolve().parents[2]
GENERATORS = REPO / ".generators"
SITES = REPO / "tests" / "data" / "sites"
# A page recall-gate reads as no card although the generator publishes it, for a
# reason of its own text (nothing to retrieve), not of the site's rules.
CONTENT_REASONS = frozenset({"no text"})


@dataclass(frozen=True)
class Published:
    """A page as its generator published it: its source file (relative to the
    KB root), the language of its text, its card id when the generator names one
    (Docusaurus' doc id; else the file's path), and the URL path it is served at."""

    source: str
    language: str
    card_id: str
    url: str
    # A released version's page (Docusaurus' versioned_docs): no file of the KB, so
    # only its URL is checked, to reach a card of its id.
    released: bool = False


def generator_path(relative: str, *, what: str) -> Path:
    """A generator installed by ``make generators`` (``relative`` to .generators/)."""
    path = GENERATORS / relative
    if not path.exists():
        _missing(f"{what} is not installed at {path.relative_to(REPO)}: run `make generators`")
    return path


def generator_module(name: str, *, what: str) -> None:
    """A generator installed into the environment by ``make generators``."""
    if importlib.util.find_spec(name) is None:
        _missing(f"{what} (Python module {name}) is not installed: run `make generators`")


def _missing(message: str) -> NoReturn:
    """A generator the suite needs is missing: a failure under CI (``CI`` set), where
    nothing may pass by being skipped; locally, a skip naming the fix."""
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def site_copy(tmp_path: Path, name: str) -> Path:
    """A copy of the fixture ``tests/data/sites/<name>`` to build in."""
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    return root


def differences(published: Iterable[Published], kb: Kb) -> list[str]:
    """Every page where recall-gate's map and the generator's differ, one line each
    naming the page: published without a card, a card not published, another
    language or id, a URL recall-gate does not map to the page."""
    pages: dict[tuple[str, str], list[Published]] = {}
    released = []
    for row in published:
        if row.released:
            released.append(row)
        else:
            pages.setdefault((row.source, row.language), []).append(row)
    cards = {(e.path or "", e.card.language): e for e in kb.cards}
    skipped = {s.path: s.reason for s in kb.skipped}
    found = [line for row in released if (line := _unmapped_release(row, kb))]
    for (source, language), rows in sorted(pages.items()):
        entry = cards.get((source, language))
        if entry is None:
            found += _no_card(source, language, skipped.get(source), cards)
            continue
        ids = sorted({r.card_id for r in rows})
        if ids != [entry.card.id]:
            found.append(f"{source} [{language}]: card id {entry.card.id!r}, published as {ids}")
        mapped = {address_key(u) for u in entry.urls}
        found += [
            f"{source} [{language}]: published at {row.url}, mapped to {list(entry.urls)}"
            for row in rows
            if address_key(row.url) not in mapped
        ]
    found += [
        f"{source} [{language}]: a card ({entry.card.id}) it does not publish"
        for (source, language), entry in sorted(cards.items())
        if (source, language) not in pages
    ]
    return found


def _no_card(
    source: str, language: str, reason: str | None, cards: Mapping[tuple[str, str], KbCard]
) -> list[str]:
    """A page published in ``language`` that has no card there (nothing, when
    recall-gate skips it for its text: see ``CONTENT_REASONS``)."""
    if reason in CONTENT_REASONS:
        return []
    has = sorted(lang for src, lang in cards if src == source)
    why = f" (skipped: {reason})" if reason else (f" (a card in {has})" if has else "")
    return [f"{source} [{language}]: published, no card{why}"]


def _unmapped_release(row: Published, kb: Kb) -> str:
    """A released version's page whose URL reaches no card of its id ("" if it does)."""
    of_id = [e for e in kb.cards if e.card.id == row.card_id]
    if any(address_key(row.url) in {address_key(u) for u in e.urls} for e in of_id):
        return ""
    return f"{row.source} [{row.language}]: published at {row.url}, no card of its id"


def assert_same_map(published: Sequence[Published], kb_root: Path) -> None:
    """recall-gate's map of the KB at ``kb_root`` equals the generator's."""
    assert published, "the generator published no page"
    found = differences(published, read_kb(kb_root))
    assert not found, "recall-gate's map differs from the generator's:\n" + "\n".join(found)
