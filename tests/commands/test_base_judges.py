"""The base branch judges a pull request (issue: a PR must not escape its own gate).

A real git repository under tmp_path: ``main`` commits the config, the cases
and a baseline of a good capture; the working tree is the pull request. With
the base ref set (``--baseline-ref``, ``RECALL_GATE_BASELINE_REF``, or the
pull request event's base SHA on GitHub Actions), a PR that regresses and
also edits its own profile, k, tolerance or baseline, or deletes or relabels
the cases it regresses, still exits 1, and the report names what it tried.
Synthetic data only.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from git_repo import git, needs_git

pytestmark = needs_git

N = 30
GOOD_MISSES = {0, 7}
# Eight more misses: hit@5 0.933 → 0.667 overall, beyond a 0.05 tolerance.
REGRESSED = {1, 2, 3, 5, 6, 9, 10, 11}
CONFIG = """\
# Synthetic evaluation for the tests.
k: 5
cases: cases.yaml
gate:
  max_regression: 0.05
"""


def case(i: int, *, gold: str | None = None, query: str | None = None) -> dict[str, object]:
    return {
        "id": f"case-{i:02d}",
        "language": "en",
        "case_type": "golden",
        "query": query or f"question {i}",
        "must_cite_one_of": [gold or f"card-{i}"],
    }


def write_cases(repo: Path, cases: Sequence[Mapping[str, object]]) -> None:
    (repo / "cases.yaml").write_text(json.dumps(list(cases), indent=1), encoding="utf-8")


def write_capture(repo: Path, name: str, misses: set[int], ids: Sequence[int]) -> Path:
    """Artifacts (no case fields: the cases file labels them); case i hits at rank
    (i % 4) + 1 unless it is in ``misses``."""
    lines = []
    for i in ids:
        retrieved = [f"other-{i}-{j}" for j in range(5)]
        if i not in misses:
            retrieved[i % 4] = f"card-{i}"
        lines.append(json.dumps({"case_id": f"case-{i:02d}", "retrieved": retrieved}))
    path = repo / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def cli(repo: Path, *argv: str, environ: Mapping[str, str] | None = None) -> CliRun:
    return run_cli(list(argv), cwd=repo, environ=environ)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """``main``: config, 30 cases, the baseline of a good capture. Working tree = the PR."""
    root = tmp_path / "app"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    write_cases(root, [case(i) for i in range(N)])
    good = write_capture(root, "good.jsonl", GOOD_MISSES, range(N))
    made = cli(root, "score", "--artifacts", str(good), "--json", "good.json")
    assert made.code == 0, made.err
    made = cli(root, "baseline", "update", "--results", "good.json", "--reason", "base")
    assert made.code == 0, made.err
    git(root, "add", "recall-gate.yaml", "cases.yaml", "baselines/default.json")
    git(root, "commit", "-q", "-m", "base")
    return root


def regressed_score(repo: Path, *extra: str, ids: Sequence[int] = range(N)) -> CliRun:
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, ids)
    return cli(repo, "score", "--artifacts", str(bad), "--baseline-ref", "main", *extra)


def test_a_pr_that_raises_its_own_tolerance_still_fails_and_is_told_so(repo: Path) -> None:
    (repo / "recall-gate.yaml").write_text(
        CONFIG.replace("max_regression: 0.05", "max_regression: 0.5"), encoding="utf-8"
    )
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    assert "This pull request changes the gate (recall-gate.yaml): " in run.out
    assert "gate.max_regression 0.05 → 0.5" in run.out
    assert "the change applies after merge" in run.out


def test_a_pr_that_edits_its_own_k_is_judged_at_the_base_k(repo: Path) -> None:
    (repo / "recall-gate.yaml").write_text(CONFIG.replace("k: 5", "k: 3"), encoding="utf-8")
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    assert "k 5 → 3" in run.out
    assert "Baseline not comparable" not in run.out


def test_a_pr_that_edits_its_own_profile_still_meets_the_base_baseline(repo: Path) -> None:
    (repo / "recall-gate.yaml").write_text(CONFIG + "profile: lenient\n", encoding="utf-8")
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    assert "profile default → lenient" in run.out
    assert "No baseline yet" not in run.out


def test_a_pr_that_points_its_config_at_another_baseline_is_judged_by_the_base_one(
    repo: Path,
) -> None:
    (repo / "other.json").write_text("{}", encoding="utf-8")
    (repo / "recall-gate.yaml").write_text(CONFIG + "baseline: other.json\n", encoding="utf-8")
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    assert "baseline unset → other.json" in run.out


def test_a_pr_that_lowers_its_own_committed_baseline_still_fails(repo: Path) -> None:
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    assert cli(repo, "score", "--artifacts", str(bad), "--json", "bad.json").code == 1
    lowered = cli(repo, "baseline", "update", "--results", "bad.json", "--reason", "noise")
    assert lowered.code == 0, lowered.err
    run = cli(repo, "score", "--artifacts", str(bad), "--baseline-ref", "main")
    assert run.code == 1, run.out + run.err
    assert "This pull request changes the baseline baselines/default.json" in run.out


def test_a_pr_that_deletes_the_cases_it_regresses_still_fails_and_lists_them(
    repo: Path,
) -> None:
    kept = [i for i in range(N) if i not in REGRESSED]
    write_cases(repo, [case(i) for i in kept])
    run = regressed_score(repo, ids=kept)  # the capture holds only the PR's cases
    assert run.code == 1, run.out + run.err
    assert "Cases removed / relabelled by this pull request (applies after merge): removed: " in (
        run.out
    )
    assert "case-01" in run.out
    assert "8 case(s) of the base are not in the capture and score as misses" in run.out


def test_a_pr_that_relabels_the_cases_it_regresses_is_judged_by_the_base_labels(
    repo: Path,
) -> None:
    # The PR makes the regressed cases' gold what they now retrieve.
    write_cases(
        repo,
        [case(i, gold=f"other-{i}-0") if i in REGRESSED else case(i) for i in range(N)],
    )
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    assert "relabelled (query or labels): " in run.out


def test_cases_a_pr_adds_are_reported_as_new_and_not_judged(repo: Path) -> None:
    write_cases(repo, [case(i) for i in range(N + 2)])
    good = write_capture(repo, "pr.jsonl", GOOD_MISSES | {N + 1}, range(N + 2))
    run = cli(repo, "score", "--artifacts", str(good), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "This pull request adds 2 case(s), evaluated and reported, judged after merge" in (
        run.out
    )
    assert "hit: case-30; missed: case-31" in run.out


def test_without_any_pr_change_nothing_is_announced(repo: Path) -> None:
    good = write_capture(repo, "pr.jsonl", GOOD_MISSES, range(N))
    run = cli(repo, "score", "--artifacts", str(good), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "This pull request" not in run.out


def test_a_base_without_config_or_baseline_is_the_first_baseline(tmp_path: Path) -> None:
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "commit", "-q", "--allow-empty", "-m", "empty")
    (root / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    write_cases(root, [case(i) for i in range(N)])
    capture = write_capture(root, "c.jsonl", GOOD_MISSES, range(N))
    run = cli(root, "score", "--artifacts", str(capture), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "No baseline yet" in run.out
    assert "the default settings (the base has no config)" in run.out
    assert "has no cases file yet" in run.out


def test_the_pull_request_event_base_sha_judges_without_any_ref_given(
    repo: Path, tmp_path: Path
) -> None:
    base = git(repo, "rev-parse", "HEAD")
    (repo / "recall-gate.yaml").write_text(
        CONFIG.replace("max_regression: 0.05", "max_regression: null"), encoding="utf-8"
    )
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {"pull_request": {"number": 7, "head": {"sha": "f" * 40}, "base": {"sha": base}}}
        ),
        encoding="utf-8",
    )
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
    }
    run = cli(repo, "score", "--artifacts", str(bad), environ=environ)
    assert run.code == 1, run.out + run.err
    assert f"It is judged by the base's settings at {base[:12]}" in run.out
    assert "gate.max_regression 0.05 → unset" in run.out


def test_the_config_deleted_by_a_pr_still_judges_it(repo: Path) -> None:
    (repo / "recall-gate.yaml").unlink()
    run = regressed_score(repo, "--cases", "cases.yaml")
    assert run.code == 1, run.out + run.err


# --- capture / run: the base's cases run through the PR's retriever ---------------------

RETRIEVER = """
def build():
    def search(query, k):
        i = int(query.split()[-1])
        # The PR's retriever: loses the regressed cases.
        hit = i not in {misses!r}
        ids = [f"other-{{i}}-{{j}}" for j in range(k)]
        if hit:
            ids[i % 4] = f"card-{{i}}"
        return ids
    return search
"""


def test_capture_runs_the_base_cases_a_pr_deleted_and_fails_on_them(repo: Path) -> None:
    (repo / "pr_app.py").write_text(
        RETRIEVER.format(misses=GOOD_MISSES | REGRESSED), encoding="utf-8"
    )
    sys.modules.pop("pr_app", None)
    write_cases(repo, [case(i) for i in range(N) if i not in REGRESSED])
    run = cli(
        repo, "capture", "--retriever", "pr_app:build", "--out", "c.jsonl",
        "--baseline-ref", "main",
    )  # fmt: skip
    assert run.code == 1, run.out + run.err
    assert "removed: " in run.out
    assert "not in the capture" not in run.out  # capture evaluated them
    captured = [json.loads(line)["case_id"] for line in (repo / "c.jsonl").read_text().splitlines()]
    assert len(captured) == N


def test_capture_runs_the_base_query_of_a_case_the_pr_rewrote(repo: Path) -> None:
    (repo / "pr_app.py").write_text(RETRIEVER.format(misses=GOOD_MISSES), encoding="utf-8")
    sys.modules.pop("pr_app", None)
    # The PR rewrites case 0's query (so that it would hit): the base's query runs.
    write_cases(repo, [case(i, query="question 4") if i == 0 else case(i) for i in range(N)])
    run = cli(
        repo, "capture", "--retriever", "pr_app:build", "--out", "c.jsonl",
        "--baseline-ref", "main",
    )  # fmt: skip
    assert run.code == 0, run.out + run.err
    first = json.loads((repo / "c.jsonl").read_text().splitlines()[0])
    assert first["query"] == "question 0"
    assert "relabelled (query or labels): case-00" in run.out


# --- refs are refs ------------------------------------------------------------------------


@pytest.mark.parametrize("ref", ["--output=/tmp/x", "main..HEAD", "HEAD~1", "a b", "@{-1}"])
def test_a_ref_that_is_no_sha_or_ref_name_exits_2_naming_it(repo: Path, ref: str) -> None:
    run = cli(repo, "score", "--artifacts", "good.jsonl", f"--baseline-ref={ref}")
    assert run.code == 2
    assert run.err.startswith(
        f"recall-gate: error: --baseline-ref {ref!r}: not a commit SHA or a git ref name\n"
    )


def test_a_bad_ref_from_the_action_input_names_the_input(repo: Path) -> None:
    run = cli(
        repo,
        "score",
        "--artifacts",
        "good.jsonl",
        environ={"RECALL_GATE_BASELINE_REF": "--upload-pack=evil"},
    )
    assert run.code == 2
    assert "RECALL_GATE_BASELINE_REF '--upload-pack=evil': not a commit SHA" in run.err


def test_an_unfetched_ref_is_named_as_given_never_as_fetch_head(repo: Path) -> None:
    sha = "d" * 40
    run = cli(repo, "score", "--artifacts", "good.jsonl", "--baseline-ref", sha)
    assert run.code == 2
    assert f"--baseline-ref {sha}: unknown git revision (not fetched?)" in run.err
    assert "FETCH_HEAD" not in run.err


# --- capture in a workflow step ------------------------------------------------------------


def test_a_failing_capture_writes_its_artifacts_results_and_report_before_exiting_1(
    repo: Path,
) -> None:
    (repo / "pr_app.py").write_text(
        RETRIEVER.format(misses=GOOD_MISSES | REGRESSED), encoding="utf-8"
    )
    sys.modules.pop("pr_app", None)
    run = cli(
        repo, "capture", "--retriever", "pr_app:build", "--out", "c.jsonl", "--json", "r.json",
        "--markdown", "r.md", "--comment-markdown", "comment.md", "--baseline-ref", "main",
    )  # fmt: skip
    assert run.code == 1, run.out + run.err
    for written in ("c.jsonl", "r.json", "r.md", "comment.md"):
        assert (repo / written).stat().st_size > 0, written
    assert "**fail**" in (repo / "comment.md").read_text()


def test_no_gate_captures_and_reports_a_failed_gate_but_exits_0(repo: Path) -> None:
    (repo / "pr_app.py").write_text(
        RETRIEVER.format(misses=GOOD_MISSES | REGRESSED), encoding="utf-8"
    )
    sys.modules.pop("pr_app", None)
    run = cli(
        repo, "capture", "--retriever", "pr_app:build", "--out", "c.jsonl", "--json", "r.json",
        "--no-gate", "--baseline-ref", "main",
    )  # fmt: skip
    assert run.code == 0, run.out + run.err
    assert "recall-gate default: FAIL" in run.out
    assert "exit 0 because of --no-gate" in run.err
    assert (repo / "r.json").is_file()
    # The artifacts it wrote are judged the same way by `score`, at the base.
    judged = cli(repo, "score", "--artifacts", "c.jsonl", "--baseline-ref", "main")
    assert judged.code == 1, judged.out + judged.err


def test_a_workflow_run_of_a_pull_request_is_judged_at_its_base(repo: Path, tmp_path: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    event = tmp_path / "event.json"
    event.write_text(
        json.dumps(
            {
                "workflow_run": {
                    "head_sha": "f" * 40,
                    "pull_requests": [{"number": 7, "base": {"sha": base}}],
                }
            }
        ),
        encoding="utf-8",
    )
    (repo / "recall-gate.yaml").write_text(CONFIG.replace("k: 5", "k: 3"), encoding="utf-8")
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(event),
    }
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    run = cli(repo, "score", "--artifacts", str(bad), environ=environ)
    assert run.code == 1, run.out + run.err
    assert "k 5 → 3" in run.out


def test_a_pull_request_event_without_a_base_sha_is_refused_not_judged_by_the_pr(
    repo: Path, tmp_path: Path
) -> None:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "f" * 40}}}))
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
    }
    good = write_capture(repo, "good2.jsonl", GOOD_MISSES, range(N))
    run = cli(repo, "score", "--artifacts", str(good), environ=environ)
    assert run.code == 2
    assert "the pull_request event names no pull_request.base.sha" in run.err


# --- score mode, a capture that labels itself: the base's baseline records are the oracle ---

SELF_LABELLED_CONFIG = """\
# Synthetic evaluation for the tests: no cases file, the capture labels itself.
k: 5
gate:
  max_regression: 0.05
"""


def write_labelled_capture(
    repo: Path,
    name: str,
    misses: set[int],
    ids: Sequence[int],
    *,
    gold: Mapping[int, str] | None = None,
    queries: Mapping[int, str] | None = None,
) -> Path:
    """A capture whose lines carry their case's labels and query (what a team's own
    capture script writes); ``gold`` / ``queries`` override a case's, as a PR might."""
    lines = []
    for i in ids:
        retrieved = [f"other-{i}-{j}" for j in range(5)]
        if i not in misses:
            retrieved[i % 4] = f"card-{i}"
        fields = case(i, gold=(gold or {}).get(i), query=(queries or {}).get(i))
        lines.append(json.dumps({"case_id": fields.pop("id"), **fields, "retrieved": retrieved}))
    path = repo / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def self_labelled(tmp_path: Path) -> Path:
    """``main``: a config without cases and the baseline of a good self-labelled capture
    (its case records are the base's oracle). Working tree = the PR."""
    root = tmp_path / "own"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "recall-gate.yaml").write_text(SELF_LABELLED_CONFIG, encoding="utf-8")
    good = write_labelled_capture(root, "good.jsonl", GOOD_MISSES, range(N))
    made = cli(root, "score", "--artifacts", str(good), "--json", "good.json")
    assert made.code == 0, made.err
    made = cli(root, "baseline", "update", "--results", "good.json", "--reason", "base")
    assert made.code == 0, made.err
    git(root, "add", "recall-gate.yaml", "baselines/default.json")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_a_self_labelled_capture_that_drops_the_cases_it_regresses_is_judged_by_the_base_records(
    self_labelled: Path,
) -> None:
    kept = [i for i in range(N) if i not in REGRESSED]
    bad = write_labelled_capture(self_labelled, "pr.jsonl", GOOD_MISSES | REGRESSED, kept)
    # Without a base judge the PR's own capture is all there is: nothing regressed.
    own = cli(self_labelled, "score", "--artifacts", str(bad))
    assert own.code == 0, own.out + own.err
    run = cli(self_labelled, "score", "--artifacts", str(bad), "--baseline-ref", "main")
    assert run.code == 1, run.out + run.err
    assert "Cases removed / relabelled by this pull request (applies after merge): removed: " in (
        run.out
    )
    assert "case-01" in run.out
    assert "(the case records of baselines/default.json)" in run.out
    assert "8 case(s) of the base are not in the capture and score as misses" in run.out


def test_a_self_labelled_capture_that_relabels_the_cases_it_regresses_is_judged_by_the_base_records(
    self_labelled: Path,
) -> None:
    # The PR's capture makes the regressed cases' gold what they now retrieve.
    relabelled = write_labelled_capture(
        self_labelled,
        "pr.jsonl",
        GOOD_MISSES | REGRESSED,
        range(N),
        gold={i: f"other-{i}-0" for i in REGRESSED},
    )
    own = cli(self_labelled, "score", "--artifacts", str(relabelled))
    assert own.code == 0, own.out + own.err
    run = cli(self_labelled, "score", "--artifacts", str(relabelled), "--baseline-ref", "main")
    assert run.code == 1, run.out + run.err
    assert "relabelled (query or labels): " in run.out
    assert "case-01" in run.out
    assert "not in the capture" not in run.out


def test_a_self_labelled_capture_that_rewrites_a_query_lists_the_case_as_relabelled(
    self_labelled: Path,
) -> None:
    rewritten = write_labelled_capture(
        self_labelled, "pr.jsonl", GOOD_MISSES, range(N), queries={3: "an easier question"}
    )
    run = cli(self_labelled, "score", "--artifacts", str(rewritten), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "relabelled (query or labels): case-03" in run.out


def test_cases_a_self_labelled_capture_adds_are_reported_as_new_and_not_judged(
    self_labelled: Path,
) -> None:
    more = write_labelled_capture(self_labelled, "pr.jsonl", GOOD_MISSES | {N + 1}, range(N + 2))
    run = cli(self_labelled, "score", "--artifacts", str(more), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "This pull request adds 2 case(s), evaluated and reported, judged after merge" in (
        run.out
    )
    assert "hit: case-30; missed: case-31" in run.out


def test_an_unchanged_self_labelled_capture_is_judged_without_any_announcement(
    self_labelled: Path,
) -> None:
    same = write_labelled_capture(self_labelled, "pr.jsonl", GOOD_MISSES, range(N))
    run = cli(self_labelled, "score", "--artifacts", str(same), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "This pull request" not in run.out
    assert "stale" not in run.out.lower()


def test_a_base_baseline_record_that_breaks_the_label_rules_exits_2_naming_it(
    self_labelled: Path,
) -> None:
    path = self_labelled / "baselines" / "default.json"
    baseline = json.loads(path.read_text())
    baseline["cases"][0]["must_cite_one_of"] = []
    baseline["cases"][0]["relevant_ids"] = ["card-0"]
    path.write_text(json.dumps(baseline, indent=2), encoding="utf-8")
    git(self_labelled, "commit", "-q", "-am", "a hand-edited baseline")
    same = write_labelled_capture(self_labelled, "pr.jsonl", GOOD_MISSES, range(N))
    run = cli(self_labelled, "score", "--artifacts", str(same), "--baseline-ref", "main")
    assert run.code == 2, run.out + run.err
    assert "the record of case 'case-00'" in run.err
    assert "Traceback" not in run.err


BY_METRIC = CONFIG.replace("max_regression: 0.05", "max_regression: {hit: 0.05, ndcg: 0.05}")


def test_a_pr_that_changes_one_metrics_tolerance_is_judged_by_the_base_and_named(
    repo: Path,
) -> None:
    (repo / "recall-gate.yaml").write_text(BY_METRIC, encoding="utf-8")
    git(repo, "commit", "-q", "-am", "tolerances by metric")
    (repo / "recall-gate.yaml").write_text(
        BY_METRIC.replace("{hit: 0.05,", "{hit: 0.5,"), encoding="utf-8"
    )
    run = regressed_score(repo, "--comparison-json", "c.json")
    assert run.code == 1, run.out + run.err
    assert "This pull request changes the gate (recall-gate.yaml): " in run.out
    assert "gate.max_regression.hit 0.05 → 0.5. It is judged by the base's settings" in run.out
    gate = json.loads((repo / "c.json").read_text())["gate"]
    assert gate["tolerances"] == {"hit": 0.05, "ndcg": 0.05}


def test_a_pr_that_turns_one_tolerance_into_tolerances_by_metric_names_each_change(
    repo: Path,
) -> None:
    (repo / "recall-gate.yaml").write_text(
        CONFIG.replace("max_regression: 0.05", "max_regression: {hit: 0.5, ndcg: 0.05}"),
        encoding="utf-8",
    )
    run = regressed_score(repo)
    assert run.code == 1, run.out + run.err
    # The base's one number is every metric's: what changes is said per metric.
    assert "gate.max_regression.hit 0.05 → 0.5; gate.max_regression.mrr 0.05 → unset" in run.out
    assert "gate.max_regression.recall 0.05 → unset" in run.out
    assert "gate.max_regression.ndcg" not in run.out


# --- merge queue: the group's base SHA judges ------------------------------------------


def actions_event(tmp_path: Path, name: str, payload: Mapping[str, object]) -> dict[str, str]:
    """The environment of an Actions run of event ``name`` whose payload is ``{name: payload}``."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({name: payload}), encoding="utf-8")
    return {"GITHUB_ACTIONS": "true", "GITHUB_EVENT_NAME": name, "GITHUB_EVENT_PATH": str(event)}


def test_a_merge_group_run_is_judged_at_the_group_base_sha(repo: Path, tmp_path: Path) -> None:
    base = git(repo, "rev-parse", "HEAD")
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    # The queued pull request lowered its own committed baseline to its regressed run.
    assert cli(repo, "score", "--artifacts", str(bad), "--json", "bad.json").code == 1
    lowered = cli(repo, "baseline", "update", "--results", "bad.json", "--reason", "noise")
    assert lowered.code == 0, lowered.err
    environ = actions_event(tmp_path, "merge_group", {"base_sha": base, "head_sha": "f" * 40})
    run = cli(repo, "score", "--artifacts", str(bad), environ=environ)
    assert run.code == 1, run.out + run.err
    assert f"at {base[:12]}" in run.out


def test_a_merge_group_event_without_a_base_sha_is_refused(repo: Path, tmp_path: Path) -> None:
    environ = actions_event(tmp_path, "merge_group", {"head_sha": "f" * 40})
    good = write_capture(repo, "good2.jsonl", GOOD_MISSES, range(N))
    run = cli(repo, "score", "--artifacts", str(good), environ=environ)
    assert run.code == 2, run.out + run.err
    assert "merge_group" in run.err
    assert "base_sha" in run.err


# --- the config is found in the base's tree, from the working directory up --------------


def test_a_nearer_config_a_pr_adds_never_judges_and_is_named_as_applying_after_merge(
    repo: Path,
) -> None:
    sub = repo / "service"
    sub.mkdir()
    # The PR adds service/recall-gate.yaml: no tolerance, the same cases.
    (sub / "recall-gate.yaml").write_text(
        CONFIG.replace("max_regression: 0.05", "max_regression: null").replace(
            "cases: cases.yaml", "cases: ../cases.yaml"
        ),
        encoding="utf-8",
    )
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    run = cli(sub, "score", "--artifacts", str(bad), "--baseline-ref", "main")
    assert run.code == 1, run.out + run.err
    assert "This pull request adds recall-gate.yaml, nearer the working directory" in run.out
    assert "judged by the base's config ../recall-gate.yaml at main" in run.out
    assert "the base has no config" not in run.out


def test_a_nearer_config_a_pr_adds_is_named_in_the_comparison_json(repo: Path) -> None:
    sub = repo / "service"
    sub.mkdir()
    (sub / "recall-gate.yaml").write_text("k: 5\n", encoding="utf-8")
    bad = write_capture(repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    run = cli(
        sub,
        "score",
        "--artifacts",
        str(bad),
        "--baseline-ref",
        "main",
        "--comparison-json",
        "c.json",
    )
    assert run.code == 1, run.out + run.err
    doc = json.loads((sub / "c.json").read_text(encoding="utf-8"))
    assert doc["pull_request"]["config_after_merge"] == "recall-gate.yaml"
    assert doc["verdict"] == "fail"


def test_a_sub_folder_run_without_pr_change_is_judged_by_the_parent_config_silently(
    repo: Path,
) -> None:
    sub = repo / "service"
    sub.mkdir()
    good = write_capture(repo, "good2.jsonl", GOOD_MISSES, range(N))
    run = cli(sub, "score", "--artifacts", str(good), "--baseline-ref", "main")
    assert run.code == 0, run.out + run.err
    assert "This pull request" not in run.out


# --- score --run --qrels: the base's qrels are the oracle ---------------------------------


def write_qrels(repo: Path, gold: Mapping[int, str]) -> None:
    lines = [f"case-{i:02d} 0 {card} 1" for i, card in sorted(gold.items())]
    (repo / "qrels.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture
def qrels_repo(tmp_path: Path) -> Path:
    """``main``: a config without cases, TREC qrels, the baseline of a good run."""
    root = tmp_path / "trec"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "recall-gate.yaml").write_text(
        CONFIG.replace("cases: cases.yaml\n", ""), encoding="utf-8"
    )
    write_qrels(root, {i: f"card-{i}" for i in range(N)})
    good = write_capture(root, "good.jsonl", GOOD_MISSES, range(N))
    made = cli(root, "score", "--run", str(good), "--qrels", "qrels.txt", "--json", "good.json")
    assert made.code == 0, made.out + made.err
    made = cli(root, "baseline", "update", "--results", "good.json", "--reason", "base")
    assert made.code == 0, made.err
    git(root, "add", "recall-gate.yaml", "qrels.txt", "baselines/default.json")
    git(root, "commit", "-q", "-m", "base")
    return root


def test_qrels_a_pr_edits_never_become_the_oracle(qrels_repo: Path) -> None:
    # The PR makes each regressed query's relevant document the one it now ranks first.
    write_qrels(
        qrels_repo, {i: (f"other-{i}-0" if i in REGRESSED else f"card-{i}") for i in range(N)}
    )
    bad = write_capture(qrels_repo, "bad.jsonl", GOOD_MISSES | REGRESSED, range(N))
    run = cli(qrels_repo, "score", "--run", str(bad), "--qrels", "qrels.txt")
    assert run.code == 0, "without a base, the edited qrels judge (the control)"
    run = cli(
        qrels_repo, "score", "--run", str(bad), "--qrels", "qrels.txt", "--baseline-ref", "main"
    )
    assert run.code == 1, run.out + run.err
    assert "this pull request changes qrels.txt: it is judged by the base's version at main" in (
        run.err
    )


def test_an_unchanged_qrels_file_judged_at_the_base_says_nothing_of_it(qrels_repo: Path) -> None:
    good = write_capture(qrels_repo, "good2.jsonl", GOOD_MISSES, range(N))
    run = cli(
        qrels_repo, "score", "--run", str(good), "--qrels", "qrels.txt", "--baseline-ref", "main"
    )
    assert run.code == 0, run.out + run.err
    assert "changes qrels.txt" not in run.err


def test_a_malformed_qrels_file_at_the_base_is_named_at_the_ref(qrels_repo: Path) -> None:
    (qrels_repo / "qrels.txt").write_text("case-00 card-0 1\n", encoding="utf-8")
    git(qrels_repo, "commit", "-q", "-am", "broken qrels")
    write_qrels(qrels_repo, {i: f"card-{i}" for i in range(N)})
    good = write_capture(qrels_repo, "good2.jsonl", GOOD_MISSES, range(N))
    run = cli(
        qrels_repo, "score", "--run", str(good), "--qrels", "qrels.txt", "--baseline-ref", "main"
    )
    assert run.code == 2, run.out + run.err
    assert "main:qrels.txt" in run.err
    assert "recall-gate-base." not in run.err


def test_a_capture_line_for_a_case_neither_side_has_exits_2_naming_the_id_and_line(
    repo: Path,
) -> None:
    capture = write_capture(repo, "c.jsonl", GOOD_MISSES, range(N))
    with capture.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps({"case_id": "case-99", "retrieved": ["card-1"]}) + "\n")
    run = cli(repo, "score", "--artifacts", str(capture), "--baseline-ref", "main")
    assert run.code == 2, run.out + run.err
    assert f"c.jsonl:{N + 1}: artifact for unknown case 'case-99'" in run.err


def test_a_second_capture_line_of_a_base_case_exits_2_naming_both_lines(repo: Path) -> None:
    capture = write_capture(repo, "c.jsonl", GOOD_MISSES, [*range(N), 4])
    run = cli(repo, "score", "--artifacts", str(capture), "--baseline-ref", "main")
    assert run.code == 2, run.out + run.err
    assert f"c.jsonl:{N + 1}: second artifact for case 'case-04' (first on line 5)" in run.err
