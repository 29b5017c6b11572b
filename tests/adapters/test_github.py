"""Named GitHub operations, asserted on the fake's END STATE.

"Exactly one marked comment, updated in place" is checked by reading the
fake's comments, not by counting calls; the request log is used only to say
"nothing was written" or "not retried".
"""

from __future__ import annotations

import json
import re
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
)
from recall_gate.adapters.baseline_pull import write_branch
from recall_gate.adapters.github_client import (
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
)
from recall_gate.adapters.github_comment import (
    ACTIONS_BOT_LOGIN,
    AuthorSource,
    CommentAuthor,
    CommentOutcome,
    CommentStatus,
    is_our_comment,
    stamp_head_sha,
    upsert_comment,
)
from recall_gate.adapters.github_pulls import (
    create_pull_request,
    find_pr_for_head_sha,
    get_branch_sha,
)
from recall_gate.core.profile import comment_marker
from recall_gate.errors import InputError

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
    comment_author: str | None = None,
    head_sha: str = SHA,
    repo: str = REPO,
) -> CommentOutcome:
    return upsert_comment(
        client,
        repo=repo,
        pr_number=pr,
        marker=marker,
        body=body,
        head_sha=head_sha,
        comment_author=comment_author,
    )


def _marked(fake: FakeGitHub, pr: int) -> list[FakeComment]:
    return [c for c in fake.comments(REPO, pr) if MARKER in c.body]


# -- the sticky comment --------------------------------------------------------


def read_head_sha(body: str) -> str | None:
    """The SHA a comment body is stamped with (the stamp's documented form)."""
    found = re.search(r"<!-- recall-gate:head-sha=([0-9A-Fa-f]*) -->", body)
    return found.group(1).lower() if found and found.group(1) else None


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


# -- whose comment is ours: body starts with the marker AND our author --------------


def _untouched(fake: FakeGitHub, comment_id: int, body: str) -> bool:
    found = fake.comment(REPO, comment_id)
    return found is not None and found.body == body and found.updated_at == found.created_at


def test_a_human_quoting_the_marker_mid_body_is_left_alone(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    quoted = f"why does {MARKER} show up in my quote?"
    human = fake_github.add_comment(REPO, pr, login="alice", body=quoted)

    outcome = _upsert(client, pr)

    assert outcome.status is CommentStatus.CREATED
    assert _untouched(fake_github, human, quoted)
    assert [c.login for c in _marked(fake_github, pr)] == ["alice", BOT_LOGIN]


def test_a_human_comment_starting_with_the_marker_is_left_alone(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    # A reviewer pasted our comment to discuss it: it starts with the marker.
    pasted = f"{MARKER}\n### recall-gate: pass\n\nIs this right?"
    human = fake_github.add_comment(REPO, pr, login="alice", body=pasted)

    first = _upsert(client, pr)
    second = _upsert(client, pr, body=REPORT.replace("12", "13"))

    assert (first.status, second.status) == (CommentStatus.CREATED, CommentStatus.UPDATED)
    assert first.comment_id == second.comment_id != human
    assert _untouched(fake_github, human, pasted)


def test_another_bot_with_the_marker_is_left_alone(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    theirs = f"{MARKER}\ncoverage: 91%"
    other_bot = fake_github.add_comment(REPO, pr, login="codecov[bot]", body=theirs)

    outcome = _upsert(client, pr)

    assert outcome.status is CommentStatus.CREATED
    assert outcome.deleted_duplicates == ()
    assert _untouched(fake_github, other_bot, theirs)


def test_our_comment_edited_so_it_no_longer_starts_with_the_marker_is_not_ours(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    first = _upsert(client, pr)
    assert first.comment_id is not None
    edited = "Note from a maintainer: ignore this.\n\n" + stamp_head_sha(REPORT, SHA)
    fake_github.edit_comment(REPO, first.comment_id, body=edited)

    second = _upsert(client, pr, body=REPORT.replace("12", "13"))

    assert second.status is CommentStatus.CREATED
    assert second.comment_id != first.comment_id
    kept = fake_github.comment(REPO, first.comment_id)
    assert kept is not None
    assert kept.body == edited


def test_a_marker_after_leading_whitespace_still_counts_as_the_start(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    ours = fake_github.add_comment(REPO, pr, login=BOT_LOGIN, body=f"\n  {MARKER}\nold")

    outcome = _upsert(client, pr)

    assert (outcome.status, outcome.comment_id) == (CommentStatus.UPDATED, ours)


def test_the_actions_fallback_author_must_be_a_bot() -> None:
    author = CommentAuthor(ACTIONS_BOT_LOGIN, bot_only=True, source=AuthorSource.ACTIONS_FALLBACK)
    comment = {
        "id": 1,
        "body": f"{MARKER}\nx",
        "user": {"login": ACTIONS_BOT_LOGIN, "type": "User"},
        "created_at": "2024-01-01T00:00:00Z",
        "html_url": "https://github.com/octo/app/pull/1#issuecomment-1",
    }

    assert not is_our_comment(comment, marker=MARKER, author=author)
    assert is_our_comment(
        {**comment, "user": {"login": ACTIONS_BOT_LOGIN, "type": "Bot"}},
        marker=MARKER,
        author=author,
    )
    assert not is_our_comment({**comment, "user": None}, marker=MARKER, author=author)


def test_the_workflow_token_gets_403_on_user_so_ours_is_github_actions_bot(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    existing = fake_github.add_comment(REPO, pr, login=BOT_LOGIN, body=f"{MARKER}\nold")
    human = fake_github.add_comment(REPO, pr, login="alice", body=f"{MARKER}\nmine")

    outcome = _upsert(client, pr)

    assert [r.status for r in fake_github.requests if r.path == "/user"] == [403]
    assert outcome.author == CommentAuthor(
        ACTIONS_BOT_LOGIN, bot_only=True, source=AuthorSource.ACTIONS_FALLBACK
    )
    assert (outcome.status, outcome.comment_id) == (CommentStatus.UPDATED, existing)
    assert _untouched(fake_github, human, f"{MARKER}\nmine")


def test_a_personal_token_reads_user_and_only_its_own_login_is_ours(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float], pr: int
) -> None:
    fake_github.add_user_token("ghp_pat", login="release-bot")
    actions = fake_github.add_comment(REPO, pr, login=BOT_LOGIN, body=f"{MARKER}\nold")
    client = _client(fake_github, session, waits, token="ghp_pat")

    first = _upsert(client, pr)
    second = _upsert(client, pr, body=REPORT + "more\n")

    assert [r.status for r in fake_github.requests if r.path == "/user"] == [200, 200]
    assert first.author is not None
    assert first.author.login == "release-bot"
    assert (first.status, second.status) == (CommentStatus.CREATED, CommentStatus.UPDATED)
    assert first.comment_id == second.comment_id
    assert _untouched(fake_github, actions, f"{MARKER}\nold")
    assert [c.login for c in _marked(fake_github, pr)] == [BOT_LOGIN, "release-bot"]


def test_an_app_token_with_comment_author_updates_its_own_comment(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float], pr: int
) -> None:
    fake_github.add_app_token("ghs_app", app_slug="my-app")
    actions = fake_github.add_comment(REPO, pr, login=BOT_LOGIN, body=f"{MARKER}\nold")
    client = _client(fake_github, session, waits, token="ghs_app")

    first = _upsert(client, pr, comment_author="my-app[bot]")
    second = _upsert(client, pr, comment_author="My-App[bot]", body=REPORT + "more\n")

    assert not [r for r in fake_github.requests if r.path == "/user"]  # not needed
    assert (first.status, second.status) == (CommentStatus.CREATED, CommentStatus.UPDATED)
    assert first.comment_id == second.comment_id
    assert first.posted_as is None
    assert _untouched(fake_github, actions, f"{MARKER}\nold")
    mine = fake_github.comment(REPO, second.comment_id or 0)
    assert mine is not None
    assert (mine.login, mine.user_type) == ("my-app[bot]", "Bot")


def test_an_app_token_without_comment_author_says_which_login_to_set(
    fake_github: FakeGitHub, session: requests.Session, waits: list[float], pr: int
) -> None:
    fake_github.add_app_token("ghs_app", app_slug="my-app")
    client = _client(fake_github, session, waits, token="ghs_app")

    outcome = _upsert(client, pr)

    assert outcome.status is CommentStatus.CREATED
    assert outcome.author is not None
    assert outcome.author.login == ACTIONS_BOT_LOGIN
    assert outcome.posted_as == "my-app[bot]"


@pytest.mark.parametrize("login", ["", "two words", "-dash", "a" * 40, "bot]", "x[bot][bot]"])
def test_a_comment_author_that_is_not_a_login_is_an_input_error(
    client: GitHubClient, pr: int, login: str
) -> None:
    with pytest.raises(InputError, match="is not a GitHub login"):
        _upsert(client, pr, comment_author=login)


def test_across_120_comments_on_two_pages_only_ours_is_edited(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    for i in range(120):
        fake_github.add_comment(REPO, pr, login=f"dev{i % 7}", body=f"chatter {i}")
    quoting = fake_github.add_comment(REPO, pr, login="alice", body=f"{MARKER} quoted")
    ours = fake_github.add_comment(REPO, pr, login=BOT_LOGIN, body=f"{MARKER}\nold")

    outcome = _upsert(client, pr)

    assert (outcome.status, outcome.comment_id) == (CommentStatus.UPDATED, ours)
    assert _untouched(fake_github, quoting, f"{MARKER} quoted")
    assert len(fake_github.comments(REPO, pr)) == 122
    assert [r.method for r in fake_github.writes()] == ["PATCH"]
    pages = [r for r in fake_github.requests if r.path.endswith(f"/issues/{pr}/comments")]
    assert len(pages) == 2


def test_the_fake_like_github_lets_a_writer_edit_anyone_s_comment(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    # Why the client must check: GitHub itself would accept this PATCH.
    human = fake_github.add_comment(REPO, pr, login="alice", body="my review")

    client.patch(f"/repos/{REPO}/issues/comments/{human}", json={"body": "overwritten"})

    edited = fake_github.comment(REPO, human)
    assert edited is not None
    assert (edited.body, edited.login) == ("overwritten", "alice")


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
    fake_github.add_actions_token("ghs_fork", read_only=True)
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


def test_the_fake_counts_githubs_65536_limit_in_characters_not_bytes(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    path = f"/repos/{REPO}/issues/{pr}/comments"
    client.post(path, json={"body": "🌈" * 65_536})  # 262,144 UTF-8 bytes: accepted

    with pytest.raises(GitHubError) as caught:
        client.post(path, json={"body": "x" * 65_537})

    assert caught.value.status == 422
    assert "Body is too long (maximum is 65536 characters)" in caught.value.message


def test_a_body_at_the_limit_is_posted_and_one_past_it_never_leaves(
    fake_github: FakeGitHub, client: GitHubClient, pr: int
) -> None:
    stamp = len(stamp_head_sha("", SHA)) + 2  # the stamp and the blank line before it
    body = MARKER + "\n" + "é" * (65_536 - len(MARKER) - 1 - stamp)

    outcome = _upsert(client, pr, body=body)
    with pytest.raises(InputError, match="at most 65536"):
        _upsert(client, pr, body=body + "é")

    [comment] = fake_github.comments(REPO, pr)
    assert (outcome.status, len(comment.body)) == (CommentStatus.CREATED, 65_536)


def test_on_ghes_the_same_rule_holds_under_api_v3(
    session: requests.Session, waits: list[float]
) -> None:
    with FakeGitHub(flavor="ghes") as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo(REPO)
        pr = fake.add_pull(REPO, head_sha=SHA)
        for i in range(110):
            fake.add_comment(REPO, pr, login="dev", body=f"chatter {i}")
        human = fake.add_comment(REPO, pr, login="alice", body=f"{MARKER} quoted")
        client = _client(fake, session, waits)

        first = _upsert(client, pr)
        second = _upsert(client, pr, body=REPORT.replace("12", "13"))

        assert (first.status, second.status) == (CommentStatus.CREATED, CommentStatus.UPDATED)
        assert first.comment_id == second.comment_id
        assert _untouched(fake, human, f"{MARKER} quoted")
        assert second.html_url is not None
        assert second.html_url.startswith(fake.origin)
        assert all(r.path.startswith(("/repos/", "/user")) for r in fake.requests)


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


def _branch_with_file(client: GitHubClient, branch: str, base_sha: str, content: bytes) -> None:
    write_branch(
        client,
        repo=REPO,
        branch=branch,
        base_sha=base_sha,
        path="baselines/default.json" if branch.startswith("recall-gate/") else "f.txt",
        content=content,
        message="m",
        exists=False,
    )


def test_baseline_update_branch_commit_and_pull_request(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.allow_actions_to_create_pull_requests(REPO)
    main_sha = get_branch_sha(client, repo=REPO, branch="main")
    new = b'{"k": 5}\n'
    _branch_with_file(client, "recall-gate/baseline-default", main_sha, new)

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


def test_a_missing_branch_is_not_found(client: GitHubClient) -> None:
    with pytest.raises(GitHubNotFound, match="branch 'nope' was not found in octo/app"):
        get_branch_sha(client, repo=REPO, branch="nope")


def test_a_token_that_may_not_open_prs_names_the_repository_setting(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    # The setting is off by default on GitHub, and so in the fake.
    sha = get_branch_sha(client, repo=REPO, branch="main")
    _branch_with_file(client, "b", sha, b"x")

    with pytest.raises(GitHubPermissionError) as caught:
        create_pull_request(client, repo=REPO, head="b", base="main", title="t", body="b")

    assert "not permitted to create or approve pull requests" in caught.value.message
    assert "Allow GitHub Actions to create and approve pull requests" in caught.value.fix


def test_a_pr_without_commits_is_refused_with_githubs_reason(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.allow_actions_to_create_pull_requests(REPO)
    sha = get_branch_sha(client, repo=REPO, branch="main")
    client.post(f"/repos/{REPO}/git/refs", json={"ref": "refs/heads/empty", "sha": sha})

    with pytest.raises(GitHubError, match="No commits between main and empty"):
        create_pull_request(client, repo=REPO, head="empty", base="main", title="t", body="")


def test_a_second_pr_for_the_same_branch_is_refused_with_a_fix(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.allow_actions_to_create_pull_requests(REPO)
    sha = get_branch_sha(client, repo=REPO, branch="main")
    _branch_with_file(client, "b", sha, b"x")
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


def test_the_standalone_fake_serves_ghes_and_personal_tokens(
    session: requests.Session, waits: list[float]
) -> None:
    fake_script = Path(__file__).resolve().parents[1] / "fake_github.py"
    argv = [sys.executable, str(fake_script), "--port", "0", "--flavor", "ghes"]
    argv += ["--token", "ghp_personal", "--token-kind", "user", "--login", "octocat"]
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True) as server:
        assert server.stdout is not None
        url = server.stdout.readline().strip()
        try:
            client = GitHubClient(session, base_url=url, token="ghp_personal", sleep=waits.append)
            user = client.get("/user")
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=10)

    assert url.endswith("/api/v3")
    assert (user["login"], user["type"]) == ("octocat", "User")
