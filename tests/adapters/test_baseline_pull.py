"""The baseline pull request's GitHub operations, against the fake GitHub on loopback.

End state is asserted (branches, commits, pull requests), and that the access
check creates nothing, whatever the token may do.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from fake_github import BOT_LOGIN, TOKEN, FakeGitHub, TokenGrant
from recall_gate.adapters.baseline_pull import (
    AccessDenied,
    check_access,
    delete_branch,
    find_baseline_pulls,
    open_pull,
    read_file,
    write_branch,
)
from recall_gate.adapters.github_client import GitHubClient, GitHubError

REPO = "octo/base"
BRANCH = "recall-gate/baseline-default"
FILE = "baselines/default.json"


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


def _client(fake: FakeGitHub, session: requests.Session, token: str = TOKEN) -> GitHubClient:
    return GitHubClient(session, base_url=fake.url, token=token, sleep=lambda _: None)


@pytest.fixture
def main_sha(fake_github: FakeGitHub) -> str:
    sha = fake_github.add_repo(REPO, files={FILE: b"old\n", "README.md": b"readme\n"})
    fake_github.allow_actions_to_create_pull_requests(REPO)
    return sha


def _grant(fake: FakeGitHub, token: str, **permissions: str) -> str:
    fake.add_token(token, TokenGrant(login=BOT_LOGIN, permissions=permissions))
    return token


def _push(client: GitHubClient, main_sha: str, content: bytes, *, exists: bool) -> str:
    return write_branch(
        client,
        repo=REPO,
        branch=BRANCH,
        base_sha=main_sha,
        path=FILE,
        content=content,
        message="m",
        exists=exists,
    )


def test_the_access_check_of_a_token_that_may_do_it_all_creates_nothing(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    assert check_access(_client(fake_github, session), repo=REPO, base="main") == main_sha
    assert set(fake_github.repos[REPO].refs) == {"main"}
    assert fake_github.pulls(REPO) == []


@pytest.mark.parametrize(
    ("permissions", "missing"),
    [
        ({"contents": "read", "pull_requests": "write"}, "contents: write"),
        ({"contents": "write", "pull_requests": "read"}, "pull-requests: write"),
    ],
)
def test_the_access_check_names_the_permission_github_refused(
    fake_github: FakeGitHub,
    session: requests.Session,
    main_sha: str,
    permissions: dict[str, str],
    missing: str,
) -> None:
    token = _grant(fake_github, "ghs_limited-token-0123456789abcdef", **permissions)

    with pytest.raises(AccessDenied) as caught:
        check_access(_client(fake_github, session, token), repo=REPO, base="main")

    assert caught.value.permission == missing
    assert f"`permissions: {missing}`" in caught.value.fix
    assert set(fake_github.repos[REPO].refs) == {"main"}


def test_the_access_check_names_the_repository_setting_for_the_workflow_token(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    fake_github.repos[REPO].actions_can_create_pull_requests = False

    with pytest.raises(AccessDenied) as caught:
        check_access(_client(fake_github, session), repo=REPO, base="main")

    assert caught.value.setting is not None
    assert "Allow GitHub Actions to create and approve pull requests" in caught.value.fix


def test_the_access_check_of_a_repository_the_token_cannot_see_names_contents_read(
    fake_github: FakeGitHub, session: requests.Session
) -> None:
    with pytest.raises(AccessDenied) as caught:
        check_access(_client(fake_github, session), repo="octo/invisible", base="main")

    assert caught.value.permission == "contents: read"


def test_writing_the_branch_twice_leaves_one_commit_over_the_base(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    client = _client(fake_github, session)
    _push(client, main_sha, b"first\n", exists=False)
    second = _push(client, main_sha, b"second\n", exists=True)

    assert fake_github.branch_sha(REPO, BRANCH) == second
    assert fake_github.repos[REPO].parents[second] == [main_sha]
    assert read_file(client, repo=REPO, branch=BRANCH, path=FILE) == b"second\n"
    assert read_file(client, repo=REPO, branch=BRANCH, path="README.md") == b"readme\n"
    assert fake_github.file(REPO, "main", FILE) == b"old\n"


def test_the_fake_refuses_a_branch_move_that_is_not_a_fast_forward_unless_forced(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    client = _client(fake_github, session)
    first = _push(client, main_sha, b"first\n", exists=False)
    _push(client, main_sha, b"second\n", exists=True)

    with pytest.raises(GitHubError, match="Update is not a fast forward"):
        client.patch(f"/repos/{REPO}/git/refs/heads/{BRANCH}", json={"sha": first})


def test_a_refused_pull_request_deletes_its_branch(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    client = _client(fake_github, session)
    _push(client, main_sha, b"new\n", exists=False)
    fake_github.repos[REPO].actions_can_create_pull_requests = False

    with pytest.raises(GitHubError, match=f"the branch {BRANCH} pushed for it was deleted"):
        open_pull(client, repo=REPO, branch=BRANCH, base="main", title="t", body="b")

    assert set(fake_github.repos[REPO].refs) == {"main"}
    assert delete_branch(client, repo=REPO, branch=BRANCH) is False  # already gone


def test_the_profile_branchs_open_and_closed_unmerged_pulls_are_told_apart(
    fake_github: FakeGitHub, session: requests.Session, main_sha: str
) -> None:
    client = _client(fake_github, session)
    _push(client, main_sha, b"new\n", exists=False)
    merged = open_pull(client, repo=REPO, branch=BRANCH, base="main", title="t", body="b")
    fake_github.merge_pull(REPO, merged.number)
    _push(client, fake_github.branch_sha(REPO, "main") or "", b"newer\n", exists=True)
    closed = open_pull(client, repo=REPO, branch=BRANCH, base="main", title="t", body="b")
    fake_github.close_pull(REPO, closed.number)
    assert find_baseline_pulls(client, repo=REPO, branch=BRANCH, base="main").open is None
    opened = open_pull(client, repo=REPO, branch=BRANCH, base="main", title="t", body="b")

    found = find_baseline_pulls(client, repo=REPO, branch=BRANCH, base="main")

    assert found.open is not None
    assert found.open.number == opened.number
    assert found.closed_unmerged is not None
    assert found.closed_unmerged.number == closed.number
