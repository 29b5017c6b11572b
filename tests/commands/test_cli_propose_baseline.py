"""`propose-baseline`, in process, against the fake GitHub: ONE pull request per
profile, "up to date" on content, access checked first, nothing left behind.

The baselines are real: `score` of the act captures, then `baseline update`.
Assertions are on the fake's end state (branches, pull requests, files).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from fake_github import TOKEN, Failure, FakeGitHub, FakePull, TokenGrant

REPO = "octo/app"
BRANCH = "recall-gate/baseline-default"
FILE = "baselines/default.json"
DATA = Path(__file__).resolve().parents[1] / "act" / "data"
NO_PR_TOKEN = "ghs_contents-write-but-no-pull-requests-0123"


def _baseline(tmp_path: Path, capture: str, *, reason: str, sha: str) -> bytes:
    results = tmp_path / f"{capture}.json"
    done = run_cli(
        ["score", "--artifacts", str(DATA / capture), "--json", str(results)], cwd=tmp_path
    )
    assert done.code == 0, done.err
    out = tmp_path / "made" / f"{capture}-{sha[:4]}-{len(reason)}.json"
    done = run_cli(
        [
            "baseline",
            "update",
            "--results",
            str(results),
            "--out",
            str(out),
            "--reason",
            reason,
            "--git-sha",
            sha,
            "--created-at",
            "2026-03-01T00:00:00Z",
        ],
        cwd=tmp_path,
    )
    assert done.code == 0, done.err
    return out.read_bytes()


@pytest.fixture
def work(tmp_path: Path, fake_github: FakeGitHub) -> Path:
    """A checkout whose main holds the v1 baseline; the v2 one is what gets proposed."""
    v1 = _baseline(tmp_path, "capture-v1.jsonl", reason="first", sha="a" * 40)
    fake_github.add_repo(REPO, files={FILE: v1, "README.md": b"app\n"})
    fake_github.allow_actions_to_create_pull_requests(REPO)
    fake_github.add_token(
        NO_PR_TOKEN,
        TokenGrant(
            login="github-actions[bot]",
            permissions={"contents": "write", "pull_requests": "read", "issues": "read"},
        ),
    )
    checkout = tmp_path / "checkout"
    (checkout / "baselines").mkdir(parents=True)
    _write(checkout, _baseline(tmp_path, "capture-v2.jsonl", reason="new chunks", sha="b" * 40))
    return checkout


def _write(checkout: Path, content: bytes) -> None:
    (checkout / FILE).write_bytes(content)


def _propose(
    checkout: Path,
    fake: FakeGitHub,
    *extra: str,
    reason: str = "new chunks",
    token: str = TOKEN,
    run_id: str = "7",
) -> CliRun:
    environ = {
        "GITHUB_TOKEN": token,
        "GITHUB_API_URL": fake.url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_RUN_ID": run_id,
        "GITHUB_ACTIONS": "true",
        "GITHUB_OUTPUT": str(checkout.parent / "output.txt"),
        "GITHUB_STEP_SUMMARY": str(checkout.parent / "summary.md"),
    }
    argv = ["propose-baseline", "--base", "main", "--profile", "default", "--reason", reason]
    return run_cli([*argv, "--file", FILE, *extra], cwd=checkout, environ=environ)


def _open(fake: FakeGitHub) -> list[FakePull]:
    return [p for p in fake.pulls(REPO) if p.state == "open"]


def test_a_first_dispatch_opens_one_pr_from_the_profiles_stable_branch(
    work: Path, fake_github: FakeGitHub
) -> None:
    main_before = fake_github.branch_sha(REPO, "main")

    run = _propose(work, fake_github)

    assert run.code == 0, run.err
    [pull] = fake_github.pulls(REPO)
    assert (pull.head_ref, pull.base_ref, pull.state) == (BRANCH, "main", "open")
    assert pull.title == "Update the default retrieval baseline: new chunks"
    assert fake_github.file(REPO, BRANCH, FILE) == (work / FILE).read_bytes()
    assert fake_github.file(REPO, BRANCH, "README.md") == b"app\n"  # the rest of main kept
    assert fake_github.branch_sha(REPO, "main") == main_before
    assert "/octo/app/actions/runs/7" in pull.body
    assert f"opened pull request #{pull.number}" in run.out


def test_a_second_dispatch_updates_the_open_pr_force_pushing_one_commit_and_keeping_the_history(
    tmp_path: Path, work: Path, fake_github: FakeGitHub
) -> None:
    assert _propose(work, fake_github).code == 0
    _write(work, _baseline(tmp_path, "capture-v2.jsonl", reason="chunks, again", sha="c" * 40))

    run = _propose(work, fake_github, reason="chunks, again", run_id="8")

    assert run.code == 0, run.err
    [pull] = fake_github.pulls(REPO)  # still one, still open
    assert pull.state == "open"
    assert pull.title == "Update the default retrieval baseline: chunks, again"
    assert f"updated pull request #{pull.number}" in run.out
    assert fake_github.file(REPO, BRANCH, FILE) == (work / FILE).read_bytes()
    # Forced: one commit over main, not a second one stacked on the first.
    head = fake_github.branch_sha(REPO, BRANCH)
    assert head is not None
    assert fake_github.repos[REPO].parents[head] == [fake_github.branch_sha(REPO, "main")]
    assert pull.head_sha == head
    history = [line for line in pull.body.splitlines() if line.startswith("- 2026-")]
    assert len(history) == 2
    assert "“new chunks”" in history[0]
    assert "runs/7" in history[0]
    assert "“chunks, again”" in history[1]
    assert "runs/8" in history[1]


def test_a_dispatch_that_proposes_what_the_open_pr_holds_changes_nothing(
    work: Path, fake_github: FakeGitHub
) -> None:
    assert _propose(work, fake_github).code == 0
    before = len(fake_github.writes())

    run = _propose(work, fake_github)

    assert run.code == 0, run.err
    assert "already proposes this baseline" in run.out
    # Only the two refused access probes were written; no branch moved, no PR edited.
    assert [(w.method, w.status) for w in fake_github.writes()[before:]] == [
        ("POST", 422),
        ("POST", 422),
    ]


def test_after_the_merge_a_rerun_is_up_to_date_and_opens_nothing(
    work: Path, fake_github: FakeGitHub
) -> None:
    assert _propose(work, fake_github).code == 0
    [pull] = fake_github.pulls(REPO)
    fake_github.merge_pull(REPO, pull.number)
    # The re-run evaluates the merge commit: same content, other stamps.
    data = json.loads((work / FILE).read_text())
    data.update(git_sha="d" * 40, created_at="2026-04-01T00:00:00Z", reason="re-run")
    (work / FILE).write_text(json.dumps(data, sort_keys=True, indent=2) + "\n")

    run = _propose(work, fake_github, reason="re-run")

    assert run.code == 0, run.err
    assert "is up to date" in run.out
    assert "no pull request opened" in run.out
    assert _open(fake_github) == []
    assert "up to date" in (work.parent / "summary.md").read_text()
    assert "status<<" in (work.parent / "output.txt").read_text()


def test_up_to_date_names_an_open_pr_that_proposes_other_content(
    work: Path, fake_github: FakeGitHub
) -> None:
    proposed = (work / FILE).read_bytes()
    assert _propose(work, fake_github).code == 0
    [pull] = fake_github.pulls(REPO)
    # Main's retrieval moved back to what its committed baseline says.
    _write(work, fake_github.file(REPO, "main", FILE) or b"")

    run = _propose(work, fake_github)

    assert run.code == 0, run.err
    assert "is up to date" in run.out
    assert f"Pull request #{pull.number} is still open and proposes other content" in run.out
    assert [p.state for p in fake_github.pulls(REPO)] == ["open"]
    assert fake_github.file(REPO, BRANCH, FILE) == proposed


def test_a_pr_closed_without_merging_is_not_reopened_a_fresh_one_says_why(
    work: Path, fake_github: FakeGitHub
) -> None:
    assert _propose(work, fake_github).code == 0
    [closed] = fake_github.pulls(REPO)
    fake_github.close_pull(REPO, closed.number)

    run = _propose(work, fake_github)

    assert run.code == 0, run.err
    [fresh] = _open(fake_github)
    assert fresh.number != closed.number
    assert [p.state for p in fake_github.pulls(REPO) if p.number == closed.number] == ["closed"]
    assert f"#{closed.number}, was closed without merging" in fresh.body
    assert "never reopened" in run.out


def test_a_token_without_pull_requests_write_is_refused_before_anything_is_pushed(
    work: Path, fake_github: FakeGitHub
) -> None:
    run = _propose(work, fake_github, token=NO_PR_TOKEN)

    assert run.code == 2
    assert "pull-requests: write" in run.err
    errors = [line for line in run.out.splitlines() if line.startswith("::error")]
    assert len(errors) == 1
    assert "title=recall-gate%3A needs pull-requests%3A write::" in errors[0]
    assert "Allow GitHub Actions to create and approve pull requests" in errors[0]
    assert set(fake_github.repos[REPO].refs) == {"main"}
    assert fake_github.pulls(REPO) == []


def test_the_access_check_alone_needs_no_baseline_and_changes_nothing(
    work: Path, fake_github: FakeGitHub
) -> None:
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake_github.url, "GITHUB_ACTIONS": "true"}
    argv = ["propose-baseline", "--check-access", "--base", "main", "--repo", REPO]

    allowed = run_cli(argv, cwd=work, environ=environ)
    refused = run_cli(argv, cwd=work, environ={**environ, "GITHUB_TOKEN": NO_PR_TOKEN})

    assert allowed.code == 0, allowed.err
    assert refused.code == 2
    assert "::error title=recall-gate%3A needs pull-requests%3A write::" in refused.out
    assert set(fake_github.repos[REPO].refs) == {"main"}
    assert fake_github.pulls(REPO) == []


def test_the_repository_setting_that_keeps_actions_from_opening_prs_is_named(
    work: Path, fake_github: FakeGitHub
) -> None:
    fake_github.repos[REPO].actions_can_create_pull_requests = False

    run = _propose(work, fake_github)

    assert run.code == 2
    assert "::error title=recall-gate%3A needs a repository setting::" in run.out
    assert "Settings → Actions → General" in run.out
    assert set(fake_github.repos[REPO].refs) == {"main"}


def test_a_refused_pr_creation_deletes_the_branch_it_pushed(
    work: Path, fake_github: FakeGitHub
) -> None:
    refusal = Failure(422, {"message": "Validation Failed", "errors": [{"code": "custom"}]})
    fake_github.inject(refusal, path="/repos/octo/app/pulls", method="POST", times=2)

    run = _propose(work, fake_github)

    assert run.code == 2
    assert f"the branch {BRANCH} pushed for it was deleted" in run.err
    assert set(fake_github.repos[REPO].refs) == {"main"}
    assert fake_github.pulls(REPO) == []


@pytest.mark.parametrize("reason", ["", "   "])
def test_an_empty_reason_is_refused_before_any_request(
    work: Path, fake_github: FakeGitHub, reason: str
) -> None:
    run = _propose(work, fake_github, reason=reason)

    assert run.code == 2
    assert "the reason is empty" in run.err
    assert "give the workflow's `reason` input a sentence" in run.err
    assert fake_github.requests == []


def test_an_invalid_profile_is_refused_with_a_fix_for_the_workflow_input(
    work: Path, fake_github: FakeGitHub
) -> None:
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake_github.url, "GITHUB_REPOSITORY": REPO}
    argv = ["propose-baseline", "--base", "main", "--profile", "../x", "--reason", "r"]

    run = run_cli([*argv, "--file", FILE], cwd=work, environ=environ)

    assert run.code == 2
    assert "profile '../x' is not a valid profile name" in run.err
    assert "give the workflow's `profile` input a name of letters" in run.err
    assert "leave it empty" not in run.err
    assert fake_github.requests == []


def test_a_path_outside_the_repository_is_refused(work: Path, fake_github: FakeGitHub) -> None:
    run = run_cli(
        [
            "propose-baseline",
            "--file",
            "../x.json",
            "--base",
            "main",
            "--profile",
            "default",
            "--reason",
            "r",
        ],
        cwd=work,
        environ={"GITHUB_TOKEN": TOKEN, "GITHUB_REPOSITORY": REPO},
    )

    assert run.code == 2
    assert "relative to the repository root" in run.err


def test_the_access_check_refuses_an_empty_reason_before_asking_github(
    work: Path, fake_github: FakeGitHub
) -> None:
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake_github.url, "GITHUB_ACTIONS": "true"}
    argv = ["propose-baseline", "--check-access", "--base", "main", "--repo", REPO]

    run = run_cli([*argv, "--profile", "default", "--reason", " "], cwd=work, environ=environ)

    assert run.code == 2
    assert "::error title=recall-gate%3A baseline pull request::the reason is empty" in run.out
    assert fake_github.requests == []


def test_the_file_must_be_the_profiles_baseline(work: Path, fake_github: FakeGitHub) -> None:
    """One profile, one baseline (core.profile): nightly's pull request never carries
    default's file, as `baseline update --profile nightly` never writes it."""
    environ = {"GITHUB_TOKEN": TOKEN, "GITHUB_API_URL": fake_github.url, "GITHUB_REPOSITORY": REPO}
    argv = ["propose-baseline", "--base", "main", "--profile", "nightly", "--reason", "r"]

    run = run_cli([*argv, "--file", FILE], cwd=work, environ=environ)

    assert run.code == 2
    assert (
        "baselines/default.json is not the baseline of profile 'nightly' "
        "(baselines/nightly.json)" in run.err
    )
    assert "pass --file baselines/nightly.json" in run.err
    assert fake_github.requests == []


def test_the_profiles_baseline_follows_the_configs_baseline_key(
    work: Path, fake_github: FakeGitHub
) -> None:
    (work / "recall-gate.yaml").write_text("baseline: baselines/main.json\n", encoding="utf-8")
    (work / "baselines" / "main.json").write_bytes((work / FILE).read_bytes())

    moved = _propose(work, fake_github)  # --file baselines/default.json

    assert moved.code == 2
    assert "(baselines/main.json)" in moved.err
    assert fake_github.requests == []
