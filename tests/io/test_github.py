"""Named GitHub operations, asserted on the fake's END STATE.

"Exactly one marked comment, updated in place" is checked by reading the
fake's comments, not by counting calls; the request log is used only to say
"nothing was written" or "not retried".
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from fake_github import (
    BOT_LOGIN,
    TOKEN,
    Failure,
    FakeComment,
    FakeGitHub,
    fake_github_fixture,  # noqa: F401  # pytest finds the fixture here
)
from recall_gate.core.profile import comment_marker
from recall_gate.errors import InputError
from recall_gate.io.github import (
    CommentOutcome,
    CommentStatus,
    create_branch,
    create_pull_request,
    find_pr_for_head_sha,
    get_branch_sha,
    put_file,
    read_head_sha,
    stamp_head_sha,
    upsert_comment,
)
from recall_gate.io.github_client import (
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
)

REPO = "octo/app"
SHA = "a" * 40
NEWER_SHA = "b" * 40
MARKER = "<!-- recall-gate:default -->"
REPORT = f"{MARKER}\n### recall-gate: pass\n\n| metric | n |\n|---|---|\n| hit@5 | 12 |\n"


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


def _client(
    fake: FakeGitHub, session: requests.Session, waits: list[float], token: str = TOKEN
) -> GitHubClient:
    return GitHubClient(session, base_url=fake.url, token=token, sleep=waits.append)


@pytest.fixture
def client(fake_github: FakeGitHub, session: requests.Session, waits: list[float]) -> GitHubClient:
    return _client(fake_github, session, waits)


@pytest.fixture
def pr(fake_github: FakeGitHub) -> int:
    return fake_github.add_pull(REPO, head_sha=SHA)


def _upsert(
    client: GitHubClient,
    pr: int,
    /,
    *,
    body: str = REPORT,
    marker: str = MARKER,
    bot_login: str | None = BOT_LOGIN,
    head_sha: str = SHA,
    repo: str = REPO,
) -> CommentOutcome:
    return upsert_comment(
        client,
        repo=repo,
        pr_number=pr,
        marker=marker,
        body=body,
        bot_login=bot_login,
        head_sha=head_sha,
    )


def _marked(fake: FakeGitHub, pr: int) -> list[FakeComment]:
    return [c for c in fake.comments(REPO, pr) if MARKER in c.body]


# -- the sticky comment --------------------------------------------------------


def test_creates_the_comment_when_absent(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    outcome = _upsert(client, pr)

    [comment] = _marked(fake_github, pr)
    assert outcome.status is CommentStatus.CREATED
    assert outcome.comment_id == comment.id
    assert outcome.html_url == f"https://github.com/{REPO}/pull/{pr}#issuecomment-{comment.id}"
    assert comment.login == BOT_LOGIN
    assert comment.body == stamp_head_sha(REPORT, SHA)
    assert read_head_sha(comment.body) == SHA


def test_updates_the_same_comment_in_place_on_the_next_run(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    first = _upsert(client, pr)

    second = _upsert(client, pr, body=REPORT.replace("12", "13"))

    [comment] = _marked(fake_github, pr)
    assert second.status is CommentStatus.UPDATED
    assert comment.id == first.comment_id == second.comment_id
    assert "| hit@5 | 13 |" in comment.body
    assert comment.updated_at > comment.created_at


def test_unchanged_body_writes_nothing(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    _upsert(client, pr)
    [before] = _marked(fake_github, pr)
    writes_before = len(fake_github.writes())

    outcome = _upsert(client, pr)

    [after] = _marked(fake_github, pr)
    assert outcome.status is CommentStatus.UNCHANGED
    assert after == before  # same id, body and updated_at
    assert len(fake_github.writes()) == writes_before


def test_finds_the_comment_on_the_last_of_several_pages(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    for i in range(250):  # the client reads 100 per page: the marked one is on page 3
        fake_github.add_comment(REPO, pr, login="reviewer", body=f"looks good {i}")
    old = fake_github.add_comment(
        REPO, pr, login=BOT_LOGIN, user_type="Bot", body=stamp_head_sha(MARKER + "\nold", SHA)
    )

    outcome = _upsert(client, pr)

    [comment] = _marked(fake_github, pr)
    assert (outcome.status, comment.id) == (CommentStatus.UPDATED, old)
    assert comment.body == stamp_head_sha(REPORT, SHA)
    assert len(fake_github.comments(REPO, pr)) == 251
    pages = [r for r in fake_github.requests if r.path.endswith(f"/issues/{pr}/comments")]
    assert len(pages) == 3


def test_other_users_comments_with_the_marker_are_left_alone(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    quoted = f"why does {MARKER} show up in my quote?"
    human = fake_github.add_comment(REPO, pr, login="alice", body=quoted)

    outcome = _upsert(client, pr)

    by_id = {c.id: c for c in fake_github.comments(REPO, pr)}
    assert outcome.status is CommentStatus.CREATED
    assert by_id[human].body == quoted
    assert by_id[human].updated_at == by_id[human].created_at
    assert [c.login for c in _marked(fake_github, pr)] == ["alice", BOT_LOGIN]


def test_duplicates_from_concurrent_runs_collapse_onto_the_oldest(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    oldest, *newer = (
        fake_github.add_comment(REPO, pr, login=BOT_LOGIN, user_type="Bot", body=f"{MARKER} {i}")
        for i in range(3)
    )

    outcome = _upsert(client, pr)

    [comment] = _marked(fake_github, pr)
    assert comment.id == oldest
    assert comment.body == stamp_head_sha(REPORT, SHA)
    assert outcome.status is CommentStatus.UPDATED
    assert outcome.deleted_duplicates == tuple(newer)


def test_a_report_for_an_older_head_does_not_overwrite_the_comment(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    _upsert(client, pr)
    [before] = _marked(fake_github, pr)
    fake_github.push(REPO, pr, head_sha=NEWER_SHA)  # a push landed while we evaluated
    writes_before = len(fake_github.writes())

    outcome = _upsert(client, pr, body=REPORT.replace("pass", "fail"))

    assert outcome.status is CommentStatus.SKIPPED_STALE
    assert outcome.pr_head_sha == NEWER_SHA
    assert _marked(fake_github, pr) == [before]
    assert len(fake_github.writes()) == writes_before


def test_a_stale_run_creates_nothing_either(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    fake_github.push(REPO, pr, head_sha=NEWER_SHA)

    outcome = _upsert(client, pr)

    assert outcome.status is CommentStatus.SKIPPED_STALE
    assert fake_github.comments(REPO, pr) == []


def test_read_only_token_gets_a_permission_error_with_the_fix_and_no_retry(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float], pr: int
) -> None:
    fake_github.add_token("ghs_fork", login=BOT_LOGIN, read_only=True)
    client = _client(fake_github, session, waits, token="ghs_fork")

    with pytest.raises(GitHubPermissionError) as caught:
        _upsert(client, pr)

    assert caught.value.message == (
        f"could not create the recall-gate comment on {REPO}#{pr}: the token cannot write PR "
        "comments (fork PR or read-only token); GitHub said: Resource not accessible by "
        "integration"
    )
    assert caught.value.fix == (
        "grant the job `permissions: pull-requests: write`, or for pull requests from forks "
        "(whose token is read-only) post from the fork-safe `workflow_run` comment workflow"
    )
    assert caught.value.exit_code == 2
    assert [r.status for r in fake_github.writes()] == [403]
    assert waits == []
    assert "ghs_fork" not in f"{caught.value!s} {caught.value!r}"


def test_a_deleted_pr_is_reported_as_not_found(client: GitHubClient) -> None:
    with pytest.raises(GitHubNotFound) as caught:
        _upsert(client, 404)

    assert caught.value.message == (
        f"pull request {REPO}#404 was not found (deleted, transferred, or not visible to the "
        "token); no comment was posted"
    )
    assert TOKEN not in str(caught.value)


def test_transient_failures_still_end_with_exactly_one_comment(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float], pr: int
) -> None:
    fake_github.inject(Failure.server_error(502), path="*/comments", method="GET")
    fake_github.inject(
        Failure.secondary_rate_limit(retry_after=7), path="*/comments", method="POST"
    )

    outcome = _upsert(client, pr)

    assert outcome.status is CommentStatus.CREATED
    assert len(_marked(fake_github, pr)) == 1
    assert waits == [1.0, 7.0]


def test_without_bot_login_the_tokens_own_login_is_used(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float], pr: int
) -> None:
    fake_github.add_token("ghp_pat", login="release-bot", can_read_user=True, user_type="User")
    fake_github.add_comment(REPO, pr, login="mallory", body=f"{MARKER} fake report")
    client = _client(fake_github, session, waits, token="ghp_pat")

    first = _upsert(client, pr, bot_login=None)
    second = _upsert(client, pr, bot_login=None, body=REPORT + "more\n")

    mine = [c for c in _marked(fake_github, pr) if c.login == "release-bot"]
    assert (first.status, second.status) == (CommentStatus.CREATED, CommentStatus.UPDATED)
    assert [c.id for c in mine] == [first.comment_id]
    assert len(_marked(fake_github, pr)) == 2  # mallory's is untouched


def test_without_bot_login_and_no_access_to_user_the_marker_alone_matches(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    existing = fake_github.add_comment(
        REPO, pr, login=BOT_LOGIN, user_type="Bot", body=f"{MARKER}\nold"
    )

    outcome = _upsert(client, pr, bot_login=None)  # the workflow token: GET /user → 403

    [comment] = _marked(fake_github, pr)
    assert (outcome.status, comment.id) == (CommentStatus.UPDATED, existing)


def test_the_marker_is_added_when_the_body_lacks_it(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    _upsert(client, pr, body="no marker here\n")

    [comment] = _marked(fake_github, pr)
    assert comment.body.startswith(f"{MARKER}\nno marker here")


def test_each_profile_has_its_own_comment(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    for profile in ("default", "multilingual"):
        marker = comment_marker(profile)
        _upsert(client, pr, marker=marker, body=f"{marker}\nreport for {profile}\n")

    bodies = sorted(c.body.splitlines()[0] for c in fake_github.comments(REPO, pr))
    assert bodies == ["<!-- recall-gate:default -->", "<!-- recall-gate:multilingual -->"]


def test_too_long_a_comment_is_refused_before_any_request(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    with pytest.raises(InputError, match="at most 65536"):
        _upsert(client, pr, body=REPORT + "x" * 65_536)

    assert fake_github.requests == []


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("head_sha", "abc123", "not a full commit SHA"),
        ("repo", "octo", "not in owner/name form"),
        ("repo", "octo/app/extra", "not in owner/name form"),
    ],
)
def test_malformed_inputs_are_input_errors(
    client: GitHubClient, pr: int, field: str, value: str, message: str
) -> None:
    with pytest.raises(InputError, match=message):
        _upsert(client, pr, **{field: value})


# -- stamp and marker ------------------------------------------------------------


def test_stamp_is_idempotent_and_replaces_an_earlier_stamp() -> None:
    once = stamp_head_sha("body\n", SHA)

    assert once == f"body\n\n<!-- recall-gate:head-sha={SHA} -->\n"
    assert stamp_head_sha(once, SHA) == once
    assert stamp_head_sha(once, NEWER_SHA) == stamp_head_sha("body\n", NEWER_SHA)
    assert read_head_sha(stamp_head_sha(once, SHA.upper())) == SHA
    assert read_head_sha("no stamp") is None


def test_comment_marker_rejects_profiles_that_would_break_it() -> None:
    assert comment_marker("default") == MARKER
    with pytest.raises(InputError, match="not a valid profile name"):
        comment_marker("x --> <script>")


# -- the fork-safe workflow_run path ---------------------------------------------


def test_find_pr_picks_the_open_pr_at_that_head_and_ignores_closed_ones(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(REPO, head_sha=SHA, state="closed")
    fake_github.add_pull(REPO, head_sha=NEWER_SHA)
    wanted = fake_github.add_pull(REPO, head_sha=SHA)

    assert find_pr_for_head_sha(client, repo=REPO, head_sha=SHA) == wanted


def test_find_pr_returns_none_when_only_closed_prs_match(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(REPO, head_sha=SHA, state="closed")

    assert find_pr_for_head_sha(client, repo=REPO, head_sha=SHA) is None


def test_find_pr_finds_a_fork_pr_that_commits_pulls_does_not_know(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(REPO, head_sha=NEWER_SHA, head_ref="main", from_fork=True)
    fork_pr = fake_github.add_pull(REPO, head_sha=SHA, head_ref="fix", from_fork=True)

    assert find_pr_for_head_sha(client, repo=REPO, head_sha=SHA) == fork_pr
    found = find_pr_for_head_sha(client, repo=REPO, head_sha=SHA, head_label="contributor:fix")
    assert found == fork_pr


def test_find_pr_never_trusts_a_label_whose_head_moved(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.add_pull(REPO, head_sha=NEWER_SHA, head_ref="fix", from_fork=True)

    assert (
        find_pr_for_head_sha(client, repo=REPO, head_sha=SHA, head_label="contributor:fix") is None
    )


# -- the update-baseline path ----------------------------------------------------


def test_baseline_update_branch_commit_and_pull_request(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    main_sha = get_branch_sha(client, repo=REPO, branch="main")
    create_branch(client, repo=REPO, branch="recall-gate/baseline-default", from_sha=main_sha)
    new = b'{"k": 5}\n'
    put_file(
        client,
        repo=REPO,
        branch="recall-gate/baseline-default",
        path="baselines/default.json",
        content=new,
        message="Update recall-gate baseline",
    )

    created = create_pull_request(
        client,
        repo=REPO,
        head="recall-gate/baseline-default",
        base="main",
        title="Update recall-gate baseline (default)",
        body="hit@5: 0.80 → 0.85",
    )

    [pull] = fake_github.pulls(REPO)
    assert (created.number, created.url) == (pull.number, f"https://github.com/{REPO}/pull/1")
    assert (pull.head_ref, pull.base_ref, pull.body) == (
        "recall-gate/baseline-default",
        "main",
        "hit@5: 0.80 → 0.85",
    )
    assert fake_github.file(REPO, "recall-gate/baseline-default", "baselines/default.json") == new
    assert fake_github.file(REPO, "main", "baselines/default.json") is None
    assert fake_github.branch_sha(REPO, "main") == main_sha


def test_put_file_replaces_an_existing_file(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float]
) -> None:
    fake_github.add_repo("octo/kb", files={"baselines/default.json": b"old\n"})
    client = _client(fake_github, session, waits)

    commit = put_file(
        client,
        repo="octo/kb",
        branch="main",
        path="baselines/default.json",
        content=b"new\n",
        message="Update baseline",
    )

    assert fake_github.file("octo/kb", "main", "baselines/default.json") == b"new\n"
    assert fake_github.branch_sha("octo/kb", "main") == commit


def test_creating_an_existing_branch_says_how_to_fix_it(client: GitHubClient) -> None:
    main_sha = get_branch_sha(client, repo=REPO, branch="main")

    with pytest.raises(GitHubError) as caught:
        create_branch(client, repo=REPO, branch="main", from_sha=main_sha)

    assert "Reference already exists" in caught.value.message
    assert "delete the existing branch" in caught.value.fix


def test_a_missing_branch_is_not_found(client: GitHubClient) -> None:
    with pytest.raises(GitHubNotFound, match="branch 'nope' was not found in octo/app"):
        get_branch_sha(client, repo=REPO, branch="nope")


def test_a_token_that_may_not_open_prs_names_the_repository_setting(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.inject(
        Failure(
            403, {"message": "GitHub Actions is not permitted to create or approve pull requests."}
        ),
        path="/repos/octo/app/pulls",
        method="POST",
    )

    with pytest.raises(GitHubPermissionError) as caught:
        create_pull_request(client, repo=REPO, head="main", base="main", title="t", body="b")

    assert "not permitted to create or approve pull requests" in caught.value.message
    assert "Allow GitHub Actions to create and approve pull requests" in caught.value.fix


def test_a_second_pr_for_the_same_branch_is_refused_with_a_fix(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    sha = get_branch_sha(client, repo=REPO, branch="main")
    create_branch(client, repo=REPO, branch="b", from_sha=sha)
    create_pull_request(client, repo=REPO, head="b", base="main", title="t", body="")

    with pytest.raises(GitHubError) as caught:
        create_pull_request(client, repo=REPO, head="b", base="main", title="t", body="")

    assert "A pull request already exists for octo:b." in caught.value.message
    assert len(fake_github.pulls(REPO)) == 1


# -- the fake as a subprocess, as the act end-to-end tests run it ----------------


def test_the_fake_runs_standalone_and_writes_its_state(
    tmp_path: Path, session: requests.Session, waits: list[float]
) -> None:
    state_file = tmp_path / "state.json"
    fake_script = Path(__file__).resolve().parents[1] / "fake_github.py"
    argv = [sys.executable, str(fake_script), "--port", "0", "--state-file", str(state_file)]
    argv += ["--token", "ghs_e2e"]
    pull = {"number": 7, "head_sha": SHA, "head_ref": "f", "base_ref": "main"}
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as server:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        try:
            seed = {"repos": {REPO: {"pulls": {"7": pull}}}}
            session.put(f"{url}/_fake/state", json=seed, timeout=10).raise_for_status()
            client = GitHubClient(session, base_url=url, token="ghs_e2e", sleep=waits.append)

            outcome = _upsert(client, 7)
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)

    state = json.loads(state_file.read_text())
    [comment] = state["repos"][REPO]["comments"].values()
    assert outcome.status is CommentStatus.CREATED
    assert (comment["id"], comment["login"]) == (outcome.comment_id, BOT_LOGIN)
    assert comment["body"] == stamp_head_sha(REPORT, SHA)
    assert server.returncode == 0
