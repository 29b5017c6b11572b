"""The comparison core is pure: no I/O, no environment, no network, no YAML.

Walks the imports of each core module (transitively, within `recall_gate`)
and fails if one reaches for a module that does I/O, or reads `os.environ`
or opens a file in its source.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import pytest

CORE = (
    "recall_gate.core.baseline",
    "recall_gate.core.compare",
    "recall_gate.report.comparison",
    "recall_gate.core.stats",
    "recall_gate.core.gate",
    "recall_gate.report.notes",
    "recall_gate.report.baseline_update",
)
FORBIDDEN = (
    "os",
    "io",
    "sys",
    "subprocess",
    "socket",
    "shutil",
    "tempfile",
    "pathlib",
    "urllib",
    "http",
    "requests",
    "ruamel",
)


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None
    assert spec.origin is not None
    return Path(spec.origin)


def _imports(module: str) -> set[str]:
    tree = ast.parse(_source(module).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
    return found


def _closure(module: str) -> dict[str, set[str]]:
    """Every recall_gate module reached from ``module``, with its imports."""
    seen: dict[str, set[str]] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen[name] = _imports(name)
        todo += [m for m in seen[name] if m.startswith("recall_gate.") and m not in seen]
    return seen


@pytest.mark.parametrize("module", CORE)
def test_core_module_imports_nothing_that_does_io(module: str) -> None:
    for name, imports in _closure(module).items():
        bad = sorted(
            i for i in imports if i.split(".")[0] in FORBIDDEN and not i.startswith("recall_gate")
        )
        assert not bad, f"{name} (reached from {module}) imports {bad}"


@pytest.mark.parametrize("module", CORE)
def test_core_module_reads_no_environment_and_opens_no_file(module: str) -> None:
    for name in _closure(module):
        text = _source(name).read_text(encoding="utf-8")
        for needle in ("environ", "open(", "getenv", "print("):
            assert needle not in text, f"{name} (reached from {module}) uses {needle!r}"
