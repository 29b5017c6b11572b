"""GitHub's REST answers as records, and what every named operation shares.

The few fields recall-gate reads of each answer (unknown fields ignored, a
missing one an error about the API, not a traceback), the client's HTTP-level
error retold for one operation (:func:`reworded`), and the checked pieces of a
call's path: ``owner/name``, a full commit SHA, a branch name. Used by the
sticky comment (:mod:`.github_comment`), the pull-request and branch
operations (:mod:`.github_pulls`) and the baseline pull request
(:mod:`.baseline_pull`); the transport is :mod:`.github_client`.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any, Final, TypeVar
from urllib.parse import quote

from pydantic import BaseModel, ConfigDict, ValidationError

from recall_gate.adapters.github_client import GitHubError
from recall_gate.errors import InputError

__all__ = [
    "ApiRecord",
    "Comment",
    "GitObject",
    "Head",
    "Pull",
    "Ref",
    "User",
    "full_sha",
    "parse_record",
    "path_part",
    "reworded",
    "split_repo",
]

_FULL_SHA_RE: Final = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


class ApiRecord(BaseModel):
    # GitHub adds response fields over time; read only what is used, ignore the rest.
    model_config = ConfigDict(frozen=True, extra="ignore")


class User(ApiRecord):
    login: str
    type: str = ""


class Comment(ApiRecord):
    id: int
    body: str | None = None
    user: User | None = None  # null for a deleted ("ghost") account
    created_at: datetime
    html_url: str

    @property
    def login(self) -> str | None:
        return self.user.login if self.user else None

    @property
    def user_type(self) -> str | None:
        return self.user.type if self.user else None


class Head(ApiRecord):
    sha: str
    ref: str = ""


class Pull(ApiRecord):
    number: int
    state: str
    head: Head
    html_url: str = ""


class GitObject(ApiRecord):
    sha: str


class Ref(ApiRecord):
    object: GitObject


_RecordT = TypeVar("_RecordT", bound=ApiRecord)


def parse_record(model: type[_RecordT], data: Any, *, what: str) -> _RecordT:
    """``data`` (GitHub's answer to ``what``) as ``model``; a GitHubError when it lacks a field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise GitHubError(
            f"GitHub's answer to {what} lacks what recall-gate reads "
            f"({exc.error_count()} problem(s), first: {exc.errors()[0]['loc']})",
            fix="check that GITHUB_API_URL points at the GitHub REST API",
        ) from None


_ErrorT = TypeVar("_ErrorT", bound=GitHubError)


def reworded(exc: _ErrorT, message: str, *, fix: str) -> _ErrorT:
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


# -- the pieces of a path ----------------------------------------------------


def split_repo(repo: str) -> tuple[str, str]:
    """``owner/name`` as its two parts; an InputError for anything else."""
    owner, sep, name = repo.partition("/")
    if not (sep and owner and name) or "/" in name or not _is_safe_name(owner + name):
        raise InputError(
            f"repository {repo!r} is not in owner/name form",
            fix="pass the repository as owner/name (GITHUB_REPOSITORY in Actions)",
        )
    return owner, name


def _is_safe_name(text: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9._-]+", text) is not None


def full_sha(sha: str) -> str:
    """A full commit SHA, lower-cased; an InputError for anything else."""
    normalised = sha.strip().lower()
    if not _FULL_SHA_RE.fullmatch(normalised):
        raise InputError(
            f"{sha!r} is not a full commit SHA (40 or 64 hex digits)",
            fix="pass the PR head commit in full, e.g. github.event.pull_request.head.sha",
        )
    return normalised


def path_part(text: str) -> str:
    """Percent-encode a branch name or file path for a URL, keeping its slashes."""
    return quote(text, safe="/")
