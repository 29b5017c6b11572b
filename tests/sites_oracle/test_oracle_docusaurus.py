"""Docusaurus as the oracle: each Docusaurus fixture loaded by Docusaurus' own site
loader (the first step of ``docusaurus build``: config, plugins, docs metadata; no
HTML) in each of its locales, by tests/sites_oracle/docusaurus_docs.cjs, compared
with recall-gate's map of its docs folder.

A real site's config requires packages of its own (themes, remark plugins, its
TypeScript), so it is not loaded as it is: ``ORACLE_CONFIGS`` holds, for each real
fixture, a config with the docs options its config sets, written out. Its
released versions' folders, trimmed from the fixture, are stood in for by a copy
of the current docs (a page's URL in the last release is what is checked)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from site_oracle import GENERATORS, Published, assert_same_map, generator_path, site_copy

from recall_gate.adapters.dataset import read_kb
from recall_gate.adapters.site_layout import detect_site

pytestmark = pytest.mark.generators

SCRIPT = Path(__file__).resolve().parent / "docusaurus_docs.cjs"
_NUMBER_PREFIX = re.compile(r"(^|/)\d+[-_.]\s*")
_I18N = re.compile(r"^i18n/([^/]+)/docusaurus-plugin-content-docs[^/]*/current/(.+)$")
_VERSIONED = re.compile(r"^versioned_docs/version-[^/]+/(.+)$")


def docusaurus_docs(sites: list[Path]) -> dict[Path, list[dict[str, Any]]]:
    """Each doc Docusaurus publishes for each site folder, one loader process for all."""
    modules = generator_path("npm/node_modules/@docusaurus/core", what="Docusaurus")
    for site in sites:
        (site / "node_modules").symlink_to(GENERATORS / "npm" / "node_modules")
    done = subprocess.run(
        ["node", str(SCRIPT), str(modules.parents[1]), *map(str, sites)],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    docs: dict[Path, list[dict[str, Any]]] = {site: [] for site in sites}
    for line in done.stdout.splitlines():
        doc = json.loads(line)
        docs[Path(doc["site"])].append(doc)
    return docs


def docusaurus_published(docs: list[dict[str, Any]], site: Path, kb_root: Path) -> list[Published]:
    """What Docusaurus published (``docs``) for the docs plugin of ``site`` reading
    ``kb_root``: one row per doc, locale and version (the released ones marked)."""
    found = detect_site(kb_root)
    assert found is not None
    default = found.layout.default_language
    kb = os.path.relpath(kb_root, site).replace(os.sep, "/")
    rows = []
    for doc in docs:
        source = doc["source"].removeprefix("@site/")
        language = default
        if match := _I18N.match(source):
            language, source = match.group(1), f"i18n/{match.group(1)}/{match.group(2)}"
        elif match := _VERSIONED.match(source):
            rows.append(Published(source, doc["locale"], doc["id"], doc["permalink"], True))
            continue
        else:
            source = source.removeprefix(f"{kb}/")
        rows.append(Published(source, language or "", doc["id"], doc["permalink"]))
    return rows


def recall_gate_ids(rows: list[Published], kb_root: Path) -> list[Published]:
    """``rows`` with each page's id as recall-gate's contract writes it, where the only
    difference from Docusaurus' is the number prefixes Docusaurus drops."""
    cards = read_kb(kb_root).cards
    ids = {(e.path, e.card.language): e.card.id for e in cards}
    by_id = {_NUMBER_PREFIX.sub(r"\1", e.card.id): e.card.id for e in cards}
    fixed = []
    for row in rows:
        ours = by_id.get(row.card_id) if row.released else ids.get((row.source, row.language))
        same = ours is not None and _NUMBER_PREFIX.sub(r"\1", ours) == row.card_id
        fixed.append(replace(row, card_id=ours) if same and ours is not None else row)
    return fixed


CONFIGS = Path(__file__).resolve().parent / "docusaurus_configs"
# Fixture → the folder of its site (its config, versions.json) inside it.
SITE_FOLDERS = {
    "docusaurus-versioned-i18n": ".",
    "docusaurus-eventmesh": ".",
    "docusaurus-react-native": "website",
}


def _oracle_site(root: Path, name: str) -> Path:
    """The fixture's site folder, ready to load: the oracle config of a real site in
    place of its own, and its last release's folder a copy of the current docs."""
    site = root / SITE_FOLDERS[name]
    config = CONFIGS / f"{name}.config.js"
    if config.is_file():
        for own in site.glob("docusaurus.config.*"):
            own.unlink()
        shutil.copy(config, site / "docusaurus.config.js")
    versions = json.loads((site / "versions.json").read_text(encoding="utf-8"))
    last = site / "versioned_docs" / f"version-{versions[0]}"
    if not last.exists():
        shutil.copytree(root / "docs", last)
    return site


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path, list[Any]]]:
    """Every Docusaurus fixture, loaded by Docusaurus once: name → (fixture copy, its
    site folder, the docs published)."""
    tmp = tmp_path_factory.mktemp("docusaurus")
    roots = {name: site_copy(tmp, name) for name in SITE_FOLDERS}
    sites = {name: _oracle_site(root, name) for name, root in roots.items()}
    docs = docusaurus_docs(list(sites.values()))
    return {name: (roots[name], sites[name], docs[sites[name]]) for name in SITE_FOLDERS}


@pytest.mark.parametrize("name", sorted(SITE_FOLDERS))
def test_recall_gates_map_of_a_docusaurus_site_is_what_docusaurus_publishes(
    built: dict[str, tuple[Path, Path, list[Any]]], name: str
) -> None:
    root, site, docs = built[name]
    rows = docusaurus_published(docs, site, root / "docs")
    assert_same_map(recall_gate_ids(rows, root / "docs"), root / "docs")
