"""`recall-gate comment`, in process, against the fake GitHub on loopback.

Each test builds the environment a runner would give the step (token, API
URL, event payload, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files) as a plain
dict, calls ``main(argv, environ)``, and asserts the fake's end state.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from fake_github import (
    BOT_LOGIN,
    TOKEN,
    Failure,
    FakeGitHub,
)
from recall_gate.cli import main

REPO = "octo/app"
HEAD = "a" * 40
NEWER = "b" * 40
MARKER = "<!-- recall-gate:default -->"
READ_ONLY = "ghs_read-only-0123456789"


class Step:
    """One run of the command as an Actions step: files under ``tmp_path``."""

    def __init__(self, tmp_path: Path, fake: FakeGitHub) -> None:
        self.dir = tmp_path
        self.fake = fake
        self.output = tmp_path / "github_output"
        self.summary = tmp_path / "step_summary.md"
        self.body = tmp_path / "comment.md"
        self.body.write_text("### recall-gate: report-only\n\n| metric | n |\n|---|---|\n")
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()

    def environ(self, event: dict[str, Any] | None = None, **extra: str) -> dict[str, str]:
        env = {
            "GITHUB_ACTIONS": "true",
            "GITHUB_TOKEN": TOKEN,
            "GITHUB_API_URL": self.fake.url,
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
        }
        if event is not None:
            path = self.dir / "event.json"
            path.write_text(json.dumps(event))
            env["GITHUB_EVENT_PATH"] = str(path)
        env.update(extra)
        return env

    def run(self, environ: dict[str, str], *args: str) -> int:
        self.stdout = io.StringIO()
        self.stderr = io.StringIO()
        return main(
            ["comment", "--body", str(self.body), *args],
            environ,
            stdout=self.stdout,
            stderr=self.stderr,
        )

    def outputs(self) -> dict[str, str]:
        """Parse the ``name<<DELIMITER`` blocks the command appended."""
        lines = self.output.read_text().splitlines() if self.output.exists() else []
        found: dict[str, str] = {}
        i = 0
        while i < len(lines):
            name, _, delimiter = lines[i].partition("<<")
            end = lines.index(delimiter, i + 1)
            found[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        return found


def pull_request_event(number: int, head: str = HEAD) -> dict[str, Any]:
    return {
        "number": number,
        "pull_request": {"number": number, "head": {"sha": head, "label": "octo:feature"}},
        "repository": {"full_name": REPO},
    }


def workflow_run_event(head: str) -> dict[str, Any]:
    return {
        "workflow_run": {
            "head_sha": head,
            "head_branch": "feature",
            "head_repository": {"full_name": "contributor/app", "owner": {"login": "contributor"}},
            "pull_requests": [{"number": 1}],
        },
        "repository": {"full_name": REPO},
    }


@pytest.fixture
def step(tmp_path: Path, fake_github: FakeGitHub) -> Step:
    fake_github.add_actions_token(READ_ONLY, read_only=True)
    return Step(tmp_path, fake_github)


def marked(fake: FakeGitHub, number: int) -> list[Any]:
    return [c for c in fake.comments(REPO, number) if MARKER in c.body]


def test_creates_one_marked_comment_from_a_pull_request_event(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)

    assert step.run(step.environ(pull_request_event(number))) == 0

    [comment] = marked(step.fake, number)
    assert comment.login == BOT_LOGIN
    assert comment.body.startswith(MARKER)
    assert f"<!-- recall-gate:head-sha={HEAD} -->" in comment.body
    assert step.outputs() == {
        "comment-status": "created",
        "comment-url": f"https://github.com/{REPO}/pull/{number}#issuecomment-{comment.id}",
    }
    assert "PR comment created" in step.stdout.getvalue()


def test_a_changed_report_updates_the_same_comment_and_an_unchanged_one_writes_nothing(
    step: Step,
) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    environ = step.environ(pull_request_event(number))
    step.run(environ)
    [first] = marked(step.fake, number)
    writes = len(step.fake.writes())

    assert step.run(environ) == 0
    assert len(step.fake.writes()) == writes
    step.body.write_text("### recall-gate: pass\n")
    assert step.run(environ) == 0

    [after] = marked(step.fake, number)
    assert after.id == first.id
    assert "pass" in after.body
    assert "PR comment updated" in step.stdout.getvalue()


def test_the_profile_selects_its_own_comment(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    environ = step.environ(pull_request_event(number))
    step.run(environ, "--profile", "default")
    step.run(environ, "--profile", "multilingual")

    bodies = [c.body for c in step.fake.comments(REPO, number)]
    assert len(bodies) == 2
    assert any("<!-- recall-gate:multilingual -->" in b for b in bodies)


def test_a_refused_comment_is_a_warning_and_exit_code_0(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD, from_fork=True)

    code = step.run(step.environ(pull_request_event(number), GITHUB_TOKEN=READ_ONLY))

    assert code == 0
    assert step.fake.comments(REPO, number) == []
    out = step.stdout.getvalue()
    assert "::warning title=recall-gate%3A PR comment not posted::" in out
    assert "cannot write PR comments (fork PR or read-only token)" in out
    summary = step.summary.read_text()
    assert "was not posted" in summary
    assert "pull-requests: write" in summary


def test_a_human_comment_with_the_marker_is_never_overwritten(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    quoted = f"{MARKER}\nI pasted the bot's report here to ask about it."
    human = step.fake.add_comment(REPO, number, login="reviewer", body=quoted)

    assert step.run(step.environ(pull_request_event(number))) == 0
    assert step.run(step.environ(pull_request_event(number))) == 0

    kept = step.fake.comment(REPO, human)
    assert kept is not None
    assert kept.body == quoted
    assert [c.login for c in marked(step.fake, number)] == ["reviewer", BOT_LOGIN]


def test_comment_author_lets_an_app_token_update_its_own_comment(step: Step) -> None:
    step.fake.add_app_token("ghs_app-token-0123", app_slug="my-app")
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    environ = step.environ(pull_request_event(number), GITHUB_TOKEN="ghs_app-token-0123")

    assert step.run(environ, "--comment-author", "my-app[bot]") == 0
    step.body.write_text("### recall-gate: pass\n")
    assert step.run(environ, "--comment-author", "my-app[bot]") == 0

    [comment] = marked(step.fake, number)
    assert (comment.login, comment.user_type) == ("my-app[bot]", "Bot")
    assert "pass" in comment.body
    assert "PR comment updated" in step.stdout.getvalue()
    assert "::warning" not in step.stdout.getvalue()


def test_an_app_token_without_comment_author_warns_which_login_to_set(step: Step) -> None:
    step.fake.add_app_token("ghs_app-token-0123", app_slug="my-app")
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    environ = step.environ(pull_request_event(number), GITHUB_TOKEN="ghs_app-token-0123")

    assert step.run(environ) == 0

    out = step.stdout.getvalue()
    assert "::warning title=recall-gate%3A comment author::" in out
    assert "set the `comment-author` input (--comment-author) to my-app[bot]" in out


def test_a_bad_comment_author_exits_2_before_any_request(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)

    code = step.run(step.environ(pull_request_event(number)), "--comment-author", "not a login")

    assert code == 2
    assert "is not a GitHub login" in step.stderr.getvalue()
    assert step.fake.requests == []


def test_workflow_run_finds_the_pr_from_the_head_sha_not_from_the_payload(step: Step) -> None:
    decoy = step.fake.add_pull(REPO, head_sha="d" * 40)  # #1, named in pull_requests
    number = step.fake.add_pull(REPO, head_sha=NEWER, head_ref="feature", from_fork=True)

    assert step.run(step.environ(workflow_run_event(NEWER))) == 0

    assert step.fake.comments(REPO, decoy) == []
    assert len(marked(step.fake, number)) == 1


def test_no_open_pr_at_the_head_sha_is_a_notice(step: Step) -> None:
    step.fake.add_pull(REPO, head_sha="d" * 40)

    assert step.run(step.environ(workflow_run_event(NEWER))) == 0

    assert step.fake.writes() == []
    assert "::notice title=recall-gate::no open pull request" in step.stdout.getvalue()


def test_an_event_without_a_pull_request_is_skipped(step: Step) -> None:
    environ = step.environ({"ref": "refs/heads/main", "repository": {"full_name": REPO}})

    assert step.run(environ) == 0

    assert step.fake.requests == []
    assert "not about a pull request" in step.stdout.getvalue()


def test_a_newer_push_keeps_its_comment(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=NEWER)

    assert step.run(step.environ(pull_request_event(number, head=HEAD))) == 0

    assert step.fake.writes() == []
    assert f"has moved on to {NEWER}" in step.stdout.getvalue()
    assert step.outputs()["comment-status"] == "skipped_stale"


def test_flags_work_outside_actions(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD)
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": step.fake.url}

    code = step.run(environ, "--repo", REPO, "--pr", str(number), "--head-sha", HEAD)

    assert code == 0
    assert len(marked(step.fake, number)) == 1
    assert "::" not in step.stdout.getvalue()  # no workflow commands outside Actions


def test_the_token_is_never_printed(step: Step) -> None:
    number = step.fake.add_pull(REPO, head_sha=HEAD, from_fork=True)
    step.fake.inject(Failure.permission(), path=f"/repos/{REPO}/pulls/*")
    environ = step.environ(pull_request_event(number))

    step.run(environ)

    # The action masks it before any tool runs; the command itself never prints it.
    assert TOKEN not in step.stdout.getvalue()
    assert TOKEN not in step.stderr.getvalue()
    assert TOKEN not in step.summary.read_text()


@pytest.mark.parametrize(
    ("environ_change", "message"),
    [
        ({"GITHUB_TOKEN": ""}, "no GitHub token: GITHUB_TOKEN is not set"),
        ({"GITHUB_REPOSITORY": ""}, "no repository to comment on"),
    ],
)
def test_missing_settings_exit_2_with_the_fix(
    step: Step, environ_change: dict[str, str], message: str
) -> None:
    environ = {**step.environ(), **environ_change}

    code = step.run(environ, "--pr", "1", "--head-sha", HEAD)

    assert code == 2
    assert message in step.stderr.getvalue()
    assert "fix:" in step.stderr.getvalue()


def test_a_deleted_pr_exits_2_and_says_so(step: Step) -> None:
    code = step.run(step.environ(pull_request_event(7)))

    assert code == 2
    assert "pull request octo/app#7 was not found" in step.stderr.getvalue()


def test_a_broken_event_file_is_an_input_error(step: Step, tmp_path: Path) -> None:
    event = tmp_path / "broken.json"
    event.write_text("{not json")

    code = step.run({**step.environ(), "GITHUB_EVENT_PATH": str(event)})

    assert code == 2
    assert "the event payload is not JSON" in step.stderr.getvalue()


def test_a_merge_group_event_is_skipped_as_no_pull_request(step: Step) -> None:
    event = {
        "merge_group": {"base_sha": "b" * 40, "head_sha": NEWER},
        "repository": {"full_name": REPO},
    }

    assert step.run(step.environ(event)) == 0

    assert step.fake.requests == []
    assert "not about a pull request" in step.stdout.getvalue()
