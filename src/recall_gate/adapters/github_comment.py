"""The sticky PR comment: one comment per pull request and profile, ours alone.

:func:`upsert_comment` finds our comment (its body starts with the profile's
marker and its author is the account that posts with this token:
:func:`resolve_comment_author`), updates it in place, creates it when absent,
collapses duplicates, and writes nothing when the pull request has moved on.
Each of the client's HTTP-level errors becomes a message about the comment,
with the fix a workflow author needs.
"""

from __future__ import annotations

import enum
import logging
import re
from dataclasses import dataclass
from typing import Any, Final

from recall_gate.adapters.github_client import (
    GitHubClient,
    GitHubNotFound,
    GitHubPermissionError,
)
from recall_gate.adapters.github_records import (
    Comment,
    Pull,
    User,
    full_sha,
    parse_record,
    reworded,
    split_repo,
)
from recall_gate.core.github_limits import COMMENT_MAX_CHARS, comment_length
from recall_gate.errors import InputError

__all__ = [
    "ACTIONS_BOT_LOGIN",
    "AuthorSource",
    "CommentAuthor",
    "CommentOutcome",
    "CommentStatus",
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
# The stamp line plus the blank line `stamp_head_sha` puts before it, so
# re-stamping a stamped body gives the same text.
_STAMP_RE: Final = re.compile(r"\n*<!-- recall-gate:head-sha=([0-9A-Fa-f]*) -->\n?")

_COMMENT_WRITE_FIX: Final = (
    "grant the job `permissions: pull-requests: write`, or for pull requests from forks "
    "(whose token is read-only) post from the fork-safe `workflow_run` comment workflow"
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


# -- markers -----------------------------------------------------------------


def stamp_head_sha(body: str, head_sha: str) -> str:
    """Return ``body`` with exactly one hidden ``head-sha`` line, at the end.

    Idempotent; an earlier stamp is replaced. The stamp records which commit a
    comment reports on, for readers and for debugging stale-comment races.
    """
    sha = full_sha(head_sha)
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
        user = parse_record(User, client.get("/user"), what="GET /user")
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
    parsed = comment if isinstance(comment, Comment) else Comment.model_validate(comment)
    return _is_ours(parsed, marker=marker, author=author)


def _is_ours(comment: Comment, *, marker: str, author: CommentAuthor) -> bool:
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
    owner, name = split_repo(repo)
    sha = full_sha(head_sha)
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
            parse_record(Comment, raw, what=f"the comments of {where}")
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
    comment: Comment,
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
    return parse_record(Pull, raw, what=f"GET pull request {where}").head.sha.lower()


def _pr_not_found(exc: GitHubNotFound, *, where: str) -> GitHubNotFound:
    return reworded(
        exc,
        f"pull request {where} was not found (deleted, transferred, or not visible to the "
        "token); no comment was posted",
        fix="check the PR number passed to `recall-gate comment`; for a private repository "
        "the token needs `pull-requests: read`",
    )


def _comment_permission_error(
    exc: GitHubPermissionError, *, verb: str, where: str
) -> GitHubPermissionError:
    return reworded(
        exc,
        f"could not {verb} the recall-gate comment on {where}: the token cannot write PR "
        f"comments (fork PR or read-only token); GitHub said: {exc.github_message}",
        fix=_COMMENT_WRITE_FIX,
    )


def _create_comment(client: GitHubClient, *, path: str, body: str, where: str) -> Comment:
    try:
        raw = client.post(path, json={"body": body})
    except GitHubPermissionError as exc:
        raise _comment_permission_error(exc, verb="create", where=where) from exc
    except GitHubNotFound as exc:
        raise _pr_not_found(exc, where=where) from exc
    return parse_record(Comment, raw, what=f"creating a comment on {where}")


def _update_comment(
    client: GitHubClient, *, owner: str, name: str, comment_id: int, body: str, where: str
) -> Comment | None:
    try:
        raw = client.patch(
            f"/repos/{owner}/{name}/issues/comments/{comment_id}", json={"body": body}
        )
    except GitHubPermissionError as exc:
        raise _comment_permission_error(exc, verb="update", where=where) from exc
    except GitHubNotFound:
        return None
    return parse_record(Comment, raw, what=f"updating comment {comment_id} on {where}")


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
