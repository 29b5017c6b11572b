"""The action and the workflows, end to end under act, against the fake GitHub API.

Each test prepares a copy of the repository as a git work tree (a
``github.com/octo/app`` origin, a committed ``baselines/default.json``), starts
`FakeGitHub` on 127.0.0.1 and runs a workflow with act in self-hosted mode::

    act pull_request -W WORKFLOW -e event.json -P ubuntu-latest=-self-hosted \\
        --env GITHUB_API_URL=http://127.0.0.1:PORT -s GITHUB_TOKEN=... --json

Nothing is fetched: act skips a checkout of the repository itself, and every
other pinned action is mapped onto a stand-in under ``tests/act/stubs`` with
``--local-repository`` (see its README); that set-up is ``tests/act_harness.py``,
shared with the PR-check benchmark. Assertions are on end state: the
fake's comments, branches and pull requests, the job result, and what act
logged as step outputs, job summary and annotations.

Speed: the `score`-mode runs use ``tests/act/workflows/pr-check.yml`` on a
12-case capture; only the first installs recall-gate into a fresh venv (the
action's install path), the others reuse this interpreter's venv through
``RECALL_GATE_VENV`` (the action's documented escape hatch for prebuilt
environments). The real ``retrieval-eval.yml`` and ``update-baseline.yml`` run
the built-in runner (`run` mode, bundled model, offline).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from act_harness import (
    ACT_DIR,
    CREATED_AT,
    REPO,
    ROOT,
    ActRun,
    copy_checkout,
    prepare_base_tree,
    run_act,
)
from act_harness import clean_environment as _clean_environment
from act_harness import git as _git
from act_harness import pr_event as _pr_event
from act_harness import score_capture as _score
from fake_github import BOT_LOGIN, TOKEN, Failure, FakeGitHub
from recall_gate.cli import main as recall_gate

# A test runs act up to a few times, each bounded by act_harness.ACT_TIMEOUT.
pytestmark = [pytest.mark.act, pytest.mark.timeout(1800)]

PR_CHECK = "tests/act/workflows/pr-check.yml"
EXAMPLE_WORKFLOWS = ROOT / "examples" / "workflows"
READ_ONLY_TOKEN = "ghs_read-only-fork-token-0123456789"
APP_TOKEN = "ghs_github-app-installation-token-0123456789"
MARKER = "<!-- recall-gate:default -->"
HEAD_1 = "1" * 40
HEAD_2 = "2" * 40


@dataclass
class Repo:
    """A prepared work tree plus everything an act run needs around it."""

    path: Path
    scratch: Path
    fake: FakeGitHub
    venv: Path
    base_sha: str  # the base branch's commit: what a pull request event names

    def run(
        self,
        event_name: str,
        *,
        workflow: str,
        event: Mapping[str, Any],
        token: str = TOKEN,
        variables: Mapping[str, str] | None = None,
        inputs: Mapping[str, str] | None = None,
        venv: Path | None = None,
        env: Mapping[str, str] | None = None,
        extra: Sequence[str] = (),
        path_prefix: Sequence[Path] = (),
    ) -> ActRun:
        """``env`` goes on top of the defaults (``RECALL_GATE_VENV=""``: the action's own
        environment location, as on a hosted runner)."""
        text = json.dumps(event).replace(BASE_SHA_OF_THE_REPO, self.base_sha)
        return run_act(
            self.path,
            event_name,
            workflow=workflow,
            event=json.loads(text),
            scratch=self.scratch,
            api_url=self.fake.url,
            token=token,
            env={
                "RECALL_GATE_VENV": str(venv or self.venv),
                "ACT_STUB_ARTIFACTS": str(self.scratch / "artifacts"),
                "ACT_OUTPUTS_FILE": str(self.scratch / "outputs.json"),
                "HF_HUB_OFFLINE": "1",
                "TRANSFORMERS_OFFLINE": "1",
                **(env or {}),
            },
            variables=variables,
            inputs=inputs,
            extra=extra,
            path_prefix=path_prefix,
        )


@pytest.fixture(scope="module")
def base_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's files (tracked and new, not ignored) with a v1 baseline, as git."""
    return prepare_base_tree(tmp_path_factory.mktemp("act-base") / "repo")


@pytest.fixture
def repo(base_tree: Path, tmp_path: Path, fake_github: FakeGitHub) -> Repo:
    """A work tree, and the shared fake GitHub (github.com mode) holding ``octo/app``."""
    path = tmp_path / "repo"
    shutil.copytree(base_tree, path, symlinks=True)
    scratch = tmp_path / "scratch"
    (scratch / "artifacts").mkdir(parents=True)
    fake_github.add_actions_token(READ_ONLY_TOKEN, read_only=True)  # a fork PR's token
    fake_github.add_repo(
        REPO,
        files={
            "baselines/default.json": (path / "baselines" / "default.json").read_bytes(),
        },
    )
    return Repo(
        path=path,
        scratch=scratch,
        fake=fake_github,
        venv=Path(sys.prefix),
        base_sha=_git(path, "rev-parse", "HEAD"),
    )


# Stands for the base commit of the prepared repository (Repo.run writes it in).
BASE_SHA_OF_THE_REPO = "c" * 40


def pr_event(
    number: int, head_sha: str, *, fork: bool = False, base_sha: str = BASE_SHA_OF_THE_REPO
) -> dict[str, Any]:
    return _pr_event(number, head_sha, base_sha=base_sha, fork=fork)


def marked_comments(fake: FakeGitHub, number: int) -> list[Any]:
    return [c for c in fake.comments(REPO, number) if MARKER in c.body]


def ours(fake: FakeGitHub, number: int) -> list[Any]:
    """The bot's comments that start with the marker: what the action may edit."""
    return [
        c
        for c in fake.comments(REPO, number)
        if c.login == BOT_LOGIN and c.user_type == "Bot" and c.body.startswith(MARKER)
    ]


def _untouched(fake: FakeGitHub, comment_id: int, body: str) -> bool:
    found = fake.comment(REPO, comment_id)
    return found is not None and found.body == body and found.updated_at == found.created_at


def assert_one_evaluation_and_one_comparison(run: ActRun, *, profile: str) -> None:
    """The job evaluates once and compares once: one report header (the resolved
    paths) and one verdict line in the whole log."""
    log = run.step_output
    assert log.count("config:   ") == 1, log[-4000:]
    assert log.count("baseline: ") == 1, log[-4000:]
    assert len(re.findall(rf"recall-gate {profile}: [A-Z-]+\n", log)) == 1, log[-4000:]


def assert_token_never_printed(run: ActRun, *tokens: str) -> None:
    """Nowhere in act's whole output: not in what the steps printed, not in act's own
    lines. The one exception is act's record of the ``::add-mask::`` command
    itself, which GitHub consumes and never shows (act logs its message as ***)."""
    shown = [json.dumps(e) for e in run.events if e.get("command") != "add-mask"] + [
        line for line in run.text.splitlines() if not line.startswith("{")
    ]
    for token in tokens:
        assert token not in run.step_output
        assert not [line for line in shown if token in line]


# -- the PR check, score mode ---------------------------------------------------------


def test_first_run_installs_comments_once_and_writes_summary_and_outputs(
    repo: Repo, tmp_path: Path
) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)
    fresh_venv = tmp_path / "fresh-venv"

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "tests/act/data/capture-v1.jsonl"},
        venv=fresh_venv,
    )

    assert run.job_result == "success", run.text[-4000:]
    assert (fresh_venv / "bin" / "recall-gate").exists(), "the action installs into the venv"
    assert not (fresh_venv / "lib" / "python3.11" / "site-packages" / "chromadb").exists()
    outputs = run.outputs("gate")
    assert outputs["verdict"] == "report-only"
    assert (outputs["hit"], outputs["recall"], outputs["ndcg"]) == ("0.916667", "0.916667", "0.75")
    assert outputs["n"] == "12"
    assert outputs["regressions"] == "0"
    assert outputs["results-json"].endswith("/results.json")
    assert outputs["report-markdown"].endswith("/report.md")
    comments = marked_comments(repo.fake, number)
    assert len(comments) == 1
    assert comments[0].login == BOT_LOGIN
    assert outputs["comment-url"].endswith(f"#issuecomment-{comments[0].id}")
    assert "report-only" in comments[0].body
    assert f"head-sha={HEAD_1}" in comments[0].body
    assert "report-only" in run.summary
    assert "| group | n | metric | baseline | current |" in run.summary
    assert json.loads((repo.scratch / "outputs.json").read_text())["verdict"] == "report-only"
    assert_token_never_printed(run, TOKEN)
    assert_one_evaluation_and_one_comparison(run, profile="default")


def test_a_config_profile_names_the_comment_and_the_baseline(repo: Repo) -> None:
    config = repo.path / "tests" / "act" / "data" / "nightly.yaml"
    config.write_text("profile: nightly\nk: 5\n", encoding="utf-8")
    # On the base branch: a profile the pull request itself adds applies after merge.
    _git(repo.path, "add", str(config))
    _git(repo.path, "commit", "-q", "-m", "a nightly profile")
    repo.base_sha = _git(repo.path, "rev-parse", "HEAD")
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={
            "ARTIFACTS": "tests/act/data/capture-v1.jsonl",
            "CONFIG": "tests/act/data/nightly.yaml",
        },
    )

    assert run.job_result == "success", run.text[-4000:]
    bodies = [c.body for c in repo.fake.comments(REPO, number)]
    assert len(bodies) == 1
    assert bodies[0].startswith("<!-- recall-gate:nightly -->")
    # nightly's baseline is beside its config, and there is none yet.
    assert f"baseline: tests/act/data/baselines/nightly.json at {repo.base_sha}" in run.step_output
    assert "No baseline yet" in bodies[0]
    assert_one_evaluation_and_one_comparison(run, profile="nightly")


def test_among_120_comments_and_others_quoting_the_marker_only_ours_is_created_then_edited(
    repo: Repo,
) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)
    for i in range(120):
        repo.fake.add_comment(REPO, number, login=f"dev{i % 5}", body=f"chatter {i}")
    human_body = f"{MARKER}\nPasting the bot's table here: is case-02 expected?"
    human = repo.fake.add_comment(REPO, number, login="reviewer", body=human_body)
    bot_body = f"{MARKER}\ncoverage 91%"
    other_bot = repo.fake.add_comment(REPO, number, login="codecov[bot]", body=bot_body)
    v1 = {"ARTIFACTS": "tests/act/data/capture-v1.jsonl"}

    # Run 1 (github.com mode: GET /user is refused to the workflow token).
    first = repo.run(
        "pull_request", workflow=PR_CHECK, event=pr_event(number, HEAD_1), variables=v1
    )

    assert first.job_result == "success", first.text[-4000:]
    [created] = ours(repo.fake, number)
    assert created.body.startswith(MARKER)
    assert len(repo.fake.comments(REPO, number)) == 123
    assert _untouched(repo.fake, human, human_body)
    assert _untouched(repo.fake, other_bot, bot_body)
    assert [r.status for r in repo.fake.requests if r.path == "/user"] == [403]
    writes = len(repo.fake.writes())

    again = repo.run(
        "pull_request", workflow=PR_CHECK, event=pr_event(number, HEAD_1), variables=v1
    )
    assert again.job_result == "success", again.text[-4000:]
    assert len(repo.fake.writes()) == writes, "an unchanged report is not rewritten"

    # Run 2: a new push whose data regressed.
    repo.fake.push(REPO, number, head_sha=HEAD_2)
    second = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_2),
        variables={"ARTIFACTS": "tests/act/data/capture-v2.jsonl"},
    )

    assert second.job_result == "success", second.text[-4000:]
    [updated] = ours(repo.fake, number)
    assert updated.id == created.id
    assert updated.body != created.body
    assert f"head-sha={HEAD_2}" in updated.body
    assert "case-02" in updated.body  # a hit → miss flip is listed
    assert len(repo.fake.comments(REPO, number)) == 123
    assert [r.method for r in repo.fake.writes()][writes:] == ["PATCH"]
    assert _untouched(repo.fake, human, human_body)
    assert _untouched(repo.fake, other_bot, bot_body)
    assert second.outputs("gate")["hit"] == "0.833333"
    for run in (first, again, second):
        assert_token_never_printed(run, TOKEN)


def test_a_403_on_the_edit_is_a_warning_and_the_job_passes(repo: Repo) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)
    first = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "tests/act/data/capture-v1.jsonl"},
    )
    assert first.job_result == "success", first.text[-4000:]
    [before] = ours(repo.fake, number)
    repo.fake.inject(Failure.permission(), path="*/issues/comments/*", method="PATCH")

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "tests/act/data/capture-v2.jsonl"},
    )

    assert run.job_result == "success", run.text[-4000:]
    assert ours(repo.fake, number) == [before]
    warnings = run.annotations("warning")
    assert any("could not update the recall-gate comment" in w for w in warnings), warnings
    assert "was not posted" in run.summary
    assert_token_never_printed(run, TOKEN)


def test_a_github_app_token_with_comment_author_edits_its_own_comment_in_place(
    repo: Repo,
) -> None:
    repo.fake.add_app_token(APP_TOKEN, app_slug="recall-app")
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)
    old_body = f"{MARKER}\nposted earlier with the workflow token"
    actions = repo.fake.add_comment(REPO, number, login=BOT_LOGIN, body=old_body)
    knobs = {"COMMENT_AUTHOR": "recall-app[bot]"}

    first = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={**knobs, "ARTIFACTS": "tests/act/data/capture-v1.jsonl"},
        token=APP_TOKEN,
    )
    repo.fake.push(REPO, number, head_sha=HEAD_2)
    second = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_2),
        variables={**knobs, "ARTIFACTS": "tests/act/data/capture-v2.jsonl"},
        token=APP_TOKEN,
    )

    assert first.job_result == second.job_result == "success", second.text[-4000:]
    [mine] = [c for c in repo.fake.comments(REPO, number) if c.login == "recall-app[bot]"]
    assert mine.body.startswith(MARKER)
    assert f"head-sha={HEAD_2}" in mine.body
    assert first.outputs("gate")["comment-url"].endswith(f"#issuecomment-{mine.id}")
    assert _untouched(repo.fake, actions, old_body)
    assert not [r for r in repo.fake.requests if r.path == "/user"]
    assert not any("comment author" in w for w in second.annotations("warning"))
    for run in (first, second):
        assert_token_never_printed(run, APP_TOKEN)


def test_a_floor_above_the_observed_value_fails_the_job(repo: Repo) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "tests/act/data/capture-v1.jsonl", "MIN_HIT": "0.99"},
    )

    assert run.job_result == "failure"
    assert run.outputs("gate")["verdict"] == "fail"
    errors = run.annotations("error")
    assert any("below the floor 0.990 (min-hit)" in e for e in errors), errors
    # The comment still says why, before the job fails.
    [comment] = marked_comments(repo.fake, number)
    assert "fail" in comment.body


def test_a_metrics_own_tolerance_input_judges_it_beside_the_one_number(repo: Repo) -> None:
    # v2 against v1's baseline, overall: hit and recall −0.083, nDCG 0.750 → 0.636 (−0.114).
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={
            "ARTIFACTS": "tests/act/data/capture-v2.jsonl",
            "MAX_REGRESSION": "0.2",
            "MAX_REGRESSION_NDCG": "0.1",
        },
    )

    assert run.job_result == "failure", run.text[-4000:]
    outputs = run.outputs("gate")
    assert (outputs["verdict"], outputs["regressions"]) == ("fail", "1")
    errors = run.annotations("error")
    assert any(
        e.startswith("overall: nDCG@5 0.750 → 0.636") and "beyond the 0.100 tolerance" in e
        for e in errors
    ), errors
    [comment] = marked_comments(repo.fake, number)
    assert "1 drop beyond the 0.200 tolerance (0.100 for nDCG@5)" in comment.body


def test_a_comment_refused_with_403_is_a_warning_and_the_job_passes(repo: Repo) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1, from_fork=True)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1, fork=True),
        variables={"ARTIFACTS": "tests/act/data/capture-v1.jsonl"},
        token=READ_ONLY_TOKEN,
    )

    assert run.job_result == "success", run.text[-4000:]
    assert run.outputs("gate")["verdict"] == "report-only"
    assert repo.fake.comments(REPO, number) == []
    warnings = run.annotations("warning")
    assert any("cannot write PR comments" in w for w in warnings), warnings
    assert "was not posted" in run.summary
    assert_token_never_printed(run, READ_ONLY_TOKEN)


def test_any_other_comment_failure_is_a_warning_too(repo: Repo) -> None:
    # PR #9 does not exist (deleted): GitHub answers 404, the command exits 2.
    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(9, HEAD_1),
        variables={"ARTIFACTS": "tests/act/data/capture-v1.jsonl"},
    )

    assert run.job_result == "success", run.text[-4000:]
    assert run.outputs("gate")["verdict"] == "report-only"
    assert "pull request octo/app#9 was not found" in run.step_output
    assert any("the verdict is unaffected" in w for w in run.annotations("warning"))
    assert "could not be posted" in run.summary


def test_a_pr_that_edits_the_baseline_is_compared_with_the_base_ref(repo: Repo) -> None:
    base_sha = _git(repo.path, "rev-parse", "HEAD")
    edited = _score("capture-v2.jsonl", repo.scratch / "v2.json")
    code = recall_gate(
        [
            "baseline",
            "update",
            "--results",
            str(edited),
            "--reason",
            "edited in the PR",
            "--created-at",
            CREATED_AT,
            "--git-sha",
            "b" * 40,
        ],
        {},
        stdout=io.StringIO(),
        cwd=repo.path,
    )
    assert code == 0
    _git(repo.path, "commit", "-q", "-am", "PR: move the baseline")
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={
            "ARTIFACTS": "tests/act/data/capture-v2.jsonl",
            "BASELINE_REF": base_sha,
            "MAX_REGRESSION": "0.05",
        },
    )

    # Against the PR's own (edited) baseline nothing would move; against the
    # base's, v2 regresses — and the tolerance is enforced.
    assert run.job_result == "failure", run.text[-4000:]
    assert run.outputs("gate")["verdict"] == "fail"
    assert int(run.outputs("gate")["regressions"]) > 0
    [comment] = marked_comments(repo.fake, number)
    assert "This pull request changes the baseline" in comment.body
    assert "edited in the PR" in comment.body


def test_a_score_mode_pr_whose_own_capture_drops_the_cases_it_regresses_still_fails(
    repo: Repo,
) -> None:
    """A capture that labels itself, with no cases file: the base's baseline records
    are the oracle, so the cases the PR left out of its capture still count."""
    lines = (ACT_DIR / "data" / "capture-v2.jsonl").read_text(encoding="utf-8").splitlines()
    dropped = [line for line in lines if line.strip() and '"case-02"' not in line]
    assert len(dropped) == len([line for line in lines if line.strip()]) - 1
    capture = repo.path / "pr-capture.jsonl"
    capture.write_text("\n".join(dropped) + "\n", encoding="utf-8")
    _git(repo.path, "add", "pr-capture.jsonl")
    _git(repo.path, "commit", "-q", "-m", "PR: capture without the case that regressed")
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "pr-capture.jsonl", "MAX_REGRESSION": "0.05"},
    )

    assert run.job_result == "failure", run.text[-4000:]
    assert run.outputs("gate")["verdict"] == "fail"
    [comment] = marked_comments(repo.fake, number)
    assert "Cases removed / relabelled by this pull request" in comment.body
    assert "case-02" in comment.body
    assert "the case records of baselines/default.json" in comment.body
    assert_token_never_printed(run, TOKEN)


# -- the fork-safe comment path ---------------------------------------------------------


def workflow_run_event(head_sha: str) -> dict[str, Any]:
    return {
        "action": "completed",
        "workflow_run": {
            "id": 4242,
            "name": "retrieval-eval",
            "event": "pull_request",
            "conclusion": "success",
            "head_sha": head_sha,
            "head_branch": "feature",
            "head_repository": {"full_name": "contributor/app", "owner": {"login": "contributor"}},
            # GitHub leaves this empty for fork PRs; the PR is found from head_sha.
            "pull_requests": [],
        },
        "repository": {"full_name": REPO, "default_branch": "main", "owner": {"login": "octo"}},
    }


def _upload_capture(repo: Repo, capture: Path) -> None:
    """A fork's run uploaded CAPTURE; the default branch judges it with the act data's
    config (a self-contained capture, no cases file), committed as recall-gate.yaml."""
    config = (ACT_DIR / "data" / "recall-gate.yaml").read_text(encoding="utf-8")
    config = config.replace("../../../baselines/", "baselines/")  # now at the root
    (repo.path / "recall-gate.yaml").write_text(config, encoding="utf-8")
    _git(repo.path, "commit", "-q", "-am", "the act data's config")
    artifact = repo.scratch / "artifacts" / "recall-gate-capture"
    artifact.mkdir(parents=True, exist_ok=True)
    shutil.copy(capture, artifact / "capture.jsonl")
    # A fork controls the artifact: a number planted in it must not be trusted.
    (artifact / "pr_number").write_text("1\n")


def test_the_fork_judge_workflow_posts_on_the_pr_found_from_the_head_sha(repo: Repo) -> None:
    decoy = repo.fake.add_pull(REPO, head_sha="d" * 40)  # PR #1, what the artifact claims
    number = repo.fake.add_pull(REPO, head_sha=HEAD_2, from_fork=True)
    _upload_capture(repo, ACT_DIR / "data" / "capture-v2.jsonl")

    run = repo.run(
        "workflow_run",
        workflow=".github/workflows/retrieval-comment.yml",
        event=workflow_run_event(HEAD_2),
    )

    assert run.job_result == "success", run.text[-4000:]
    assert "run-id=4242" in run.step_output
    assert "token=present" in run.step_output
    assert "Install the judge" in run.step_seconds()  # a fresh, hash-locked judge
    assert repo.fake.comments(REPO, decoy) == []
    [comment] = marked_comments(repo.fake, number)
    assert f"head-sha={HEAD_2}" in comment.body
    assert "0.833" in comment.body


def test_the_fork_judge_workflow_reports_a_capture_that_fails_the_schema_as_error(
    repo: Repo,
) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_2, from_fork=True)
    lines = (ACT_DIR / "data" / "capture-v2.jsonl").read_text().splitlines()
    tampered = json.loads(lines[0])
    tampered["retrieved"] = "<img src=x onerror=alert(1)>"
    bad = repo.scratch / "tampered.jsonl"
    bad.write_text("\n".join([json.dumps(tampered), *lines[1:]]) + "\n")
    _upload_capture(repo, bad)

    run = repo.run(
        "workflow_run",
        workflow=".github/workflows/retrieval-comment.yml",
        event=workflow_run_event(HEAD_2),
    )

    assert run.job_result == "failure"  # an error is never a pass, fail-on-gate or not
    [comment] = marked_comments(repo.fake, number)
    assert "**error**" in comment.body
    assert "<img" not in comment.body
    assert "retrieved" in run.step_output


def test_a_case_id_that_is_a_workflow_command_never_starts_a_line_of_the_job_log(
    repo: Repo,
) -> None:
    """A capture the pull request wrote names a case `::warning::x`, another
    `   ::error::y` and a card `::set-output name=verdict::pass`: the report names
    them, and the runner sees none of them as a command."""
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)
    lines = (ACT_DIR / "data" / "capture-v1.jsonl").read_text().splitlines()
    hostile = [json.loads(lines[0]), json.loads(lines[1])]
    hostile[0]["case_id"] = "::warning::x"
    hostile[1]["case_id"] = "   ::error::y"
    hostile[1]["retrieved"] = ["::set-output name=verdict::pass", *hostile[1]["retrieved"]]
    capture = repo.path / "hostile.jsonl"
    capture.write_text("\n".join([*map(json.dumps, hostile), *lines[2:]]) + "\n")
    _git(repo.path, "add", "hostile.jsonl")
    _git(repo.path, "commit", "-q", "-m", "a capture with hostile ids")

    run = repo.run(
        "pull_request",
        workflow=PR_CHECK,
        event=pr_event(number, HEAD_1),
        variables={"ARTIFACTS": "hostile.jsonl"},
    )

    assert run.job_result == "success", run.text[-4000:]
    assert "::warning::x" in run.step_output  # named in the report, escaped
    for line in run.step_output.splitlines():
        assert not line.lstrip().startswith("::warning::x"), line
        assert not line.lstrip().startswith("::error::y"), line
        assert not line.lstrip().startswith("::set-output"), line
    assert "x" not in run.annotations("warning")
    assert "y" not in run.annotations("error")
    assert run.outputs("gate")["verdict"] == "report-only"


# -- run mode: the real PR check, and the baseline update ---------------------------------


def test_the_pr_check_workflow_runs_the_built_in_runner(repo: Repo) -> None:
    (repo.path / "baselines" / "default.json").unlink()
    _git(repo.path, "commit", "-q", "-am", "no baseline yet")
    base_sha = _git(repo.path, "rev-parse", "HEAD")  # the workflow reads the baseline there
    # The pull request adds a case: the base's judge reports it as new, never refuses it.
    cases = repo.path / "reference" / "cases" / "en.yaml"
    cases.write_text(
        cases.read_text(encoding="utf-8")
        + "  - id: en-golden-added-by-the-pr\n    language: en\n    case_type: golden\n"
        '    query: "how do i get my prescription refilled"\n'
        "    must_cite_one_of: [en-prescription-refills]\n",
        encoding="utf-8",
    )
    _git(repo.path, "commit", "-q", "-am", "a new case")
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run(
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, HEAD_1, base_sha=base_sha),
    )

    assert run.job_result == "success", run.text[-4000:]
    outputs = run.outputs("gate")
    assert outputs["verdict"] == "report-only"
    assert int(outputs["n"]) >= 100
    assert 0.0 < float(outputs["hit"]) <= 1.0
    [comment] = marked_comments(repo.fake, number)
    assert "baseline" in comment.body.lower()
    assert "This pull request adds 1 case(s)" in comment.body
    assert any("no baseline" in n.lower() for n in run.annotations("notice")), run.annotations(
        "notice"
    )
    uploaded = repo.scratch / "artifacts" / "recall-gate-capture" / "capture.jsonl"
    # Captured: the base's cases (scored, or without gold) and the one the PR adds (told apart).
    assert len(uploaded.read_text().splitlines()) == int(outputs["n"]) + outputs_unscored(run) + 1
    jobs = {e["jobID"]: e["jobResult"] for e in run.events if "jobResult" in e}
    assert jobs == {"capture": "success", "judge": "success"}


def outputs_unscored(run: ActRun) -> int:
    """Cases the capture holds and the score leaves out (no gold): from the report."""
    found = re.search(r"(\d+) cases? (?:is|are) without gold", run.step_output)
    return int(found.group(1)) if found else 0


def test_update_baseline_commits_the_new_baseline_and_opens_a_pr(repo: Repo) -> None:
    old = (repo.path / "baselines" / "default.json").read_bytes()
    repo.fake.allow_actions_to_create_pull_requests(REPO)  # off by default on GitHub

    run = repo.run(
        "workflow_dispatch",
        workflow=".github/workflows/update-baseline.yml",
        event={
            "inputs": {"profile": "default", "reason": "re-ranked the KB chunks"},
            "ref": "refs/heads/main",
            "repository": {"full_name": REPO, "default_branch": "main"},
        },
        inputs={"profile": "default", "reason": "re-ranked the KB chunks"},
    )

    assert run.job_result == "success", run.text[-4000:]
    [pull] = [p for p in repo.fake.pulls(REPO) if p.head_ref.startswith("recall-gate/")]
    assert pull.head_ref == "recall-gate/baseline-default"  # one branch per profile
    assert pull.base_ref == "main"
    assert pull.state == "open"
    assert "re-ranked the KB chunks" in pull.title
    assert "re-ranked the KB chunks" in pull.body
    assert "| group | n | metric | old | new | Δ |" in pull.body  # per metric and group
    new = repo.fake.file(REPO, pull.head_ref, "baselines/default.json")
    assert new is not None
    assert new != old
    baseline = json.loads(new)
    assert baseline["kind"] == "recall-gate-baseline"
    assert baseline["reason"] == "re-ranked the KB chunks"
    assert baseline["aggregates"]["overall"]["retrieval_hit_at_k"]["n"] >= 100
    # The default branch itself is untouched: the change waits in the PR.
    assert repo.fake.file(REPO, "main", "baselines/default.json") == old
    # The update run raises no "stale baseline" warning: a stale baseline is why it runs.
    assert not run.annotations("warning"), run.annotations("warning")


# -- the README's one-step PR check, in a consumer repository ----------------------------

CONSUMER_RAG = """\
\"\"\"The app's retriever (synthetic docs): Haystack's in-memory BM25, no model.\"\"\"

from pathlib import Path

from haystack import Document
from haystack.components.retrievers.in_memory import InMemoryBM25Retriever
from haystack.document_stores.in_memory import InMemoryDocumentStore

DOCS = Path(__file__).resolve().parent.parent / "docs"
SKIP: tuple[str, ...] = ()


def build_retriever() -> InMemoryBM25Retriever:
    store = InMemoryDocumentStore()
    store.write_documents(
        [
            Document(content=path.read_text(encoding="utf-8"), meta={"file_path": str(path)})
            for path in sorted(DOCS.rglob("*.md"))
            if not path.relative_to(DOCS).as_posix().startswith(SKIP)
        ]
    )
    return InMemoryBM25Retriever(document_store=store, top_k=5)
"""

CONSUMER_CONFIG = """\
# Synthetic evaluation (an invented shop), k and a tolerance the PR must not escape.
kb: docs
cases: evals/cases.yaml
k: 3
capture:
  retriever: app.rag:build_retriever
gate:
  max_regression: 0.05
  min_group_n: 5
  # A few cases: the PR's lost hits cannot test as likely real, so the tolerance
  # holds within noise (these tests check the workflows, not the noise rule).
  require_significance: false
"""


def _readme_workflow() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text[text.index("<!-- quickstart:start -->") : text.index("<!-- quickstart:end -->")]
    return block.split("```yaml\n", 1)[1].split("```", 1)[0]


def _capture_baseline(app: Path, reason: str) -> None:
    """`recall-gate capture` in the app, then `baseline update`: what a maintainer runs."""
    sys.modules.pop("app", None)
    sys.modules.pop("app.rag", None)
    results = app.parent / f"{reason.replace(' ', '-')}.json"
    code = recall_gate(
        ["capture", "--out", str(app.parent / "c.jsonl"), "--json", str(results), "--no-gate"],
        {},
        stdout=io.StringIO(),
        stderr=io.StringIO(),
        cwd=app,
    )
    assert code == 0
    code = recall_gate(
        ["baseline", "update", "--results", str(results), "--reason", reason,
         "--created-at", CREATED_AT, "--git-sha", "a" * 40],
        {},
        stdout=io.StringIO(),
        cwd=app,
    )  # fmt: skip
    assert code == 0
    sys.modules.pop("app", None)
    sys.modules.pop("app.rag", None)


def _consumer(
    tmp_path: Path,
    *,
    rag: str = CONSUMER_RAG,
    requirements: str = "haystack-ai\n",
    workflow_text: str | None = None,
) -> Path:
    """A shop's repository: its docs, cases, retriever (Haystack unless ``rag``
    says otherwise), config and a workflow (the README's unless
    ``workflow_text``), with a baseline captured on main (committed)."""
    app = tmp_path / "shop"
    shutil.copytree(ROOT / "examples" / "data" / "docs", app / "docs")
    (app / "evals").mkdir()
    shutil.copy(ROOT / "examples" / "data" / "cases.yaml", app / "evals" / "cases.yaml")
    (app / "app").mkdir()
    (app / "app" / "__init__.py").write_text("", encoding="utf-8")
    (app / "app" / "rag.py").write_text(rag, encoding="utf-8")
    (app / "requirements.txt").write_text(requirements, encoding="utf-8")
    (app / "recall-gate.yaml").write_text(CONSUMER_CONFIG, encoding="utf-8")
    workflow = app / ".github" / "workflows" / "retrieval-eval.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text(workflow_text or _readme_workflow(), encoding="utf-8")
    _capture_baseline(app, "first baseline")
    _git(app, "init", "-q", "-b", "main")
    _git(app, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    _git(app, "add", "-A")
    _git(app, "commit", "-q", "-m", "base")
    return app


def _run_consumer(
    app: Path,
    tmp_path: Path,
    fake: FakeGitHub,
    base_sha: str,
    *,
    action: Path,
    extra: Sequence[str] = (),
) -> tuple[ActRun, int]:
    scratch = tmp_path / "scratch"
    (scratch / "artifacts").mkdir(parents=True)
    fake.add_repo(REPO)
    number = fake.add_pull(REPO, head_sha=HEAD_1)
    consumer = Repo(path=app, scratch=scratch, fake=fake, venv=Path(sys.prefix), base_sha=base_sha)
    run = consumer.run(
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, HEAD_1),
        # `uses: recall-gate/recall-gate@v0` is this checkout; its code runs from src/.
        extra=[
            "--local-repository",
            f"recall-gate/recall-gate@v0={action}",
            "--env",
            f"PYTHONPATH={ROOT / 'src'}",
            *extra,
        ],
    )
    return run, number


def test_the_readme_one_step_check_fails_a_pr_that_regresses_and_lowers_its_own_baseline(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    app = _consumer(tmp_path)
    base_sha = _git(app, "rev-parse", "HEAD")
    # The pull request: its retriever loses the German docs, and it re-baselines on that.
    rag = app / "app" / "rag.py"
    rag.write_text(rag.read_text().replace("SKIP: tuple[str, ...] = ()", 'SKIP = ("de/",)'))
    _capture_baseline(app, "new retriever, new baseline")
    _git(app, "commit", "-q", "-am", "Faster retriever; refresh the baseline")

    run, number = _run_consumer(app, tmp_path, fake_github, base_sha, action=action_release)

    assert run.job_result == "failure", run.text[-6000:]
    [comment] = marked_comments(fake_github, number)
    assert "**fail**" in comment.body
    assert "de-returns" in comment.body
    assert "de-shipping" in comment.body
    assert "This pull request changes the baseline" in comment.body
    assert "new retriever, new baseline" in comment.body
    assert any("retrieval gate failed" in e for e in run.annotations("error"))


# -- the docs' example workflows (docs/pr-check.md includes them), as they are -------------

PLAIN_RAG = """\
\"\"\"The app's retriever (synthetic docs): word overlap, nothing to install.\"\"\"

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
SKIP: tuple[str, ...] = ()


def build_retriever():
    pages = [
        (path.relative_to(DOCS).with_suffix("").as_posix(), set(path.read_text().lower().split()))
        for path in sorted(DOCS.rglob("*.md"))
        if not path.relative_to(DOCS).as_posix().startswith(SKIP)
    ]

    def search(query: str, k: int) -> list[str]:
        words = set(query.lower().split())
        ranked = sorted(pages, key=lambda page: (-len(words & page[1]), page[0]))
        return [card for card, _ in ranked[:k]]

    return search
"""


def _example_workflow(name: str) -> str:
    return (EXAMPLE_WORKFLOWS / name).read_text(encoding="utf-8")


def _regress_and_rebaseline(app: Path) -> None:
    """The pull request: its retriever loses the German docs, and it re-baselines on that."""
    rag = app / "app" / "rag.py"
    rag.write_text(rag.read_text().replace("SKIP: tuple[str, ...] = ()", 'SKIP = ("de/",)'))
    _capture_baseline(app, "new retriever, new baseline")
    _git(app, "commit", "-q", "-am", "Faster retriever; refresh the baseline")


def _step_results(run: ActRun) -> dict[str, str]:
    """Each top-level step's result, by its name (act logs ``stepResult`` per stage)."""
    return {
        e["step"]: e["stepResult"]
        for e in run.events
        if "stepResult" in e and e.get("stage") == "Main" and len(e.get("stepID", [])) == 1
    }


@pytest.fixture(scope="module")
def wheelhouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """This checkout as a wheel: what `pip install recall-gate` finds in a capture step
    (built from a copy, so the work tree gets no build folders)."""
    source = copy_checkout(tmp_path_factory.mktemp("wheel-source") / "recall-gate")
    where = tmp_path_factory.mktemp("wheelhouse")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(where), "."],
        cwd=source,
        env=_clean_environment(),
        capture_output=True,
        check=True,
    )
    return where


def test_the_docs_two_job_workflow_with_its_own_capture_command_fails_in_the_judge_job(
    tmp_path: Path, fake_github: FakeGitHub, wheelhouse: Path, action_release: Path
) -> None:
    app = _consumer(
        tmp_path,
        rag=PLAIN_RAG,
        requirements="# the retriever needs nothing beyond recall-gate\n",
        workflow_text=_example_workflow("two-step.yml"),
    )
    base_sha = _git(app, "rev-parse", "HEAD")
    _regress_and_rebaseline(app)
    # setup-python's stand-in: a fresh interpreter, first on the PATH; the capture
    # step's `pip install ... recall-gate` finds this checkout's wheel.
    runner_python = tmp_path / "runner-python"
    subprocess.run([sys.executable, "-m", "venv", str(runner_python)], check=True)
    links = " ".join(filter(None, [os.environ.get("PIP_FIND_LINKS"), str(wheelhouse)]))

    run, number = _run_consumer(
        app,
        tmp_path,
        fake_github,
        base_sha,
        action=action_release,
        extra=[
            "--env",
            f"PATH={runner_python / 'bin'}{os.pathsep}{os.environ['PATH']}",
            "--env",
            f"PIP_FIND_LINKS={links}",
        ],
    )

    steps = _step_results(run)
    assert steps.get("capture") == "success", (steps, run.text[-6000:])
    assert steps.get("recall-gate") == "failure", (steps, run.text[-6000:])
    jobs = {e["jobID"]: e["jobResult"] for e in run.events if "jobResult" in e}
    assert jobs == {"capture": "success", "judge": "failure"}, run.text[-6000:]
    assert (runner_python / "bin" / "recall-gate").exists(), "the capture step installed it"
    # The capture job wrote the capture and judged nothing; the judge job's verdict
    # on the lost cases is the comment's.
    assert "recall-gate: captured 9 cases at k = 3 with app.rag" in run.step_output
    assert "→ capture.jsonl" in run.step_output
    assert run.step_output.count("recall-gate default: FAIL") == 1
    # The gate step judged it at the base and said so once, in one sticky comment.
    [comment] = marked_comments(fake_github, number)
    assert "**fail**" in comment.body
    assert "de-returns" in comment.body
    assert "de-shipping" in comment.body
    assert "This pull request changes the baseline" in comment.body
    assert any("retrieval gate failed" in e for e in run.annotations("error"))
    assert_token_never_printed(run, TOKEN)


def test_the_docs_one_step_workflow_with_its_cache_fails_a_pr_that_regresses(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    app = _consumer(tmp_path, workflow_text=_example_workflow("one-step.yml"))
    base_sha = _git(app, "rev-parse", "HEAD")
    _regress_and_rebaseline(app)

    run, number = _run_consumer(app, tmp_path, fake_github, base_sha, action=action_release)

    assert run.job_result == "failure", run.text[-6000:]
    assert re.search(r"stub cache: key=recall-gate-Linux-[0-9a-f]{64} path=", run.step_output), (
        run.step_output[-4000:]
    )
    [comment] = marked_comments(fake_github, number)
    assert "**fail**" in comment.body
    assert "de-returns" in comment.body
    assert any("retrieval gate failed" in e for e in run.annotations("error"))
    assert_token_never_printed(run, TOKEN)


def test_the_docs_kept_environment_workflow_installs_once_then_reuses_the_cached_one(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    """The cache recipe as it is, twice, with a cache stand-in that really restores
    (newest prefix match) and saves (``$ACT_STUB_CACHE``): the second job restores the
    first one's environment, installs nothing, and saves nothing again."""
    app = _consumer(
        tmp_path,
        rag=PLAIN_RAG,
        requirements="idna>=3\n",
        workflow_text=_example_workflow("kept-environment.yml"),
    )
    base_sha = _git(app, "rev-parse", "HEAD")
    home, store, tools = tmp_path / "home", tmp_path / "cache-store", tmp_path / "bin"
    home.mkdir()
    tools.mkdir()
    calls = tmp_path / "uv-calls.log"
    calls.touch()
    real_uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    (tools / "uv").write_text(
        f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{calls}"\nexec "{real_uv}" "$@"\n'
    )
    (tools / "uv").chmod(0o755)
    uv_cache = subprocess.run(
        [real_uv, "cache", "dir"], capture_output=True, text=True, check=True
    ).stdout.strip()
    fake_github.add_repo(REPO)
    consumer = Repo(
        path=app,
        scratch=tmp_path / "scratch",
        fake=fake_github,
        venv=Path(sys.prefix),
        base_sha=base_sha,
    )

    def job() -> tuple[ActRun, list[str]]:
        before = len(calls.read_text().splitlines())
        number = fake_github.add_pull(REPO, head_sha=HEAD_1)
        run = consumer.run(
            "pull_request",
            workflow=".github/workflows/retrieval-eval.yml",
            event=pr_event(number, HEAD_1),
            env={"HOME": str(home), "UV_CACHE_DIR": uv_cache, "ACT_STUB_CACHE": str(store)},
            path_prefix=[tools],
            extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
        )
        assert run.job_result == "success", run.text[-6000:]
        return run, calls.read_text().splitlines()[before:]

    first, first_calls = job()
    second, second_calls = job()

    key = first.outputs("gate")["cache-key"]
    assert "stub cache: no entry" in first.step_output
    assert [c for c in first_calls if c.startswith("pip install")], first_calls
    assert f"stub cache: saved ~/.cache/recall-gate-env as recall-gate-Linux-{key}" in (
        first.step_output
    )
    assert f"stub cache: restored recall-gate-Linux-{key}" in second.step_output
    assert "Using the cached environment" in second.step_output
    # The kept (capture) environment installs nothing; the judge is made anew every
    # job, from the hash-locked set into a fresh folder, never from the kept one.
    kept = [c for c in second_calls if "recall-gate-judge." not in c]
    assert [c for c in kept if c.startswith(("pip ", "venv "))] == [], second_calls
    judge = [c for c in second_calls if "recall-gate-judge." in c]
    assert any("--require-hashes" in c for c in judge), second_calls
    assert "stub cache: saved" not in second.step_output
    assert second.outputs("gate")["cache-key"] == key
    assert sorted(p.name for p in store.iterdir()) == [f"recall-gate-Linux-{key}"]


# -- a matrix of capture shards, merged, scored by the action ----------------------

SHARDED = "tests/act/workflows/sharded-capture.yml"
SHARDED_CONFIG = "tests/act/data/sharded/recall-gate.yaml"


def test_a_matrix_of_capture_shards_merged_is_scored_by_the_action_as_one_capture(
    repo: Repo,
) -> None:
    number = repo.fake.add_pull(REPO, head_sha=HEAD_1)

    run = repo.run("pull_request", workflow=SHARDED, event=pr_event(number, HEAD_1))

    results = [e["jobResult"] for e in run.events if "jobResult" in e]
    assert results == ["success"] * 4, run.text[-4000:]  # three shards, then evaluate
    shards = sorted(p.name for p in (repo.scratch / "artifacts").glob("shard-*/*.jsonl"))
    assert shards == ["shard-1.jsonl", "shard-2.jsonl", "shard-3.jsonl"]
    # One capture of every case, in-process: the action reports its numbers.
    one = repo.scratch / "one.json"
    code = recall_gate(
        ["capture", "--config", SHARDED_CONFIG, "--retriever", "shard_rag:search",
         "--out", str(repo.scratch / "one.jsonl"), "--json", str(one), "--quiet"],
        {}, stdout=io.StringIO(), stderr=io.StringIO(), cwd=repo.path,
    )  # fmt: skip
    assert code == 0
    overall = json.loads(one.read_text())["aggregates"]["overall"]
    outputs = json.loads((repo.scratch / "outputs.json").read_text())
    assert outputs["n"] == "24"
    assert outputs["verdict"] == "report-only"
    for output, key in (("hit", "retrieval_hit_at_k"), ("ndcg", "retrieval_ndcg_at_k")):
        assert float(outputs[output]) == pytest.approx(overall[key]["mean"], abs=1e-6)
    assert_token_never_printed(run, TOKEN)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ("retriever", "the capture failed"),
        ("requirements", "installing your dependencies failed"),
    ],
)
def test_a_capture_that_cannot_run_fails_the_job_and_comments_error_never_pass(
    tmp_path: Path, fake_github: FakeGitHub, change: str, expected: str, action_release: Path
) -> None:
    app = _consumer(tmp_path)
    base_sha = _git(app, "rev-parse", "HEAD")
    if change == "retriever":
        rag = app / "app" / "rag.py"
        rag.write_text(
            rag.read_text()
            + "\n\ndef _broken(*args, **kwargs):\n    raise ConnectionError('index unreachable')\n"
            + "\n\nInMemoryBM25Retriever.run = _broken\n"
        )
    else:  # a package that exists nowhere: the install fails, nothing is installed
        (app / "requirements.txt").write_text("recall-gate-no-such-package-0123456789\n")
    _git(app, "commit", "-q", "-am", f"PR: a broken {change}")

    run, number = _run_consumer(app, tmp_path, fake_github, base_sha, action=action_release)

    assert run.job_result == "failure", run.text[-6000:]
    [comment] = marked_comments(fake_github, number)
    assert "**error**" in comment.body
    assert "pass" not in comment.body.lower()
    assert "error" in run.summary
    errors = [e for e in run.annotations("error") if expected in e]
    assert len(errors) == 1, run.annotations("error")
    assert_token_never_printed(run, TOKEN)
