"""The workflows the docs show are the ones the act tests run.

README.md shows one workflow, the quick start, between its markers; the act
tests extract it from there. docs/pr-check.md and the score-mode guide show
none of their own: each of their workflow blocks is a snippet include
(``--8<-- "FILE[:SECTION]"``, the site's pymdownx.snippets) of a file under
examples/workflows/ or a section of one, and the act tests run each of those
files as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "workflows"
ACT_TESTS = (
    ROOT / "tests" / "action" / "test_action_act.py",
    ROOT / "tests" / "action" / "test_update_baseline_act.py",
)
_FENCE = re.compile(r"^```ya?ml\n(.*?)^```", re.M | re.S)
_INCLUDE = re.compile(r'^\s*--8<-- "(examples/workflows/[\w.-]+\.yml)(?::([\w-]+))?"\s*$')
# What makes a YAML block a workflow (or a part of one), not a config or cases file.
_WORKFLOW_KEYS = re.compile(r"^\s*(?:- )?(?:uses|runs-on|steps|jobs|run):", re.M)


def _blocks(path: Path) -> list[str]:
    return _FENCE.findall(path.read_text(encoding="utf-8"))


def _section(path: Path, name: str) -> str:
    text = path.read_text(encoding="utf-8")
    start, end = f"# --8<-- [start:{name}]", f"# --8<-- [end:{name}]"
    assert start in text, f"{path.name} has no section {name!r}"
    assert end in text, f"{path.name} does not end section {name!r}"
    return text.split(start, 1)[1].split(end, 1)[0]


def _run_by_act_tests() -> set[str]:
    """The example workflows an act test runs as they are: by `_example_workflow(NAME)`
    or by its path under examples/workflows/ in any act test module."""
    found: set[str] = set()
    for module in ACT_TESTS[0].parent.glob("*_act.py"):
        text = module.read_text(encoding="utf-8")
        found.update(re.findall(r'_example_workflow\("([\w.-]+\.yml)"\)', text))
        found.update(re.findall(r'"examples" / "workflows" / "([\w.-]+\.yml)"', text))
    return found


PAGES = ("docs/pr-check.md", "docs/guide/score-mode.md")


@pytest.mark.parametrize("page", PAGES)
def test_the_pr_check_pages_show_only_workflows_included_from_the_examples(page: str) -> None:
    blocks = _blocks(ROOT / page)
    workflows = [b for b in blocks if _WORKFLOW_KEYS.search(b) or "--8<--" in b]
    assert workflows, f"{page} lost its workflow examples"
    for block in workflows:
        lines = [line for line in block.splitlines() if line.strip()]
        assert len(lines) == 1, (
            f"write this workflow into examples/workflows/ and include it:\n{block}"
        )
        assert _INCLUDE.match(lines[0]), lines[0]


@pytest.mark.parametrize("page", PAGES)
def test_every_included_workflow_part_exists_and_its_file_is_run_by_the_act_tests(
    page: str,
) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    included = [_INCLUDE.match(line) for line in text.splitlines()]
    found = [(m.group(1), m.group(2)) for m in included if m]
    assert found
    run = _run_by_act_tests()
    for file, section in found:
        path = ROOT / file
        assert path.is_file(), file
        part = path.read_text(encoding="utf-8") if section is None else _section(path, section)
        assert "uses:" in part, f"{file}:{section} shows no step"
        assert path.name in run, f"no act test runs {file}"


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.yml")), ids=lambda p: p.name)
def test_each_example_is_a_workflow_an_act_test_runs(path: Path) -> None:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    assert "jobs" in data
    assert data["permissions"] == {}
    assert path.name in _run_by_act_tests()


def test_the_readme_shows_one_workflow_the_quick_start_the_act_tests_extract() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    workflows = [b for b in _blocks(ROOT / "README.md") if _WORKFLOW_KEYS.search(b)]
    assert len(workflows) == 1
    quick_start = readme.split("<!-- quickstart:start -->", 1)[1].split("<!-- quickstart:end -->")[
        0
    ]
    assert workflows[0] in quick_start
    assert "_readme_workflow()" in ACT_TESTS[0].read_text(encoding="utf-8")
