"""The maintainer's update-baseline workflow, end to end under act, as a consumer runs it.

``examples/workflows/update-baseline.yml`` as it is, copied into a shop's
repository (its docs, cases, a plain retriever, recall-gate.yaml) whose
retrieval improved since its committed baseline, dispatched with act against
the fake GitHub (refs, contents, git trees and commits, pulls). Its
``pip install recall-gate`` finds this checkout's wheel in a fresh runner
Python, as in the two-step PR check test. Assertions are on the fake's end
state (pull requests, branches, files) and on what act logged.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_action_act import (
    PLAIN_RAG,
    Repo,
    _capture_baseline,
    _consumer,
    _example_workflow,
    _step_results,
    wheelhouse,
)

from act_harness import REPO, ActRun
from act_harness import git as _git
from fake_github import TOKEN, FakeGitHub, TokenGrant

pytestmark = [pytest.mark.act, pytest.mark.timeout(1800)]

__all__ = ["wheelhouse"]  # the fixture, shared with the PR-check act tests

WORKFLOW = ".github/workflows/update-baseline.yml"
BRANCH = "recall-gate/baseline-default"
FILE = "baselines/default.json"
NO_PR_TOKEN = "ghs_contents-write-no-pull-requests-0123456789"


@pytest.fixture(scope="module")
def runner_python(tmp_path_factory: pytest.TempPathFactory, wheelhouse: Path) -> Path:
    """setup-python's stand-in: a fresh interpreter with this checkout's wheel installed
    once, so each dispatch's `pip install` finds everything already there."""
    where = tmp_path_factory.mktemp("runner-python") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    links = " ".join(filter(None, [os.environ.get("PIP_FIND_LINKS"), str(wheelhouse)]))
    subprocess.run(
        [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "recall-gate"],
        env={**os.environ, "PIP_FIND_LINKS": links},
        check=True,
    )
    return where


class Shop:
    """The consumer repository on main, its fake GitHub twin, and how to dispatch."""

    def __init__(self, tmp_path: Path, fake: FakeGitHub, runner_python: Path) -> None:
        app = _consumer(
            tmp_path,
            rag=PLAIN_RAG,
            requirements="# the retriever needs nothing beyond recall-gate\n",
        )
        # Main's baseline was captured while the retriever skipped the German docs;
        # the retriever has improved since (main's code no longer skips them).
        rag = app / "app" / "rag.py"
        better = rag.read_text()
        rag.write_text(better.replace("SKIP: tuple[str, ...] = ()", 'SKIP = ("de/",)'))
        _capture_baseline(app, "first baseline")
        rag.write_text(better)
        workflow = app / WORKFLOW
        workflow.write_text(_example_workflow("update-baseline.yml"), encoding="utf-8")
        _git(app, "add", "-A")
        _git(app, "commit", "-q", "-m", "the retriever reads the German docs again")
        fake.add_repo(REPO, files={FILE: (app / FILE).read_bytes()})
        fake.allow_actions_to_create_pull_requests(REPO)
        self.app, self.fake, self.tmp_path = app, fake, tmp_path
        self.repo = Repo(
            path=app,
            scratch=tmp_path / "scratch",
            fake=fake,
            venv=Path(sys.prefix),
            base_sha=_git(app, "rev-parse", "HEAD"),
        )
        self.path_env = f"{runner_python / 'bin'}{os.pathsep}{os.environ['PATH']}"

    def dispatch(self, reason: str, *, token: str = TOKEN, ref: str = "main") -> ActRun:
        inputs = {"profile": "default", "reason": reason}
        event: dict[str, Any] = {
            "inputs": inputs,
            "ref": f"refs/heads/{ref}",
            "repository": {"full_name": REPO, "default_branch": "main"},
        }
        return self.repo.run(
            "workflow_dispatch",
            workflow=WORKFLOW,
            event=event,
            inputs=inputs,
            token=token,
            extra=["--env", f"PATH={self.path_env}"],
        )

    @staticmethod
    def proposed_digest(run: ActRun) -> str:
        """The sha256 of the baseline file the run wrote (act works on a copy of the
        work tree, so the log is where its bytes are named)."""
        [digest] = re.findall(rf"{FILE} has sha256 ([0-9a-f]{{64}})", run.step_output)
        return str(digest)

    def open_pulls(self) -> list[Any]:
        return [p for p in self.fake.pulls(REPO) if p.state == "open"]


@pytest.fixture
def shop(tmp_path: Path, fake_github: FakeGitHub, runner_python: Path) -> Shop:
    return Shop(tmp_path, fake_github, runner_python)


def test_one_pr_per_profile_updated_in_place_then_up_to_date_after_the_merge(
    shop: Shop,
) -> None:
    main_baseline = shop.fake.file(REPO, "main", FILE)

    # 1. The first dispatch opens ONE pull request with old → new.
    first = shop.dispatch("German docs are back")
    assert first.job_result == "success", first.text[-6000:]
    [pull] = shop.open_pulls()
    assert (pull.head_ref, pull.base_ref) == (BRANCH, "main")
    assert pull.title == "Update the default retrieval baseline: German docs are back"
    assert "| group | n | metric | old | new | Δ |" in pull.body
    assert "de" in pull.body
    proposed = shop.fake.file(REPO, BRANCH, FILE) or b""
    assert hashlib.sha256(proposed).hexdigest() == shop.proposed_digest(first)
    assert json.loads(proposed)["reason"] == "German docs are back"
    assert shop.fake.file(REPO, "main", FILE) == main_baseline
    assert "Stale baseline" not in first.text
    assert not first.annotations("warning"), first.annotations("warning")

    # 2. The same dispatch on the same commit writes the same bytes: nothing to change.
    again = shop.dispatch("German docs are back")
    assert again.job_result == "success", again.text[-6000:]
    assert shop.proposed_digest(again) == shop.proposed_digest(first)  # byte-identical
    assert "already proposes this baseline" in again.step_output
    assert [p.number for p in shop.open_pulls()] == [pull.number]

    # 3. Another reason: the same PR is updated (still one open), its history grows.
    update = shop.dispatch("German docs are back, reviewed")
    assert update.job_result == "success", update.text[-6000:]
    [updated] = shop.open_pulls()
    assert updated.number == pull.number
    assert updated.title.endswith("German docs are back, reviewed")
    assert f"updated pull request #{pull.number}" in update.step_output
    section = updated.body.split("<!-- recall-gate:baseline-updates -->\n", 1)[1]
    history = section.split("\n<!-- recall-gate:baseline-updates-end -->", 1)[0].splitlines()
    assert len(history) == 2, updated.body
    assert "“German docs are back”" in history[0]
    assert "“German docs are back, reviewed”" in history[1]

    # 4. Merged, then a re-run on the merge commit: up to date, nothing opened.
    shop.fake.merge_pull(REPO, pull.number)
    (shop.app / FILE).write_bytes(shop.fake.file(REPO, "main", FILE) or b"")
    _git(shop.app, "commit", "-q", "-am", f"Merge pull request #{pull.number}")
    after = shop.dispatch("re-run after the merge")
    assert after.job_result == "success", after.text[-6000:]
    assert shop.open_pulls() == []
    assert "is up to date" in after.step_output
    assert "up to date" in after.summary
    assert len(shop.fake.pulls(REPO)) == 1


def test_a_token_without_pull_requests_write_fails_before_the_evaluation_leaving_no_branch(
    shop: Shop,
) -> None:
    shop.fake.add_token(
        NO_PR_TOKEN,
        TokenGrant(
            login="github-actions[bot]",
            permissions={"contents": "write", "pull_requests": "read", "issues": "read"},
        ),
    )

    run = shop.dispatch("German docs are back", token=NO_PR_TOKEN)

    assert run.job_result == "failure", run.text[-6000:]
    [error] = run.annotations("error")
    assert "pull-requests: write" in error
    steps = _step_results(run)
    assert steps.get("Check the inputs and the token before the evaluation") == "failure", steps
    assert "Evaluate the default branch and write the baseline" not in {
        name for name, result in steps.items() if result == "success"
    }
    assert "captured" not in run.step_output
    assert set(shop.fake.repos[REPO].refs) == {"main"}
    assert shop.fake.pulls(REPO) == []


def test_a_dispatch_on_another_branch_is_skipped(shop: Shop) -> None:
    run = shop.dispatch("from a feature branch", ref="feature")

    assert run.returncode == 0, run.text[-4000:]
    assert run.job_result is None  # the job's `if` is false: act plans it, runs nothing
    assert "captured" not in run.step_output
    assert shop.fake.pulls(REPO) == []
    assert shop.fake.requests == []
