"""The pure core does no I/O (functional core, thin shell: CONTRIBUTING.md), and the
layers hold.

Walks the imports of the core modules with `ast`, transitively within
`recall_gate` (lazy imports inside functions included), and fails if any module
reached imports an I/O library, reads the environment, or opens a file.

The same import scan, over every module, checks the layers of the README's
Architecture table: no module imports one of a higher layer or of another
package on its own layer, no import cycle, and no two modules share a file name.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import recall_gate

PACKAGE = Path(recall_gate.__file__).parent

# Every module of the pure packages: a new module there is checked without being listed.
PURE_PACKAGES = ("core", "report")
CORE = tuple(
    sorted(
        f"{package}.{path.stem}"
        for package in PURE_PACKAGES
        for path in (PACKAGE / package).glob("*.py")
        if path.stem != "__init__"
    )
)

# Top-level modules whose import means I/O, processes, network or configuration files.
FORBIDDEN_MODULES = frozenset(
    {
        "os",
        "io",
        "sys",
        "subprocess",
        "requests",
        "ruamel",
        "socket",
        "urllib",
        "http",
        "pathlib",
        "shutil",
        "tempfile",
    }
)
FORBIDDEN_CALLS = frozenset({"open", "print", "input"})
FORBIDDEN_ATTRIBUTES = frozenset({"environ", "getenv", "putenv"})
# Path / file-object methods that touch the file system.
IO_METHODS = frozenset(
    {"read_text", "read_bytes", "write_text", "write_bytes", "mkdir", "unlink", "touch", "rmdir"}
)


@dataclass(frozen=True)
class Violation:
    module: str
    line: int
    what: str

    def __str__(self) -> str:
        return f"recall_gate.{self.module}:{self.line}: {self.what}"


def _is_type_checking_block(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and (
        (isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING")
        or (isinstance(node.test, ast.Attribute) and node.test.attr == "TYPE_CHECKING")
    )


def _runtime_nodes(tree: ast.AST, *, import_time_only: bool = False) -> list[ast.AST]:
    """Every node except those under `if TYPE_CHECKING:` (imports for annotations
    only); with ``import_time_only``, also none inside a function body (what runs
    when the module is imported)."""
    functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
    out: list[ast.AST] = []
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        out.append(node)
        if _is_type_checking_block(node):
            assert isinstance(node, ast.If)
            stack.extend(node.orelse)
            continue
        if not (import_time_only and isinstance(node, functions)):
            stack.extend(ast.iter_child_nodes(node))
    return out


def _resolve_from(module: str, node: ast.ImportFrom) -> str:
    """The absolute dotted name of `from ... import` (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    parts = f"recall_gate.{module}".split(".")
    is_package = (PACKAGE / module.replace(".", "/") / "__init__.py").is_file()
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _local_module(dotted: str) -> str | None:
    """`recall_gate.x.y` → `x.y` when it is a module or package of ours, else None."""
    if dotted == "recall_gate":
        return "__init__"
    if not dotted.startswith("recall_gate."):
        return None
    name = dotted.removeprefix("recall_gate.")
    path = PACKAGE / name.replace(".", "/")
    if path.with_suffix(".py").is_file():
        return name
    if (path / "__init__.py").is_file():
        return f"{name}.__init__"
    return None


def _module_path(module: str) -> Path:
    return PACKAGE / (module.replace(".", "/") + ".py")


def scan_source(
    module: str, source: str, *, import_time_only: bool = False
) -> tuple[list[Violation], set[str]]:
    """Violations in one module's source, and the recall_gate modules it imports.

    ``import_time_only``: skip function bodies (for the package ``__init__``, which
    importing a core module runs, but whose lazily loaded attributes it does not)."""
    violations: list[Violation] = []
    imported: set[str] = set()
    owner = module.removesuffix(".__init__")
    tree = ast.parse(source)
    nodes = _runtime_nodes(tree, import_time_only=import_time_only)
    for node in nodes:
        names: list[str] = []  # what the import statement names, checked against the list
        candidates: list[str] = []  # what may be one of our modules
        if isinstance(node, ast.Import):
            names = candidates = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve_from(owner, node)
            names = [base]
            candidates = [base] + [f"{base}.{alias.name}" for alias in node.names]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                violations.append(Violation(module, node.lineno, f"calls {func.id}()"))
            if isinstance(func, ast.Attribute) and func.attr in IO_METHODS:
                violations.append(Violation(module, node.lineno, f"calls .{func.attr}()"))
        elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_ATTRIBUTES:
            violations.append(Violation(module, node.lineno, f"uses .{node.attr}"))
        for name in names:
            if name.split(".")[0] in FORBIDDEN_MODULES:
                violations.append(Violation(module, getattr(node, "lineno", 0), f"imports {name}"))
        for name in candidates:
            local = _local_module(name)
            if local is not None:
                imported.add(local)
    return violations, imported


def walk(start: str) -> tuple[list[Violation], list[str]]:
    """Scan `start` and every recall_gate module it reaches (plus the package __init__)."""
    seen: set[str] = set()
    todo = [start, "__init__"]
    violations: list[Violation] = []
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        found, imported = scan_source(
            module,
            _module_path(module).read_text(encoding="utf-8"),
            import_time_only=module == "__init__",
        )
        violations += found
        todo.extend(imported - seen)
    return violations, sorted(seen)


@pytest.mark.parametrize("module", CORE)
def test_core_module_reaches_no_io(module: str) -> None:
    violations, reached = walk(module)
    assert [str(v) for v in violations] == [], f"reached: {', '.join(reached)}"


def test_the_pure_packages_hold_the_core() -> None:
    assert {
        "core.metrics",
        "core.evaluate",
        "core.compare",
        "core.gate",
        "report.comparison",
    } <= set(CORE)


def test_the_walk_is_transitive() -> None:
    _, reached = walk("report.comparison")
    assert {
        "report.comparison",
        "report.notes",
        "core.metric_registry",
        "core.gate",
        "core.metrics",
        "core.records",
        "__init__",
    } <= set(reached)


# The checker itself: each forbidden pattern is caught, and type-only imports are not.


@pytest.mark.parametrize(
    ("source", "what"),
    [
        ("import os\n", "imports os"),
        ("import os.path\n", "imports os.path"),
        ("from os import environ\n", "imports os"),
        ("import subprocess\n", "imports subprocess"),
        ("import requests\n", "imports requests"),
        ("from ruamel.yaml import YAML\n", "imports ruamel.yaml"),
        ("from pathlib import Path\n", "imports pathlib"),
        ("import socket\n", "imports socket"),
        ("from urllib.request import urlopen\n", "imports urllib.request"),
        ("import http.client\n", "imports http.client"),
        ("import io\n", "imports io"),
        ("import sys\n", "imports sys"),
        ("from tempfile import mkstemp\n", "imports tempfile"),
        ("def f():\n    import subprocess\n", "imports subprocess"),
        ("x = open('f')\n", "calls open()"),
        ("print('x')\n", "calls print()"),
        ("import builtins\nx = builtins.__dict__['os'].environ\n", "uses .environ"),
        ("def f(p):\n    return p.read_text()\n", "calls .read_text()"),
    ],
)
def test_the_checker_flags(source: str, what: str) -> None:
    violations, _ = scan_source("probe", source)
    assert what in [v.what for v in violations]


def test_the_checker_allows_type_only_imports_and_plain_maths() -> None:
    source = (
        "from __future__ import annotations\n"
        "import math\nimport json\nimport hashlib\n"
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pathlib import Path\n"
    )
    assert scan_source("probe", source) == ([], set())


def test_the_package_init_is_checked_for_what_runs_on_import() -> None:
    lazy = "def __getattr__(name):\n    from pathlib import Path\n"
    assert scan_source("__init__", lazy, import_time_only=True) == ([], set())
    eager = "from pathlib import Path\n"
    violations, _ = scan_source("__init__", eager, import_time_only=True)
    assert [v.what for v in violations] == ["imports pathlib"]


def test_the_checker_follows_relative_and_package_imports() -> None:
    _, imported = scan_source(
        "core.probe",
        "from . import metrics\nfrom .records import Card\nimport recall_gate.core.gate\n",
    )
    assert {"core.metrics", "core.records", "core.gate", "core.__init__"} <= imported


# -- the layers ---------------------------------------------------------------------

# Lower numbers are lower layers: a module may import its own package and lower layers
# only. report/ and adapters/ share a layer and may not import each other (the schemas
# both use live in core/); so do runner/ and retrievers/. The package's __init__ is the
# public facade (core and capture), below the commands that read its version. The
# settings sit below the judge, and the judge below the command handlers.
LAYERS = {
    "errors": 0,
    "console": 0,
    "core": 1,
    "report": 2,
    "adapters": 2,
    "runner": 3,
    "retrievers": 3,
    "__init__": 4,
    "settings": 5,
    "judging": 6,
    "commands": 7,
    "cli": 8,
    # Developer tools (`make generate`): above everything they describe.
    "tools": 9,
}


def _package_of(module: str) -> str:
    return module.split(".", maxsplit=1)[0]


def import_graph() -> dict[str, set[str]]:
    """Every module of the package → the package modules it imports (lazily too; not
    ``if TYPE_CHECKING:`` imports, nor a package's ``__init__`` from its own modules,
    which ``from package import module`` names but does not depend on)."""
    modules = sorted(
        str(path.relative_to(PACKAGE).with_suffix("")).replace("/", ".")
        for path in PACKAGE.rglob("*.py")
    )
    graph = {}
    for module in modules:
        _, imported = scan_source(module, _module_path(module).read_text(encoding="utf-8"))
        package = _package_of(module)
        graph[module] = imported - {module, f"{package}.__init__"}
    return graph


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    out = []
    for module, imported in sorted(graph.items()):
        package = _package_of(module)
        for target in sorted(imported):
            other = _package_of(target)
            if other != package and LAYERS[other] >= LAYERS[package]:
                out.append(f"{module} imports {target} ({package}/ may not import {other}/)")
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles: strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_every_top_level_package_has_a_layer() -> None:
    assert {_package_of(m) for m in import_graph()} == set(LAYERS)


def test_no_module_imports_a_higher_layer_or_a_sibling_package() -> None:
    assert layer_violations(import_graph()) == []


def test_the_import_graph_has_no_cycle() -> None:
    assert cycles(import_graph()) == []


def test_no_two_modules_share_a_file_name() -> None:
    names: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            names.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in names.items() if len(paths) > 1} == {}


def test_the_layer_checks_catch_an_upward_import_a_sibling_import_and_a_cycle() -> None:
    graph = {
        "core.a": {"report.b"},
        "adapters.c": {"report.b"},
        "report.b": {"core.d"},
        "core.d": {"core.e"},
        "core.e": {"core.d"},
    }
    assert layer_violations(graph) == [
        "adapters.c imports report.b (adapters/ may not import report/)",
        "core.a imports report.b (core/ may not import report/)",
    ]
    assert cycles(graph) == [["core.d", "core.e"]]
