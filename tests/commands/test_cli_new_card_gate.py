"""`gate.min_new_card_coverage` in the verdict of `score --baseline-ref`: below
the floor the verdict fails (exit 1), the PR comment names the new cards no
case cites, and `actions-report` (the action's outputs and annotations) says
so. A real git repository (``main``: a KB of 6 pages, 6 cases and the baseline
of their capture; the working tree's commit is the pull request). Synthetic data."""

from __future__ import annotations

import json
from pathlib import Path

from cli_runner import CliRun, run_cli
from git_repo import git, needs_git

pytestmark = needs_git

N = 6


def card_id(i: int) -> str:
    return f"en/card-{i}"


def case(i: int, gold: str) -> dict[str, object]:
    return {
        "id": f"case-{i}",
        "language": "en",
        "case_type": "golden",
        "query": f"question {i}",
        "must_cite_one_of": [gold],
    }


def write_capture(repo: Path, cases: int = N) -> None:
    lines = [
        json.dumps({"case_id": f"case-{i}", "retrieved": [card_id(i), "en/card-x"]})
        for i in range(cases)
    ]
    (repo / "capture.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def cli(repo: Path, *argv: str, environ: dict[str, str] | None = None) -> CliRun:
    return run_cli(list(argv), cwd=repo, environ=environ)


def make_repo(root: Path, floor: float | None) -> Path:
    (root / "docs" / "en").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    gate = f"gate:\n  min_new_card_coverage: {floor}\n" if floor is not None else ""
    (root / "recall-gate.yaml").write_text(
        "k: 2\nkb: docs\ncases: cases.yaml\n" + gate, encoding="utf-8"
    )
    for i in range(N):
        (root / "docs" / "en" / f"card-{i}.md").write_text(
            f"# Topic {i}\n\nAbout topic {i}.\n", encoding="utf-8"
        )
    (root / "docs" / "en" / "card-x.md").write_text("# X\n\nElse.\n", encoding="utf-8")
    cases = [case(i, card_id(i)) for i in range(N)]
    (root / "cases.yaml").write_text(json.dumps(cases, indent=1), encoding="utf-8")
    write_capture(root)
    made = cli(root, "score", "--artifacts", "capture.jsonl", "--json", "good.json")
    assert made.code == 0, made.err
    made = cli(root, "baseline", "update", "--results", "good.json", "--reason", "base")
    assert made.code == 0, made.err
    git(root, "add", "recall-gate.yaml", "cases.yaml", "docs", "baselines/default.json")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def add_two_cards(repo: Path, *, cited: int = 0) -> None:
    """The pull request adds en/new-a and en/new-b; ``cited`` of them get a case."""
    docs = repo / "docs" / "en"
    (docs / "new-a.md").write_text("# New A\n\nA new page.\n", encoding="utf-8")
    (docs / "new-b.md").write_text("# New B\n\nAnother new page.\n", encoding="utf-8")
    cases = json.loads((repo / "cases.yaml").read_text(encoding="utf-8"))
    for n, card in enumerate(["en/new-a", "en/new-b"][:cited]):
        cases.append(case(N + n, card))
    (repo / "cases.yaml").write_text(json.dumps(cases, indent=1), encoding="utf-8")
    git(repo, "add", "docs", "cases.yaml")
    git(repo, "commit", "-q", "-m", "pr")
    write_capture(repo, N + cited)


def score(repo: Path) -> CliRun:
    return cli(
        repo,
        "score",
        "--artifacts",
        "capture.jsonl",
        "--baseline-ref",
        "main",
        "--comment-markdown",
        "comment.md",
        "--comparison-json",
        "comparison.json",
    )


def test_min_new_card_coverage_fails_the_verdict_naming_the_new_cards_no_case_cites(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app", 0.5)
    add_two_cards(repo)
    run = score(repo)
    assert run.code == 1, run.out + run.err
    phrase = (
        "new-card coverage 0/2 (0%) is below gate.min_new_card_coverage 0.5: "
        "no case cites en/new-a, en/new-b"
    )
    assert f"Failed: {phrase}." in run.out
    comment = (repo / "comment.md").read_text(encoding="utf-8")
    assert "recall-gate `default`: **fail**" in comment
    assert (
        "- ❌ new-card coverage 0/2 (0%) is below gate.min_new_card_coverage 0.5: "
        "no case cites `en/new-a`, `en/new-b`"
    ) in comment
    assert "Gate `min_new_card_coverage` = 0.5: fails (0 of 2 new cards cited by a case)." in (
        comment
    )
    doc = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    assert (doc["verdict"], doc["gate"]["min_new_card_coverage"]) == ("fail", 0.5)


def test_the_action_reports_the_new_card_gate_in_its_outputs_and_annotations(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app", 0.5)
    add_two_cards(repo)
    assert score(repo).code == 1
    # The verdict is judged from the document's own numbers, never its verdict field.
    doc = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    (repo / "comparison.json").write_text(json.dumps({**doc, "verdict": "pass"}), "utf-8")
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(repo / "output")}
    done = cli(repo, "actions-report", "--comparison", "comparison.json", environ=environ)
    assert done.code == 0, done.err
    assert "verdict<<" in (output := (repo / "output").read_text(encoding="utf-8"))
    assert "\nfail\n" in output
    assert (
        "::error title=recall-gate%3A new cards without a case::new-card coverage 0/2 (0%25) "
        "is below gate.min_new_card_coverage 0.5: no case cites en/new-a, en/new-b"
    ) in done.out


def test_min_new_card_coverage_met_leaves_the_verdict_to_the_metrics(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", 0.5)
    add_two_cards(repo, cited=1)
    run = score(repo)
    assert run.code == 0, run.out + run.err
    comment = (repo / "comment.md").read_text(encoding="utf-8")
    assert "**report-only**" in comment
    assert "Gate `min_new_card_coverage` = 0.5: passes (1 of 2 new cards cited by a case)." in (
        comment
    )


def test_without_min_new_card_coverage_new_cards_without_a_case_are_only_reported(
    tmp_path: Path,
) -> None:
    repo = make_repo(tmp_path / "app", None)
    add_two_cards(repo)
    run = score(repo)
    assert run.code == 0, run.out + run.err
    comment = (repo / "comment.md").read_text(encoding="utf-8")
    assert "**2 new cards, 0 cases: `en/new-a`, `en/new-b`**." in comment
    assert "min_new_card_coverage" not in comment
    doc = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    assert (doc["verdict"], doc["gate"]["min_new_card_coverage"]) == ("report-only", None)


def test_a_pull_request_cannot_lower_the_bases_min_new_card_coverage(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "app", 0.5)
    (repo / "recall-gate.yaml").write_text("k: 2\nkb: docs\ncases: cases.yaml\n", "utf-8")
    git(repo, "add", "recall-gate.yaml")
    add_two_cards(repo)
    run = score(repo)
    assert run.code == 1, run.out + run.err
    assert "below gate.min_new_card_coverage 0.5" in run.out
