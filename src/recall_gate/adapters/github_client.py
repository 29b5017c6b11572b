"""A thin, generic wrapper over the GitHub REST API.

This module knows HTTP and GitHub's conventions (JSON bodies, ``Link``
pagination, rate-limit headers) and nothing about recall-gate's comments or
baselines: named operations live in `recall_gate.adapters.github`. It receives
everything it uses — a `requests.Session`, the API base URL (the CLI reads
``GITHUB_API_URL`` so GitHub Enterprise Server works), the token, and a
``sleep``/``clock`` pair so tests never really wait. It never reads the
environment.

Retry policy (GitHub's documented guidance, "Rate limits for the REST API"):

- 500/502/503/504 and connection failures: capped exponential backoff
  (``backoff_base * 2**(attempt-1)``, at most ``backoff_cap``), or the server's
  ``Retry-After`` when it sends one.
- 429, and 403 that is a rate limit (a ``Retry-After`` header, an
  ``X-RateLimit-Remaining: 0`` header, or a "secondary rate limit" message):
  wait ``Retry-After`` seconds when given, else until ``X-RateLimit-Reset``
  when the primary quota is exhausted, else at least a minute.
- Any other 403 is a permission problem: raised at once, never retried.

Writes are retried too. A POST that GitHub applied before failing can leave a
duplicate comment; `recall_gate.adapters.github.upsert_comment` collapses duplicates,
so a retry costs at most one extra comment until the next run.

Waits are never shortened (retrying early only earns another rate limit), so
the bound is on their sum: when the next wait would take the client past
``max_total_wait`` seconds in total, the call fails instead of sleeping.

The token is checked before any use (`check_token`: no whitespace, printable
ASCII only; a copy-pasted secret often ends in a newline, and `requests` would
echo the whole header in its error). It lives in an object whose repr is
masked and is attached by a `requests` auth hook, so requests drops it on a
redirect to another host. Every string that leaves the client — messages,
GitHub's own words, a content type, a decoded answer, a log line — is masked
BEFORE it is shortened, so no fragment of the token survives a cut.
"""

from __future__ import annotations

import email.utils
import json as json_module
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final
from urllib.parse import urlsplit

import requests
from requests.auth import AuthBase

from recall_gate.errors import RecallGateError

__all__ = [
    "API_VERSION",
    "GitHubAuthenticationError",
    "GitHubClient",
    "GitHubError",
    "GitHubNotFound",
    "GitHubPermissionError",
    "GitHubRateLimited",
    "check_token",
]

log = logging.getLogger(__name__)

API_VERSION: Final = "2022-11-28"
_SERVER_ERRORS: Final = frozenset({500, 502, 503, 504})
# GitHub asks for "at least one minute" when a secondary limit gives no header.
_SECONDARY_LIMIT_MIN_WAIT: Final = 60.0
# X-RateLimit-Reset has one-second resolution and clocks drift; wait a bit past it.
_RESET_LEEWAY: Final = 1.0
_RATE_LIMIT_PHRASES: Final = ("secondary rate limit", "rate limit exceeded", "abuse detection")
_MESSAGE_MAX_CHARS: Final = 300

Params = Mapping[str, str | int]


class GitHubError(RecallGateError):
    """A GitHub API call failed: which call, GitHub's own reason, and a fix.

    ``status`` is the HTTP status (``None`` when GitHub was unreachable) and
    ``github_message`` the ``message`` field of GitHub's answer, so named
    operations can re-word the error for their context.
    """

    def __init__(
        self,
        message: str,
        *,
        fix: str = "",
        status: int | None = None,
        method: str = "",
        path: str = "",
        github_message: str = "",
    ) -> None:
        super().__init__(message, fix=fix)
        self.status = status
        self.method = method
        self.path = path
        self.github_message = github_message


class GitHubAuthenticationError(GitHubError):
    """401: the token is missing, expired or revoked."""


class GitHubPermissionError(GitHubError):
    """403 that is not a rate limit: the token may not do this."""


class GitHubNotFound(GitHubError):
    """404: the object is absent, or invisible to this token (GitHub hides private objects)."""


class GitHubRateLimited(GitHubError):
    """Still rate limited when the wait budget ran out."""

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        fix: str = "",
        status: int | None = None,
        method: str = "",
        path: str = "",
        github_message: str = "",
    ) -> None:
        super().__init__(
            message,
            fix=fix,
            status=status,
            method=method,
            path=path,
            github_message=github_message,
        )
        self.retry_after = retry_after


_MASK: Final = "<token hidden>"


def check_token(token: str, *, name: str = "the GitHub token") -> None:
    """Refuse a token that cannot be sent as-is, never echoing any of it.

    GitHub's tokens are printable ASCII without spaces (``ghp_…``, ``ghs_…``,
    ``github_pat_…``, a JWT). Anything else is a damaged secret — most often a
    copy-paste that kept the line break — and would otherwise reach `requests`,
    whose error quotes the whole ``Authorization`` header.
    """
    if not token:
        raise GitHubAuthenticationError(
            f"no GitHub token was given ({name} is empty)",
            fix="pass the `github-token` input (default: the workflow's GITHUB_TOKEN)",
        )
    resave = "save the secret again without it (paste the token alone, on one line)"
    if token.rstrip("\r\n") != token:
        raise GitHubAuthenticationError(
            f"{name} has a trailing newline", fix=f"remove the line break: {resave}"
        )
    for position, char in enumerate(token, start=1):
        if char.isspace():
            where = "leading" if position == 1 else "trailing" if position == len(token) else ""
            what = f"{where} whitespace" if where else f"whitespace at character {position}"
            raise GitHubAuthenticationError(
                f"{name} has {what}", fix=f"remove the whitespace: {resave}"
            )
        if not "\x21" <= char <= "\x7e":
            raise GitHubAuthenticationError(
                f"{name} has an invalid character at position {position} of {len(token)} "
                "(tokens are printable ASCII)",
                fix=f"copy the token again: {resave}",
            )


class _Token:
    """A secret whose repr and str are masked; only `reveal` gives the value."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def mask(self, text: str) -> str:
        """``text`` with every occurrence of the secret replaced (before any cut)."""
        return text.replace(self._value, _MASK) if self._value else text

    def __repr__(self) -> str:
        return "<token hidden>"

    __str__ = __repr__


class _BearerAuth(AuthBase):
    """Attach the token per request.

    An auth object rather than a session header: requests then skips
    ``~/.netrc`` (which would replace the header) and drops the header when a
    redirect leaves the host.
    """

    def __init__(self, token: _Token) -> None:
        self._token = token

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        request.headers["Authorization"] = f"Bearer {self._token.reveal()}"
        return request

    def __repr__(self) -> str:
        return "_BearerAuth(<token hidden>)"


class GitHubClient:
    """GitHub REST calls with JSON, pagination, retries and domain errors.

    Paths are API paths such as ``/repos/o/r/pulls/1``; they are appended to
    ``base_url`` (``https://api.github.com``, or ``https://HOST/api/v3`` on
    GitHub Enterprise Server).
    """

    def __init__(
        self,
        session: requests.Session,
        *,
        base_url: str,
        token: str,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_attempts: int = 5,
        backoff_base: float = 1.0,
        backoff_cap: float = 16.0,
        max_total_wait: float = 120.0,
        timeout: float = 30.0,
        origin: str = "the GitHub token",
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in {"http", "https"} or not parts.netloc:
            raise GitHubError(
                f"the GitHub API URL {base_url!r} is not an http(s) URL",
                fix="set GITHUB_API_URL to the REST API root, e.g. https://api.github.com "
                "or https://HOST/api/v3 on GitHub Enterprise Server",
            )
        check_token(token, name=origin)
        if max_attempts < 1:
            raise ValueError("max_attempts must be at least 1")
        self._session = session
        self._base_url = base_url.rstrip("/")
        self._token = _Token(token)
        self._auth = _BearerAuth(self._token)
        self._sleep = sleep
        self._clock = clock
        self._max_attempts = max_attempts
        self._backoff_base = backoff_base
        self._backoff_cap = backoff_cap
        self._max_total_wait = max_total_wait
        self._timeout = timeout
        self._waited = 0.0

    def __repr__(self) -> str:
        return f"GitHubClient(base_url={self._base_url!r}, token=<hidden>)"

    __str__ = __repr__

    @property
    def base_url(self) -> str:
        return self._base_url

    # -- verbs ---------------------------------------------------------------

    def get(self, path: str, *, params: Params | None = None) -> Any:
        """GET one JSON document."""
        return self._json("GET", path, params=params)

    def post(self, path: str, *, json: Mapping[str, Any]) -> Any:
        return self._json("POST", path, json=json)

    def patch(self, path: str, *, json: Mapping[str, Any]) -> Any:
        return self._json("PATCH", path, json=json)

    def put(self, path: str, *, json: Mapping[str, Any]) -> Any:
        return self._json("PUT", path, json=json)

    def delete(self, path: str) -> None:
        self._request("DELETE", self._url(path), path=path)

    def paginate(
        self, path: str, *, params: Params | None = None, per_page: int = 100
    ) -> Iterator[Any]:
        """Yield every item of a list endpoint, following ``Link: rel="next"``.

        The next-page URL comes from the server, so it is followed only when
        it stays under ``base_url``: the token is never sent elsewhere.
        """
        url = self._url(path)
        query: dict[str, str | int] | None = {**(params or {}), "per_page": per_page}
        seen: set[str] = set()
        while True:
            response = self._request("GET", url, path=path, params=query)
            page = self._decode(response, method="GET", path=path)
            if not isinstance(page, list):
                raise GitHubError(
                    f"GET {path}: expected a JSON list from GitHub, got {type(page).__name__}",
                    fix="check that GITHUB_API_URL points at the GitHub REST API",
                    method="GET",
                    path=path,
                )
            yield from page
            next_url = response.links.get("next", {}).get("url")
            if not next_url:
                return
            if next_url in seen:
                raise GitHubError(
                    f"GET {path}: GitHub's pagination links loop back to a page already read",
                    fix="re-run the job; report it if it persists",
                    method="GET",
                    path=path,
                )
            seen.add(next_url)
            url = self._check_next_url(next_url, path=path)
            query = None  # the next link carries the whole query string

    # -- internals -------------------------------------------------------------

    def _url(self, path: str) -> str:
        if not path.startswith("/"):
            raise ValueError(f"API paths start with '/': {path!r}")
        return self._base_url + path

    def _check_next_url(self, url: str, *, path: str) -> str:
        if not url.startswith(self._base_url + "/"):
            raise GitHubError(
                f"GET {path}: GitHub's next-page link leaves {self._base_url}; "
                "refusing to send the token there",
                fix="check that GITHUB_API_URL is the API root the server itself reports",
                method="GET",
                path=path,
            )
        return url

    def _json(
        self,
        method: str,
        path: str,
        *,
        params: Params | None = None,
        json: Mapping[str, Any] | None = None,
    ) -> Any:
        response = self._request(method, self._url(path), path=path, params=params, json=json)
        return self._decode(response, method=method, path=path)

    def _request(
        self,
        method: str,
        url: str,
        *,
        path: str,
        params: Params | None = None,
        json: Mapping[str, Any] | None = None,
    ) -> requests.Response:
        """Send once, retry what is worth retrying, map failures to domain errors."""
        headers = {
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": "recall-gate",
        }
        attempt = 0
        while True:
            attempt += 1
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json,
                    headers=headers,
                    auth=self._auth,
                    timeout=self._timeout,
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                reason = self._token.mask(f"{type(exc).__name__}: {exc}")
                wait = self._backoff(attempt)
                if attempt >= self._max_attempts or not self._fits_budget(wait):
                    raise GitHubError(
                        f"{method} {path}: could not reach GitHub at {self._base_url} "
                        f"after {attempt} attempt(s) ({_clip(reason)})",
                        fix="check GITHUB_API_URL and the runner's network, then re-run the job",
                        method=method,
                        path=path,
                    ) from None
                self._wait(wait, why=f"{method} {path} could not connect")
                continue
            except requests.RequestException as exc:
                # A request requests itself refuses (an invalid URL or header):
                # its message may quote the URL or a header, so it is masked too.
                raise GitHubError(
                    f"{method} {path}: the request could not be sent "
                    f"({_clip(self._token.mask(f'{type(exc).__name__}: {exc}'))})",
                    fix="check GITHUB_API_URL and the token",
                    method=method,
                    path=path,
                ) from None

            if response.status_code < 400:
                return response
            retry_wait = self._retry_wait(response, attempt)
            if retry_wait is None:
                raise self._error(response, method=method, path=path)
            if attempt >= self._max_attempts or not self._fits_budget(retry_wait):
                raise self._exhausted(
                    response, method=method, path=path, attempts=attempt, wait=retry_wait
                )
            self._wait(retry_wait, why=f"{method} {path} answered {response.status_code}")

    def _retry_wait(self, response: requests.Response, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None when retrying cannot help."""
        status = response.status_code
        if status in _SERVER_ERRORS:
            retry_after = _retry_after(response, now=self._clock())
            return self._backoff(attempt) if retry_after is None else retry_after
        if status == 429 or (status == 403 and _is_rate_limit(response)):
            return self._rate_limit_wait(response, attempt)
        return None

    def _rate_limit_wait(self, response: requests.Response, attempt: int) -> float:
        now = self._clock()
        retry_after = _retry_after(response, now=now)
        if retry_after is not None:
            return retry_after
        reset = _primary_reset(response)
        if reset is not None:
            return max(reset - now, 0.0) + _RESET_LEEWAY
        return max(_SECONDARY_LIMIT_MIN_WAIT, self._backoff(attempt))

    def _backoff(self, attempt: int) -> float:
        return min(self._backoff_cap, self._backoff_base * 2.0 ** (attempt - 1))

    def _fits_budget(self, wait: float) -> bool:
        return self._waited + wait <= self._max_total_wait

    def _wait(self, seconds: float, *, why: str) -> None:
        log.warning("%s; retrying in %.1fs", self._token.mask(why), seconds)
        self._sleep(seconds)
        self._waited += seconds

    def _said(self, response: requests.Response) -> str:
        """GitHub's own words, masked first and only then shortened."""
        return _clip(self._token.mask(_github_message(response)))

    def _decode(self, response: requests.Response, *, method: str, path: str) -> Any:
        """The answer's JSON, with the token masked in it should a server echo it."""
        if response.status_code == 204 or not response.content:
            return None
        try:
            # JSON is UTF-8 (RFC 8259); decoding it ourselves skips requests' charset guess.
            return json_module.loads(self._token.mask(response.content.decode("utf-8-sig")))
        except (ValueError, RecursionError):  # UnicodeDecodeError included
            content_type = self._token.mask(response.headers.get("Content-Type", "unknown"))
            raise GitHubError(
                f"{method} {path}: GitHub's answer is not JSON "
                f"(content-type {_clip(content_type)!r})",
                fix="set GITHUB_API_URL to the REST API root (https://HOST/api/v3 on GitHub "
                "Enterprise Server), not the web address",
                status=response.status_code,
                method=method,
                path=path,
            ) from None

    def _error(self, response: requests.Response, *, method: str, path: str) -> GitHubError:
        status = response.status_code
        said = self._said(response)
        cls, what, fix = _ERRORS_BY_STATUS.get(status, _OTHER_ERROR)
        return cls(
            f"{method} {path}: {what} ({status}: {said})",
            fix=fix,
            status=status,
            method=method,
            path=path,
            github_message=said,
        )

    def _exhausted(
        self, response: requests.Response, *, method: str, path: str, attempts: int, wait: float
    ) -> GitHubError:
        status = response.status_code
        said = self._said(response)
        if status in _SERVER_ERRORS:
            return GitHubError(
                f"{method} {path}: GitHub kept failing ({status}: {said}) "
                f"after {attempts} attempt(s)",
                fix="GitHub may be having an incident (https://www.githubstatus.com); "
                "re-run the job later",
                status=status,
                method=method,
                path=path,
                github_message=said,
            )
        budget_left = max(self._max_total_wait - self._waited, 0.0)
        return GitHubRateLimited(
            f"{method} {path}: rate limited by GitHub ({status}: {said}); it asks to wait "
            f"{wait:.0f}s, beyond the remaining retry budget of {budget_left:.0f}s "
            f"(after {attempts} attempt(s))",
            fix="re-run the job later; if it keeps happening, other jobs share this token's "
            "quota — spread them out or use a token with its own limit",
            retry_after=wait,
            status=status,
            method=method,
            path=path,
            github_message=said,
        )


_ERRORS_BY_STATUS: Final[dict[int, tuple[type[GitHubError], str, str]]] = {
    401: (
        GitHubAuthenticationError,
        "GitHub rejected the token",
        "pass a valid, unexpired token in the `github-token` input",
    ),
    403: (
        GitHubPermissionError,
        "the token is not allowed to do this",
        "grant the job the permission this call needs in the workflow's `permissions:` "
        "block, or use a token that has it",
    ),
    404: (
        GitHubNotFound,
        "not found",
        "check the repository, number or name; GitHub also answers 404 when the token "
        "cannot see a private repository",
    ),
    422: (
        GitHubError,
        "GitHub refused the request as invalid",
        "GitHub's message above names the field at fault",
    ),
}
_OTHER_ERROR: Final = (
    GitHubError,
    "GitHub answered with an error",
    "re-run the job; if it persists, check https://www.githubstatus.com",
)


def _github_message(response: requests.Response) -> str:
    """GitHub's ``message`` field, else the HTTP reason; error bodies can be HTML.

    Whole and unmasked: the caller masks it, then shortens it (`GitHubClient._said`).
    """
    try:
        body = response.json()
    except (ValueError, RecursionError):
        body = None
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        message: str = body["message"]
        errors = body.get("errors")
        if isinstance(errors, list):
            details = [e.get("message") or e.get("code") for e in errors if isinstance(e, dict)]
            message += "".join(f"; {d}" for d in details if isinstance(d, str))
        return message
    return response.reason or f"HTTP {response.status_code}"


def _is_rate_limit(response: requests.Response) -> bool:
    if "Retry-After" in response.headers:
        return True
    if response.headers.get("X-RateLimit-Remaining") == "0":
        return True
    said = _github_message(response).lower()
    return any(phrase in said for phrase in _RATE_LIMIT_PHRASES)


def _retry_after(response: requests.Response, *, now: float) -> float | None:
    """``Retry-After`` in seconds: delta-seconds or an HTTP date (RFC 9110)."""
    raw = response.headers.get("Retry-After")
    if raw is None:
        return None
    raw = raw.strip()
    if raw.isdigit():
        return float(raw)
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(when.timestamp() - now, 0.0)


def _primary_reset(response: requests.Response) -> float | None:
    if response.headers.get("X-RateLimit-Remaining") != "0":
        return None
    raw = response.headers.get("X-RateLimit-Reset", "")
    return float(raw) if raw.strip().isdigit() else None


def _clip(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _MESSAGE_MAX_CHARS:
        return text
    return text[: _MESSAGE_MAX_CHARS - 1] + "…"
