"""The action's install step under act: what it installs, and that a kept environment
is reused without calling the installer.

The runs use the action's own environment location (no ``RECALL_GATE_VENV``),
under a scratch ``XDG_CACHE_HOME`` that stands for a runner's ``~/.cache``
kept by ``actions/cache``; the installers' download caches are the machine's
own. ``uv`` on the PATH is a wrapper that logs each call, then runs the real
one: the log shows what the installer was asked to do, run by run.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass
from importlib.metadata import Distribution, distributions
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from act_harness import REPO, ActRun, git, pr_event, prepare_base_tree, run_act
from fake_github import TOKEN, FakeGitHub

pytestmark = [pytest.mark.act, pytest.mark.timeout(1800)]

PR_CHECK = "tests/act/workflows/pr-check.yml"
CAPTURE_CHECK = "tests/act/workflows/capture-check.yml"
CACHED = "Using the cached environment"
# What the retrieval extra and the frameworks bring; scoring needs none of them.
HEAVY = {"chromadb", "torch", "sentence-transformers", "numpy", "transformers", "bm25s"}


@dataclass
class Runs:
    """The act runs of the module, in order, and the installer calls each one made."""

    score: list[ActRun]
    capture: list[ActRun]
    after_source_change: ActRun
    uv_calls: list[list[str]]  # per run, in the order above
    cache_home: Path


def _uv_wrapper(folder: Path, log: Path) -> Path:
    real = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    assert Path(real).exists(), "uv is not installed (the dev extra installs it)"
    folder.mkdir(parents=True)
    wrapper = folder / "uv"
    wrapper.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return folder


def _cache_dir(tool: list[str]) -> str:
    return subprocess.run(tool, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    top = tmp_path_factory.mktemp("install")
    tree = prepare_base_tree(top / "repo")
    base_sha = git(tree, "rev-parse", "HEAD")
    log = top / "uv-calls.log"
    log.touch()
    tools = _uv_wrapper(top / "bin", log)
    cache_home = top / "cache-home"
    env = {
        "RECALL_GATE_VENV": "",
        "XDG_CACHE_HOME": str(cache_home),
        # The installers keep their own download caches where they are.
        "UV_CACHE_DIR": _cache_dir([str(tools / "uv"), "cache", "dir"]),
        "PIP_CACHE_DIR": _cache_dir([sys.executable, "-m", "pip", "cache", "dir"]),
        "ACT_OUTPUTS_FILE": str(top / "outputs.json"),
    }
    calls: list[list[str]] = []
    seen = 0

    def one(workflow: str, variables: dict[str, str]) -> ActRun:
        nonlocal seen
        with FakeGitHub() as fake:
            fake.add_actions_token(TOKEN)
            fake.add_repo(REPO)
            number = fake.add_pull(REPO, head_sha="1" * 40)
            run = run_act(
                tree,
                "pull_request",
                workflow=workflow,
                event=pr_event(number, "1" * 40, base_sha=base_sha),
                scratch=top / "scratch",
                api_url=fake.url,
                token=TOKEN,
                env=env,
                variables=variables,
                path_prefix=[tools],
            )
        lines = log.read_text().splitlines()
        calls.append(lines[seen:])
        seen = len(lines)
        assert run.job_result == "success", run.text[-4000:]
        return run

    score = {"ARTIFACTS": "tests/act/data/capture-v1.jsonl", "INSTALLER": "uv"}
    score_runs = [one(PR_CHECK, score), one(PR_CHECK, score)]
    capture_runs = [one(CAPTURE_CHECK, {"INSTALLER": "uv"}), one(CAPTURE_CHECK, {})]
    # A new commit of the action with the same version: other code, other environment.
    source = tree / "src" / "recall_gate" / "errors.py"
    source.write_text(source.read_text() + "\n# a later commit\n")
    changed = one(PR_CHECK, score)
    return Runs(score_runs, capture_runs, changed, calls, cache_home)


def _installs(calls: list[str]) -> list[str]:
    return [c for c in calls if c.startswith(("pip ", "venv "))]


def _site_packages(venv: Path) -> Path:
    [found] = venv.glob("lib/python3.*/site-packages")
    return found


def _required_closure(installed: dict[str, Distribution], root: str) -> set[str]:
    """recall-gate and what it requires, transitively, without any extra."""
    needed: set[str] = set()
    todo = [root]
    while todo:
        name = canonicalize_name(todo.pop())
        if name in needed:
            continue
        needed.add(name)
        for text in installed[name].requires or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return needed


def test_score_mode_installs_recall_gate_and_its_core_dependencies_only(runs: Runs) -> None:
    venv = Path(runs.score[0].outputs("gate")["venv"])
    assert venv.is_relative_to(runs.cache_home / "recall-gate")
    installed: dict[str, Distribution] = {
        canonicalize_name(d.metadata["Name"]): d
        for d in distributions(path=[str(_site_packages(venv))])
    }
    needed = _required_closure(installed, "recall-gate")
    # pip may seed itself into a venv it makes; nothing else is there.
    assert set(installed) - {"pip"} == needed
    assert not HEAVY & set(installed)
    assert not (venv / "bin" / "pip").exists(), "uv makes no pip for score mode"


def test_the_second_run_of_the_same_version_and_deps_installs_nothing(runs: Runs) -> None:
    first, second = runs.score
    assert _installs(runs.uv_calls[0]), runs.uv_calls[0]  # the first run did install
    assert _installs(runs.uv_calls[1]) == []
    assert CACHED in second.step_output
    assert CACHED not in first.step_output
    assert second.outputs("gate")["venv"] == first.outputs("gate")["venv"]
    assert second.outputs("gate")["cache-key"] == first.outputs("gate")["cache-key"]
    assert second.outputs("gate")["verdict"] == first.outputs("gate")["verdict"] == "report-only"


def test_capture_mode_keeps_its_own_environment_and_reuses_it(runs: Runs) -> None:
    """The capture environment is kept and reused; the judge, installed after the
    capture, is made anew in every job from the hash-locked set, never kept."""
    first, second = runs.capture
    assert _installs(runs.uv_calls[2]), runs.uv_calls[2]
    kept = [c for c in runs.uv_calls[3] if "recall-gate-judge." not in c]
    assert _installs(kept) == []
    judge = [c for c in runs.uv_calls[3] if "recall-gate-judge." in c]
    assert any("--require-hashes" in c for c in _installs(judge)), runs.uv_calls[3]
    assert CACHED in second.step_output
    key = first.outputs("gate")["cache-key"]
    assert "-capture-" in key
    assert key != runs.score[0].outputs("gate")["cache-key"]
    assert second.outputs("gate")["cache-key"] == key
    assert second.outputs("gate")["n"] == first.outputs("gate")["n"] == "24"


def test_a_new_action_commit_of_the_same_version_installs_into_a_new_environment(
    runs: Runs,
) -> None:
    before = runs.score[0].outputs("gate")
    after = runs.after_source_change.outputs("gate")
    assert after["cache-key"].split("-")[:2] == before["cache-key"].split("-")[:2]
    assert after["cache-key"] != before["cache-key"]
    assert after["venv"] != before["venv"]
    assert _installs(runs.uv_calls[4]), runs.uv_calls[4]
    assert CACHED not in runs.after_source_change.step_output


def test_a_warm_uv_cache_installs_without_the_network(
    runs: Runs,
) -> None:
    # The machine's uv cache holds the core packages (the first score run put them
    # there if nothing had): the later cold install resolves without the network.
    installs = _installs(runs.uv_calls[4])
    assert [c for c in installs if c.startswith("pip install")] == [
        c for c in installs if c.startswith("pip install --offline")
    ]
    assert "resolving against the package index" not in runs.after_source_change.step_output
