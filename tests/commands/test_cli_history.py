"""`recall-gate history`: the trend of every committed baseline version, from a
real git repository under tmp_path (synthetic cases)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from factories import baseline_of, case
from git_repo import git, needs_git
from recall_gate.adapters.baseline_store import dump_baseline
from recall_gate.cli import main

BASELINE = "baselines/default.json"


def cli(*argv: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), environ={}, stdout=out, stderr=err, cwd=cwd)
    return code, out.getvalue(), err.getvalue()


def commit_baseline(repo: Path, misses: int, reason: str) -> None:
    """A baseline of 10 cases of which ``misses`` miss, committed."""
    cases = [case(f"c{i}", None if i < misses else 1) for i in range(10)]
    path = repo / BASELINE
    path.parent.mkdir(exist_ok=True)
    path.write_text(dump_baseline(baseline_of(cases, reason=reason)), encoding="utf-8")
    git(repo, "add", BASELINE)
    git(repo, "commit", "-q", "-m", reason)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    return tmp_path


@needs_git
def test_three_committed_baselines_give_three_points_per_metric(repo: Path) -> None:
    for misses, reason in ((4, "first"), (2, "hybrid"), (3, "smaller chunks")):
        commit_baseline(repo, misses, reason)
    code, out, err = cli("history", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    charts = re.findall(r"```mermaid\nxychart-beta\n(.*?)```", out, flags=re.S)
    assert len(charts) == 3  # hit, recall, nDCG
    for chart in charts:
        (line,) = re.findall(r"line \[(.*)\]", chart)
        assert len(line.split(", ")) == 3
        assert chart.count("n=10") == 3  # n per point, on the x-axis
    assert re.findall(r"line \[(.*)\]", charts[0])[0] == "0.600, 0.800, 0.700"
    rows = [r for r in out.splitlines() if r.startswith("| ") and "n |" not in r]
    assert [r.split(" | ")[-1].rstrip(" |") for r in rows] == ["first", "hybrid", "smaller chunks"]
    trend = json.loads((repo / "trend.json").read_text())
    assert trend["kind"] == "recall-gate-history"
    assert [(p["hit"], p["n"], p["reason"]) for p in trend["points"]] == [
        (0.6, 10, "first"),
        (0.8, 10, "hybrid"),
        (0.7, 10, "smaller chunks"),
    ]


@needs_git
def test_since_starts_at_the_version_the_baseline_had_at_that_revision(repo: Path) -> None:
    commit_baseline(repo, 4, "first")
    git(repo, "tag", "v1")
    commit_baseline(repo, 2, "hybrid")
    git(repo, "commit", "-q", "--allow-empty", "-m", "unrelated")
    commit_baseline(repo, 3, "smaller chunks")
    code, _, _ = cli("history", "--since", "v1", "--json", "t.json", cwd=repo)
    assert code == 0
    assert [p["reason"] for p in json.loads((repo / "t.json").read_text())["points"]] == [
        "first",
        "hybrid",
        "smaller chunks",
    ]
    code, _, _ = cli("history", "--since", "HEAD~1", "--json", "t.json", cwd=repo)
    assert [p["reason"] for p in json.loads((repo / "t.json").read_text())["points"]] == [
        "hybrid",
        "smaller chunks",
    ]


@needs_git
def test_history_from_another_directory_follows_the_config(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    app = repo / "app"
    app.mkdir()
    (app / "recall-gate.yaml").write_text("profile: nightly\n", encoding="utf-8")
    cases = [case(f"c{i}", 1) for i in range(3)]
    (app / "baselines").mkdir()
    (app / "baselines" / "nightly.json").write_text(dump_baseline(baseline_of(cases)))
    git(repo, "add", "app")
    git(repo, "commit", "-q", "-m", "nightly baseline")
    code, out, err = cli("history", "--config", "app/recall-gate.yaml", cwd=repo)
    assert code == 0, err
    assert "1 version of app/baselines/nightly.json" in out
    # From a folder outside the repository: git runs where the baseline is.
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    code, out, err = cli("history", "--config", str(app / "recall-gate.yaml"), cwd=elsewhere)
    assert code == 0, err
    assert "1 version of " in out
    assert "| 5 | 3 | 1.000 | 1.000 | 1.000 | test |" in out


def test_history_outside_a_git_repository_exits_2(tmp_path: Path) -> None:
    code, out, err = cli("history", cwd=tmp_path)
    assert code == 2
    assert out == ""
    assert err.startswith(f"recall-gate: error: {tmp_path} is not inside a git work tree")
    assert "Traceback" not in err


@needs_git
def test_history_of_a_profile_with_no_committed_baseline_exits_2(repo: Path) -> None:
    (repo / "baselines").mkdir()
    (repo / "baselines" / "nightly.json").write_text("{}")  # exists, never committed
    code, _, err = cli("history", "--profile", "nightly", cwd=repo)
    assert code == 2
    assert err.splitlines()[0] == (
        "recall-gate: error: baselines/nightly.json: no committed version, "
        "so there is no trend to show"
    )
    code, _, err = cli("history", "--since", "no-such-ref", cwd=repo)
    assert code == 2
    assert "--since 'no-such-ref': unknown git revision" in err


@needs_git
def test_the_baseline_update_report_ends_with_the_trend_and_the_proposed_point(
    repo: Path,
) -> None:
    commit_baseline(repo, 4, "first")
    commit_baseline(repo, 2, "hybrid")
    from factories import results
    from recall_gate.adapters.results_store import write_results

    write_results(repo / "r.json", results([case(f"c{i}", 1) for i in range(10)]))
    code, _, err = cli(
        "baseline", "update", "--results", "r.json", "--reason", "rerank",
        "--markdown", "body.md", cwd=repo,
    )  # fmt: skip
    assert code == 0, err
    body = (repo / "body.md").read_text()
    assert "#### Trend" in body
    (line,) = re.findall(r"line \[(.*)\]", body.split("#### Trend")[1].split("```", 2)[1])
    assert line == "0.600, 0.800, 1.000"
    assert "| proposed | not committed |" in body
