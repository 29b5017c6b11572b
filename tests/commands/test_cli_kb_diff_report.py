"""The KB changes of a pull request in the report of `score --baseline-ref`:
a real git repository (``main``: a KB of 32 pages, 30 cases, the baseline of a
good capture; the working tree's commit is the pull request). Synthetic data."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from git_repo import git, needs_git

pytestmark = needs_git

N = 30
MISSES = {0, 7}
EDITED = range(1, 13)  # twelve pages edited: the cases on them make a tested group
REGRESSED = {1, 2, 3, 5, 6, 9, 10, 11}
CONFIG = "k: 5\nkb: docs\ncases: cases.yaml\n"


def page(i: int, text: str = "About") -> str:
    return f"# Topic {i}\n\n{text} topic {i}.\n"


def card_id(i: int, *, renamed: bool = False) -> str:
    return f"en/guide/card-{i:02d}" if renamed else f"en/card-{i:02d}"


def write_capture(repo: Path, misses: set[int], *, renamed: Sequence[int] = ()) -> Path:
    """Case i retrieves its card at rank (i % 4) + 1 unless it misses."""
    lines = []
    for i in range(N):
        retrieved = [f"other-{i}-{j}" for j in range(5)]
        if i not in misses:
            retrieved[i % 4] = card_id(i, renamed=i in renamed)
        lines.append(json.dumps({"case_id": f"case-{i:02d}", "retrieved": retrieved}))
    path = repo / "capture.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(repo: Path, *argv: str) -> CliRun:
    return run_cli(list(argv), cwd=repo)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "app"
    (root / "docs" / "en").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    for i in range(N):
        (root / "docs" / "en" / f"card-{i:02d}.md").write_text(page(i), encoding="utf-8")
    (root / "docs" / "en" / "spare.md").write_text("# Spare\n\nNo case.\n", encoding="utf-8")
    cases = [
        {
            "id": f"case-{i:02d}",
            "language": "en",
            "case_type": "golden",
            "query": f"question {i}",
            "must_cite_one_of": [card_id(i)],
        }
        for i in range(N)
    ]
    (root / "cases.yaml").write_text(json.dumps(cases, indent=1), encoding="utf-8")
    write_capture(root, MISSES)
    made = cli(root, "score", "--artifacts", "capture.jsonl", "--json", "good.json")
    assert made.code == 0, made.err
    made = cli(root, "baseline", "update", "--results", "good.json", "--reason", "base")
    assert made.code == 0, made.err
    git(root, "add", "recall-gate.yaml", "cases.yaml", "docs", "baselines/default.json")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root


def commit(repo: Path) -> None:
    git(repo, "add", "docs")
    git(repo, "commit", "-q", "-m", "pr")


def change_the_kb(repo: Path) -> None:
    docs = repo / "docs" / "en"
    for i in EDITED:
        (docs / f"card-{i:02d}.md").write_text(page(i, "Rewritten text on"), encoding="utf-8")
    (docs / "new-a.md").write_text("# New A\n\nA new page.\n", encoding="utf-8")
    (docs / "new-b.md").write_text("# New B\n\nAnother new page.\n", encoding="utf-8")
    (docs / "spare.md").unlink()
    (docs / "guide").mkdir()
    git(repo, "mv", "docs/en/card-20.md", "docs/en/guide/card-20.md")
    commit(repo)


def test_the_report_has_the_kb_changes_with_the_cases_on_changed_cards(repo: Path) -> None:
    change_the_kb(repo)
    write_capture(repo, MISSES | REGRESSED, renamed=[20])
    run = cli(
        repo,
        "score",
        "--artifacts",
        "capture.jsonl",
        "--baseline-ref",
        "main",
        "--markdown",
        "report.md",
        "--comparison-json",
        "comparison.json",
    )
    assert run.code == 0, run.out + run.err
    report = (repo / "report.md").read_text(encoding="utf-8")
    assert (
        "<details><summary>KB changes in this pull request: 12 edited, 1 renamed, 2 added, "
        "1 deleted; 2 new cards, 0 cases</summary>"
    ) in report
    assert "| renamed from `en/card-20` | `en/guide/card-20` | Topic 20 | 1: `case-20` |" in report
    assert "| deleted | `en/spare` | Spare | 0 |" in report
    assert "**2 new cards, 0 cases: `en/new-a`, `en/new-b`**." in report
    # Cases 1..12 and 20 cite a changed card: 13 cases, hit@5 12/13 → 4/13 (case 7
    # missed before and after; eight more lost).
    doc = json.loads((repo / "comparison.json").read_text(encoding="utf-8"))
    kb = doc["pull_request"]["kb"]
    assert kb["on_changed"] == [f"case-{i:02d}" for i in [*EDITED, 20]]
    hit = next(d for d in kb["deltas"] if d["metric"] == "retrieval_hit_at_k")
    assert (hit["n"], round(hit["baseline"], 4), round(hit["current"], 4)) == (13, 0.9231, 0.3077)
    assert hit["significant"] is True  # 8 lost, 0 gained: exact McNemar p = 0.0078
    assert "| cases on changed cards (13) | 13 |" in report
    # Never retrieved: at the base cards 00, 07 (missed) and spare, 3 of 31; now the
    # ten missed cases' cards and the two new ones, 12 of 32.
    assert "Never retrieved: 12 of 32 cards (37.5%) in no case's top 5 (baseline: 3 of 31)" in (
        report
    )
    # The rename is followed: case-20 still hits, and is compared (not relabelled).
    assert "case-20" not in json.dumps(doc["flips"])
    assert "case-20" not in doc["cases"]["relabelled"]


def test_a_pull_request_that_touches_no_kb_file_has_no_kb_section(repo: Path) -> None:
    (repo / "notes.md").write_text("# Notes\n", encoding="utf-8")
    git(repo, "add", "notes.md")
    git(repo, "commit", "-q", "-m", "pr")
    write_capture(repo, MISSES)
    run = cli(
        repo,
        "score",
        "--artifacts",
        "capture.jsonl",
        "--baseline-ref",
        "main",
        "--markdown",
        "report.md",
    )
    assert run.code == 0, run.out + run.err
    assert "KB changes" not in (repo / "report.md").read_text(encoding="utf-8")
    assert "KB changes" not in run.out


def test_the_report_states_the_kb_turnover_since_the_baseline(repo: Path) -> None:
    # A baseline made on main once the KB is committed records main's commit.
    git(repo, "checkout", "-q", "main")
    sha = git(repo, "rev-parse", "HEAD")  # what `baseline update` records
    # A baseline whose content is unchanged keeps its stamps (up to date on content):
    # made anew, this one records this commit.
    (repo / "baselines" / "default.json").unlink(missing_ok=True)
    made = cli(repo, "baseline", "update", "--results", "good.json", "--reason", "again")
    assert made.code == 0, made.err
    git(repo, "add", "baselines/default.json")
    git(repo, "commit", "-q", "-m", "baseline at a known commit")
    git(repo, "checkout", "-q", "-b", "pr2")
    change_the_kb(repo)
    write_capture(repo, MISSES, renamed=[20])
    run = cli(repo, "score", "--artifacts", "capture.jsonl", "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    # 12 edited + 1 renamed + 2 added + 1 deleted = 16, of the 32 cards now and the
    # 1 deleted: 16 / 33 = 48.5 %, above the 20 % re-audit share.
    assert (
        f"KB turnover since the baseline ({sha[:12]}): 16 of 33 cards (48.5%) added, deleted, "
        "renamed or rewritten: above 20%, the labels are worth re-auditing"
    ) in run.out


def test_no_turnover_is_stated_when_the_baseline_names_no_commit(repo: Path) -> None:
    change_the_kb(repo)
    write_capture(repo, MISSES, renamed=[20])
    run = cli(repo, "score", "--artifacts", "capture.jsonl", "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "KB turnover" not in run.out
