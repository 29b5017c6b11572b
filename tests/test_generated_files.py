"""The files that follow the metric registry are as `make generate` writes them:
action.yml's metric inputs, outputs and variables, the docs' metric table and the
action's inputs and outputs tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.tools.generate import GENERATED, MarkerError, generate, replace_block

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("path", GENERATED, ids=str)
def test_the_generated_file_is_up_to_date_with_the_registry(path: Path) -> None:
    assert (ROOT / path).read_text(encoding="utf-8") == generate(ROOT)[path], (
        f"{path} is out of date with the metric registry: run `make generate`"
    )


def test_a_block_is_replaced_between_its_markers_only() -> None:
    text = "keep\n# a:start (generated)\nold\n# a:end\n<!-- ba:start -->\nother\n<!-- ba:end -->\n"
    assert replace_block(text, "a", ["new", "lines"], where=Path("f")) == (
        "keep\n# a:start (generated)\nnew\nlines\n# a:end\n<!-- ba:start -->\nother\n"
        "<!-- ba:end -->\n"
    )


def test_a_file_that_lost_its_markers_is_named() -> None:
    with pytest.raises(MarkerError, match=r"action\.yml: no `registry-inputs:start`"):
        replace_block("inputs:\n", "registry-inputs", [], where=Path("action.yml"))
