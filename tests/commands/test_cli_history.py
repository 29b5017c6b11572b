"""`recall-gate history`: the trend of every committed baseline version, from a
real git repository under tmp_path (synthetic cases)."""

from __future__ import annotations

import io
import itertools
import json
import re
from pathlib import Path
from typing import Any, cast

import pytest

from factories import baseline_of, case
from git_repo import git, needs_git
from recall_gate.adapters.baseline_store import dump_baseline
from recall_gate.cli import main
from recall_gate.core.records import CaseResult

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


def commit_file(repo: Path, text: str, message: str) -> None:
    path = repo / BASELINE
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    git(repo, "add", BASELINE)
    git(repo, "commit", "-q", "-m", message)


def commit_cases(
    repo: Path, cases: list[CaseResult], reason: str, *, k: int = 5, **provenance: Any
) -> str:
    """Commit a baseline of ``cases``; its short commit id."""
    commit_file(repo, dump_baseline(baseline_of(cases, k=k, reason=reason, **provenance)), reason)
    return git(repo, "rev-parse", "--short=7", "HEAD")


def en(n: int, misses: int, *, k: int = 5, start: int = 0) -> list[CaseResult]:
    return [case(f"en{i}", None if i < start + misses else 1, k=k) for i in range(start, start + n)]


def pt(n: int, misses: int, *, k: int = 5) -> list[CaseResult]:
    return [
        case(f"pt{i}", None if i < misses else 1, language="pt-BR", case_type="adversarial", k=k)
        for i in range(n)
    ]


def row(out: str, version: str) -> list[str]:
    """The cells of a plain-text table row (columns are two or more spaces apart)."""
    (line,) = [x for x in out.splitlines() if x.startswith(version + " ")][:1]
    return re.split(r"\s{2,}", line.strip())


def trend(repo: Path, name: str = "trend.json") -> dict[str, Any]:
    return cast("dict[str, Any]", json.loads((repo / name).read_text()))


def group(point: dict[str, Any], label: str) -> dict[str, Any]:
    groups: list[dict[str, Any]] = point["groups"]
    (found,) = [g for g in groups if g["group"] == label]
    return found


@needs_git
def test_three_committed_baselines_give_three_points_per_metric(repo: Path) -> None:
    for misses, reason in ((4, "first"), (2, "hybrid"), (3, "smaller chunks")):
        commit_baseline(repo, misses, reason)
    code, _, err = cli("history", "--json", "trend.json", "--markdown", "t.md", cwd=repo)
    assert code == 0, err
    markdown = (repo / "t.md").read_text()
    charts = re.findall(r"```mermaid\nxychart-beta\n(.*?)```", markdown, flags=re.S)
    assert len(charts) == 3  # hit, recall, nDCG
    for chart in charts:
        (line,) = re.findall(r"line \[(.*)\]", chart)
        assert len(line.split(", ")) == 3
        assert chart.count("n=10") == 3  # n per point, on the x-axis
    assert re.findall(r"line \[(.*)\]", charts[0])[0] == "0.600, 0.800, 0.700"
    rows = [r for r in markdown.splitlines() if r.startswith("| ") and "n |" not in r]
    assert [r.split(" | ")[10] for r in rows] == ["first", "hybrid", "smaller chunks"]
    document = trend(repo)
    assert document["kind"] == "recall-gate-history"
    assert document["schema_version"] == 2
    assert [(p["hit"], p["n"], p["reason"]) for p in document["points"]] == [
        (0.6, 10, "first"),
        (0.8, 10, "hybrid"),
        (0.7, 10, "smaller chunks"),
    ]


@needs_git
def test_history_prints_plain_text_and_writes_markdown_only_where_asked(repo: Path) -> None:
    commit_cases(repo, en(10, 4), "first | `bm25` <b>@team</b>")
    code, out, err = cli("history", cwd=repo)
    assert code == 0, err
    assert "```" not in out  # no Markdown: no chart, no pipe table, no escapes
    assert "|---" not in out
    assert "\\" not in out
    assert out.startswith("recall-gate history: baselines/default.json\n=====")
    assert row(out, "version")[:5] == ["version", "committed", "k", "n", "hit@5"]
    assert row(out, git(repo, "rev-parse", "--short=7", "HEAD"))[-1] == (
        "first | `bm25` <b>@team</b>"
    )
    # Redirected to a file it is the same plain text: stdout is text in every command.
    assert not (repo / "t.md").exists()


@needs_git
def test_a_case_set_change_is_named_and_never_shown_as_a_drop(repo: Path) -> None:
    commit_cases(repo, en(10, 0), "first")
    added = commit_cases(repo, en(10, 0) + en(3, 3, start=10), "hard")
    code, out, err = cli("history", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    cells = row(out, added)
    assert cells[3:11] == ["13", "0.769", "—", "0.769", "—", "0.769", "—", "hard"]
    assert cells[-1] == "case set changed: +3 −0"
    assert "−0.231" not in out
    point = trend(repo)["points"][1]
    overall = group(point, "overall")
    assert overall["delta"] is None
    assert overall["changes"]["comparable"] is False
    assert overall["changes"]["cases"]["added"] == ["en10", "en11", "en12"]
    assert overall["changes"]["phrases"] == ["case set changed: +3 −0"]


@needs_git
def test_a_removed_and_a_relabelled_case_are_named_too(repo: Path) -> None:
    commit_cases(repo, en(10, 0), "first")
    relabelled = case("en0", 1, gold=["card-other"])
    shown = commit_cases(repo, [relabelled, *en(8, 0, start=1)], "gold fixed")
    code, out, err = cli("history", cwd=repo)
    assert code == 0, err
    assert row(out, shown)[-1] == "case set changed: +0 −1, 1 relabelled"


@needs_git
def test_the_same_cases_k_and_provenance_give_a_delta(repo: Path) -> None:
    commit_cases(repo, en(10, 4), "first")
    rerun = commit_cases(repo, en(10, 2), "re-run")
    code, out, err = cli("history", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    assert row(out, rerun)[3:7] == ["10", "0.800", "+0.200", "0.800"]
    assert row(out, rerun)[-1] == "re-run"  # nothing changed: no marker
    assert group(trend(repo)["points"][1], "overall")["delta"]["hit"] == pytest.approx(0.2)


@needs_git
def test_a_change_of_k_is_named_and_gets_no_delta(repo: Path) -> None:
    commit_cases(repo, en(10, 4), "first")
    deeper = commit_cases(repo, en(10, 2, k=10), "k 10", k=10)
    code, out, err = cli("history", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    assert row(out, "version")[4] == "hit@k"  # two ks: each row says its own
    assert row(out, deeper)[2:6] == ["10", "10", "0.800", "—"]
    assert row(out, deeper)[-1] == "k 5 → 10"
    overall = group(trend(repo)["points"][1], "overall")
    assert overall["delta"] is None
    assert overall["changes"]["k"] == {"before": 5, "after": 10}


@needs_git
def test_a_retriever_change_is_named_in_words_and_gets_no_delta(repo: Path) -> None:
    old = {"adapter": "langchain-retriever", "name": "app.Dense", "params": {"top_k": 5}}
    new = {"adapter": "haystack", "name": "app.Hybrid", "params": {"top_k": 5}}
    commit_cases(repo, en(10, 4), "first", retriever=old)
    swapped = commit_cases(repo, en(10, 2), "hybrid", retriever=new)
    code, out, err = cli("history", cwd=repo)
    assert code == 0, err
    assert row(out, swapped)[5] == "—"
    assert row(out, swapped)[-1] == (
        "retriever changed: langchain-retriever app.Dense → haystack app.Hybrid"
    )


@needs_git
def test_a_retrieval_setting_change_is_named_with_old_and_new_value(repo: Path) -> None:
    commit_cases(repo, en(10, 4), "first", config_fingerprint="sha256:a",
                 settings={"chunking.max_chars": 500})  # fmt: skip
    smaller = commit_cases(repo, en(10, 2), "chunks", config_fingerprint="sha256:b",
                           settings={"chunking.max_chars": 120})  # fmt: skip
    code, out, err = cli("history", cwd=repo)
    assert code == 0, err
    assert row(out, smaller)[5] == "—"
    assert row(out, smaller)[-1] == "chunk size (characters) 500 → 120"


@needs_git
def test_by_language_shows_each_language_with_its_n_and_its_own_case_set(repo: Path) -> None:
    commit_cases(repo, en(10, 4) + pt(4, 0), "first")
    rerun = commit_cases(repo, en(10, 2) + pt(7, 3), "pt-BR cases")
    code, out, err = cli("history", "--by", "language", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    sections = out.split("\nlanguage ")
    assert [s.splitlines()[0] for s in sections[1:]] == ["en", "pt-BR"]
    english, portuguese = sections[1], sections[2]
    # English cases did not change: their Δ is shown; the Portuguese set grew: no Δ.
    assert row(english, rerun)[1:4] == ["10", "0.800", "+0.200"]
    assert row(portuguese, rerun)[1:4] == ["7", "0.571", "—"]
    assert row(portuguese, rerun)[-1] == "case set changed: +3 −0"
    assert "type adversarial" not in out
    assert "by case type (golden, adversarial): recall-gate history --by case_type." in out
    point = trend(repo)["points"][1]  # --json holds every group, whatever --by shows
    assert {g["group"]: g["n"] for g in point["groups"]} == {
        "overall": 17,
        "case_type:golden": 10,
        "case_type:adversarial": 7,
        "language:en": 10,
        "language:pt-BR": 7,
    }
    assert group(point, "language:en")["delta"]["hit"] == pytest.approx(0.2)
    assert group(point, "language:pt-BR")["delta"] is None


@needs_git
def test_by_all_shows_overall_then_each_case_type_then_each_language(repo: Path) -> None:
    commit_cases(repo, en(10, 4) + pt(4, 0), "first")
    code, out, err = cli("history", "--by", "all", cwd=repo)
    assert code == 0, err
    lines = out.splitlines()
    headings = [a for a, b in itertools.pairwise(lines) if b and set(b) == {"-"}]
    assert headings == [
        "overall", "type golden", "type adversarial", "language en", "language pt-BR",
    ]  # fmt: skip
    assert "Also by" not in out


@needs_git
def test_a_malformed_historic_baseline_is_skipped_with_a_note_naming_its_commit(
    repo: Path,
) -> None:
    commit_cases(repo, en(10, 4), "first")
    commit_file(repo, '{"kind": "recall-gate-baseline", ', "broken by hand")
    broken = git(repo, "rev-parse", "HEAD")
    last = commit_cases(repo, en(10, 2), "fixed")
    code, out, err = cli("history", "--json", "trend.json", cwd=repo)
    assert code == 0, err
    assert err == (
        f"recall-gate: warning: skipped {broken[:12]}:{BASELINE}: corrupted baseline: "
        "invalid JSON (Expecting property name enclosed in double quotes, line 1)\n"
    )
    assert f"- {broken[:7]} (" in out
    assert "Skipped 1 committed version that is not a readable baseline" in out
    assert row(out, last)[5] == "+0.200"  # the trend goes around it
    document = trend(repo)
    assert [p["reason"] for p in document["points"]] == ["first", "fixed"]
    assert [s["commit"] for s in document["skipped"]] == [broken]


@needs_git
def test_when_no_committed_version_is_a_baseline_history_exits_2_naming_the_commit_and_file(
    repo: Path,
) -> None:
    commit_file(repo, "[]", "not a baseline")
    sha = git(repo, "rev-parse", "HEAD")
    code, out, err = cli("history", cwd=repo)
    assert code == 2
    assert out == ""
    assert err.splitlines()[0] == (
        f"recall-gate: error: {sha[:12]}:{BASELINE}: not a recall-gate baseline (expected a "
        "JSON object); none of the 1 committed version is a readable baseline, so there is "
        "no trend to show"
    )
    assert "Traceback" not in err


def test_an_unknown_group_selection_exits_2(tmp_path: Path) -> None:
    code, _, err = cli("history", "--by", "region", cwd=tmp_path)
    assert code == 2
    assert "invalid choice: 'region'" in err


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
    assert row(out, git(repo, "rev-parse", "--short=7", "HEAD"))[2:8] == [
        "5", "3", "1.000", "—", "1.000", "—",
    ]  # fmt: skip


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


@needs_git
def test_the_update_baseline_body_names_the_case_set_change_of_the_proposed_version(
    repo: Path,
) -> None:
    from factories import results
    from recall_gate.adapters.results_store import write_results

    commit_cases(repo, en(10, 0), "first")
    write_results(repo / "r.json", results(en(10, 0) + en(3, 3, start=10)))
    code, _, err = cli(
        "baseline", "update", "--results", "r.json", "--reason", "3 hard cases",
        "--markdown", "body.md", cwd=repo,
    )  # fmt: skip
    assert code == 0, err
    trend_part = (repo / "body.md").read_text().split("#### Trend")[1]
    (proposed,) = [r for r in trend_part.splitlines() if r.startswith("| proposed |")]
    assert proposed == (
        "| proposed | not committed | 5 | 13 | 0.769 | — | 0.769 | — | 0.769 | — | 3 hard cases "
        "| case set changed: +3 −0 |"
    )
