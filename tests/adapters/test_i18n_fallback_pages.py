"""Which locales of an MkDocs i18n site serve the default language's pages as
fallbacks (adapters.site_layout): the plugin's fallback_to_default (on unless
set false), in each locale it builds, for the pages that locale has none of."""

from __future__ import annotations

from pathlib import Path

from recall_gate.adapters.dataset import read_kb


def _site(root: Path, options: str) -> Path:
    (root / "mkdocs.yml").write_text(
        "site_name: x\nplugins:\n  - i18n:\n      docs_structure: suffix\n"
        + options
        + "      languages:\n        - locale: en\n          default: true\n"
        "        - locale: fr\n        - locale: de\n          build: false\n",
        encoding="utf-8",
    )
    docs = root / "docs"
    docs.mkdir()
    for name, text in {"a.md": "# A\n\nA.", "b.md": "# B\n\nB.", "b.fr.md": "# B\n\nB fr."}.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def _urls(docs: Path) -> dict[str, tuple[str, ...]]:
    return {e.path or "": e.urls for e in read_kb(docs).cards}


def test_a_default_page_is_served_in_each_built_locale_lacking_its_own(tmp_path: Path) -> None:
    urls = _urls(_site(tmp_path, ""))
    assert urls["a.md"] == ("/a/", "/fr/a/")  # de is not built
    assert urls["b.md"] == ("/b/",)  # fr has its own b
    assert urls["b.fr.md"] == ("/fr/b/",)


def test_fallback_to_default_false_serves_no_default_page_elsewhere(tmp_path: Path) -> None:
    assert _urls(_site(tmp_path, "      fallback_to_default: false\n"))["a.md"] == ("/a/",)
