"""The GitHub operations recall-gate performs, named after what they do.

On top of the generic `GitHubClient`: the sticky PR comment (`upsert_comment`),
finding a PR from a trusted head SHA for the fork-safe ``workflow_run`` path
(`find_pr_for_head_sha`), and what the update-baseline workflow needs to open
a PR (`get_branch_sha`, `create_pull_request`; the rest of the baseline pull
request is `recall_gate.adapters.baseline_pull`).
Each turns the client's HTTP-level errors into messages about *this*
operation, with the fix a workflow author needs.
"""

from __future__ import annotations

import enum
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, NamedTuple, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, ValidationError

from recall_gate.adapters.github_client import (
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
)
from recall_gate.core.github_limits import COMMENT_MAX_CHARS, comment_length
from recall_gate.errors import InputError

__all__ = [
    "ACTIONS_BOT_LOGIN",
    "AuthorSource",
    "CommentAuthor",
    "CommentOutcome",
    "CommentStatus",
    "CreatedPullRequest",
    "create_pull_request",
    "find_pr_for_head_sha",
    "get_branch_sha",
    "is_our_comment",
    "resolve_comment_author",
    "stamp_head_sha",
    "upsert_comment",
]

log = logging.getLogger(__name__)


# Who posts with the Actions workflow token (GITHUB_TOKEN): the GitHub Actions
# app's bot user, on github.com (user id 41898282) and on GHES alike. No user
# can register a login ending in "[bot]"; the type "Bot" is checked as well.
ACTIONS_BOT_LOGIN: Final = "github-actions[bot]"

# A GitHub login (alphanumerics and single hyphens, at most 39), or an app's
# bot user: the app's slug followed by "[bot]".
_LOGIN_RE: Final = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}(?:\[bot\])?")
_FULL_SHA_RE: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# The stamp line plus the blank line `stamp_head_sha` puts before it, so
# re-stamping a stamped body gives the same text.
_STAMP_RE: Final = re.compile(r"\n*<!-- recall-gate:head-sha=([0-9A-Fa-f]*) -->\n?")

_COMMENT_WRITE_FIX: Final = (
    "grant the job `permissions: pull-requests: write`, or for pull requests from forks "
    "(whose token is read-only) post from the fork-safe `workflow_run` comment workflow"
)
_PR_WRITE_FIX: Final = (
    "grant the job `permissions: contents: write` and `pull-requests: write`, and enable "
    "'Allow GitHub Actions to create and approve pull requests' under the repository's "
    "Settings → Actions → General"
)


# -- records -----------------------------------------------------------------


class AuthorSource(enum.StrEnum):
    """Where the comment author that `upsert_comment` matches came from."""

    CONFIGURED = "comment-author"  # the action input / --comment-author
    AUTHENTICATED_USER = "GET /user"  # the token's own login
    ACTIONS_FALLBACK = "github-actions[bot] fallback"  # /user refused: the workflow token


@dataclass(frozen=True)
class CommentAuthor:
    """The account whose comments recall-gate may edit or delete.

    ``login`` is compared case-insensitively (GitHub logins are); with
    ``bot_only`` the comment's ``user.type`` must also be ``"Bot"``.
    """

    login: str
    bot_only: bool
    source: AuthorSource


class CommentStatus(enum.StrEnum):
    """What `upsert_comment` did."""

    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    SKIPPED_STALE = "skipped_stale"


@dataclass(frozen=True)
class CommentOutcome:
    """The result of `upsert_comment`.

    ``comment_id``/``html_url`` name the sticky comment (None when skipped as
    stale); ``deleted_duplicates`` lists the extra copies removed (left by
    concurrent runs); ``pr_head_sha`` is the PR's head when we looked.
    """

    status: CommentStatus
    comment_id: int | None
    html_url: str | None
    pr_head_sha: str
    deleted_duplicates: tuple[int, ...] = ()
    author: CommentAuthor | None = None
    # Who GitHub says posted a comment we created, when that is not ``author``:
    # the next run would not recognise it (set `comment-author` to this login).
    posted_as: str | None = None


class CreatedPullRequest(NamedTuple):
    number: int
    url: str


class _ApiRecord(BaseModel):
    # GitHub adds response fields over time; read only what is used, ignore the rest.
    model_config = ConfigDict(frozen=True, extra="ignore")


class _User(_ApiRecord):
    login: str
    type: str = ""


class _Comment(_ApiRecord):
    id: int
    body: str | None = None
    user: _User | None = None  # null for a deleted ("ghost") account
    created_at: datetime
    html_url: str

    @property
    def login(self) -> str | None:
        return self.user.login if self.user else None

    @property
    def user_type(self) -> str | None:
        return self.user.type if self.user else None


class _Head(_ApiRecord):
    sha: str
    ref: str = ""


class _Pull(_ApiRecord):
    number: int
    state: str
    head: _Head
    html_url: str = ""


class _GitObject(_ApiRecord):
    sha: str


class _Ref(_ApiRecord):
    object: _GitObject


_RecordT = TypeVar("_RecordT", bound=_ApiRecord)


def _parse(model: type[_RecordT], data: Any, *, what: str) -> _RecordT:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise GitHubError(
            f"GitHub's answer to {what} lacks what recall-gate reads "
            f"({exc.error_count()} problem(s), first: {exc.errors()[0]['loc']})",
            fix="check that GITHUB_API_URL points at the GitHub REST API",
        ) from None


_ErrorT = TypeVar("_ErrorT", bound=GitHubError)


def _reworded(exc: _ErrorT, message: str, *, fix: str) -> _ErrorT:
    """The client's HTTP-level ``exc`` told for this operation.

    Same class (callers still catch e.g. `GitHubPermissionError`), same status,
    call and GitHub message; only the message and the fix are the operation's.
    """
    return type(exc)(
        message,
        fix=fix,
        status=exc.status,
        method=exc.method,
        path=exc.path,
        github_message=exc.github_message,
    )


# -- markers -----------------------------------------------------------------


def stamp_head_sha(body: str, head_sha: str) -> str:
    """Return ``body`` with exactly one hidden ``head-sha`` line, at the end.

    Idempotent; an earlier stamp is replaced. The stamp records which commit a
    comment reports on, for readers and for debugging stale-comment races.
    """
    sha = _full_sha(head_sha)
    unstamped = _STAMP_RE.sub("", body).rstrip("\n")
    line = f"<!-- recall-gate:head-sha={sha} -->"
    return f"{unstamped}\n\n{line}\n" if unstamped else f"{line}\n"


# -- the sticky comment ------------------------------------------------------


def resolve_comment_author(client: GitHubClient, configured: str | None) -> CommentAuthor:
    """The account that posts with this token, i.e. whose comments are ours.

    1. ``configured`` (the ``comment-author`` input): for GitHub App
       installation tokens (``my-app[bot]``) and any bot with its own login.
    2. The token's own login, when ``GET /user`` answers (personal tokens,
       app user tokens).
    3. Otherwise — the Actions workflow token gets 403 "Resource not
       accessible by integration" there, as does any installation token —
       ``github-actions[bot]``, and only comments whose ``user.type`` is
       ``Bot``.
    """
    if configured is not None:
        login = configured.strip()
        if not _LOGIN_RE.fullmatch(login):
            raise InputError(
                f"comment-author {configured!r} is not a GitHub login",
                fix="pass the login that posts the comment, e.g. my-app[bot] for a GitHub App "
                "(its slug followed by [bot]); leave it empty for the workflow token",
            )
        return CommentAuthor(
            login, bot_only=login.endswith("[bot]"), source=AuthorSource.CONFIGURED
        )
    try:
        user = _parse(_User, client.get("/user"), what="GET /user")
    except (GitHubPermissionError, GitHubNotFound):
        log.info("the token cannot read /user; its comments are those of %s", ACTIONS_BOT_LOGIN)
        return CommentAuthor(ACTIONS_BOT_LOGIN, bot_only=True, source=AuthorSource.ACTIONS_FALLBACK)
    return CommentAuthor(user.login, bot_only=False, source=AuthorSource.AUTHENTICATED_USER)


def is_our_comment(comment: Any, *, marker: str, author: CommentAuthor) -> bool:
    """Whether ``comment`` (a REST comment object) is our sticky comment.

    Both must hold: its body STARTS with ``marker`` (after optional
    whitespace) — a marker quoted later in a reply does not count, nor does
    our comment once someone edited text in front of it — and its author is
    ``author``. Anything else is never edited or deleted, whatever it says.
    """
    parsed = comment if isinstance(comment, _Comment) else _Comment.model_validate(comment)
    return _is_ours(parsed, marker=marker, author=author)


def _is_ours(comment: _Comment, *, marker: str, author: CommentAuthor) -> bool:
    if comment.body is None or not comment.body.lstrip().startswith(marker):
        return False
    if comment.login is None or comment.login.casefold() != author.login.casefold():
        return False
    return not author.bot_only or comment.user_type == "Bot"


def upsert_comment(
    client: GitHubClient,
    *,
    repo: str,
    pr_number: int,
    marker: str,
    body: str,
    head_sha: str,
    comment_author: str | None = None,
) -> CommentOutcome:
    """Create or update OUR ONE comment carrying ``marker`` on a PR.

    - Ours (`is_our_comment`): the body starts with ``marker`` and the author
      is the account that posts with this token (`resolve_comment_author`:
      ``comment_author``, else the token's login from ``GET /user``, else
      ``github-actions[bot]`` of type Bot). All pages are read.
    - A token with ``pull-requests: write`` may edit ANY comment of the
      repository, so this test is the only thing that keeps a reviewer's
      comment safe: a comment that fails it is never edited or deleted.
    - Updated in place; created when absent; left alone when the body is the
      same. Duplicates of ours (two runs that both created one) collapse onto
      the oldest; only our own copies are deleted.
    - Stale guard: when the PR's head is no longer ``head_sha`` a newer push
      owns the comment, so nothing is written (``skipped_stale``). The check
      runs just before the writes, which narrows the race to one listing.

    The body is stamped with ``head_sha`` (`stamp_head_sha`) and starts with
    the marker (added when the renderer did not put it first), so the next
    run finds it.
    """
    owner, name = _split_repo(repo)
    sha = _full_sha(head_sha)
    if not (marker.startswith("<!--") and marker.endswith("-->") and len(marker) > 7):
        raise ValueError(f"the comment marker must be a non-empty HTML comment: {marker!r}")
    if not body.lstrip().startswith(marker):
        body = f"{marker}\n{body}"
    desired = stamp_head_sha(body, sha)
    if comment_length(desired) > COMMENT_MAX_CHARS:
        raise InputError(
            f"the PR comment is {comment_length(desired)} characters; GitHub accepts at most "
            f"{COMMENT_MAX_CHARS}",
            fix="render a shorter comment (the full report belongs in the job summary)",
        )
    where = f"{repo}#{pr_number}"
    author = resolve_comment_author(client, comment_author)
    comments_path = f"/repos/{owner}/{name}/issues/{pr_number}/comments"

    try:
        listed = [
            _parse(_Comment, raw, what=f"the comments of {where}")
            for raw in client.paginate(comments_path)
        ]
    except GitHubNotFound as exc:
        raise _pr_not_found(exc, where=where) from exc
    ours = sorted(
        (c for c in listed if _is_ours(c, marker=marker, author=author)),
        key=lambda c: (c.created_at, c.id),
    )

    pr_head = _current_head_sha(client, owner=owner, name=name, pr_number=pr_number)
    if pr_head != sha:
        log.warning(
            "%s moved on to %s; not overwriting its comment with the report for %s",
            where,
            pr_head,
            sha,
        )
        return CommentOutcome(
            status=CommentStatus.SKIPPED_STALE,
            comment_id=None,
            html_url=None,
            pr_head_sha=pr_head,
            author=author,
        )

    if not ours:
        created = _create_comment(client, path=comments_path, body=desired, where=where)
        return _created(created, pr_head=pr_head, author=author)

    keep, *duplicates = ours
    deleted = tuple(
        c.id
        for c in duplicates
        if _delete_comment(client, owner=owner, name=name, comment_id=c.id, where=where)
    )
    if keep.body == desired:
        return CommentOutcome(
            status=CommentStatus.UNCHANGED,
            comment_id=keep.id,
            html_url=keep.html_url,
            pr_head_sha=pr_head,
            deleted_duplicates=deleted,
            author=author,
        )
    updated = _update_comment(
        client, owner=owner, name=name, comment_id=keep.id, body=desired, where=where
    )
    if updated is None:  # deleted by someone between listing and writing
        created = _create_comment(client, path=comments_path, body=desired, where=where)
        return _created(created, pr_head=pr_head, author=author, deleted=deleted)
    return CommentOutcome(
        status=CommentStatus.UPDATED,
        comment_id=updated.id,
        html_url=updated.html_url,
        pr_head_sha=pr_head,
        deleted_duplicates=deleted,
        author=author,
    )


def _created(
    comment: _Comment,
    *,
    pr_head: str,
    author: CommentAuthor,
    deleted: tuple[int, ...] = (),
) -> CommentOutcome:
    """The outcome of a creation; ``posted_as`` when GitHub says another account posted it."""
    posted_as = comment.login
    mismatch = posted_as is not None and posted_as.casefold() != author.login.casefold()
    if mismatch:
        log.warning(
            "the comment was posted as %s, but recall-gate recognises its comments by %s (%s)",
            posted_as,
            author.login,
            author.source,
        )
    return CommentOutcome(
        status=CommentStatus.CREATED,
        comment_id=comment.id,
        html_url=comment.html_url,
        pr_head_sha=pr_head,
        deleted_duplicates=deleted,
        author=author,
        posted_as=posted_as if mismatch else None,
    )


def _current_head_sha(client: GitHubClient, *, owner: str, name: str, pr_number: int) -> str:
    where = f"{owner}/{name}#{pr_number}"
    try:
        raw = client.get(f"/repos/{owner}/{name}/pulls/{pr_number}")
    except GitHubNotFound as exc:
        raise _pr_not_found(exc, where=where) from exc
    return _parse(_Pull, raw, what=f"GET pull request {where}").head.sha.lower()


def _pr_not_found(exc: GitHubNotFound, *, where: str) -> GitHubNotFound:
    return _reworded(
        exc,
        f"pull request {where} was not found (deleted, transferred, or not visible to the "
        "token); no comment was posted",
        fix="check the PR number passed to `recall-gate comment`; for a private repository "
        "the token needs `pull-requests: read`",
    )


def _comment_permission_error(
    exc: GitHubPermissionError, *, verb: str, where: str
) -> GitHubPermissionError:
    return _reworded(
        exc,
        f"could not {verb} the recall-gate comment on {where}: the token cannot write PR "
        f"comments (fork PR or read-only token); GitHub said: {exc.github_message}",
        fix=_COMMENT_WRITE_FIX,
    )


def _create_comment(client: GitHubClient, *, path: str, body: str, where: str) -> _Comment:
    try:
        raw = client.post(path, json={"body": body})
    except GitHubPermissionError as exc:
        raise _comment_permission_error(exc, verb="create", where=where) from exc
    except GitHubNotFound as exc:
        raise _pr_not_found(exc, where=where) from exc
    return _parse(_Comment, raw, what=f"creating a comment on {where}")


def _update_comment(
    client: GitHubClient, *, owner: str, name: str, comment_id: int, body: str, where: str
) -> _Comment | None:
    try:
        raw = client.patch(
            f"/repos/{owner}/{name}/issues/comments/{comment_id}", json={"body": body}
        )
    except GitHubPermissionError as exc:
        raise _comment_permission_error(exc, verb="update", where=where) from exc
    except GitHubNotFound:
        return None
    return _parse(_Comment, raw, what=f"updating comment {comment_id} on {where}")


def _delete_comment(
    client: GitHubClient, *, owner: str, name: str, comment_id: int, where: str
) -> bool:
    """Delete a duplicate; False when a concurrent run already removed it."""
    try:
        client.delete(f"/repos/{owner}/{name}/issues/comments/{comment_id}")
    except GitHubPermissionError as exc:
        raise _comment_permission_error(exc, verb="delete a duplicate of", where=where) from exc
    except GitHubNotFound:
        return False
    return True


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
    owner, name = _split_repo(repo)
    sha = _full_sha(head_sha)
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
    pulls = (_parse(_Pull, raw, what="a pull request listing") for raw in raw_pulls)
    return sorted(p.number for p in pulls if p.state == "open" and p.head.sha.lower() == sha)


# -- the update-baseline path ------------------------------------------------


def create_pull_request(
    client: GitHubClient, *, repo: str, head: str, base: str, title: str, body: str
) -> CreatedPullRequest:
    """Open a PR from branch ``head`` into ``base``."""
    owner, name = _split_repo(repo)
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
    pull = _parse(_Pull, raw, what=f"creating a pull request in {repo}")
    return CreatedPullRequest(number=pull.number, url=pull.html_url)


def get_branch_sha(client: GitHubClient, *, repo: str, branch: str) -> str:
    """The commit SHA at the tip of ``branch``."""
    owner, name = _split_repo(repo)
    try:
        raw = client.get(f"/repos/{owner}/{name}/git/ref/heads/{_path_part(branch)}")
    except GitHubNotFound as exc:
        raise _reworded(
            exc,
            f"branch {branch!r} was not found in {repo}",
            fix="check the branch name (the default branch, for a baseline update)",
        ) from exc
    return _parse(_Ref, raw, what=f"reading branch {branch} of {repo}").object.sha


# -- helpers -----------------------------------------------------------------


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
        raise _reworded(
            exc, f"{failure}: {denied}; GitHub said: {exc.github_message}", fix=denied_fix
        ) from exc
    except GitHubError as exc:
        if exc.status != 422:
            raise
        raise _reworded(exc, f"{failure}: {exc.github_message}", fix=refused_fix) from exc


def _split_repo(repo: str) -> tuple[str, str]:
    owner, sep, name = repo.partition("/")
    if not (sep and owner and name) or "/" in name or not _is_safe_name(owner + name):
        raise InputError(
            f"repository {repo!r} is not in owner/name form",
            fix="pass the repository as owner/name (GITHUB_REPOSITORY in Actions)",
        )
    return owner, name


def _is_safe_name(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9._-]+", text) is not None


def _full_sha(sha: str) -> str:
    normalised = sha.strip().lower()
    if not _FULL_SHA_RE.fullmatch(normalised):
        raise InputError(
            f"{sha!r} is not a full commit SHA (40 or 64 hex digits)",
            fix="pass the PR head commit in full, e.g. github.event.pull_request.head.sha",
        )
    return normalised


def _path_part(text: str) -> str:
    """Percent-encode a branch name or file path for a URL, keeping its slashes."""
    return quote(text, safe="/")
