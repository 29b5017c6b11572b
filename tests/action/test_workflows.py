"""Static checks of .github/workflows: least privilege, pinning, the fork-safe path.

zizmor (tests/test_action.py) audits for known dangerous patterns; these
tests pin down the design decisions that zizmor cannot know about.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from git_repo import commit_all, git, needs_git, pull_request_repo, write_files

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = ROOT / ".github" / "workflows"
NAMES = (
    "ci.yml",
    "package.yml",
    "release.yml",
    "retrieval-eval.yml",
    "retrieval-comment.yml",
    "update-baseline.yml",
)
_PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
_WRITE_SCOPES = {"contents", "pull-requests", "actions", "issues", "checks", "statuses"}


def load(name: str) -> dict[str, Any]:
    data = YAML(typ="safe").load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def all_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in data["jobs"].values() for step in job.get("steps", [])]


def test_the_workflows_exist() -> None:
    assert sorted(p.name for p in WORKFLOWS.glob("*.yml")) == sorted(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_no_workflow_wide_permissions_and_each_job_declares_its_own(name: str) -> None:
    data = load(name)
    assert data.get("permissions") == {}, f"{name}: set `permissions: {{}}` at the top"
    for job_id, job in data["jobs"].items():
        assert "permissions" in job, f"{name}/{job_id}: declare the job's permissions"
        for scope, level in job["permissions"].items():
            assert level in {"read", "write"}, f"{name}/{job_id}: {scope}: {level}"


@pytest.mark.parametrize("name", NAMES)
def test_remote_actions_are_pinned_by_full_sha_with_a_version_comment(name: str) -> None:
    text = (WORKFLOWS / name).read_text(encoding="utf-8")
    for line in text.splitlines():
        found = re.match(r"\s*-?\s*uses:\s*(\S+)(.*)$", line)
        if not found or found.group(1).startswith("./"):
            continue
        assert _PINNED.match(found.group(1)), f"{name}: pin {found.group(1)} to a commit SHA"
        assert re.match(r"\s*# v\d", found.group(2)), f"{name}: add `# vX.Y.Z` after the SHA"


@pytest.mark.parametrize("name", NAMES)
def test_checkouts_keep_no_credentials(name: str) -> None:
    for step in all_steps(load(name)):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, name


@pytest.mark.parametrize("name", NAMES)
def test_runs_are_bounded_and_grouped(name: str) -> None:
    data = load(name)
    assert "concurrency" in data, f"{name}: add a concurrency group"
    for job_id, job in data["jobs"].items():
        assert job.get("timeout-minutes"), f"{name}/{job_id}: set timeout-minutes"


def test_ci_runs_make_check_on_push_and_pull_request() -> None:
    data = load("ci.yml")
    assert set(data["on"]) == {"push", "pull_request"}
    runs = [step.get("run", "") for step in all_steps(data)]
    assert "make check" in runs
    assert data["jobs"]["check"]["permissions"] == {"contents": "read"}


def test_ci_covers_every_supported_python_the_whole_suite_on_the_oldest() -> None:
    """The fast suite on 3.11, 3.12 and 3.13 (``requires-python >= 3.11``); act and
    integration once, inside ``make check`` on the oldest."""
    jobs = load("ci.yml")["jobs"]
    oldest = [s for s in jobs["check"]["steps"] if "python-version" in s.get("with", {})]
    assert [s["with"]["python-version"] for s in oldest] == ["3.11"]
    assert jobs["fast"]["strategy"]["matrix"]["python"] == ["3.12", "3.13"]
    assert jobs["fast"]["strategy"]["fail-fast"] is False
    assert [s["run"] for s in jobs["fast"]["steps"] if "run" in s] == ["make test-fast"]
    assert jobs["fast"]["permissions"] == {"contents": "read"}
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'requires-python = ">=3.11"' in pyproject


def test_every_test_has_a_timeout_and_the_log_lists_the_slowest() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r"^timeout = \d+$", pyproject, re.M), "pytest-timeout: set `timeout`"
    assert "pytest-timeout" in pyproject
    assert re.search(r"^pytest-timeout==", (ROOT / "constraints.txt").read_text(), re.M)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("test", "test-fast", "test-act"):
        recipe = makefile.split(f"\n{target}: ", 1)[1].split("\n\n", 1)[0]
        assert "$(DURATIONS)" in recipe, f"make {target}: pass --durations"
    assert "DURATIONS := --durations=" in makefile


def test_the_pr_check_is_two_jobs_and_the_judge_is_the_base_commits_action() -> None:
    """The pull request's code (this repository's own recall-gate, the built-in runner)
    runs in the capture job, with no permissions; the judge adds the BASE commit as a
    worktree beside the PR's files, so the action that judges is the base's, never the
    PR's, while the PR's files (its new cases) are there as data."""
    data = load("retrieval-eval.yml")
    assert set(data["on"]) == {"pull_request"}
    assert data["permissions"] == {}
    assert "github.event.pull_request.number" in data["concurrency"]["group"]
    capture, judge = data["jobs"]["capture"], data["jobs"]["judge"]
    assert capture["permissions"] == {}
    step = next(s for s in capture["steps"] if s.get("uses") == "./")
    assert step["with"]["role"] == "capture"
    assert "github-token" not in step["with"]
    upload = next(s for s in capture["steps"] if "upload-artifact" in str(s.get("uses")))
    assert upload["with"]["name"] == "recall-gate-capture"
    assert judge["needs"] == "capture"
    assert judge["permissions"] == {"contents": "read", "pull-requests": "write"}
    named = "Add the base commit beside the pull request's files"
    base = next(s for s in judge["steps"] if s.get("name") == named)
    assert base["env"]["BASE_SHA"] == "${{ github.event.pull_request.base.sha }}"
    assert 'git worktree add --quiet --detach .recall-gate-judge "$BASE_SHA"' in base["run"]
    assert "^[0-9a-f]{40}$" in base["run"]
    at = [s.get("name") for s in judge["steps"]]
    assert at.index(named) < at.index("recall-gate")
    gate = next(s for s in judge["steps"] if s.get("uses") == "./.recall-gate-judge")
    assert gate["with"]["role"] == "judge"
    # Fork PRs have a read-only token: skip the comment there (the workflow_run path posts it).
    assert "head.repo.full_name == github.repository" in gate["with"]["comment"]
    assert not any("run" in s for s in capture["steps"]), "no shell step of our own"


def test_the_fork_comment_path_never_runs_pr_code_nor_trusts_a_pr_number() -> None:
    data = load("retrieval-comment.yml")
    assert data["on"]["workflow_run"]["workflows"] == ["retrieval-eval"]
    job = data["jobs"]["comment"]
    assert "head_repository.full_name != github.repository" in job["if"]
    assert job["permissions"] == {
        "actions": "read",
        "contents": "read",
        "pull-requests": "write",
    }
    steps = job["steps"]
    checkout = next(s for s in steps if "actions/checkout" in str(s.get("uses")))
    # The default branch: no ref, no repository taken from the triggering run.
    assert set(checkout.get("with", {})) == {"persist-credentials"}
    download = next(s for s in steps if "download-artifact" in str(s.get("uses")))
    assert download["with"]["run-id"] == "${{ github.event.workflow_run.id }}"
    gate = next(s for s in steps if s.get("uses") == "./")
    # The artifact is data for the judge: a capture it scores, nothing else.
    assert gate["with"]["role"] == "judge"
    assert gate["with"]["artifacts"].endswith("/capture.jsonl")
    assert "mode" not in gate["with"]
    assert gate["with"]["fail-on-gate"] == "false", "the PR's own check enforces the verdict"
    text = (WORKFLOWS / "retrieval-comment.yml").read_text(encoding="utf-8")
    assert "pull_requests[" not in text
    assert "pr_number" not in text
    for step in steps:
        assert "run" not in step, "no shell step in the privileged fork path"


UPDATE_BASELINE = (
    WORKFLOWS / "update-baseline.yml",
    ROOT / "examples" / "workflows" / "update-baseline.yml",
)


@pytest.mark.parametrize("path", UPDATE_BASELINE, ids=["own", "example"])
def test_update_baseline_is_manual_with_required_inputs_passed_through_env_only(
    path: Path,
) -> None:
    data = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    dispatch = data["on"]["workflow_dispatch"]["inputs"]
    assert dispatch["reason"]["required"] is True
    assert dispatch["profile"]["required"] is True
    assert data["permissions"] == {}
    job = data["jobs"]["update"]
    assert job["if"] == "github.ref_name == github.event.repository.default_branch"
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    for step in job["steps"]:
        assert "${{" not in step.get("run", ""), step.get("name")
        for name in ("PROFILE", "REASON"):
            if f"${name}" in step.get("run", ""):
                assert step["env"][name] == f"${{{{ inputs.{name.lower()} }}}}"


@pytest.mark.parametrize("path", UPDATE_BASELINE, ids=["own", "example"])
def test_update_baseline_checks_access_before_evaluating_and_writes_reproducible_bytes(
    path: Path,
) -> None:
    steps = YAML(typ="safe").load(path.read_text(encoding="utf-8"))["jobs"]["update"]["steps"]
    scripts = [step.get("run", "") for step in steps]
    check = next(i for i, s in enumerate(scripts) if "--check-access" in s)
    evaluate = next(i for i, s in enumerate(scripts) if "baseline update" in s)
    propose = next(
        i for i, s in enumerate(scripts) if "propose-baseline" in s and "--check-access" not in s
    )
    assert check < evaluate < propose
    assert "--profile" in scripts[check]
    assert "--reason" in scripts[check]
    assert "SOURCE_DATE_EPOCH" in scripts[evaluate]
    assert "--without-latency" in scripts[evaluate]
    # No action step: its report would warn "stale baseline", the very reason to update.
    assert not [s for s in steps if s.get("uses", "").startswith(("./", "recall-gate/"))]
    assert "git push" not in "".join(scripts), "the API commits: protected branches stay closed"


def test_the_example_update_baseline_needs_nothing_from_this_repository() -> None:
    text = UPDATE_BASELINE[1].read_text(encoding="utf-8")
    assert "constraints.txt" not in text
    assert "uses: ./" not in text
    assert "pyproject.toml" not in text


# -- the judge job's base worktree, run as the workflow has it ---------------------------

BASE_STEP = "Add the base commit beside the pull request's files"


def run_base_step(repo: Path, base_sha: str) -> subprocess.CompletedProcess[str]:
    """The judge job's own step script, in ``repo`` (the pull request's checkout)."""
    judge = load("retrieval-eval.yml")["jobs"]["judge"]
    script = next(s for s in judge["steps"] if s.get("name") == BASE_STEP)["run"]
    env = {
        **os.environ,
        "BASE_SHA": base_sha,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    return subprocess.run(
        ["bash", "-c", script], cwd=repo, env=env, capture_output=True, text=True, check=False
    )


@needs_git
def test_the_judge_job_judges_with_the_base_commits_action(tmp_path: Path) -> None:
    repo = pull_request_repo(tmp_path, {"action.yml": "name: base's action\n"})
    base = git(repo, "rev-parse", "main")
    write_files(repo, {"action.yml": "name: the pull request's action\n"})
    commit_all(repo)
    done = run_base_step(repo, base)
    assert done.returncode == 0, done.stderr
    assert (repo / ".recall-gate-judge" / "action.yml").read_text() == "name: base's action\n"


def planted_folder(repo: Path) -> None:
    write_files(repo, {".recall-gate-judge/action.yml": "name: planted\n"})


def planted_file(repo: Path) -> None:
    write_files(repo, {".recall-gate-judge": "planted\n"})


def planted_symlink(repo: Path) -> None:
    write_files(repo, {"evil/action.yml": "name: planted\n"})
    (repo / ".recall-gate-judge").symlink_to("evil")


def planted_dangling_symlink(repo: Path) -> None:
    (repo / ".recall-gate-judge").symlink_to("nowhere")


PLANTED = {
    "a folder of its own": planted_folder,
    "a file": planted_file,
    "a symlink to its own folder": planted_symlink,
    "a dangling symlink": planted_dangling_symlink,
}


@needs_git
@pytest.mark.parametrize("plant", PLANTED.values(), ids=PLANTED.keys())
def test_a_pull_request_that_plants_the_judges_path_fails_the_job(
    tmp_path: Path, plant: Callable[[Path], None]
) -> None:
    """The worktree step fails closed: the judge never runs an action the pull
    request put where the base's should be."""
    repo = pull_request_repo(tmp_path, {"action.yml": "name: base's action\n"})
    base = git(repo, "rev-parse", "main")
    plant(repo)
    commit_all(repo)
    done = run_base_step(repo, base)
    assert done.returncode != 0
    assert "already exists" in done.stderr
    assert len(git(repo, "worktree", "list").splitlines()) == 1  # no base worktree made


@needs_git
@pytest.mark.parametrize("sha", ["main", "", "0" * 39, "$(id)", "A" * 40])
def test_a_base_sha_that_is_no_commit_sha_fails_before_git_runs(tmp_path: Path, sha: str) -> None:
    repo = pull_request_repo(tmp_path, {"action.yml": "name: base's action\n"})
    done = run_base_step(repo, sha)
    assert done.returncode == 1
    assert "::error::the base SHA is not a commit SHA" in done.stdout
    assert not (repo / ".recall-gate-judge").exists()
