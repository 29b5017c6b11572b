"""MkDocs as the oracle: each MkDocs fixture built by ``mkdocs build`` (with the
i18n and blog plugins it names, at constraints.txt's pins) and a hook that writes
down every page it built (tests/sites_oracle/mkdocs_pages_hook.py), compared with
recall-gate's map of its docs folder.

What the fixtures trimmed away is stood in for: a theme folder (``custom_dir``)
and each page template (``template:``) the pages name, as empty extensions of
the theme's own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from site_oracle import Published, assert_same_map, generator_module, site_copy

from recall_gate.adapters.site_layout import locale_language

pytestmark = pytest.mark.generators

HOOK = Path(__file__).resolve().parent / "mkdocs_pages_hook.py"
_TEMPLATE = re.compile(r"^template:\s*(\S+)", re.MULTILINE)
_CUSTOM_DIR = re.compile(r"^\s*custom_dir:\s*(\S+)", re.MULTILINE)


def _stand_ins(root: Path) -> None:
    """The theme folder and page templates the fixture names but does not hold."""
    config = (root / "mkdocs.yml").read_text(encoding="utf-8")
    custom = _CUSTOM_DIR.search(config)
    folder = root / (custom.group(1) if custom else "overrides")
    folder.mkdir(parents=True, exist_ok=True)
    for page in (root / "docs").rglob("*.md"):
        for name in _TEMPLATE.findall(page.read_text(encoding="utf-8")):
            if not (folder / name).exists():
                (folder / name).write_text('{% extends "main.html" %}\n', encoding="utf-8")
    (root / "oracle.yml").write_text(
        f"INHERIT: mkdocs.yml\nhooks:\n  - {HOOK.as_posix()}\n", encoding="utf-8"
    )


def mkdocs_published(root: Path, *, default_language: str) -> list[Published]:
    """What ``mkdocs build`` publishes for the site at ``root``: one row per page and
    language site. ``default_language``: the language of a page the i18n plugin
    names no locale for (the site's theme language)."""
    generator_module("mkdocs_static_i18n", what="mkdocs-static-i18n")
    _stand_ins(root)
    out = root / "pages.jsonl"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "oracle.yml", "-d", "built"],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "RECALL_GATE_ORACLE_OUT": str(out), "NO_MKDOCS_2_WARNING": "1"},
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = []
    for line in out.read_text(encoding="utf-8").splitlines():
        page = json.loads(line)
        if not (root / "docs" / page["src"]).is_file():
            continue  # a page a plugin made (the blog's archive and categories): no file
        locale = page["locale"]
        language = locale_language(locale) if locale else default_language
        assert language is not None, page
        source = page["src"]
        rows.append(Published(source, language, _page_id(source, locale), "/" + page["url"]))
    return rows


def _page_id(source: str, locale: str | None) -> str:
    """MkDocs names a page by its file: the path without extension, and without
    the i18n plugin's locale suffix (``index.fr.md`` is ``index`` in French)."""
    stem = source.rsplit(".", 1)[0]
    return stem.removesuffix(f".{locale}") if locale else stem


@pytest.mark.parametrize(
    ("name", "default_language"), [("mkdocs-static-i18n", "en"), ("mkdocs-blog", "en")]
)
def test_recall_gates_map_of_an_mkdocs_site_is_what_mkdocs_publishes(
    tmp_path: Path, name: str, default_language: str
) -> None:
    root = site_copy(tmp_path, name)
    assert_same_map(mkdocs_published(root, default_language=default_language), root / "docs")
