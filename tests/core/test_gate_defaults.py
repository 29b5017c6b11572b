"""Each gate setting has one default, defined in the gate and imported everywhere
else: the config, the flags, the settings resolver and the comparison cannot drift."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import recall_gate
from recall_gate.adapters.config import GateSettings
from recall_gate.core.compare import Comparison, compare_to_baseline
from recall_gate.core.gate import (
    MIN_GROUP_N,
    MIN_MARGIN,
    REFERENCE_TOLERANCE,
    REQUIRE_SIGNIFICANCE,
    Regression,
    judge_comparison,
    suggest_floors,
)

PACKAGE = Path(recall_gate.__file__).parent
SETTINGS = ("min_group_n", "require_significance", "reference_tolerance", "min_margin")


def _literal_defaults(tree: ast.AST) -> list[tuple[str, int]]:
    """(setting, line) of every default of a gate setting written as a literal:
    a parameter default, a class field (``name: T = 10``) or ``Field(default=10)``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.arguments):
            positional = node.posonlyargs + node.args
            pairs = list(
                zip(positional[len(positional) - len(node.defaults) :], node.defaults, strict=True)
            )
            pairs += [
                (a, d)
                for a, d in zip(node.kwonlyargs, node.kw_defaults, strict=True)
                if d is not None
            ]
            found += [(a.arg, d.lineno) for a, d in pairs if isinstance(d, ast.Constant)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            value = node.value
            if isinstance(value, ast.Call):
                value = next((k.value for k in value.keywords if k.arg == "default"), None)
            if isinstance(value, ast.Constant) and value.value is not None:
                found.append((node.target.id, node.lineno))
    return [(name, line) for name, line in found if name in SETTINGS]


def test_no_module_restates_a_gate_default_as_a_literal() -> None:
    restated = [
        f"{path.relative_to(PACKAGE)}:{line}: {name}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, line in _literal_defaults(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert restated == []


def test_every_layer_defaults_to_the_gates_values() -> None:
    config = GateSettings()
    assert (config.min_group_n, config.require_significance) == (MIN_GROUP_N, REQUIRE_SIGNIFICANCE)
    assert inspect.signature(compare_to_baseline).parameters["min_group_n"].default == MIN_GROUP_N
    assert Comparison.__dataclass_fields__["min_group_n"].default == MIN_GROUP_N
    assert Regression.__dataclass_fields__["min_group_n"].default == MIN_GROUP_N
    judge = inspect.signature(judge_comparison).parameters
    assert judge["require_significance"].default is REQUIRE_SIGNIFICANCE
    assert judge["reference_tolerance"].default == REFERENCE_TOLERANCE
    assert inspect.signature(suggest_floors).parameters["min_margin"].default == MIN_MARGIN


def test_the_literal_default_check_sees_each_form() -> None:
    source = (
        "def f(*, min_group_n=10): ...\n"
        "class C:\n"
        "    require_significance: bool = True\n"
        "    min_group_n: int = Field(default=10, ge=1)\n"
        "    reference_tolerance: float = TOLERANCE\n"
    )
    assert _literal_defaults(ast.parse(source)) == [
        ("min_group_n", 1),
        ("require_significance", 3),
        ("min_group_n", 4),
    ]
