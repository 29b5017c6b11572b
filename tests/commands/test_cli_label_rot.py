"""Label rot in `check`: the cases citing a card rewritten since their cases
file's last commit are labels worth re-auditing (report-only); in a shallow
clone it is said once that it cannot be told. Real git repositories."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import run_cli
from git_repo import commit_all as commit
from git_repo import git, needs_git
from git_repo import write_files as write

pytestmark = needs_git

REFUNDS = "Refunds are paid within ten days of the request, to the card used to pay."


def case(case_id: str, gold: str) -> str:
    return (
        f"- {{id: {case_id}, language: en, case_type: golden, query: about {case_id}?, "
        f"must_cite_one_of: [{gold}]}}\n"
    )


def make_repo(root: Path) -> Path:
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    write(
        root,
        {
            "recall-gate.yaml": "kb: docs\ncases: cases.yaml\n",
            "docs/en/refunds.md": f"# Refunds\n\n{REFUNDS}\n",
            "docs/en/billing.md": "# Billing\n\nInvoices are sent monthly, by email.\n",
            "docs/en/usage.md": "# Usage\n\nOpen the app and pick a project.\n",
        },
    )
    commit(root, "kb")
    write(
        root,
        {
            "cases.yaml": case("q-refunds", "en/refunds")
            + case("q-billing", "en/billing")
            + case("q-usage", "en/usage")
        },
    )
    commit(root, "cases")
    return root


def test_a_case_whose_card_was_rewritten_since_its_cases_file_is_worth_re_auditing(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    cases_commit = git(repo, "rev-parse", "HEAD")
    write(
        repo,
        {
            # Rewritten: another topic, few words in common.
            "docs/en/refunds.md": "# Refunds\n\nShipping takes a week to most countries.\n",
            # Reworded: most words kept.
            "docs/en/billing.md": "# Billing\n\nInvoices are sent every month, by email.\n",
        },
    )
    commit(repo, "docs")
    run = run_cli(["check"], cwd=repo)
    assert run.code == 0, run.err
    line = next(x for x in run.out.splitlines() if "re-auditing" in x)
    assert line.startswith(
        "recall-gate check: labels worth re-auditing: 1 case cites a card rewritten since the "
        "cases file's last commit (under 50% of its words alike): q-refunds → en/refunds ("
    )
    assert line.endswith(f"% alike since {cases_commit[:12]})")
    assert "q-billing" not in run.out


def test_a_card_changed_before_the_cases_file_was_last_committed_is_no_rot(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app")
    write(repo, {"docs/en/refunds.md": "# Refunds\n\nShipping takes a week.\n"})
    commit(repo, "docs")
    # The cases file is committed after the rewrite: its labels were (re)written against it.
    write(repo, {"cases.yaml": (repo / "cases.yaml").read_text() + case("q-more", "en/usage")})
    commit(repo, "cases again")
    run = run_cli(["check"], cwd=repo)
    assert run.code == 0, run.err
    assert "re-auditing" not in run.out


def test_a_shallow_clone_says_once_that_label_rot_cannot_be_told(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    write(origin, {"docs/en/refunds.md": "# Refunds\n\nShipping takes a week.\n"})
    commit(origin, "docs")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    run = run_cli(["check"], cwd=clone)
    assert run.code == 0, run.err
    assert run.out.count("label rot not checked: the git history is shallow") == 1
    assert "re-auditing" not in run.out


def test_outside_a_git_work_tree_check_says_nothing_of_label_rot(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    (repo / ".git").rename(tmp_path / "dot-git")
    run = run_cli(["check"], cwd=repo)
    assert run.code == 0, run.err
    assert "label rot" not in run.out
    assert "re-auditing" not in run.out


def test_the_report_of_score_notes_the_labels_worth_re_auditing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app")
    write(repo, {"docs/en/refunds.md": "# Refunds\n\nShipping takes a week to most countries.\n"})
    commit(repo, "docs")
    capture = "".join(
        json.dumps({"case_id": case_id, "retrieved": [card]}) + "\n"
        for case_id, card in (
            ("q-refunds", "en/refunds"),
            ("q-billing", "en/billing"),
            ("q-usage", "en/usage"),
        )
    )
    (repo / "capture.jsonl").write_text(capture, encoding="utf-8")
    run = run_cli(
        ["score", "--artifacts", "capture.jsonl", "--markdown", "report.md",
         "--comparison-json", "comparison.json"],
        cwd=repo,
    )  # fmt: skip
    assert run.code == 0, run.err
    report = (repo / "report.md").read_text(encoding="utf-8")
    assert "Labels worth re-auditing: 1 case cites a card rewritten since the cases file's " in (
        report
    )
    assert "`q-refunds` → `en/refunds` (" in report
    assert "Labels worth re-auditing: 1 case cites" in run.out
    doc = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    assert [r["case_id"] for r in doc["label_rot"]["labels"]] == ["q-refunds"]
    assert doc["label_rot"]["shallow"] is False
