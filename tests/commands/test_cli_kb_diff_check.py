"""`check` judged at a base revision (`--baseline-ref`): the pull request's KB
changes, a deleted card still cited failing the check with its cases named,
and a `git mv` rename followed. Real git repositories built in the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli
from git_repo import commit_all as commit
from git_repo import git, needs_git, pull_request_repo
from git_repo import write_files as write

pytestmark = needs_git


def page(title: str, text: str) -> str:
    return f"# {title}\n\n{text}\n"


def case(case_id: str, gold: str) -> str:
    return (
        f"- {{id: {case_id}, language: en, case_type: golden, query: about {case_id}?, "
        f"must_cite_one_of: [{gold}]}}\n"
    )


BASE = {
    "recall-gate.yaml": "kb: docs\ncases: cases.yaml\n",
    "docs/en/install.md": page("Install", "Download the installer and run it."),
    "docs/en/usage.md": page("Usage", "Open the app and pick a project."),
    "docs/en/billing.md": page("Billing", "Invoices are sent monthly."),
    "docs/en/retired.md": page("Retired", "A feature that is gone."),
    "docs/en/setup.md": page("Setup", "Configure the proxy, the cache and the token. " * 4),
    "cases.yaml": (
        case("q-install", "en/install")
        + case("q-usage", "en/usage")
        + case("q-retired-1", "en/retired")
        + case("q-retired-2", "en/retired")
        + case("q-setup", "en/setup")
    ),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return pull_request_repo(tmp_path, BASE)


def edit_three_add_two(repo: Path) -> None:
    write(
        repo,
        {
            "docs/en/install.md": page("Install", "Download the installer and run it once."),
            "docs/en/usage.md": page("Usage", "Open the app, then pick a project."),
            "docs/en/billing.md": page("Billing", "Invoices are sent every month."),
            "docs/en/refunds.md": page("Refunds", "Ask within 30 days."),
            "docs/en/exports.md": page("Exports", "Export a project as CSV."),
        },
    )


def test_a_deleted_card_still_gold_fails_check_naming_both_cases(repo: Path) -> None:
    edit_three_add_two(repo)
    (repo / "docs/en/retired.md").unlink()
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1, run.err
    assert (
        "main:docs/en/retired.md: card 'en/retired' is deleted by this change but is still "
        "cited by 2 case(s): q-retired-1, q-retired-2"
    ) in run.err
    assert "resolves to no card" not in run.err  # named once, by the deletion
    assert "Traceback" not in run.err


def test_check_lists_the_kb_changes_and_the_new_cards_without_a_case(repo: Path) -> None:
    edit_three_add_two(repo)
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "recall-gate check: KB changes since main: 3 edited, 2 added\n" in run.out
    assert "recall-gate check: 2 new cards, 0 cases: en/exports, en/refunds\n" in run.out


def test_a_git_mv_rename_keeps_its_cases_valid(repo: Path) -> None:
    (repo / "docs/en/guide").mkdir()
    git(repo, "mv", "docs/en/setup.md", "docs/en/guide/setup.md")
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "KB changes since main: 1 renamed" in run.out
    assert "card 'en/setup' is renamed to 'en/guide/setup' (followed)" in run.err
    assert "relabel q-setup" in run.err


def test_a_move_git_does_not_follow_names_its_likely_target(repo: Path) -> None:
    (repo / "docs/en/setup.md").unlink()
    write(repo, {"docs/en/guide/setup.md": page("Setup", "Rewritten from scratch.")})
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert "card 'en/setup' is deleted by this change but is still cited by 1 case(s): q-setup" in (
        run.err
    )
    assert "if it moved to 'en/guide/setup', keep the move a rename git follows" in run.err


def test_a_pull_request_that_touches_no_kb_file_says_nothing_of_the_kb(repo: Path) -> None:
    write(repo, {"README.md": "# Readme\n"})
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "KB changes" not in run.out
    assert "new card" not in run.out


def test_relabelling_in_the_same_pull_request_does_not_hide_a_deleted_card(repo: Path) -> None:
    # The base's cases judge the pull request: its relabel applies after merge.
    (repo / "docs/en/retired.md").unlink()
    text = (repo / "cases.yaml").read_text(encoding="utf-8").replace("en/retired", "en/usage")
    (repo / "cases.yaml").write_text(text, encoding="utf-8")
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert "still cited by 2 case(s): q-retired-1, q-retired-2" in run.err
    assert "in a pull request of its own first" in run.err


def test_a_base_case_the_pull_request_removes_still_counts(repo: Path) -> None:
    # The base's cases are judged even when the pull request deletes them.
    (repo / "docs/en/retired.md").unlink()
    text = (repo / "cases.yaml").read_text(encoding="utf-8")
    kept = "".join(line for line in text.splitlines(keepends=True) if "q-retired" not in line)
    (repo / "cases.yaml").write_text(kept, encoding="utf-8")
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert "still cited by 2 case(s): q-retired-1, q-retired-2" in run.err


def test_score_names_a_base_case_citing_a_deleted_card_at_its_revision(repo: Path) -> None:
    (repo / "docs/en/retired.md").unlink()
    commit(repo)
    (repo / "capture.jsonl").write_text(
        '{"case_id": "q-install", "retrieved": ["en/install"]}\n', encoding="utf-8"
    )
    run = run_cli(["score", "--artifacts", "capture.jsonl", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert "main:cases.yaml case #3 (id q-retired-1): must_cite_one_of id 'en/retired'" in run.err
    assert "recall-gate-base." not in run.err


def gate_new_card_coverage(repo: Path, share: float) -> None:
    """Set the gate on main (the base judges), then return to the pull request."""
    git(repo, "checkout", "-q", "main")
    write(
        repo,
        {
            "recall-gate.yaml": "kb: docs\ncases: cases.yaml\n"
            f"gate:\n  min_new_card_coverage: {share}\n"
        },
    )
    commit(repo, "gate")
    git(repo, "checkout", "-q", "-B", "pr", "main")


def test_min_new_card_coverage_fails_check_naming_the_new_cards_no_case_cites(
    repo: Path,
) -> None:
    gate_new_card_coverage(repo, 0.5)
    edit_three_add_two(repo)
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert (
        "new-card coverage 0/2 (0%) is below gate.min_new_card_coverage 0.5: "
        "no case cites en/exports, en/refunds"
    ) in run.err
    assert "fix: add cases whose gold" in run.err


def test_min_new_card_coverage_is_met_by_a_case_on_half_the_new_cards(repo: Path) -> None:
    gate_new_card_coverage(repo, 0.5)
    edit_three_add_two(repo)
    with (repo / "cases.yaml").open("a", encoding="utf-8") as cases:
        cases.write(case("q-refunds", "en/refunds"))
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 0, run.err
    assert "2 new cards, 1 case: en/exports, en/refunds (1)" in run.out


def test_a_pull_request_cannot_unset_the_bases_min_new_card_coverage(repo: Path) -> None:
    gate_new_card_coverage(repo, 0.5)
    edit_three_add_two(repo)
    write(repo, {"recall-gate.yaml": "kb: docs\ncases: cases.yaml\n"})
    commit(repo)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=repo)
    assert run.code == 1
    assert "below gate.min_new_card_coverage 0.5" in run.err
