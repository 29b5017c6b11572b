"""The KB diff and KB coverage on real docs written by others (eight HTTPX
pages, tests/data/httpx-docs, BSD-3-Clause): a pull request that edits 3
pages, adds 2 and deletes 1 lists exactly those 6 cards; the deleted page,
gold for 2 cases, fails `check` naming both; a `git mv` rename keeps its case
valid; KB coverage equals a hand count; a pull request that touches no KB file
has no KB section."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cli_runner import run_cli
from git_repo import commit_all, git, needs_git, pull_request_repo, write_files

pytestmark = needs_git

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "httpx-docs" / "docs"
CASES = {
    "q-get": "quickstart",
    "q-async": "async",
    "q-ssl": "advanced/ssl",
    "q-proxy-env": "environment_variables",
    "q-trust-env": "environment_variables",
    "q-timeouts": "advanced/timeouts",
    "q-http2": "http2",
}


def cases_yaml() -> str:
    return "".join(
        f"- {{id: {case}, language: en, case_type: golden, query: about {case}?, "
        f"must_cite_one_of: [{card}]}}\n"
        for case, card in CASES.items()
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURE, tmp_path / "docs")
    base = {
        "recall-gate.yaml": "kb: docs\ncases: cases.yaml\ndefault_language: en\n",
        "cases.yaml": cases_yaml(),
    }
    return pull_request_repo(tmp_path, base)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def the_pull_request(repo: Path) -> None:
    docs = repo / "docs"
    edit(docs / "quickstart.md", "First, start by importing HTTPX:", "First, import HTTPX:")
    edit(docs / "async.md", "# Async Support", "# Async support")  # the title
    with (docs / "advanced" / "ssl.md").open("a", encoding="utf-8") as page:
        page.write("\nA paragraph on certificate bundles.\n")
    write_files(
        repo,
        {
            "docs/retries.md": "# Retries\n\nHow to retry requests.\n",
            "docs/advanced/caching.md": "# Caching\n\nHow to cache responses.\n",
        },
    )
    (docs / "environment_variables.md").unlink()
    commit_all(repo)


def test_kb_coverage_equals_a_hand_count(repo: Path) -> None:
    # Cited: quickstart, async, advanced/ssl, environment_variables, advanced/timeouts,
    # http2 = 6 of the 8 pages (advanced/clients and troubleshooting are not).
    run = run_cli(["check"], cwd=repo)
    assert run.code == 0, run.err
    assert "KB coverage: 6 of 8 cards (75.0%) cited by a case" in run.out
    listing = run_cli(["cards", "--uncovered"], cwd=repo)
    table = listing.out.split("\n\nid ", 1)[1].splitlines()[1:]
    assert [line.split()[0] for line in table] == ["advanced/clients", "troubleshooting"]


def test_the_deleted_page_fails_check_naming_both_cases(repo: Path) -> None:
    the_pull_request(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert (
        "card 'environment_variables' is deleted by this change but is still cited by "
        "2 case(s): q-proxy-env, q-trust-env"
    ) in run.err


def test_the_report_lists_exactly_the_six_changed_cards(repo: Path) -> None:
    the_pull_request(repo)
    # Relabel the deleted page's cases on main first, as the fix says.
    git(repo, "checkout", "-q", "main")
    edit(repo / "cases.yaml", "[environment_variables]", "[advanced/clients]")
    edit(repo / "cases.yaml", "[environment_variables]", "[advanced/clients]")
    commit_all(repo, "relabel")
    git(repo, "checkout", "-q", "pr")
    git(repo, "rebase", "-q", "main")
    capture = (
        "".join(
            json.dumps({"case_id": case, "retrieved": [card, "troubleshooting"]}) + "\n"
            for case, card in {**CASES, "q-proxy-env": "advanced/clients"}.items()
            if case != "q-trust-env"
        )
        + json.dumps({"case_id": "q-trust-env", "retrieved": ["advanced/clients"]})
        + "\n"
    )
    (repo / "capture.jsonl").write_text(capture, encoding="utf-8")
    run = run_cli(
        [
            "score",
            "--artifacts",
            "capture.jsonl",
            "--baseline-ref",
            "main",
            "--comparison-json",
            "c.json",
            "--markdown",
            "r.md",
        ],
        cwd=repo,
    )
    assert run.code == 0, run.out + run.err
    kb = json.loads((repo / "c.json").read_text(encoding="utf-8"))["pull_request"]["kb"]
    assert sorted((c["kind"], c["card_id"], c["text"]) for c in kb["cards"]) == [
        ("added", "advanced/caching", True),
        ("added", "retries", True),
        ("deleted", "environment_variables", True),
        ("edited", "advanced/ssl", True),
        ("edited", "async", True),
        ("edited", "quickstart", True),
    ]
    assert kb["on_changed"] == ["q-get", "q-async", "q-ssl"]
    report = (repo / "r.md").read_text(encoding="utf-8")
    assert "**2 new cards, 0 cases: `advanced/caching`, `retries`**." in report


def test_a_git_mv_rename_keeps_its_case_valid(repo: Path) -> None:
    git(repo, "mv", "docs/http2.md", "docs/advanced/http2.md")
    commit_all(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "KB changes since main: 1 renamed" in run.out
    assert "card 'http2' is renamed to 'advanced/http2' (followed)" in run.err


def test_a_pull_request_that_touches_no_kb_file_has_no_kb_section(repo: Path) -> None:
    write_files(repo, {"README.md": "# HTTPX docs fixture\n"})
    commit_all(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "KB changes" not in run.out
