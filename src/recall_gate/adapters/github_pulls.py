"""Pull requests and branches: the PR of a trusted head SHA (the fork-safe
``workflow_run`` comment path), a branch's tip, a new pull request (the
update-baseline workflow; the rest of the baseline pull request is
:mod:`.baseline_pull`). Each turns the client's HTTP-level errors into a
message about this operation, with the fix a workflow author needs.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any, Final, NamedTuple

from recall_gate.adapters.github_client import (
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
)
from recall_gate.adapters.github_records import (
    Pull,
    Ref,
    full_sha,
    parse_record,
    path_part,
    reworded,
    split_repo,
)

__all__ = [
    "CreatedPullRequest",
    "create_pull_request",
    "find_pr_for_head_sha",
    "get_branch_sha",
]

log = logging.getLogger(__name__)

_PR_WRITE_FIX: Final = (
    "grant the job `permissions: contents: write` and `pull-requests: write`, and enable "
    "'Allow GitHub Actions to create and approve pull requests' under the repository's "
    "Settings → Actions → General"
)


class CreatedPullRequest(NamedTuple):
    number: int
    url: str


# -- the fork-safe path ------------------------------------------------------


def find_pr_for_head_sha(
    client: GitHubClient, *, repo: str, head_sha: str, head_label: str | None = None
) -> int | None:
    """The open PR of ``repo`` whose head is exactly ``head_sha``, or None.

    For the ``workflow_run`` comment path, which must never trust a PR number
    read from an artifact a fork could have written: ``head_sha`` comes from
    the event. Only GitHub's own answer about ``repo``'s open PRs is used.

    ``GET /commits/{sha}/pulls`` is asked first; it is cheap but returns
    nothing for a commit that exists only in a fork, so the open PRs of
    ``repo`` are then listed (narrowed by ``head_label``, ``"owner:branch"``
    from the event's head repository and branch, when given). When several
    open PRs share the head (one branch proposed to two bases), the lowest
    number wins, so the choice is stable.
    """
    owner, name = split_repo(repo)
    sha = full_sha(head_sha)
    try:
        found = _open_prs_at(client.paginate(f"/repos/{owner}/{name}/commits/{sha}/pulls"), sha)
    except GitHubNotFound:
        found = []
    except GitHubError as exc:
        if exc.status != 422:  # 422: "No commit found for SHA" — e.g. only in a fork
            raise
        found = []
    if not found:
        params: dict[str, str | int] = {"state": "open"}
        if head_label:
            params["head"] = head_label
        found = _open_prs_at(client.paginate(f"/repos/{owner}/{name}/pulls", params=params), sha)
    if len(found) > 1:
        log.warning("open PRs %s all have head %s; using #%d", found, sha, found[0])
    return found[0] if found else None


def _open_prs_at(raw_pulls: Iterable[Any], sha: str) -> list[int]:
    pulls = (parse_record(Pull, raw, what="a pull request listing") for raw in raw_pulls)
    return sorted(p.number for p in pulls if p.state == "open" and p.head.sha.lower() == sha)


# -- the update-baseline path ------------------------------------------------


def create_pull_request(
    client: GitHubClient, *, repo: str, head: str, base: str, title: str, body: str
) -> CreatedPullRequest:
    """Open a PR from branch ``head`` into ``base``."""
    owner, name = split_repo(repo)
    raw = _create(
        client,
        f"/repos/{owner}/{name}/pulls",
        json={"title": title, "head": head, "base": base, "body": body},
        failure=f"could not open a pull request {head} → {base} in {repo}",
        denied="the token may not create pull requests",
        denied_fix=_PR_WRITE_FIX,
        refused_fix="if a PR for this branch is already open, update or close it first; "
        "otherwise check that both branches exist and differ",
    )
    pull = parse_record(Pull, raw, what=f"creating a pull request in {repo}")
    return CreatedPullRequest(number=pull.number, url=pull.html_url)


def get_branch_sha(client: GitHubClient, *, repo: str, branch: str) -> str:
    """The commit SHA at the tip of ``branch``."""
    owner, name = split_repo(repo)
    try:
        raw = client.get(f"/repos/{owner}/{name}/git/ref/heads/{path_part(branch)}")
    except GitHubNotFound as exc:
        raise reworded(
            exc,
            f"branch {branch!r} was not found in {repo}",
            fix="check the branch name (the default branch, for a baseline update)",
        ) from exc
    return parse_record(Ref, raw, what=f"reading branch {branch} of {repo}").object.sha


def _create(
    client: GitHubClient,
    path: str,
    *,
    json: dict[str, str],
    failure: str,
    denied: str,
    denied_fix: str,
    refused_fix: str,
) -> Any:
    """POST a new object; a 403 or a 422 becomes ``failure``: ``denied`` or GitHub's reason."""
    try:
        return client.post(path, json=json)
    except GitHubPermissionError as exc:
        raise reworded(
            exc, f"{failure}: {denied}; GitHub said: {exc.github_message}", fix=denied_fix
        ) from exc
    except GitHubError as exc:
        if exc.status != 422:
            raise
        raise reworded(exc, f"{failure}: {exc.github_message}", fix=refused_fix) from exc
