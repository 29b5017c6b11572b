"""A stateful fake of the GitHub REST API, served over real HTTP on loopback.

Tests assert the END STATE it holds ("exactly one marked comment, updated in
place") rather than which calls were made. It implements only what
recall-gate uses, with GitHub's status codes, messages and headers:

- ``GET /user``; ``GET /repos/{o}/{r}``
- issue comments: list (``per_page``/``page`` and an RFC 8288 ``Link``
  header with first/prev/next/last), create, get, update, delete
- pulls: get, list (``state``, ``head=owner:branch``), create;
  ``GET /repos/{o}/{r}/commits/{sha}/pulls`` (like GitHub, blind to commits
  that live only in a fork)
- git refs (``GET git/ref/heads/{b}``, ``POST git/refs``) and the contents API
  (``GET``/``PUT contents/{path}``) over per-commit file trees

Auth is ``Authorization: Bearer <token>`` (or ``token <token>``); unknown →
401. A token may be read-only (writes → 403 "Resource not accessible by
integration") and may be barred from ``/user`` like the Actions token.
Failures can be injected per method and path glob (`FakeGitHub.inject`).

In-process: the `fake_github` fixture (import ``fake_github_fixture`` into a
test module). As a subprocess, for the act end-to-end tests::

    python tests/fake_github.py --port 0 --state-file state.json \\
        [--seed seed.json] [--token T [--login L] [--read-only]]

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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

import pytest

__all__ = [
    "BOT_LOGIN",
    "TOKEN",
    "Failure",
    "FakeGitHub",
    "LoggedRequest",
    "fake_github_fixture",
]

BOT_LOGIN: Final = "github-actions[bot]"
TOKEN: Final = "ghs_fake-workflow-token-0123456789"
_EPOCH: Final = datetime(2024, 1, 1, tzinfo=UTC)
_DOCS: Final = "https://docs.github.com/rest"
_NOT_ACCESSIBLE: Final = "Resource not accessible by integration"
_SECONDARY_MESSAGE: Final = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
)

Json = dict[str, Any]


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
        headers = () if retry_after is None else (("Retry-After", str(retry_after)),)
        return cls(403, {"message": _SECONDARY_MESSAGE, "documentation_url": _DOCS}, headers)

    @classmethod
    def primary_rate_limit(cls, *, reset_at: int) -> Failure:
        return cls(
            403,
            {
                "message": "API rate limit exceeded for installation ID 1.",
                "documentation_url": _DOCS,
            },
            (("X-RateLimit-Remaining", "0"), ("X-RateLimit-Reset", str(reset_at))),
        )

    @classmethod
    def too_many_requests(cls, *, retry_after: int | None = 30) -> Failure:
        headers = () if retry_after is None else (("Retry-After", str(retry_after)),)
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
    login: str
    read_only: bool = False
    can_read_user: bool = False  # the Actions token gets 403 on GET /user
    user_type: str = "Bot"


@dataclass
class FakeComment:
    id: int
    issue_number: int
    login: str
    user_type: str
    body: str
    created_at: str
    updated_at: str


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


@dataclass
class FakeRepo:
    full_name: str
    default_branch: str = "main"
    pulls: dict[int, FakePull] = field(default_factory=dict)
    comments: dict[int, FakeComment] = field(default_factory=dict)
    refs: dict[str, str] = field(default_factory=dict)  # branch -> commit sha
    commits: dict[str, dict[str, str]] = field(default_factory=dict)  # sha -> {path: base64}
    next_number: int = 1


def _blob_sha(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content, usedforsecurity=False).hexdigest()


def _commit_sha(parent: str, tree: Mapping[str, str], message: str) -> str:
    text = json.dumps([parent, sorted(tree.items()), message])
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


class _Reply(Exception):
    """Raised by a route to answer with an error: GitHub's JSON error shape."""

    def __init__(self, status: int, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.body: Json = {"message": message, "documentation_url": _DOCS, **extra}


# -- the fake ----------------------------------------------------------------


class FakeGitHub:
    """The state, its helpers for tests, and the HTTP server around it."""

    def __init__(self, *, port: int = 0, state_file: Path | None = None) -> None:
        self._lock = threading.RLock()
        self._port = port
        self._state_file = state_file
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.tokens: dict[str, TokenGrant] = {}
        self.repos: dict[str, FakeRepo] = {}
        self._injections: list[_Injection] = []
        self._log: list[LoggedRequest] = []
        self._next_comment_id = 1001
        self._ticks = 0

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
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the fake GitHub is not started")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    # -- seeding

    def add_token(
        self,
        token: str,
        *,
        login: str = BOT_LOGIN,
        read_only: bool = False,
        can_read_user: bool = False,
        user_type: str = "Bot",
    ) -> None:
        with self._lock:
            self.tokens[token] = TokenGrant(login, read_only, can_read_user, user_type)

    def add_repo(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        files: Mapping[str, bytes] | None = None,
    ) -> str:
        """Create a repo whose default branch has ``files``; return that commit's SHA."""
        with self._lock:
            repo = FakeRepo(full_name=full_name, default_branch=default_branch)
            tree = {p: base64.b64encode(c).decode() for p, c in (files or {}).items()}
            sha = _commit_sha("", tree, "initial")
            repo.commits[sha] = tree
            repo.refs[default_branch] = sha
            self.repos[full_name] = repo
            self._save()
            return sha

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

    def add_comment(
        self, full_name: str, number: int, *, login: str, body: str, user_type: str = "User"
    ) -> int:
        with self._lock:
            return self._create_comment(self.repos[full_name], number, login, user_type, body).id

    def inject(
        self, failure: Failure, *, path: str = "*", method: str | None = None, times: int = 1
    ) -> None:
        """Answer the next ``times`` requests matching ``method`` and the ``path`` glob
        with ``failure`` (``*`` crosses ``/``)."""
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
                "repos": {
                    name: {
                        "default_branch": r.default_branch,
                        "next_number": r.next_number,
                        "pulls": {str(n): asdict(p) for n, p in sorted(r.pulls.items())},
                        "comments": {str(i): asdict(c) for i, c in sorted(r.comments.items())},
                        "refs": dict(sorted(r.refs.items())),
                        "commits": r.commits,
                    }
                    for name, r in sorted(self.repos.items())
                },
                "next_comment_id": self._next_comment_id,
                "ticks": self._ticks,
                "requests": [asdict(r) for r in self._log],
            }

    def load_json(self, data: Mapping[str, Any]) -> None:
        """Replace the state; ``tokens`` (token → `TokenGrant` fields) only when given."""
        with self._lock:
            if "tokens" in data:
                self.tokens = {t: TokenGrant(**g) for t, g in dict(data["tokens"]).items()}
            self.repos = {}
            for name, raw in dict(data.get("repos", {})).items():
                repo = FakeRepo(
                    full_name=name,
                    default_branch=raw.get("default_branch", "main"),
                    next_number=int(raw.get("next_number", 1)),
                    refs=dict(raw.get("refs", {})),
                    commits={k: dict(v) for k, v in dict(raw.get("commits", {})).items()},
                )
                repo.pulls = {int(n): FakePull(**p) for n, p in raw.get("pulls", {}).items()}
                repo.comments = {
                    int(i): FakeComment(**c) for i, c in raw.get("comments", {}).items()
                }
                if repo.default_branch not in repo.refs:
                    sha = _commit_sha("", {}, "initial")
                    repo.commits.setdefault(sha, {})
                    repo.refs[repo.default_branch] = sha
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

    def handle(
        self, method: str, target: str, auth: str | None, body: bytes, host: str
    ) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
        with self._lock:
            status, payload, headers = self._route(method, target, auth, body, host)
            path = urlsplit(target).path
            if not path.startswith("/_fake/"):  # the log records API traffic only
                self._log.append(LoggedRequest(method, path, status))
                self._save()
            return status, payload, headers

    def _route(
        self, method: str, target: str, auth: str | None, body: bytes, host: str
    ) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
        parts = urlsplit(target)
        path = parts.path
        query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        if path.startswith("/_fake/"):
            return self._admin(method, path, body)
        grant = self.tokens.get(_bearer(auth) or "")
        if grant is None:
            return 401, {"message": "Bad credentials", "documentation_url": _DOCS}, {}
        injected = self._take_injection(method, path)
        if injected is not None:
            return injected.status, injected.body, dict(injected.headers)
        return self._dispatch(method, path, grant=grant, query=query, body=body, host=host)

    def _dispatch(
        self,
        method: str,
        path: str,
        *,
        grant: TokenGrant,
        query: dict[str, str],
        body: bytes,
        host: str,
    ) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
        for route_method, pattern, handler in _ROUTES:
            match = pattern.fullmatch(path) if route_method == method else None
            if match is None:
                continue
            if method != "GET" and grant.read_only:
                return 403, Failure.permission().body, {}
            try:
                data = json.loads(body) if body else {}
                return handler(_Request(self, grant, match.groupdict(), query, data, host, path))
            except _Reply as reply:
                return reply.status, reply.body, {}
            except (ValueError, KeyError, TypeError) as exc:
                return 400, {"message": f"Problems parsing JSON: {exc}"}, {}
        return 404, Failure.not_found().body, {}

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

    def _admin(
        self, method: str, path: str, body: bytes
    ) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
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

    def _create_comment(
        self, repo: FakeRepo, number: int, login: str, user_type: str, body: str
    ) -> FakeComment:
        if number not in repo.pulls:
            raise _Reply(404, "Not Found")
        now = self._now()
        comment = FakeComment(self._next_comment_id, number, login, user_type, body, now, now)
        self._next_comment_id += 1
        repo.comments[comment.id] = comment
        self._save()
        return comment


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

    def page(self, items: list[Any]) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
        """GitHub-style pagination: ``per_page`` (default 30, max 100), ``page``."""
        per_page = min(max(int(self.query.get("per_page", 30)), 1), 100)
        page = max(int(self.query.get("page", 1)), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(to: int, rel: str) -> str:
            query = {**self.query, "per_page": str(per_page), "page": str(to)}
            return f'<http://{self.host}{self.path}?{urlencode(query)}>; rel="{rel}"'

        links = []
        if page > 1:
            links += [link(page - 1, "prev"), link(1, "first")]
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})


_RouteFn = Callable[[_Request], tuple[int, Json | list[Any] | str | None, dict[str, str]]]
_ROUTES: list[tuple[str, re.Pattern[str], _RouteFn]] = []
_REPO = r"/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)"


def _route(method: str, pattern: str) -> Callable[[_RouteFn], _RouteFn]:
    def register(handler: _RouteFn) -> _RouteFn:
        _ROUTES.append((method, re.compile(pattern.replace("{repo}", _REPO)), handler))
        return handler

    return register


def _comment_json(repo: FakeRepo, c: FakeComment) -> Json:
    return {
        "id": c.id,
        "node_id": f"IC_{c.id}",
        "url": f"https://api.github.com/repos/{repo.full_name}/issues/comments/{c.id}",
        "html_url": f"https://github.com/{repo.full_name}/pull/{c.issue_number}#issuecomment-{c.id}",
        "issue_url": f"https://api.github.com/repos/{repo.full_name}/issues/{c.issue_number}",
        "user": {"login": c.login, "type": c.user_type},
        "body": c.body,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
        "author_association": "NONE",
    }


def _pull_json(repo: FakeRepo, p: FakePull) -> Json:
    owner = repo.full_name.split("/")[0]
    head_repo = f"{p.head_owner or owner}/{repo.full_name.split('/')[1]}"
    return {
        "number": p.number,
        "state": p.state,
        "title": p.title,
        "body": p.body,
        "html_url": f"https://github.com/{repo.full_name}/pull/{p.number}",
        "head": {
            "sha": p.head_sha,
            "ref": p.head_ref,
            "label": f"{p.head_owner or owner}:{p.head_ref}",
            "repo": {"full_name": head_repo},
        },
        "base": {"ref": p.base_ref, "repo": {"full_name": repo.full_name}},
    }


def _comment(req: _Request) -> FakeComment:
    found = req.repo.comments.get(int(req.params["id"]))
    if found is None:
        raise _Reply(404, "Not Found")
    return found


def _require_body(req: _Request) -> str:
    body = req.data.get("body") if isinstance(req.data, dict) else None
    if not isinstance(body, str) or not body:
        raise _Reply(422, "Validation Failed", errors=[{"field": "body", "code": "missing"}])
    if len(body) > 65_536:
        raise _Reply(
            422,
            "Validation Failed",
            errors=[{"message": "Body is too long (maximum is 65536 characters)"}],
        )
    return body


@_route("GET", r"/user")
def _get_user(req: _Request) -> tuple[int, Json, dict[str, str]]:
    if not req.grant.can_read_user:
        raise _Reply(403, _NOT_ACCESSIBLE)
    return 200, {"login": req.grant.login, "type": req.grant.user_type}, {}


@_route("GET", r"{repo}")
def _get_repo(req: _Request) -> tuple[int, Json, dict[str, str]]:
    return 200, {"full_name": req.repo.full_name, "default_branch": req.repo.default_branch}, {}


@_route("GET", r"{repo}/issues/(?P<number>\d+)/comments")
def _list_comments(req: _Request) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
    repo = req.repo
    number = int(req.params["number"])
    if number not in repo.pulls:
        raise _Reply(404, "Not Found")
    ordered = sorted(repo.comments.values(), key=lambda c: c.id)
    return req.page([_comment_json(repo, c) for c in ordered if c.issue_number == number])


@_route("POST", r"{repo}/issues/(?P<number>\d+)/comments")
def _post_comment(req: _Request) -> tuple[int, Json, dict[str, str]]:
    repo = req.repo
    body = _require_body(req)
    c = req.fake._create_comment(
        repo, int(req.params["number"]), req.grant.login, req.grant.user_type, body
    )
    return 201, _comment_json(repo, c), {}


@_route("GET", r"{repo}/issues/comments/(?P<id>\d+)")
def _get_comment(req: _Request) -> tuple[int, Json, dict[str, str]]:
    return 200, _comment_json(req.repo, _comment(req)), {}


@_route("PATCH", r"{repo}/issues/comments/(?P<id>\d+)")
def _patch_comment(req: _Request) -> tuple[int, Json, dict[str, str]]:
    c = _comment(req)
    if c.login != req.grant.login:  # only its author (or an admin) may edit a comment
        raise _Reply(403, "You must be the author of this comment to edit it")
    c.body = _require_body(req)
    c.updated_at = req.fake._now()
    return 200, _comment_json(req.repo, c), {}


@_route("DELETE", r"{repo}/issues/comments/(?P<id>\d+)")
def _delete_comment(req: _Request) -> tuple[int, None, dict[str, str]]:
    c = _comment(req)
    if c.login != req.grant.login:
        raise _Reply(403, "You must be the author of this comment to delete it")
    del req.repo.comments[c.id]
    return 204, None, {}


@_route("GET", r"{repo}/pulls/(?P<number>\d+)")
def _get_pull(req: _Request) -> tuple[int, Json, dict[str, str]]:
    pull = req.repo.pulls.get(int(req.params["number"]))
    if pull is None:
        raise _Reply(404, "Not Found")
    return 200, _pull_json(req.repo, pull), {}


@_route("GET", r"{repo}/pulls")
def _list_pulls(req: _Request) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
    repo = req.repo
    state = req.query.get("state", "open")
    head = req.query.get("head")
    pulls = [
        _pull_json(repo, p) for _, p in sorted(repo.pulls.items()) if state in {"all", p.state}
    ]
    if head:
        pulls = [p for p in pulls if p["head"]["label"] == head]
    return req.page(pulls)


@_route("GET", r"{repo}/commits/(?P<sha>[0-9a-fA-F]+)/pulls")
def _pulls_for_commit(req: _Request) -> tuple[int, Json | list[Any] | str | None, dict[str, str]]:
    repo = req.repo
    sha = req.params["sha"].lower()
    # Like GitHub: a commit that exists only in a fork is unknown to the base repo.
    matches = [
        _pull_json(repo, p)
        for _, p in sorted(repo.pulls.items())
        if p.head_sha == sha and not p.from_fork
    ]
    return req.page(matches)


@_route("POST", r"{repo}/pulls")
def _create_pull(req: _Request) -> tuple[int, Json, dict[str, str]]:
    repo = req.repo
    head, base = str(req.data.get("head", "")), str(req.data.get("base", ""))
    if head not in repo.refs or base not in repo.refs:
        raise _Reply(422, "Validation Failed", errors=[{"field": "head", "code": "invalid"}])
    for pull in repo.pulls.values():
        if pull.state == "open" and (pull.head_ref, pull.base_ref) == (head, base):
            owner = repo.full_name.split("/")[0]
            raise _Reply(
                422,
                "Validation Failed",
                errors=[{"message": f"A pull request already exists for {owner}:{head}."}],
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
    return 201, _pull_json(repo, pull), {}


@_route("GET", r"{repo}/git/ref/heads/(?P<branch>.+)")
def _get_ref(req: _Request) -> tuple[int, Json, dict[str, str]]:
    branch = unquote(req.params["branch"])
    sha = req.repo.refs.get(branch)
    if sha is None:
        raise _Reply(404, "Not Found")
    return 200, {"ref": f"refs/heads/{branch}", "object": {"sha": sha, "type": "commit"}}, {}


@_route("POST", r"{repo}/git/refs")
def _create_ref(req: _Request) -> tuple[int, Json, dict[str, str]]:
    repo = req.repo
    ref, sha = str(req.data.get("ref", "")), str(req.data.get("sha", ""))
    if not ref.startswith("refs/heads/"):
        raise _Reply(422, "Reference name must start with 'refs/' and have at least two slashes.")
    branch = ref.removeprefix("refs/heads/")
    if branch in repo.refs:
        raise _Reply(422, "Reference already exists")
    if sha not in repo.commits:
        raise _Reply(422, "Object does not exist")
    repo.refs[branch] = sha
    return 201, {"ref": ref, "object": {"sha": sha, "type": "commit"}}, {}


@_route("GET", r"{repo}/contents/(?P<path>.+)")
def _get_contents(req: _Request) -> tuple[int, Json, dict[str, str]]:
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
            "path": path,
            "content": encoded,
            "sha": _blob_sha(content),
            "size": len(content),
        },
        {},
    )


@_route("PUT", r"{repo}/contents/(?P<path>.+)")
def _put_contents(req: _Request) -> tuple[int, Json, dict[str, str]]:
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
    encoded = str(req.data["content"])
    content = base64.b64decode(encoded, validate=True)
    existing = tree.get(path)
    if existing is not None:
        given = req.data.get("sha")
        if given is None:
            raise _Reply(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
        if given != _blob_sha(base64.b64decode(existing)):
            raise _Reply(409, f"{path} does not match {given}")
    tree[path] = base64.b64encode(content).decode()
    commit = _commit_sha(parent, tree, message)
    repo.commits[commit] = tree
    repo.refs[branch] = commit
    status = 200 if existing is not None else 201
    return (
        status,
        {"content": {"path": path, "sha": _blob_sha(content)}, "commit": {"sha": commit}},
        {},
    )


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
        if content_type:
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


# -- pytest and the command line --------------------------------------------------


@pytest.fixture(name="fake_github")
def fake_github_fixture() -> Iterator[FakeGitHub]:
    """A running fake with repo ``octo/app`` and the workflow token `TOKEN`."""
    with FakeGitHub() as fake:
        fake.add_token(TOKEN, login=BOT_LOGIN)
        fake.add_repo("octo/app")
        yield fake


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve a stateful fake GitHub REST API.")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--state-file", type=Path, help="rewritten with the state as JSON")
    parser.add_argument("--seed", type=Path, help="initial state (the state-file format)")
    parser.add_argument("--token", help="accept this token")
    parser.add_argument("--login", default=BOT_LOGIN, help="the --token's login")
    parser.add_argument("--read-only", action="store_true", help="the --token may not write")
    args = parser.parse_args(argv)

    fake = FakeGitHub(port=args.port, state_file=args.state_file)
    if args.seed:
        fake.load_json(json.loads(args.seed.read_text()))
    if args.token:
        fake.add_token(args.token, login=args.login, read_only=args.read_only)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    with fake:
        print(fake.url, flush=True)
        stopped.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
