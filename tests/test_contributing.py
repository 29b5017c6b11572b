"""CONTRIBUTING.md's recipes lead to files that exist.

A newcomer extends recall-gate in one hop only if each recipe names the files
to touch and the test to copy, and those names are true: every repository path
CONTRIBUTING.md writes in backticks (``src/…``, ``tests/…``, ``tools/…``,
``docs/…``, ``examples/…``) must exist, a ``<placeholder>`` standing for any
name in a folder that exists.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
RECIPES = ("A metric", "A retriever framework", "A docs generator", "A report surface")
_PATH = re.compile(r"`((?:src|tests|tools|docs|examples|benchmarks)/[\w./<>-]*)`")


def named_paths(text: str) -> list[str]:
    return _PATH.findall(text)


def missing(paths: list[str], root: Path) -> list[str]:
    """The paths that do not exist under root; ``a/<name>.py`` needs only ``a/``."""
    stems = [path.split("<", 1)[0] for path in paths]
    return sorted({stem for stem in stems if not (root / stem).exists()})


def recipe(name: str) -> str:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    start = text.index(f"\n### {name}\n")
    end = text.find("\n#", start + 1)
    return text[start:end]


def test_every_path_contributing_names_exists() -> None:
    paths = named_paths(CONTRIBUTING.read_text(encoding="utf-8"))
    assert len(paths) > 40, "the recipes name the files to touch"
    assert missing(paths, ROOT) == [], "fix the name in CONTRIBUTING.md, or the file moved"


def test_a_renamed_file_is_caught(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kept.py").write_text("", encoding="utf-8")
    text = "Touch `src/kept.py`, `src/<framework>.py`, `src/moved.py` and `tests/<x>/y.py`."

    assert missing(named_paths(text), tmp_path) == ["src/moved.py", "tests/"]


def test_each_recipe_names_the_source_files_to_touch_and_a_test_to_copy() -> None:
    for name in RECIPES:
        paths = named_paths(recipe(name))
        assert any(p.startswith("src/recall_gate/") for p in paths), name
        assert any(re.fullmatch(r"tests/.+/test_\w+\.py", p) for p in paths), name
