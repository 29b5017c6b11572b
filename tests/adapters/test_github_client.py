"""The generic REST layer against the fake GitHub over real HTTP.

Waits are recorded, never slept: the client gets ``sleep=waits.append`` and a
frozen clock, so every assertion about backoff is exact and instant.
"""

from __future__ import annotations

import email.utils
from collections.abc import Iterator

import pytest
import requests

from fake_github import (
    TOKEN,
    Failure,
    FakeGitHub,
)
from recall_gate.adapters.github_client import (
    GitHubAuthenticationError,
    GitHubClient,
    GitHubError,
    GitHubNotFound,
    GitHubPermissionError,
    GitHubRateLimited,
)
from recall_gate.errors import RecallGateError

NOW = 1_700_000_000.0
COMMENTS = "/repos/octo/app/issues/1/comments"


@pytest.fixture
def session() -> Iterator[requests.Session]:
    with requests.Session() as s:
        yield s


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
def client(fake_github: FakeGitHub, session: requests.Session, waits: list[float]) -> GitHubClient:
    fake_github.add_pull("octo/app", head_sha="a" * 40)
    return GitHubClient(
        session, base_url=fake_github.url, token=TOKEN, sleep=waits.append, clock=lambda: NOW
    )


def _attempts(fake: FakeGitHub, path: str) -> int:
    return sum(1 for r in fake.requests if r.path == path)


# -- JSON and pagination ------------------------------------------------------


def test_get_returns_decoded_json(client: GitHubClient) -> None:
    repo = client.get("/repos/octo/app")

    assert (repo["full_name"], repo["default_branch"], repo["owner"]["login"]) == (
        "octo/app",
        "main",
        "octo",
    )


def test_paginate_follows_link_headers_across_every_page(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    for i in range(7):
        fake_github.add_comment("octo/app", 1, login="someone", body=f"c{i}")

    bodies = [c["body"] for c in client.paginate(COMMENTS, per_page=3)]

    assert bodies == [f"c{i}" for i in range(7)]
    assert _attempts(fake_github, COMMENTS) == 3  # 3 + 3 + 1


def test_paginate_keeps_the_callers_query_on_every_page(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    for _ in range(3):
        fake_github.add_pull("octo/app", head_sha="b" * 40, state="closed")

    pulls = list(client.paginate("/repos/octo/app/pulls", params={"state": "closed"}, per_page=1))

    assert [p["state"] for p in pulls] == ["closed"] * 3


def test_pages_hold_at_most_100_and_links_address_the_repository_by_id(
    fake_github: FakeGitHub, client: GitHubClient, session: requests.Session
) -> None:
    for i in range(130):
        fake_github.add_comment("octo/app", 1, login="someone", body=f"c{i}")

    answer = session.get(f"{fake_github.url}{COMMENTS}", params={"per_page": 500}, headers=_auth())
    bodies = [c["body"] for c in client.paginate(COMMENTS, per_page=100)]

    assert len(answer.json()) == 100
    assert (
        f'<{fake_github.url}/repositories/1/issues/1/comments?per_page=100&page=2>; rel="next"'
        in (answer.headers["Link"])
    )
    assert bodies == [f"c{i}" for i in range(130)]  # ascending, across both pages
    assert _attempts(fake_github, COMMENTS) == 1 + 2


def test_paginate_refuses_a_next_link_to_another_host(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    link = '<http://elsewhere.example/repos/octo/app/issues/1/comments?page=2>; rel="next"'
    fake_github.inject(Failure(200, [], (("Link", link),)), path=COMMENTS)

    with pytest.raises(GitHubError, match="refusing to send the token"):
        list(client.paginate(COMMENTS))


def test_html_instead_of_json_names_the_api_url_as_the_likely_fix(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.inject(Failure(200, "<html>GitHub</html>"), path="/repos/octo/app")

    with pytest.raises(GitHubError) as caught:
        client.get("/repos/octo/app")

    assert "not JSON" in caught.value.message
    assert "/api/v3" in caught.value.fix


# -- retries --------------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 502, 503, 504])
def test_server_errors_are_retried_until_success(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float], status: int
) -> None:
    fake_github.inject(Failure.server_error(status), path=COMMENTS, times=3)

    assert client.get(COMMENTS) == []
    assert waits == [1.0, 2.0, 4.0]  # exponential: base * 2**(attempt-1)
    assert _attempts(fake_github, COMMENTS) == 4


def test_backoff_is_capped(fake_github: FakeGitHub, session: requests.Session) -> None:
    waits: list[float] = []
    client = GitHubClient(
        session,
        base_url=fake_github.url,
        token=TOKEN,
        sleep=waits.append,
        clock=lambda: NOW,
        max_attempts=7,
        backoff_cap=4.0,
    )
    fake_github.inject(Failure.server_error(503), path="/repos/octo/app", times=6)

    client.get("/repos/octo/app")

    assert waits == [1.0, 2.0, 4.0, 4.0, 4.0, 4.0]


def test_server_errors_give_up_after_max_attempts_with_a_clear_message(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.server_error(502), path=COMMENTS, times=99)

    with pytest.raises(GitHubError) as caught:
        client.get(COMMENTS)

    assert f"GET {COMMENTS}: GitHub kept failing (502: Bad Gateway) after 5 attempt(s)" == (
        caught.value.message
    )
    assert "githubstatus.com" in caught.value.fix
    assert waits == [1.0, 2.0, 4.0, 8.0]
    assert caught.value.exit_code == 2


def test_429_waits_exactly_retry_after(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.too_many_requests(retry_after=30), path=COMMENTS, times=2)

    assert client.get(COMMENTS) == []
    assert waits == [30.0, 30.0]


def test_retry_after_as_an_http_date_is_honoured(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    when = email.utils.formatdate(NOW + 90, usegmt=True)
    fake_github.inject(Failure(429, {"message": "slow down"}, (("Retry-After", when),)))

    client.get("/repos/octo/app")

    assert waits == [90.0]


def test_secondary_rate_limit_403_is_retried_after_retry_after(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.secondary_rate_limit(retry_after=45), path=COMMENTS, method="POST")

    created = client.post(COMMENTS, json={"body": "hello"})

    assert created["body"] == "hello"
    assert waits == [45.0]
    assert [c.body for c in fake_github.comments("octo/app", 1)] == ["hello"]


def test_secondary_rate_limit_without_header_waits_at_least_a_minute(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.secondary_rate_limit(retry_after=None), path=COMMENTS)

    client.get(COMMENTS)

    assert waits == [60.0]


def test_exhausted_primary_quota_waits_until_the_reset(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.primary_rate_limit(reset_at=int(NOW) + 20), path=COMMENTS)

    client.get(COMMENTS)

    assert waits == [21.0]  # reset - now, plus one second of leeway


class VirtualClock:
    """One clock for the fake and the client: sleeping advances it, instantly."""

    def __init__(self, now: float) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


@pytest.mark.parametrize("status", [403, 429])
def test_a_primary_quota_used_up_at_the_fake_is_waited_out_until_its_reset(
    session: requests.Session, status: int
) -> None:
    clock = VirtualClock(NOW)
    with FakeGitHub(clock=clock) as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo("octo/app")
        fake.exhaust_rate_limit(TOKEN, reset_in=30, status=status)
        client = GitHubClient(
            session, base_url=fake.url, token=TOKEN, sleep=clock.sleep, clock=clock
        )

        repo = client.get("/repos/octo/app")

    assert repo["full_name"] == "octo/app"
    assert clock.slept == [31.0]  # until x-ratelimit-reset, plus a second of leeway
    assert [r.status for r in fake.requests] == [status, 200]


def test_every_github_com_answer_carries_the_rate_limit_headers(
    fake_github: FakeGitHub, session: requests.Session
) -> None:
    first = session.get(f"{fake_github.url}/repos/octo/app", headers=_auth())
    second = session.get(f"{fake_github.url}/user", headers=_auth())

    assert first.headers["x-ratelimit-limit"] == "1000"  # GITHUB_TOKEN: 1,000 per hour
    assert first.headers["x-ratelimit-resource"] == "core"
    assert (first.headers["x-ratelimit-used"], second.headers["x-ratelimit-used"]) == ("1", "2")
    assert second.headers["x-ratelimit-remaining"] == "998"
    assert int(first.headers["x-ratelimit-reset"]) > 0


def test_ghes_has_no_rate_limit_headers_and_serves_the_api_under_api_v3(
    session: requests.Session,
) -> None:
    with FakeGitHub(flavor="ghes") as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo("octo/app")
        answer = session.get(f"{fake.url}/repos/octo/app", headers=_auth())
        web = session.get(f"{fake.origin}/repos/octo/app", headers=_auth())
        url = fake.url

    assert url.endswith("/api/v3")
    assert answer.status_code == 200
    assert "x-ratelimit-limit" not in answer.headers
    assert web.status_code == 404
    assert web.headers["Content-Type"].startswith("text/html")


def _auth() -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKEN}"}


def test_a_wait_beyond_the_total_budget_fails_at_once_without_sleeping(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.too_many_requests(retry_after=600), path=COMMENTS)

    with pytest.raises(GitHubRateLimited) as caught:
        client.get(COMMENTS)

    assert waits == []
    assert caught.value.retry_after == 600.0
    assert "asks to wait 600s, beyond the remaining retry budget of 120s" in caught.value.message
    assert "re-run the job later" in caught.value.fix


def test_the_wait_budget_spans_all_calls_of_a_client(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.too_many_requests(retry_after=50), path=COMMENTS, times=2)
    client.get(COMMENTS)  # waits 50
    client.get(COMMENTS)  # waits 50: 100 in total
    fake_github.inject(Failure.too_many_requests(retry_after=30), path=COMMENTS)

    with pytest.raises(GitHubRateLimited):
        client.get(COMMENTS)  # 130 would pass the 120s budget

    assert waits == [50.0, 50.0]  # 100 s in all: the third wait would pass the budget


def test_connection_failures_are_retried_then_reported(
    session: requests.Session, waits: list[float]
) -> None:
    with FakeGitHub() as gone:
        url = gone.url  # a port nobody listens on once the fake has stopped
    client = GitHubClient(session, base_url=url, token=TOKEN, sleep=waits.append, max_attempts=3)

    with pytest.raises(GitHubError, match=r"could not reach GitHub at .* after 3 attempt\(s\)"):
        client.get("/user")

    assert waits == [1.0, 2.0]


# -- errors that are not retried ------------------------------------------------


def test_permission_403_is_raised_at_once_without_retrying(
    fake_github: FakeGitHub, client: GitHubClient, waits: list[float]
) -> None:
    fake_github.inject(Failure.permission(), path=COMMENTS, method="POST", times=5)

    with pytest.raises(GitHubPermissionError) as caught:
        client.post(COMMENTS, json={"body": "x"})

    assert waits == []
    assert _attempts(fake_github, COMMENTS) == 1
    assert caught.value.status == 403
    assert caught.value.github_message == "Resource not accessible by integration"
    assert caught.value.message == (
        f"POST {COMMENTS}: the token is not allowed to do this "
        "(403: Resource not accessible by integration)"
    )
    assert "`permissions:`" in caught.value.fix


def test_404_is_not_found(fake_github: FakeGitHub, client: GitHubClient) -> None:
    with pytest.raises(GitHubNotFound) as caught:
        client.get("/repos/octo/app/pulls/99")

    assert caught.value.status == 404
    assert "private repository" in caught.value.fix


def test_validation_422_carries_githubs_details(client: GitHubClient) -> None:
    with pytest.raises(GitHubError) as caught:
        client.post("/repos/octo/app/git/refs", json={"ref": "refs/heads/x", "sha": "0" * 40})

    assert caught.value.status == 422
    assert "Object does not exist" in caught.value.message


def test_unknown_token_is_an_authentication_error(
    fake_github: FakeGitHub, session: requests.Session
) -> None:
    client = GitHubClient(session, base_url=fake_github.url, token="ghp_wrong", sleep=print)

    with pytest.raises(GitHubAuthenticationError, match="GitHub rejected the token"):
        client.get("/repos/octo/app")


def test_missing_token_or_bad_url_fail_before_any_request(session: requests.Session) -> None:
    with pytest.raises(GitHubAuthenticationError, match="no GitHub token"):
        GitHubClient(session, base_url="https://api.github.com", token="")
    with pytest.raises(GitHubError, match="GITHUB_API_URL"):
        GitHubClient(session, base_url="api.github.com", token=TOKEN)


def test_the_token_appears_in_no_repr_and_no_error(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    raised: list[RecallGateError] = []
    failures = [
        Failure.permission(),
        Failure.not_found(),
        Failure.server_error(500),
        Failure.too_many_requests(retry_after=10_000),
        Failure(422, {"message": f"echoing {TOKEN}"}),  # even if a server echoed it back
    ]
    for failure in failures:
        fake_github.inject(failure, times=10)
        with pytest.raises(GitHubError) as caught:
            client.get("/repos/octo/app")
        raised.append(caught.value)
        fake_github.clear_injections()

    texts = [repr(client), str(client), repr(vars(client))]
    texts += [f"{e!s} {e!r} {e.fix} {e.args}" for e in raised]
    assert all(TOKEN not in text for text in texts)
    assert "echoing <token hidden>" in raised[-1].message


def test_a_write_without_the_permission_is_refused_naming_the_permissions_that_would_do(
    fake_github: FakeGitHub, session: requests.Session
) -> None:
    fake_github.add_actions_token("ghs_read-only", read_only=True)
    fake_github.add_pull("octo/app", head_sha="a" * 40)

    answer = session.post(
        f"{fake_github.url}{COMMENTS}",
        json={"body": "hi"},
        headers={"Authorization": "Bearer ghs_read-only"},
    )

    assert answer.status_code == 403
    assert answer.json()["message"] == "Resource not accessible by integration"
    # Sets separated by "; ": either permission suffices (GitHub changelog 2023-08-10).
    assert answer.headers["x-accepted-github-permissions"] == "issues=write; pull_requests=write"
    assert fake_github.comments("octo/app", 1) == []


# -- token hygiene: checked before use, masked before any cut -------------------


@pytest.mark.parametrize(
    ("token", "said"),
    [
        (TOKEN + "\n", "has a trailing newline"),
        (TOKEN + "\r\n", "has a trailing newline"),
        (TOKEN + " ", "has trailing whitespace"),
        (" " + TOKEN, "has leading whitespace"),
        (TOKEN[:10] + " " + TOKEN[10:], "has whitespace at character 11"),
        (TOKEN[:10] + "é" + TOKEN[10:], "has an invalid character at position 11"),
        (TOKEN[:10] + "\u2603" + TOKEN[10:], "has an invalid character at position 11"),
        (TOKEN[:10] + "\x00" + TOKEN[10:], "has an invalid character at position 11"),
    ],
)
def test_a_damaged_token_is_refused_before_any_request_without_echoing_it(
    fake_github: FakeGitHub, session: requests.Session, token: str, said: str
) -> None:
    with pytest.raises(GitHubAuthenticationError) as caught:
        GitHubClient(session, base_url=fake_github.url, token=token, origin="GITHUB_TOKEN")

    error = caught.value
    assert f"GITHUB_TOKEN {said}" in error.message
    assert error.exit_code == 2
    assert TOKEN[:8] not in f"{error!s} {error!r} {error.fix} {error.args}"
    assert fake_github.requests == []


def test_a_long_github_message_is_masked_before_it_is_cut_leaving_no_fragment(
    fake_github: FakeGitHub, session: requests.Session
) -> None:
    token = "ghp_" + "0123456789abcdefghijklmnopqrstuvwxyzAB"[:36]  # 40 characters
    fake_github.add_user_token(token, login="octocat")
    fake_github.add_pull("octo/app", head_sha="a" * 40)
    client = GitHubClient(session, base_url=fake_github.url, token=token, sleep=print)
    # The token straddles the 300-character cut: cut first, and 39 of 40 leak.
    fake_github.inject(Failure(422, {"message": "x" * 261 + token + "y" * 100}))

    with pytest.raises(GitHubError) as caught:
        client.get("/repos/octo/app")

    text = f"{caught.value!s} {caught.value.github_message}"
    assert all(token[i : i + 8] not in text for i in range(len(token) - 7))
    assert "x" * 261 + "<token hidden>" in caught.value.github_message


def test_a_non_json_answer_with_the_token_in_its_content_type_is_masked(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    echoed = f"text/html; charset=utf-8; authorization=Bearer {TOKEN}"
    fake_github.inject(Failure(200, "<html>proxy</html>", (("Content-Type", echoed),)))

    with pytest.raises(GitHubError) as caught:
        client.get("/repos/octo/app")

    assert "not JSON" in caught.value.message
    assert "Bearer <token hidden>" in caught.value.message
    assert TOKEN not in str(caught.value)


def test_an_answer_echoing_the_token_is_masked_in_what_the_client_returns(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    fake_github.inject(Failure(200, {"full_name": "octo/app", "echo": f"Bearer {TOKEN}"}))

    answer = client.get("/repos/octo/app")

    assert answer["echo"] == "Bearer <token hidden>"


def test_a_deeply_nested_answer_is_a_github_error_not_a_crash(
    fake_github: FakeGitHub, client: GitHubClient
) -> None:
    nested = "[" * 100_000 + "]" * 100_000
    fake_github.inject(Failure(200, nested, (("Content-Type", "application/json"),)))

    with pytest.raises(GitHubError, match="not JSON"):
        client.get("/repos/octo/app")
