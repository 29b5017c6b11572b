"""A stateful fake of the GitHub REST API, served over real HTTP on loopback.

ONE fake for the unit, command, integration and act tests: the `fake_github`
fixture in ``tests/conftest.py`` runs it in process; the act tests point
``GITHUB_API_URL`` at it; ``python tests/fake_github.py`` serves it standalone.
Tests assert the END STATE it holds ("exactly one marked comment, updated in
place") rather than which calls were made.

It is written from GitHub's REST documentation, not from what recall-gate
does, and it is no kinder than github.com: a fake that lets a call succeed
where GitHub refuses it proves nothing. By default it answers as github.com
(``FakeGitHub(flavor="github.com")``); ``flavor="ghes"`` serves the API under
``/api/v3`` as GitHub Enterprise Server does.

Behaviours, each with the documentation page it follows
(https://docs.github.com/en/rest/...):

Authentication and tokens — ``authentication/authenticating-to-the-rest-api``,
``users/users#get-the-authenticated-user``, and (docs.github.com/en/actions)
``security-for-github-actions/security-guides/automatic-token-authentication``
    - ``Authorization: Bearer <token>`` or ``token <token>``; an unknown or
      missing token → ``401 Bad credentials``.
    - Three kinds of token. The Actions workflow token (`add_actions_token`)
      and a GitHub App's installation token (`add_app_token`) act as the
      app's bot user (``github-actions[bot]``, user id 41898282 on
      github.com; ``<slug>[bot]``), ``type: "Bot"``, and get
      ``403 Resource not accessible by integration`` on ``GET /user`` (that
      endpoint serves user tokens only). A personal token (`add_user_token`)
      acts as its user (``type: "User"``) and ``GET /user`` answers.
    - Installation tokens carry permissions (``issues``, ``pull_requests``,
      ``contents``: ``read``/``write``); a write without them → ``403
      Resource not accessible by integration`` with the
      ``X-Accepted-GitHub-Permissions`` header naming what would do
      (``rest/overview/permissions-required-for-github-apps``).

Issue comments — ``issues/comments``
    - ``GET .../issues/{n}/comments``: ascending by id; paginated.
    - ``POST .../issues/{n}/comments``: the author is the token's account.
      ``performed_via_github_app`` is filled with the app for installation
      tokens (the docs do not say when GitHub fills it; recall-gate never
      reads it).
    - ``PATCH``/``DELETE .../issues/comments/{id}``: ``issues: write`` or
      ``pull_requests: write`` may edit or delete ANY comment of the
      repository, whoever wrote it ("Fine-grained access tokens" on both
      pages) — so the client alone must keep its hands off other comments.
    - Comment objects carry ``id``, ``node_id``, ``url``, ``html_url``,
      ``issue_url``, ``body``, ``user{login, id, node_id, type, site_admin}``,
      ``created_at``, ``updated_at``, ``author_association``,
      ``performed_via_github_app``, ``reactions``.
    - A body longer than 65,536 characters → ``422 Validation Failed`` with
      ``Body is too long (maximum is 65536 characters)`` (resource
      ``IssueComment``, code ``unprocessable``, field ``data``: GitHub's
      actual error object). Characters are counted as Unicode code points
      (Ruby's ``String#length``; the limit in the message). Measurements
      reported by users suggest github.com's real cap on comments is
      262,144 UTF-8 bytes, which any body of at most 65,536 code points
      satisfies — so code points is the reading that never lets through a
      body github.com would refuse.

Pagination — ``using-the-rest-api/using-pagination-in-the-rest-api``
    - ``per_page`` default 30, capped at 100; ``page`` from 1; a ``Link``
      header with ``prev``/``next``/``first``/``last`` (only those that
      apply). Like github.com, the links address the repository by id
      (``/repositories/{id}/...``), which the fake serves too.

Rate limits — ``using-the-rest-api/rate-limits-for-the-rest-api``
    - Every github.com answer carries ``x-ratelimit-limit``, ``-remaining``,
      ``-used``, ``-reset`` (UTC epoch seconds) and ``-resource`` (``core``).
      The workflow token has 1,000 requests per hour, other tokens 5,000.
    - Primary limit exhausted (`exhaust_rate_limit`) → ``403`` (or ``429``)
      with ``x-ratelimit-remaining: 0`` and the reset, until the fake's clock
      passes the reset.
    - Secondary limits: `Failure.secondary_rate_limit` (``403`` with a
      ``retry-after`` and the "secondary rate limit" message),
      `Failure.too_many_requests` (``429``). Server errors:
      `Failure.server_error` (``500``/``503``/``504`` JSON, ``502`` an HTML page).
    - GHES: rate limits are disabled by default, so no headers.

Pulls — ``pulls/pulls``, ``commits/commits#list-pull-requests-associated-with-a-commit``
    - get, list (``state``, ``head=owner:branch``, ``base``), create; creating returns
      ``422`` when a PR for the same head and base is open. The Actions token
      may create a PR only when the repository allows it ("Allow GitHub
      Actions to create and approve pull requests", off by default:
      ``actions/managing-workflow-runs-and-deployments/.../disabling-or-limiting-github-actions``)
      → ``403 GitHub Actions is not permitted to create or approve pull requests.``
    - ``GET /commits/{sha}/pulls`` is blind to commits that exist only in a
      fork (``422 No commit found for SHA``).

Git refs and contents — ``git/refs``, ``repos/contents``
    - ``GET git/ref/heads/{branch}``; ``POST git/refs`` (``422 Reference
      already exists``); ``GET``/``PUT contents/{path}`` over per-commit
      file trees, ``PUT`` requiring the current blob ``sha`` to replace a
      file (``409`` when it does not match; ``422`` when missing).
    - ``PATCH git/refs/heads/{branch}`` (``git/refs#update-a-reference``):
      ``sha`` required; without ``force: true`` only a fast-forward
      (``422 Update is not a fast forward``); an absent branch → ``422
      Reference does not exist``. ``DELETE git/refs/heads/{branch}``
      (``git/refs#delete-a-reference``): ``204``, absent → ``422 Reference
      does not exist``. Both need ``contents: write``. A moved branch moves
      the head of its open pull requests, as a push does.

Git database — ``git/commits``, ``git/trees``
    - ``GET git/commits/{sha}`` (``git/commits#get-a-commit-object``):
      ``sha``, ``tree.sha``, ``parents[].sha``, ``message``; unknown → 404.
    - ``POST git/trees`` (``git/trees#create-a-tree``, ``contents: write``):
      ``tree[]`` entries of ``path``, ``mode`` (``100644``…), ``type``
      (``blob``) and either ``content`` or ``sha`` (``null`` deletes the
      path); ``base_tree`` keeps that tree's other entries; an unknown base
      tree or a malformed entry → ``422``. Returns ``201`` with ``sha``.
    - ``POST git/commits`` (``git/commits#create-a-commit``, ``contents:
      write``): ``message`` and ``tree`` required, ``parents`` a list of
      commit SHAs; an unknown tree or parent → ``422``. It moves no branch.

Updating a pull request — ``pulls/pulls#update-a-pull-request``
    - ``PATCH pulls/{n}`` with ``title``, ``body``, ``state`` (``open`` /
      ``closed``); needs ``pull_requests: write``. Pull objects carry
      ``merged_at`` (``null`` unless merged) and ``closed_at``.

Test controls: `merge_pull` and `close_pull` do what the web UI does (a merge
commit on the base with the head's files, the PR closed and merged, or just
closed); `inject` answers the next matching requests with a canned
`Failure` (its headers replace the default ``Content-Type``: what a proxy or a
misconfigured GHES front end in the way would send); `edit_comment` edits a
comment as someone else would; `exhaust_rate_limit`; the request log
(`requests`, `writes`).

In-process: the `fake_github` fixture of ``tests/conftest.py``. As a
subprocess::

    python tests/fake_github.py --port 0 --state-file state.json \\
        [--seed seed.json] [--flavor github.com|ghes] \\
        [--token T [--token-kind actions|app|user] [--login L] [--read-only]]

prints its base URL on the first line of stdout, serves until SIGTERM/SIGINT,
and rewrites ``state.json`` (the `FakeGitHub.to_json` document, request log
included) after every change. It is also driven over HTTP, without auth:

- ``GET /_fake/state``; ``PUT /_fake/state`` replaces the state with the same
  document (``--seed`` format), whose optional ``tokens`` map
  (token → `TokenGrant` fields) replaces the tokens;
- ``POST /_fake/inject`` with ``{"failure": {"status": 403, "body": {...},
  "headers": {...}}, "path": "<glob>", "method": "POST" | null, "times": 1}``;
- ``GET /_fake/requests``: the request log.
"""

from __future__ import annotations

import argparse
import base64
import fnmatch
import hashlib
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final, Literal
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

__all__ = [
    "ACTIONS_BOT_ID",
    "BOT_LOGIN",
    "TOKEN",
    "Failure",
    "FakeComment",
    "FakeGitHub",
    "FakePull",
    "LoggedRequest",
    "TokenGrant",
]

BOT_LOGIN: Final = "github-actions[bot]"
ACTIONS_BOT_ID: Final = 41898282  # github-actions[bot] on github.com
_GHES_ACTIONS_BOT_ID: Final = 2  # another id on every GHES instance
_ACTIONS_APP: Final = {"id": 15368, "slug": "github-actions", "name": "GitHub Actions"}
TOKEN: Final = "ghs_fake-workflow-token-0123456789"
_EPOCH: Final = datetime(2024, 1, 1, tzinfo=UTC)
_DOCS: Final = "https://docs.github.com/rest"
_NOT_ACCESSIBLE: Final = "Resource not accessible by integration"
_SECONDARY_MESSAGE: Final = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID 0000:1111."
)
_ACTIONS_MAY_NOT_OPEN_PRS: Final = (
    "GitHub Actions is not permitted to create or approve pull requests."
)
COMMENT_MAX_CODE_POINTS: Final = 65_536
_GHES_PREFIX: Final = "/api/v3"
_WRITE_PERMISSIONS: Final = {"issues": "write", "pull_requests": "write", "contents": "write"}

Json = dict[str, Any]
Payload = Json | list[Any] | str | None
Answer = tuple[int, Payload, dict[str, str]]
Flavor = Literal["github.com", "ghes"]
TokenKind = Literal["actions", "app", "user"]


# -- failures and the request log ---------------------------------------------


@dataclass(frozen=True)
class Failure:
    """One canned error response; the constructors mirror GitHub's real ones."""

    status: int
    body: Json | list[Any] | str
    headers: tuple[tuple[str, str], ...] = ()

    @classmethod
    def permission(cls) -> Failure:
        return cls(403, {"message": _NOT_ACCESSIBLE, "documentation_url": _DOCS, "status": "403"})

    @classmethod
    def secondary_rate_limit(cls, *, retry_after: int | None = 60) -> Failure:
        headers = () if retry_after is None else (("retry-after", str(retry_after)),)
        return cls(403, {"message": _SECONDARY_MESSAGE, "documentation_url": _DOCS}, headers)

    @classmethod
    def primary_rate_limit(cls, *, reset_at: int, status: int = 403) -> Failure:
        return cls(
            status,
            {
                "message": "API rate limit exceeded for installation ID 1.",
                "documentation_url": f"{_DOCS}/overview/rate-limits-for-the-rest-api",
            },
            (
                ("x-ratelimit-limit", "1000"),
                ("x-ratelimit-remaining", "0"),
                ("x-ratelimit-used", "1000"),
                ("x-ratelimit-reset", str(reset_at)),
                ("x-ratelimit-resource", "core"),
            ),
        )

    @classmethod
    def too_many_requests(cls, *, retry_after: int | None = 30) -> Failure:
        headers = () if retry_after is None else (("retry-after", str(retry_after)),)
        return cls(429, {"message": _SECONDARY_MESSAGE, "documentation_url": _DOCS}, headers)

    @classmethod
    def server_error(cls, status: int = 500) -> Failure:
        if status == 502:  # GitHub's proxies answer 502 with an HTML page, not JSON
            return cls(502, "<html><body><h1>502 Bad Gateway</h1></body></html>")
        return cls(status, {"message": "Server Error"})

    @classmethod
    def not_found(cls) -> Failure:
        return cls(404, {"message": "Not Found", "documentation_url": _DOCS, "status": "404"})

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Failure:
        headers = tuple((str(k), str(v)) for k, v in dict(data.get("headers", {})).items())
        return cls(int(data["status"]), data.get("body", {"message": "injected"}), headers)


@dataclass(frozen=True)
class LoggedRequest:
    """One API request: ``path`` is canonical (``/repos/o/r/...`` even when the
    client followed a ``/repositories/{id}/...`` link); never the token."""

    method: str
    path: str
    status: int


@dataclass
class _Injection:
    method: str | None
    pattern: str
    failure: Failure
    remaining: int


# -- state ----------------------------------------------------------------------
# Mutable on purpose: this is the server's database, changed under `_lock`.


@dataclass(frozen=True)
class TokenGrant:
    """What a token is: whose account it acts as, and what it may do.

    ``kind``: ``actions`` (the workflow's GITHUB_TOKEN, an installation token
    of the GitHub Actions app), ``app`` (a GitHub App installation token) or
    ``user`` (a personal access token). ``permissions`` maps ``issues``,
    ``pull_requests`` and ``contents`` to ``read`` or ``write``.
    """

    login: str
    kind: TokenKind = "actions"
    permissions: Mapping[str, str] = field(default_factory=lambda: dict(_WRITE_PERMISSIONS))
    app_slug: str | None = "github-actions"

    @property
    def is_installation(self) -> bool:
        return self.kind in {"actions", "app"}

    @property
    def user_type(self) -> str:
        return "Bot" if self.is_installation else "User"

    def may_write(self, permission: str) -> bool:
        return self.permissions.get(permission) == "write"


@dataclass
class FakeUser:
    login: str
    id: int
    type: str


@dataclass
class FakeComment:
    id: int
    issue_number: int
    login: str
    user_type: str
    body: str
    created_at: str
    updated_at: str
    author_association: str = "NONE"
    app_slug: str | None = None


@dataclass
class FakePull:
    number: int
    head_sha: str
    head_ref: str
    base_ref: str
    state: str = "open"
    title: str = ""
    body: str = ""
    head_owner: str = ""
    from_fork: bool = False
    merged_at: str | None = None
    closed_at: str | None = None


@dataclass
class FakeRepo:
    full_name: str
    id: int = 1
    default_branch: str = "main"
    # "Allow GitHub Actions to create and approve pull requests": off by default.
    actions_can_create_pull_requests: bool = False
    pulls: dict[int, FakePull] = field(default_factory=dict)
    comments: dict[int, FakeComment] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # branch -> commit sha
    commits: dict[str, dict[str, str]] = field(default_factory=dict)  # sha -> {path: base64}
    parents: dict[str, list[str]] = field(default_factory=dict)  # commit sha -> parent shas
    messages: dict[str, str] = field(default_factory=dict)  # commit sha -> message
    trees: dict[str, dict[str, str]] = field(default_factory=dict)  # tree sha -> {path: base64}
    next_number: int = 1


@dataclass
class _Quota:
    limit: int
    used: int = 0
    reset: int = 0
    status: int = 403  # GitHub answers an exhausted primary limit with 403 or 429


def _blob_sha(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()


def _commit_sha(parent: str, tree: Mapping[str, str], message: str) -> str:
    text = json.dumps([parent, sorted(tree.items()), message])
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def _tree_sha(tree: Mapping[str, str]) -> str:
    text = json.dumps(["tree", sorted(tree.items())])
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def _add_commit(repo: FakeRepo, parents: list[str], tree: Mapping[str, str], message: str) -> str:
    sha = _commit_sha(",".join(parents), tree, message)
    repo.commits[sha] = dict(tree)
    repo.parents[sha] = list(parents)
    repo.messages[sha] = message
    repo.trees[_tree_sha(tree)] = dict(tree)
    return sha


def _is_ancestor(repo: FakeRepo, ancestor: str, sha: str) -> bool:
    seen, todo = set(), [sha]
    while todo:
        current = todo.pop()
        if current == ancestor:
            return True
        if current not in seen:
            seen.add(current)
            todo += repo.parents.get(current, [])
    return False


def _move_branch(repo: FakeRepo, branch: str, sha: str) -> None:
    """Point ``branch`` at ``sha``; its open pull requests follow, as after a push."""
    repo.refs[branch] = sha
    for pull in repo.pulls.values():
        if pull.state == "open" and pull.head_ref == branch and not pull.from_fork:
            pull.head_sha = sha


def _error(status: int, message: str, doc: str = "", **extra: Any) -> Json:
    return {
        "message": message,
        "documentation_url": f"{_DOCS}/{doc}" if doc else _DOCS,
        "status": str(status),
        **extra,
    }


class _Reply(Exception):
    """Raised by a route to answer with an error: GitHub's JSON error shape."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        headers: Mapping[str, str] | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra
        self.headers = dict(headers or {})


# -- the fake ----------------------------------------------------------------


class FakeGitHub:
    """The state, its helpers for tests, and the HTTP server around it."""

    def __init__(
        self,
        *,
        port: int = 0,
        state_file: Path | None = None,
        flavor: Flavor = "github.com",
        clock: Callable[[], float] = time.time,
    ) -> None:
        if flavor not in {"github.com", "ghes"}:
            raise ValueError(f"unknown flavor {flavor!r}")
        self._lock = threading.RLock()
        self._port = port
        self._state_file = state_file
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.flavor: Flavor = flavor
        self.clock = clock
        self.tokens: dict[str, TokenGrant] = {}
        self.repos: dict[str, FakeRepo] = {}
        self.users: dict[str, FakeUser] = {}
        self._quotas: dict[str, _Quota] = {}
        self._injections: list[_Injection] = []
        self._log: list[LoggedRequest] = []
        self._next_comment_id = 1001
        self._next_user_id = 1
        self._ticks = 0
        self._user(BOT_LOGIN, "Bot")

    # -- lifecycle

    def start(self) -> FakeGitHub:
        server = ThreadingHTTPServer(("127.0.0.1", self._port), _Handler)
        server.daemon_threads = True
        server.fake = self  # type: ignore[attr-defined]  # handler reaches the state here
        self._server = server
        # A short poll keeps `stop` (server.shutdown) from adding 0.5 s per test.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )
        self._thread.start()
        self._save()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake GitHub is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def url(self) -> str:
        """The API root, as GITHUB_API_URL gives it (``/api/v3`` on GHES)."""
        return self.origin + (_GHES_PREFIX if self.flavor == "ghes" else "")

    # -- seeding

    def add_token(self, token: str, grant: TokenGrant) -> None:
        with self._lock:
            self.tokens[token] = grant
            self._user(grant.login, grant.user_type)

    def add_actions_token(self, token: str, *, read_only: bool = False) -> None:
        """The workflow's GITHUB_TOKEN; ``read_only`` as on a fork's pull request."""
        self.add_token(token, TokenGrant(BOT_LOGIN, "actions", _permissions(read_only)))

    def add_app_token(self, token: str, *, app_slug: str, read_only: bool = False) -> None:
        """A GitHub App installation token: it acts as ``<app_slug>[bot]``."""
        self.add_token(
            token, TokenGrant(f"{app_slug}[bot]", "app", _permissions(read_only), app_slug)
        )

    def add_user_token(self, token: str, *, login: str, read_only: bool = False) -> None:
        """A personal access token of ``login``: ``GET /user`` answers."""
        self.add_token(token, TokenGrant(login, "user", _permissions(read_only), None))

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        files: Mapping[str, bytes] | None = None,
        actions_can_create_pull_requests: bool = False,
    ) -> str:
        """Create a repo whose default branch has ``files``; return that commit's SHA."""
        with self._lock:
            previous = self.repos.get(full_name)
            repo = FakeRepo(
                full_name=full_name,
                id=previous.id if previous else len(self.repos) + 1,
                default_branch=default_branch,
                actions_can_create_pull_requests=actions_can_create_pull_requests,
            )
            tree = {p: base64.b64encode(c).decode() for p, c in (files or {}).items()}
            sha = _add_commit(repo, [], tree, "initial")
            repo.refs[default_branch] = sha
            self.repos[full_name] = repo
            self._user(full_name.split("/", maxsplit=1)[0], "User")
            self._save()
            return sha

    def allow_actions_to_create_pull_requests(self, full_name: str) -> None:
        """Tick "Allow GitHub Actions to create and approve pull requests" (Settings → Actions)."""
        with self._lock:
            self.repos[full_name].actions_can_create_pull_requests = True
            self._save()

    def add_pull(
        self,
        full_name: str,
        *,
        head_sha: str,
        state: str = "open",
        head_ref: str = "feature",
        base_ref: str = "main",
        from_fork: bool = False,
    ) -> int:
        with self._lock:
            repo = self.repos[full_name]
            number = repo.next_number
            repo.next_number += 1
            owner = "contributor" if from_fork else full_name.split("/", maxsplit=1)[0]
            repo.pulls[number] = FakePull(
                number, head_sha, head_ref, base_ref, state, f"PR {number}", "", owner, from_fork
            )
            self._save()
            return number

    def push(self, full_name: str, number: int, *, head_sha: str) -> None:
        """A new commit on the PR's branch."""
        with self._lock:
            self.repos[full_name].pulls[number].head_sha = head_sha
            self._save()

    def merge_pull(self, full_name: str, number: int) -> str:
        """Merge a PR as the web UI does: a merge commit on the base holding the head's
        files (no conflicts in the fake), the PR closed and merged. Returns the commit."""
        with self._lock:
            repo = self.repos[full_name]
            pull = repo.pulls[number]
            base = repo.refs[pull.base_ref]
            merged = {**repo.commits[base], **repo.commits[pull.head_sha]}
            sha = _add_commit(repo, [base, pull.head_sha], merged, f"Merge pull request #{number}")
            repo.refs[pull.base_ref] = sha
            pull.state, pull.merged_at, pull.closed_at = "closed", self._now(), self._now()
            self._save()
            return sha

    def close_pull(self, full_name: str, number: int) -> None:
        """Close a PR without merging it (its branch stays)."""
        with self._lock:
            pull = self.repos[full_name].pulls[number]
            pull.state, pull.closed_at = "closed", self._now()
            self._save()

    def add_comment(
        self,
        full_name: str,
        number: int,
        *,
        login: str,
        body: str,
        user_type: str | None = None,
        author_association: str = "NONE",
    ) -> int:
        """A comment by ``login`` (a ``Bot`` when it ends in ``[bot]``, else a ``User``)."""
        kind = user_type or ("Bot" if login.endswith("[bot]") else "User")
        with self._lock:
            repo = self.repos[full_name]
            comment = self._create_comment(repo, number, self._user(login, kind), body)
            comment.author_association = author_association
            self._save()
            return comment.id

    def edit_comment(self, full_name: str, comment_id: int, *, body: str) -> None:
        """Someone with write access edits a comment (its author stays the same)."""
        with self._lock:
            comment = self.repos[full_name].comments[comment_id]
            comment.body = body
            comment.updated_at = self._now()
            self._save()

    def exhaust_rate_limit(self, token: str, *, reset_in: int = 600, status: int = 403) -> None:
        """Use up ``token``'s primary quota until ``reset_in`` seconds from the fake's clock."""
        with self._lock:
            quota = self._quota(token)
            quota.used = quota.limit
            quota.reset = int(self.clock()) + reset_in
            quota.status = status

    def inject(
        self, failure: Failure, *, path: str = "*", method: str | None = None, times: int = 1
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the ``path`` glob
        (matched against the canonical ``/repos/...`` path, ``*`` crosses ``/``)
        with ``failure``."""
        with self._lock:
            self._injections.append(_Injection(method, path, failure, times))

    def clear_injections(self) -> None:
        with self._lock:
            self._injections.clear()

    # -- inspection

    def comments(self, full_name: str, number: int) -> list[FakeComment]:
        with self._lock:
            return [
                FakeComment(**asdict(c))
                for c in self.repos[full_name].comments.values()
                if c.issue_number == number
            ]

    def comment(self, full_name: str, comment_id: int) -> FakeComment | None:
        with self._lock:
            found = self.repos[full_name].comments.get(comment_id)
            return None if found is None else FakeComment(**asdict(found))

    def pulls(self, full_name: str) -> list[FakePull]:
        with self._lock:
            return [FakePull(**asdict(p)) for p in self.repos[full_name].pulls.values()]

    def file(self, full_name: str, branch: str, path: str) -> bytes | None:
        with self._lock:
            repo = self.repos[full_name]
            encoded = repo.commits[repo.refs[branch]].get(path)
            return None if encoded is None else base64.b64decode(encoded)

    def branch_sha(self, full_name: str, branch: str) -> str | None:
        with self._lock:
            return self.repos[full_name].refs.get(branch)

    @property
    def requests(self) -> list[LoggedRequest]:
        with self._lock:
            return list(self._log)

    def writes(self) -> list[LoggedRequest]:
        """Requests that could change state (for "nothing was written" assertions)."""
        return [r for r in self.requests if r.method in {"POST", "PATCH", "PUT", "DELETE"}]

    # -- (de)serialisation, for the state file and /_fake/state

    def to_json(self) -> Json:
        with self._lock:
            return {
                "flavor": self.flavor,
                "repos": {
                    name: {
                        "id": r.id,
                        "default_branch": r.default_branch,
                        "actions_can_create_pull_requests": r.actions_can_create_pull_requests,
                        "next_number": r.next_number,
                        "pulls": {str(n): asdict(p) for n, p in sorted(r.pulls.items())},
                        "comments": {str(i): asdict(c) for i, c in sorted(r.comments.items())},
                        "refs": dict(sorted(r.refs.items())),
                        "commits": r.commits,
                        "parents": r.parents,
                        "messages": r.messages,
                        "trees": r.trees,
                    }
                    for name, r in sorted(self.repos.items())
                },
                "users": {k: asdict(u) for k, u in sorted(self.users.items())},
                "next_comment_id": self._next_comment_id,
                "next_user_id": self._next_user_id,
                "ticks": self._ticks,
                "requests": [asdict(r) for r in self._log],
            }

    def load_json(self, data: Mapping[str, Any]) -> None:
        """Replace the state; ``tokens`` (token → `TokenGrant` fields) only when given."""
        with self._lock:
            if "tokens" in data:
                self.tokens = {}
                for token, fields in dict(data["tokens"]).items():
                    self.add_token(token, TokenGrant(**fields))
            for key, raw_user in dict(data.get("users", {})).items():
                self.users[key] = FakeUser(**raw_user)
            self._next_user_id = max(
                [int(data.get("next_user_id", 1)), *(u.id + 1 for u in self.users.values())]
            )
            self.repos = {}
            for index, (name, raw) in enumerate(dict(data.get("repos", {})).items(), start=1):
                repo = FakeRepo(
                    full_name=name,
                    id=int(raw.get("id", index)),
                    default_branch=raw.get("default_branch", "main"),
                    actions_can_create_pull_requests=bool(
                        raw.get("actions_can_create_pull_requests", False)
                    ),
                    next_number=int(raw.get("next_number", 1)),
                    refs=dict(raw.get("refs", {})),
                    commits={k: dict(v) for k, v in dict(raw.get("commits", {})).items()},
                    parents={k: list(v) for k, v in dict(raw.get("parents", {})).items()},
                    messages=dict(raw.get("messages", {})),
                    trees={k: dict(v) for k, v in dict(raw.get("trees", {})).items()},
                )
                for files in repo.commits.values():
                    repo.trees.setdefault(_tree_sha(files), dict(files))
                repo.pulls = {int(n): FakePull(**p) for n, p in raw.get("pulls", {}).items()}
                repo.comments = {
                    int(i): FakeComment(**c) for i, c in raw.get("comments", {}).items()
                }
                for c in repo.comments.values():
                    self._user(c.login, c.user_type)
                if repo.default_branch not in repo.refs:
                    repo.refs[repo.default_branch] = _add_commit(repo, [], {}, "initial")
                numbers = [*repo.pulls, repo.next_number - 1]
                repo.next_number = max(numbers) + 1
                self.repos[name] = repo
            self._next_comment_id = int(data.get("next_comment_id", 1001))
            self._ticks = int(data.get("ticks", 0))
            self._save()

    def _save(self) -> None:
        if self._state_file is None:
            return
        with self._lock:
            tmp = self._state_file.with_name(self._state_file.name + ".tmp")
            tmp.write_text(json.dumps(self.to_json(), indent=2, sort_keys=True) + "\n")
            os.replace(tmp, self._state_file)  # readers never see a half-written file

    # -- request handling (called by _Handler under the lock)

    def handle(self, method: str, target: str, auth: str | None, body: bytes, host: str) -> Answer:
        with self._lock:
            parts = urlsplit(target)
            if parts.path.startswith("/_fake/"):
                return self._admin(method, parts.path, body)
            status, payload, headers, path = self._route(method, target, auth, body, host)
            self._log.append(LoggedRequest(method, path, status))
            self._save()
            return status, payload, headers

    def _route(
        self, method: str, target: str, auth: str | None, body: bytes, host: str
    ) -> tuple[int, Payload, dict[str, str], str]:
        parts = urlsplit(target)
        path = parts.path
        if self.flavor == "ghes":
            if not path.startswith(_GHES_PREFIX + "/") and path != _GHES_PREFIX:
                # The web server answers: an HTML page, not the API.
                return 404, "<html><body>Not Found</body></html>", {}, path
            path = path.removeprefix(_GHES_PREFIX) or "/"
        path = self._canonical(path)
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        token = _bearer(auth) or ""
        grant = self.tokens.get(token)
        if grant is None:
            return 401, _error(401, "Bad credentials"), {}, path
        limits, exhausted = self._count(token)
        injected = self._take_injection(method, path)
        if injected is not None:
            return injected.status, injected.body, {**limits, **dict(injected.headers)}, path
        if exhausted:
            status = self._quota(token).status
            subject = "installation ID 1" if grant.is_installation else f"user ID {self._id(grant)}"
            message = f"API rate limit exceeded for {subject}."
            doc = "overview/rate-limits-for-the-rest-api"
            return status, _error(status, message, doc), limits, path
        status, payload, headers = self._dispatch(
            method, path, grant=grant, query=query, body=body, host=host
        )
        return status, payload, {**limits, **headers}, path

    def _canonical(self, path: str) -> str:
        """``/repositories/{id}/...`` (GitHub's Link headers use it) → ``/repos/o/r/...``."""
        found = re.fullmatch(r"/repositories/(\d+)(/.*)?", path)
        if found is None:
            return path
        for repo in self.repos.values():
            if repo.id == int(found.group(1)):
                return f"/repos/{repo.full_name}{found.group(2) or ''}"
        return path

    def _count(self, token: str) -> tuple[dict[str, str], bool]:
        """Count one request against the primary quota: GitHub's headers, and whether
        the quota was already used up."""
        if self.flavor == "ghes":  # rate limits are off by default on GHES
            return {}, False
        quota = self._quota(token)
        now = int(self.clock())
        if now >= quota.reset:
            quota.used, quota.reset = 0, now + 3600
        exhausted = quota.used >= quota.limit
        if not exhausted:
            quota.used += 1
        headers = {
            "x-ratelimit-limit": str(quota.limit),
            "x-ratelimit-remaining": str(quota.limit - quota.used),
            "x-ratelimit-used": str(quota.used),
            "x-ratelimit-reset": str(quota.reset),
            "x-ratelimit-resource": "core",
        }
        return headers, exhausted

    def _quota(self, token: str) -> _Quota:
        if token not in self._quotas:
            grant = self.tokens[token]
            # GITHUB_TOKEN: 1,000 requests per hour per repository; others 5,000.
            self._quotas[token] = _Quota(limit=1000 if grant.kind == "actions" else 5000)
        return self._quotas[token]

    def _dispatch(
        self,
        method: str,
        path: str,
        *,
        grant: TokenGrant,
        query: dict[str, str],
        body: bytes,
        host: str,
    ) -> Answer:
        for route in _ROUTES:
            match = route.pattern.fullmatch(path) if route.method == method else None
            if match is None:
                continue
            try:
                if route.needs and not any(grant.may_write(p) for p in route.needs):
                    accepted = "; ".join(f"{p}=write" for p in route.needs)
                    raise _Reply(
                        403,
                        _NOT_ACCESSIBLE,
                        headers={"x-accepted-github-permissions": accepted},
                    )
                try:
                    data = json.loads(body) if body else {}
                except ValueError:
                    raise _Reply(400, "Problems parsing JSON") from None
                request = _Request(self, grant, match.groupdict(), query, data, host, path)
                return route.handler(request)
            except _Reply as reply:
                return (
                    reply.status,
                    _error(reply.status, reply.message, route.doc, **reply.extra),
                    reply.headers,
                )
        return 404, _error(404, "Not Found"), {}

    def _take_injection(self, method: str, path: str) -> Failure | None:
        for injection in self._injections:
            if injection.remaining <= 0:
                continue
            if injection.method not in {None, method}:
                continue
            if fnmatch.fnmatchcase(path, injection.pattern):
                injection.remaining -= 1
                return injection.failure
        return None

    def _admin(self, method: str, path: str, body: bytes) -> Answer:
        if (method, path) == ("GET", "/_fake/state"):
            return 200, self.to_json(), {}
        if (method, path) == ("PUT", "/_fake/state"):
            self.load_json(json.loads(body))
            return 200, self.to_json(), {}
        if (method, path) == ("POST", "/_fake/inject"):
            spec = json.loads(body)
            self.inject(
                Failure.from_json(spec["failure"]),
                path=spec.get("path", "*"),
                method=spec.get("method"),
                times=int(spec.get("times", 1)),
            )
            return 204, None, {}
        if (method, path) == ("GET", "/_fake/requests"):
            return 200, [asdict(r) for r in self._log], {}
        return 404, {"message": "unknown fake admin route"}, {}

    def _now(self) -> str:
        """A clock that ticks one second per write, so timestamps order writes."""
        self._ticks += 1
        return (_EPOCH + timedelta(seconds=self._ticks)).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _user(self, login: str, kind: str) -> FakeUser:
        key = login.casefold()
        if key not in self.users:
            if login == BOT_LOGIN:
                user_id = ACTIONS_BOT_ID if self.flavor == "github.com" else _GHES_ACTIONS_BOT_ID
            else:
                user_id = 100 + self._next_user_id
                self._next_user_id += 1
            self.users[key] = FakeUser(login, user_id, kind)
        return self.users[key]

    def _id(self, grant: TokenGrant) -> int:
        return self._user(grant.login, grant.user_type).id

    def _create_comment(
        self, repo: FakeRepo, number: int, user: FakeUser, body: str, app: str | None = None
    ) -> FakeComment:
        if number not in repo.pulls:
            raise _Reply(404, "Not Found")
        now = self._now()
        comment = FakeComment(
            self._next_comment_id, number, user.login, user.type, body, now, now, "NONE", app
        )
        self._next_comment_id += 1
        repo.comments[comment.id] = comment
        return comment


def _permissions(read_only: bool) -> dict[str, str]:
    return dict.fromkeys(_WRITE_PERMISSIONS, "read") if read_only else dict(_WRITE_PERMISSIONS)


# -- routes --------------------------------------------------------------------


@dataclass(frozen=True)
class _Request:
    fake: FakeGitHub
    grant: TokenGrant
    params: dict[str, str]
    query: dict[str, str]
    data: Any
    host: str
    path: str

    @property
    def repo(self) -> FakeRepo:
        name = f"{self.params['owner']}/{self.params['repo']}"
        found = self.fake.repos.get(name)
        if found is None:
            raise _Reply(404, "Not Found")
        return found

    @property
    def web(self) -> str:
        """Where html_url points: github.com, or the GHES host itself."""
        return "https://github.com" if self.fake.flavor == "github.com" else f"http://{self.host}"

    @property
    def api(self) -> str:
        prefix = _GHES_PREFIX if self.fake.flavor == "ghes" else ""
        return f"http://{self.host}{prefix}"

    def page(self, items: list[Any]) -> Answer:
        """GitHub's pagination: ``per_page`` (default 30, at most 100), ``page`` from 1,
        and a ``Link`` header that addresses the repository by id."""
        per_page = min(max(_int(self.query.get("per_page"), 30), 1), 100)
        page = max(_int(self.query.get("page"), 1), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]
        rest = self.path.removeprefix(f"/repos/{self.repo.full_name}")
        where = f"{self.api}/repositories/{self.repo.id}{rest}"

        def link(to: int, rel: str) -> str:
            query = {**self.query, "per_page": str(per_page), "page": str(to)}
            return f'<{where}?{urlencode(query)}>; rel="{rel}"'

        links = []
        if page > 1:
            links += [link(page - 1, "prev")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first")]
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})


def _int(raw: str | None, default: int) -> int:
    try:
        return int(raw) if raw is not None else default
    except ValueError:
        return default


_RouteFn = Callable[[_Request], Answer]


@dataclass(frozen=True)
class _Route:
    method: str
    pattern: re.Pattern[str]
    handler: _RouteFn
    doc: str
    needs: tuple[str, ...]  # any one of these write permissions


_ROUTES: list[_Route] = []
_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


def _route(
    method: str, pattern: str, *, doc: str, needs: tuple[str, ...] = ()
) -> Callable[[_RouteFn], _RouteFn]:
    def register(handler: _RouteFn) -> _RouteFn:
        compiled = re.compile(pattern.replace("{repo}", _REPO))
        _ROUTES.append(_Route(method, compiled, handler, doc, needs))
        return handler

    return register


def _user_json(fake: FakeGitHub, login: str, kind: str) -> Json:
    user = fake._user(login, kind)
    return {
        "login": user.login,
        "id": user.id,
        "node_id": f"{'BOT' if user.type == 'Bot' else 'U'}_kgDO{user.id:08d}",
        "avatar_url": f"https://avatars.githubusercontent.com/u/{user.id}?v=4",
        "html_url": f"https://github.com/{user.login.removesuffix('[bot]')}",
        "type": user.type,
        "site_admin": False,
    }


def _app_json(slug: str | None) -> Json | None:
    if slug is None:
        return None
    if slug == _ACTIONS_APP["slug"]:
        return dict(_ACTIONS_APP)
    number = int(hashlib.sha1(slug.encode(), usedforsecurity=False).hexdigest()[:6], 16)
    return {"id": number, "slug": slug, "name": slug}


def _comment_json(req: _Request, c: FakeComment) -> Json:
    full = req.repo.full_name
    return {
        "id": c.id,
        "node_id": "IC_kwDO" + base64.b64encode(str(c.id).encode()).decode().rstrip("="),
        "url": f"{req.api}/repos/{full}/issues/comments/{c.id}",
        "html_url": f"{req.web}/{full}/pull/{c.issue_number}#issuecomment-{c.id}",
        "issue_url": f"{req.api}/repos/{full}/issues/{c.issue_number}",
        "body": c.body,
        "user": _user_json(req.fake, c.login, c.user_type),
        "created_at": c.created_at,
        "updated_at": c.updated_at,
        "author_association": c.author_association,
        "performed_via_github_app": _app_json(c.app_slug),
        "reactions": {"url": f"{req.api}/repos/{full}/issues/comments/{c.id}/reactions"}
        | dict.fromkeys(("total_count", "+1", "-1", "laugh", "confused", "heart"), 0),
    }


def _pull_json(req: _Request, p: FakePull) -> Json:
    repo = req.repo
    owner, name = repo.full_name.split("/")
    head_owner = p.head_owner or owner
    return {
        "url": f"{req.api}/repos/{repo.full_name}/pulls/{p.number}",
        "id": 5_000_000 + p.number,
        "number": p.number,
        "state": p.state,
        "title": p.title,
        "body": p.body or None,
        "html_url": f"{req.web}/{repo.full_name}/pull/{p.number}",
        "merged_at": p.merged_at,
        "closed_at": p.closed_at,
        "user": _user_json(req.fake, head_owner, "User"),
        "head": {
            "sha": p.head_sha,
            "ref": p.head_ref,
            "label": f"{head_owner}:{p.head_ref}",
            "repo": {"full_name": f"{head_owner}/{name}", "fork": p.from_fork},
        },
        "base": {
            "ref": p.base_ref,
            "label": f"{owner}:{p.base_ref}",
            "repo": {"full_name": repo.full_name, "id": repo.id},
        },
    }


def _comment(req: _Request) -> FakeComment:
    found = req.repo.comments.get(int(req.params["id"]))
    if found is None:
        raise _Reply(404, "Not Found")
    return found


def _require_body(req: _Request) -> str:
    body = req.data.get("body") if isinstance(req.data, dict) else None
    if not isinstance(body, str):
        raise _Reply(422, "Invalid request.\n\nFor 'properties/body', nil is not a string.")
    if not body:
        raise _Reply(
            422,
            "Validation Failed",
            errors=[{"resource": "IssueComment", "code": "missing_field", "field": "body"}],
        )
    if len(body) > COMMENT_MAX_CODE_POINTS:
        raise _Reply(
            422,
            "Validation Failed",
            errors=[
                {
                    "resource": "IssueComment",
                    "code": "unprocessable",
                    "field": "data",
                    "message": "Body is too long "
                    f"(maximum is {COMMENT_MAX_CODE_POINTS} characters)",
                }
            ],
        )
    return body


@_route("GET", r"/user", doc="users/users#get-the-authenticated-user")
def _get_user(req: _Request) -> Answer:
    if req.grant.is_installation:  # the endpoint serves user tokens only
        raise _Reply(403, _NOT_ACCESSIBLE)
    return 200, _user_json(req.fake, req.grant.login, req.grant.user_type), {}


@_route("GET", r"{repo}", doc="repos/repos#get-a-repository")
def _get_repo(req: _Request) -> Answer:
    repo = req.repo
    owner, name = repo.full_name.split("/")
    return (
        200,
        {
            "id": repo.id,
            "name": name,
            "full_name": repo.full_name,
            "owner": _user_json(req.fake, owner, "User"),
            "default_branch": repo.default_branch,
            "html_url": f"{req.web}/{repo.full_name}",
        },
        {},
    )


_COMMENT_WRITE: Final = ("issues", "pull_requests")


@_route(
    "GET",
    r"{repo}/issues/(?P<number>\d+)/comments",
    doc="issues/comments#list-issue-comments",
)
def _list_comments(req: _Request) -> Answer:
    repo = req.repo
    number = int(req.params["number"])
    if number not in repo.pulls:
        raise _Reply(404, "Not Found")
    ordered = sorted(repo.comments.values(), key=lambda c: c.id)  # ascending by id
    return req.page([_comment_json(req, c) for c in ordered if c.issue_number == number])


@_route(
    "POST",
    r"{repo}/issues/(?P<number>\d+)/comments",
    doc="issues/comments#create-an-issue-comment",
    needs=_COMMENT_WRITE,
)
def _post_comment(req: _Request) -> Answer:
    repo = req.repo
    body = _require_body(req)
    user = req.fake._user(req.grant.login, req.grant.user_type)
    c = req.fake._create_comment(repo, int(req.params["number"]), user, body, req.grant.app_slug)
    return 201, _comment_json(req, c), {"Location": _comment_json(req, c)["url"]}


@_route("GET", r"{repo}/issues/comments/(?P<id>\d+)", doc="issues/comments#get-an-issue-comment")
def _get_comment(req: _Request) -> Answer:
    return 200, _comment_json(req, _comment(req)), {}


@_route(
    "PATCH",
    r"{repo}/issues/comments/(?P<id>\d+)",
    doc="issues/comments#update-an-issue-comment",
    needs=_COMMENT_WRITE,
)
def _patch_comment(req: _Request) -> Answer:
    # Like GitHub: write access edits ANY comment of the repository, not only its own.
    c = _comment(req)
    c.body = _require_body(req)
    c.updated_at = req.fake._now()
    return 200, _comment_json(req, c), {}


@_route(
    "DELETE",
    r"{repo}/issues/comments/(?P<id>\d+)",
    doc="issues/comments#delete-an-issue-comment",
    needs=_COMMENT_WRITE,
)
def _delete_comment(req: _Request) -> Answer:
    c = _comment(req)  # any comment of the repository, as on GitHub
    del req.repo.comments[c.id]
    return 204, None, {}


@_route("GET", r"{repo}/pulls/(?P<number>\d+)", doc="pulls/pulls#get-a-pull-request")
def _get_pull(req: _Request) -> Answer:
    pull = req.repo.pulls.get(int(req.params["number"]))
    if pull is None:
        raise _Reply(404, "Not Found")
    return 200, _pull_json(req, pull), {}


@_route("GET", r"{repo}/pulls", doc="pulls/pulls#list-pull-requests")
def _list_pulls(req: _Request) -> Answer:
    repo = req.repo
    state = req.query.get("state", "open")
    head = req.query.get("head")
    pulls = [_pull_json(req, p) for _, p in sorted(repo.pulls.items()) if state in {"all", p.state}]
    if head:
        pulls = [p for p in pulls if p["head"]["label"] == head]
    if req.query.get("base"):
        pulls = [p for p in pulls if p["base"]["ref"] == req.query["base"]]
    return req.page(pulls)


@_route(
    "GET",
    r"{repo}/commits/(?P<sha>[0-9a-fA-F]+)/pulls",
    doc="commits/commits#list-pull-requests-associated-with-a-commit",
)
def _pulls_for_commit(req: _Request) -> Answer:
    repo = req.repo
    sha = req.params["sha"].lower()
    known = {p.head_sha for p in repo.pulls.values() if not p.from_fork}
    known |= set(repo.commits)
    if sha not in known:  # a commit that exists only in a fork is unknown here
        raise _Reply(422, f"No commit found for SHA: {sha}")
    matches = [
        _pull_json(req, p)
        for _, p in sorted(repo.pulls.items())
        if p.head_sha == sha and not p.from_fork
    ]
    return req.page(matches)


@_route("POST", r"{repo}/pulls", doc="pulls/pulls#create-a-pull-request", needs=("pull_requests",))
def _create_pull(req: _Request) -> Answer:
    repo = req.repo
    if req.grant.kind == "actions" and not repo.actions_can_create_pull_requests:
        raise _Reply(403, _ACTIONS_MAY_NOT_OPEN_PRS)
    head, base = str(req.data.get("head", "")), str(req.data.get("base", ""))
    if head not in repo.refs or base not in repo.refs:
        raise _Reply(
            422,
            "Validation Failed",
            errors=[{"resource": "PullRequest", "field": "head", "code": "invalid"}],
        )
    for pull in repo.pulls.values():
        if pull.state == "open" and (pull.head_ref, pull.base_ref) == (head, base):
            owner = repo.full_name.split("/")[0]
            raise _Reply(
                422,
                "Validation Failed",
                errors=[
                    {
                        "resource": "PullRequest",
                        "code": "custom",
                        "message": f"A pull request already exists for {owner}:{head}.",
                    }
                ],
            )
    if repo.refs[head] == repo.refs[base]:
        raise _Reply(
            422,
            "Validation Failed",
            errors=[
                {
                    "resource": "PullRequest",
                    "code": "custom",
                    "message": f"No commits between {base} and {head}",
                }
            ],
        )
    number = repo.next_number
    repo.next_number += 1
    pull = FakePull(
        number=number,
        head_sha=repo.refs[head],
        head_ref=head,
        base_ref=base,
        title=str(req.data.get("title", "")),
        body=str(req.data.get("body") or ""),
        head_owner=repo.full_name.split("/")[0],
    )
    repo.pulls[number] = pull
    return 201, _pull_json(req, pull), {}


@_route("GET", r"{repo}/git/ref/heads/(?P<branch>.+)", doc="git/refs#get-a-reference")
def _get_ref(req: _Request) -> Answer:
    branch = unquote(req.params["branch"])
    sha = req.repo.refs.get(branch)
    if sha is None:
        raise _Reply(404, "Not Found")
    return 200, {"ref": f"refs/heads/{branch}", "object": {"sha": sha, "type": "commit"}}, {}


@_route("POST", r"{repo}/git/refs", doc="git/refs#create-a-reference", needs=("contents",))
def _create_ref(req: _Request) -> Answer:
    repo = req.repo
    ref, sha = str(req.data.get("ref", "")), str(req.data.get("sha", ""))
    if not ref.startswith("refs/") or ref.count("/") < 2:
        raise _Reply(422, "Reference name must start with 'refs/' and have at least two slashes.")
    branch = ref.removeprefix("refs/heads/")
    if branch in repo.refs:
        raise _Reply(422, "Reference already exists")
    if sha not in repo.commits:
        raise _Reply(422, "Object does not exist")
    repo.refs[branch] = sha
    return 201, {"ref": ref, "object": {"sha": sha, "type": "commit"}}, {}


@_route("GET", r"{repo}/contents/(?P<path>.+)", doc="repos/contents#get-repository-content")
def _get_contents(req: _Request) -> Answer:
    repo = req.repo
    path = unquote(req.params["path"])
    branch = req.query.get("ref", repo.default_branch)
    sha = repo.refs.get(branch)
    encoded = None if sha is None else repo.commits[sha].get(path)
    if encoded is None:
        raise _Reply(404, "Not Found")
    content = base64.b64decode(encoded)
    return (
        200,
        {
            "type": "file",
            "encoding": "base64",
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            # GitHub wraps the base64 text at 60 characters
            "content": "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n",
            "sha": _blob_sha(content),
            "size": len(content),
        },
        {},
    )


@_route(
    "PUT",
    r"{repo}/contents/(?P<path>.+)",
    doc="repos/contents#create-or-update-file-contents",
    needs=("contents",),
)
def _put_contents(req: _Request) -> Answer:
    repo = req.repo
    path = unquote(req.params["path"])
    branch = str(req.data.get("branch") or repo.default_branch)
    message = req.data.get("message")
    if not isinstance(message, str) or not message:
        raise _Reply(422, 'Invalid request.\n\n"message" wasn\'t supplied.')
    parent = repo.refs.get(branch)
    if parent is None:
        raise _Reply(404, f"Branch {branch} not found")
    tree = dict(repo.commits[parent])
    try:
        content = base64.b64decode(str(req.data["content"]), validate=True)
    except (KeyError, ValueError):
        raise _Reply(422, 'Invalid request.\n\n"content" wasn\'t supplied.') from None
    existing = tree.get(path)
    if existing is not None:
        given = req.data.get("sha")
        if given is None:
            raise _Reply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        if given != _blob_sha(base64.b64decode(existing)):
            raise _Reply(409, f"{path} does not match {given}")
    tree[path] = base64.b64encode(content).decode()
    commit = _add_commit(repo, [parent], tree, message)
    _move_branch(repo, branch, commit)
    status = 200 if existing is not None else 201
    return (
        status,
        {"content": {"path": path, "sha": _blob_sha(content)}, "commit": {"sha": commit}},
        {},
    )


def _branch_of(req: _Request) -> str:
    branch = unquote(req.params["branch"])
    if branch not in req.repo.refs:
        raise _Reply(422, "Reference does not exist")
    return branch


@_route(
    "PATCH",
    r"{repo}/git/refs/heads/(?P<branch>.+)",
    doc="git/refs#update-a-reference",
    needs=("contents",),
)
def _update_ref(req: _Request) -> Answer:
    repo = req.repo
    branch = _branch_of(req)
    sha = req.data.get("sha") if isinstance(req.data, dict) else None
    if not isinstance(sha, str):
        raise _Reply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if sha not in repo.commits:
        raise _Reply(422, "Object does not exist")
    if req.data.get("force") is not True and not _is_ancestor(repo, repo.refs[branch], sha):
        raise _Reply(422, "Update is not a fast forward")
    _move_branch(repo, branch, sha)
    return 200, {"ref": f"refs/heads/{branch}", "object": {"sha": sha, "type": "commit"}}, {}


@_route(
    "DELETE",
    r"{repo}/git/refs/heads/(?P<branch>.+)",
    doc="git/refs#delete-a-reference",
    needs=("contents",),
)
def _delete_ref(req: _Request) -> Answer:
    del req.repo.refs[_branch_of(req)]
    return 204, None, {}


@_route("GET", r"{repo}/git/commits/(?P<sha>[0-9a-f]{40})", doc="git/commits#get-a-commit-object")
def _get_commit(req: _Request) -> Answer:
    repo, sha = req.repo, req.params["sha"]
    if sha not in repo.commits:
        raise _Reply(404, "Not Found")
    return (
        200,
        {
            "sha": sha,
            "tree": {"sha": _tree_sha(repo.commits[sha])},
            "parents": [{"sha": p} for p in repo.parents.get(sha, [])],
            "message": repo.messages.get(sha, ""),
        },
        {},
    )


@_route("POST", r"{repo}/git/trees", doc="git/trees#create-a-tree", needs=("contents",))
def _create_tree(req: _Request) -> Answer:
    repo = req.repo
    entries = req.data.get("tree") if isinstance(req.data, dict) else None
    if not isinstance(entries, list):
        raise _Reply(422, 'Invalid request.\n\n"tree" wasn\'t supplied.')
    base = req.data.get("base_tree")
    if base is not None and base not in repo.trees:
        raise _Reply(422, "Invalid tree info")
    files = dict(repo.trees[base]) if base is not None else {}
    for entry in entries:
        if not isinstance(entry, dict) or entry.get("type") != "blob" or not entry.get("path"):
            raise _Reply(422, "Invalid tree info")
        if entry.get("mode") not in {"100644", "100755"}:
            raise _Reply(422, "Invalid tree info")
        path = str(entry["path"])
        if "content" in entry and isinstance(entry["content"], str):
            files[path] = base64.b64encode(entry["content"].encode()).decode()
        elif "sha" in entry and entry["sha"] is None:
            if path not in files:
                raise _Reply(422, "Invalid tree info")
            del files[path]
        else:
            raise _Reply(422, "Invalid tree info")  # blobs by SHA: recall-gate sends content
    sha = _tree_sha(files)
    repo.trees[sha] = files
    return 201, {"sha": sha, "tree": [{"path": p, "type": "blob"} for p in sorted(files)]}, {}


@_route("POST", r"{repo}/git/commits", doc="git/commits#create-a-commit", needs=("contents",))
def _create_commit(req: _Request) -> Answer:
    repo = req.repo
    data = req.data if isinstance(req.data, dict) else {}
    message, tree, parents = data.get("message"), data.get("tree"), data.get("parents", [])
    if not isinstance(message, str) or not isinstance(tree, str):
        raise _Reply(422, 'Invalid request.\n\n"message", "tree" weren\'t supplied.')
    if tree not in repo.trees:
        raise _Reply(422, "Tree SHA does not exist")
    if not isinstance(parents, list) or any(p not in repo.commits for p in parents):
        raise _Reply(422, "Parent SHA does not exist or is not a commit object")
    sha = _add_commit(repo, [str(p) for p in parents], repo.trees[tree], message)
    return 201, {"sha": sha, "tree": {"sha": tree}, "parents": [{"sha": p} for p in parents]}, {}


@_route(
    "PATCH",
    r"{repo}/pulls/(?P<number>\d+)",
    doc="pulls/pulls#update-a-pull-request",
    needs=("pull_requests",),
)
def _update_pull(req: _Request) -> Answer:
    pull = req.repo.pulls.get(int(req.params["number"]))
    if pull is None:
        raise _Reply(404, "Not Found")
    data = req.data if isinstance(req.data, dict) else {}
    if "title" in data:
        pull.title = str(data["title"])
    if "body" in data:
        pull.body = str(data["body"] or "")
    if data.get("state") in {"open", "closed"}:
        if data["state"] == "closed" and pull.state == "open":
            pull.closed_at = req.fake._now()
        pull.state = data["state"]
    return 200, _pull_json(req, pull), {}


# -- HTTP plumbing ---------------------------------------------------------------


class _Handler(BaseHTTPRequestHandler):
    server_version = "FakeGitHub/1"

    def _serve(self) -> None:
        fake: FakeGitHub = self.server.fake  # type: ignore[attr-defined]
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        host = self.headers.get("Host") or "127.0.0.1"
        status, payload, headers = fake.handle(
            self.command, self.path, self.headers.get("Authorization"), body, host
        )
        if payload is None:
            raw, content_type = b"", None
        elif isinstance(payload, str):
            raw, content_type = payload.encode(), "text/html; charset=utf-8"
        else:
            raw, content_type = json.dumps(payload).encode(), "application/json; charset=utf-8"
        self.send_response(status)
        # An injected answer may bring its own Content-Type (a proxy's page, say).
        if content_type and "content-type" not in {name.lower() for name in headers}:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(raw)))
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(raw)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

    def log_message(self, format: str, *args: Any) -> None:  # stdlib's signature
        """Quiet: the request log is `FakeGitHub.requests`."""


def _bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    return value.strip() if scheme.lower() in {"bearer", "token"} else None


# -- the command line --------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a stateful fake GitHub REST API.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--state-file", type=Path, help="rewritten with the state as JSON")
    parser.add_argument("--seed", type=Path, help="initial state (the state-file format)")
    parser.add_argument("--flavor", choices=["github.com", "ghes"], default="github.com")
    parser.add_argument("--token", help="accept this token")
    parser.add_argument(
        "--token-kind", choices=["actions", "app", "user"], default="actions", help="its kind"
    )
    parser.add_argument("--login", help="the user token's login, or the app's slug")
    parser.add_argument("--read-only", action="store_true", help="the --token may not write")
    args = parser.parse_args(argv)

    fake = FakeGitHub(port=args.port, state_file=args.state_file, flavor=args.flavor)
    if args.seed:
        fake.load_json(json.loads(args.seed.read_text()))
    if args.token:
        if args.token_kind == "actions":
            fake.add_actions_token(args.token, read_only=args.read_only)
        elif args.token_kind == "app":
            fake.add_app_token(
                args.token, app_slug=args.login or "my-app", read_only=args.read_only
            )
        else:
            fake.add_user_token(args.token, login=args.login or "octocat", read_only=args.read_only)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    with fake:
        print(fake.url, flush=True)
        stopped.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
