"""The baseline pull request on GitHub: one branch and one open PR per profile.

What the update-baseline workflow does through the REST API (no git
credentials, nothing pushed to the default branch):

- `check_access` asks GitHub, before any evaluation, whether the token may
  read the repository, push a branch and open a pull request. Each write is
  probed with a request GitHub must refuse either way: creating the default
  branch (it exists: ``422``) and a pull request from the default branch into
  itself (no commits between: ``422``). Without the permission GitHub answers
  ``403`` first, so the answer, not a guess, names what is missing.
- `find_baseline_pulls` finds the open PR of the profile's branch, and the
  newest one closed without merging.
- `write_branch` makes ONE commit on top of the default branch holding the
  baseline file (git trees and commits API) and points the branch at it,
  forced: re-running replaces the proposal instead of stacking commits. The
  branch is never reset to the default branch itself, which GitHub could take
  for a merged PR.
- `open_pull`, `edit_pull_body`, `delete_branch`, `read_file`.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Final

from recall_gate.adapters.github_client import (
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
)
from recall_gate.adapters.github_pulls import create_pull_request, get_branch_sha
from recall_gate.adapters.github_records import (
    ApiRecord,
    GitObject,
    parse_record,
    path_part,
    reworded,
    split_repo,
)

__all__ = [
    "ACTIONS_SETTING",
    "AccessDenied",
    "BaselinePulls",
    "PullSummary",
    "check_access",
    "delete_branch",
    "edit_pull_body",
    "find_baseline_pulls",
    "open_pull",
    "read_file",
    "write_branch",
]

ACTIONS_SETTING: Final = (
    "Settings → Actions → General → Workflow permissions → "
    "'Allow GitHub Actions to create and approve pull requests'"
)
# GitHub's own words when that setting is off (the workflow token only).
_ACTIONS_REFUSAL: Final = "not permitted to create or approve pull requests"


class AccessDenied(GitHubPermissionError):
    """The token lacks ``permission`` (a workflow ``permissions:`` key) or the
    repository lacks ``setting``; both are named in the message and the fix."""

    def __init__(
        self, message: str, *, fix: str, permission: str, setting: str | None = None
    ) -> None:
        super().__init__(message, fix=fix, status=403)
        self.permission = permission
        self.setting = setting


@dataclass(frozen=True)
class PullSummary:
    number: int
    url: str
    body: str
    closed_at: str | None = None


@dataclass(frozen=True)
class BaselinePulls:
    """The profile branch's open PR, and its newest PR closed without merging."""

    open: PullSummary | None
    closed_unmerged: PullSummary | None


class _Repository(ApiRecord):
    default_branch: str


class _Tree(ApiRecord):
    sha: str


class _Commit(ApiRecord):
    sha: str
    tree: _Tree


class _ListedPull(ApiRecord):
    number: int
    state: str
    html_url: str = ""
    body: str | None = None
    merged_at: str | None = None
    closed_at: str | None = None


def _denied(permission: str, *, repo: str, doing: str, said: str) -> AccessDenied:
    return AccessDenied(
        f"the token may not {doing} in {repo} (it lacks `{permission}`); GitHub said: {said}",
        fix=f"grant the job `permissions: {permission}`; for the workflow token, also enable "
        f"{ACTIONS_SETTING}",
        permission=permission,
    )


def check_access(client: GitHubClient, *, repo: str, base: str) -> str:
    """Whether the token may read ``repo``, push a branch and open a PR into ``base``.

    Returns the SHA at the tip of ``base``. Raises `AccessDenied` naming the
    missing permission (or the repository setting); nothing is created.
    """
    owner, name = split_repo(repo)
    try:
        parse_record(_Repository, client.get(f"/repos/{owner}/{name}"), what=f"reading {repo}")
    except (GitHubNotFound, GitHubPermissionError) as exc:
        raise AccessDenied(
            f"the token cannot read {repo} ({exc.status}): no baseline pull request can be opened",
            fix="grant the job `permissions: contents: read` (and write, below), or pass a "
            "token of this repository",
            permission="contents: read",
        ) from exc
    sha = get_branch_sha(client, repo=repo, branch=base)
    try:
        client.post(
            f"/repos/{owner}/{name}/git/refs", json={"ref": f"refs/heads/{base}", "sha": sha}
        )
    except GitHubPermissionError as exc:
        raise _denied(
            "contents: write", repo=repo, doing="push a branch", said=exc.github_message
        ) from exc
    except GitHubError as exc:
        if exc.status != 422:  # "Reference already exists": the push would be allowed
            raise
    try:
        probe = client.post(
            f"/repos/{owner}/{name}/pulls",
            json={"title": "recall-gate access check", "head": base, "base": base},
        )
    except GitHubPermissionError as exc:
        if _ACTIONS_REFUSAL in exc.github_message:
            raise AccessDenied(
                f"GitHub Actions may not open pull requests in {repo}; GitHub said: "
                f"{exc.github_message}",
                fix=f"enable {ACTIONS_SETTING}, or pass a GitHub App or fine-grained token "
                "with `pull-requests: write`",
                permission="pull-requests: write",
                setting=ACTIONS_SETTING,
            ) from exc
        raise _denied(
            "pull-requests: write",
            repo=repo,
            doing="open pull requests",
            said=exc.github_message,
        ) from exc
    except GitHubError as exc:
        if exc.status != 422:  # "No commits between": the PR would be allowed
            raise
    else:  # never on GitHub (a branch has no commits over itself); undo it all the same
        number = parse_record(_ListedPull, probe, what="the access check").number
        client.patch(f"/repos/{owner}/{name}/pulls/{number}", json={"state": "closed"})
    return sha


def find_baseline_pulls(
    client: GitHubClient, *, repo: str, branch: str, base: str
) -> BaselinePulls:
    """The open PR from ``branch`` into ``base`` (the lowest number, if several), and
    the newest one closed without merging."""
    owner, name = split_repo(repo)
    listed = [
        parse_record(_ListedPull, raw, what=f"the pull requests of {repo}")
        for raw in client.paginate(
            f"/repos/{owner}/{name}/pulls",
            params={"state": "all", "head": f"{owner}:{branch}", "base": base},
        )
    ]
    opened = sorted((p for p in listed if p.state == "open"), key=lambda p: p.number)
    closed = sorted(
        (p for p in listed if p.state == "closed" and p.merged_at is None),
        key=lambda p: p.number,
    )
    return BaselinePulls(
        open=_summary(opened[0]) if opened else None,
        closed_unmerged=_summary(closed[-1]) if closed else None,
    )


def _summary(pull: _ListedPull) -> PullSummary:
    return PullSummary(pull.number, pull.html_url, pull.body or "", pull.closed_at)


def read_file(client: GitHubClient, *, repo: str, branch: str, path: str) -> bytes | None:
    """The bytes of ``path`` on ``branch``; None when either is absent."""
    owner, name = split_repo(repo)
    try:
        raw = client.get(
            f"/repos/{owner}/{name}/contents/{path_part(path)}", params={"ref": branch}
        )
    except GitHubNotFound:
        return None
    if not isinstance(raw, dict) or raw.get("encoding") != "base64":
        return None  # a folder, a symlink or a submodule: not our file
    return base64.b64decode(str(raw.get("content", "")))


def write_branch(
    client: GitHubClient,
    *,
    repo: str,
    branch: str,
    base_sha: str,
    path: str,
    content: bytes,
    message: str,
    exists: bool,
) -> str:
    """Point ``branch`` at one new commit over ``base_sha`` that holds ``content`` at
    ``path``; forced when the branch ``exists``. Returns the commit's SHA."""
    owner, name = split_repo(repo)
    git = f"/repos/{owner}/{name}/git"
    try:
        base = parse_record(
            _Commit, client.get(f"{git}/commits/{base_sha}"), what="the base commit"
        )
        tree = parse_record(
            _Tree,
            client.post(
                f"{git}/trees",
                json={
                    "base_tree": base.tree.sha,
                    "tree": [
                        {
                            "path": path,
                            "mode": "100644",
                            "type": "blob",
                            "content": content.decode("utf-8"),
                        }
                    ],
                },
            ),
            what=f"writing {path}",
        )
        commit = parse_record(
            GitObject,
            client.post(
                f"{git}/commits",
                json={"message": message, "tree": tree.sha, "parents": [base_sha]},
            ),
            what=f"committing {path}",
        )
        if exists:
            client.patch(
                f"{git}/refs/heads/{path_part(branch)}",
                json={"sha": commit.sha, "force": True},
            )
        else:
            client.post(f"{git}/refs", json={"ref": f"refs/heads/{branch}", "sha": commit.sha})
    except GitHubPermissionError as exc:
        raise _denied(
            "contents: write", repo=repo, doing=f"push {branch}", said=exc.github_message
        ) from exc
    return commit.sha


def open_pull(
    client: GitHubClient, *, repo: str, branch: str, base: str, title: str, body: str
) -> PullSummary:
    """Open the PR; when GitHub refuses, the branch pushed for it is deleted."""
    try:
        created = create_pull_request(
            client, repo=repo, head=branch, base=base, title=title, body=body
        )
    except GitHubError as exc:
        gone = delete_branch(client, repo=repo, branch=branch)
        outcome = "deleted" if gone else "NOT deleted (delete it by hand)"
        raise reworded(
            exc, f"{exc.message}; the branch {branch} pushed for it was {outcome}", fix=exc.fix
        ) from exc
    return PullSummary(created.number, created.url, body)


def edit_pull_body(client: GitHubClient, *, repo: str, number: int, title: str, body: str) -> None:
    owner, name = split_repo(repo)
    try:
        client.patch(f"/repos/{owner}/{name}/pulls/{number}", json={"title": title, "body": body})
    except GitHubPermissionError as exc:
        raise _denied(
            "pull-requests: write",
            repo=repo,
            doing=f"edit pull request #{number}",
            said=exc.github_message,
        ) from exc


def delete_branch(client: GitHubClient, *, repo: str, branch: str) -> bool:
    """Delete ``branch``; False when it was already gone (or may not be deleted)."""
    owner, name = split_repo(repo)
    try:
        client.delete(f"/repos/{owner}/{name}/git/refs/heads/{path_part(branch)}")
    except GitHubError as exc:
        if exc.status in {403, 404, 422}:
            return False
        raise
    return True
