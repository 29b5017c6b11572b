"""A query log end to end: `capture` asks the logged queries too and writes their
snapshot beside the artifacts; `baseline update --queries-snapshot` commits it
beside the baseline; a later capture (or `score` of it) is diffed against that
snapshot — read from the base commit when a base ref judges — into the
comparison JSON and one collapsed section of the comment. Report-only unless
`gate.max_moved_share` is set. A bad log exits 2 before the retriever runs."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_runner import run_cli
from git_repo import git, needs_git
from recall_gate.adapters.query_snapshot import load_snapshot
from recall_gate.adapters.results_store import read_comparison
from recall_gate.report.comparison import render_comment

APP = '''
import zlib

def _cards(query, k, salt):
    i = zlib.crc32(query.encode())
    return [f"card-{(i + salt * j) % 12}" for j in range(1, k + 1)]

def v1(query, k):
    return _cards(query, k, 1)

import random

def tied(query, k):
    """Its top k are all tied: it returns them in a random order each time."""
    cards = v1(query, k)
    random.shuffle(cards)
    return cards

def down(query, k):
    """A retriever whose endpoint fails every query."""
    raise ConnectionError("the search endpoint is down")

def down_for_logs(query, k):
    """A retriever whose endpoint fails every logged query (the cases still answer)."""
    if query.startswith("logged"):
        raise ConnectionError("the search endpoint is down")
    return v1(query, k)

def v2(query, k):
    """A re-chunking change: the logged queries numbered 0 mod 3 get other cards."""
    if query.startswith("logged") and int(query.rsplit(" ", 1)[1]) % 3 == 0:
        return _cards(query, k, 5)
    return v1(query, k)
'''


@pytest.fixture
def app(tmp_path: Path) -> Path:
    cards = [
        {"id": f"card-{i}", "language": "en", "title": f"Topic {i}", "body": f"About {i}."}
        for i in range(12)
    ]
    (tmp_path / "kb.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cards))
    cases = [
        {"id": f"c{i}", "language": "en", "case_type": "golden", "query": f"case {i}",
         "must_cite_one_of": [f"card-{i % 4}"]}
        for i in range(12)
    ]  # fmt: skip
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    logged = [
        {"id": f"q{i:02d}", "query": f"logged {i}", "language": "en" if i % 2 else "de",
         "weight": 30 - i}
        for i in range(30)
    ]  # fmt: skip
    (tmp_path / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in logged))
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 3\nkb: kb.jsonl\ncases: cases.jsonl\nqueries: queries.jsonl\n"
    )
    (tmp_path / "traffic_rag.py").write_text(APP)
    sys.modules.pop("traffic_rag", None)
    return tmp_path


def capture(app: Path, version: str, out: str, *extra: str) -> tuple[int, str]:
    run = run_cli(
        ["capture", "--retriever", f"traffic_rag:{version}", "--out", out, "--quiet", *extra],
        cwd=app,
    )
    return run.code, run.err


def make_base(app: Path) -> None:
    code, err = capture(app, "v1", "base.jsonl", "--json", "base.json")
    assert code == 0, err
    update = run_cli(
        ["baseline", "update", "--results", "base.json", "--queries-snapshot",
         "base.queries.jsonl", "--created-at", "2026-01-01T00:00:00Z", "--git-sha", "0" * 40],
        cwd=app,
    )  # fmt: skip
    assert update.code == 0, update.err
    assert "baselines/default.queries.jsonl (30 logged queries)" in update.out


def expected_moved_share() -> float:
    """The planted truth: the weight of the queries v2 changes, over all the weight."""
    weights = {i: 30 - i for i in range(30)}
    return sum(w for i, w in weights.items() if i % 3 == 0) / sum(weights.values())


def test_capture_writes_the_logged_queries_snapshot_beside_the_artifacts(app: Path) -> None:
    code, err = capture(app, "v1", "cap.jsonl")
    assert code == 0, err
    assert "30 of 30 logged queries → cap.queries.jsonl" in err
    snapshot = load_snapshot(app / "cap.queries.jsonl")
    assert snapshot.k == 3
    assert len(snapshot.rankings) == 30
    # The artifacts hold the cases only: logged queries are never scored.
    assert len((app / "cap.jsonl").read_text().splitlines()) == 12


def test_the_snapshot_is_deterministic(app: Path) -> None:
    assert capture(app, "v1", "a.jsonl", "--concurrency", "1")[0] == 0
    assert capture(app, "v1", "b.jsonl", "--concurrency", "8")[0] == 0
    assert (app / "a.queries.jsonl").read_bytes() == (app / "b.queries.jsonl").read_bytes()


def test_a_pr_capture_reports_the_traffic_diff_report_only(app: Path) -> None:
    make_base(app)
    code, err = capture(
        app, "v2", "pr.jsonl", "--comparison-json", "cmp.json", "--comment-markdown", "c.md"
    )
    assert code == 0, err
    traffic = json.loads((app / "cmp.json").read_text())["traffic"]
    assert traffic["rbo_variant"] == "RBO_ext (Webber, Moffat & Zobel 2010, Eq. 32)"
    assert traffic["p"] == 0.9
    overall = traffic["groups"]["overall"]
    assert overall["n"] == 30
    assert overall["weighted"]["moved"] == pytest.approx(expected_moved_share(), abs=1e-6)
    assert overall["unweighted"]["moved"] == pytest.approx(10 / 30, abs=1e-6)
    assert set(traffic["groups"]) == {"overall", "de", "en"}
    assert len(traffic["movers"]) == 10
    assert traffic["movers"][0]["id"] == "q00"  # the heaviest changed query
    assert traffic["titles"]["card-1"] == "Topic 1"
    assert traffic["failed"] is False
    # The document the Actions step and the fork-safe comment path validate reads back whole.
    doc = read_comparison(app / "cmp.json")
    assert doc.traffic is not None
    assert render_comment(doc) == (app / "c.md").read_text()
    comment = (app / "c.md").read_text()
    assert comment.count("<details><summary>Query traffic:") == 1
    assert "Report-only (set `gate.max_moved_share` to gate on it)." in comment
    assert "Topic" in comment  # movers named by their cards' titles


def test_score_reads_the_snapshot_beside_the_artifacts(app: Path) -> None:
    make_base(app)
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    run = run_cli(["score", "--artifacts", "pr.jsonl", "--comparison-json", "s.json"], cwd=app)
    assert run.code == 0, run.err
    moved = json.loads((app / "s.json").read_text())["traffic"]["groups"]["overall"]
    assert moved["weighted"]["moved"] == pytest.approx(expected_moved_share(), abs=1e-6)


def test_two_captures_of_a_deterministic_retriever_report_no_movers(app: Path) -> None:
    make_base(app)
    code, err = capture(app, "v1", "again.jsonl", "--comparison-json", "cmp.json")
    assert code == 0, err
    traffic = json.loads((app / "cmp.json").read_text())["traffic"]
    assert traffic["movers"] == []
    assert traffic["groups"]["overall"]["weighted"]["moved"] == 0.0


def test_max_moved_share_fails_the_gate_when_more_traffic_moved(app: Path) -> None:
    make_base(app)
    code, err = capture(
        app, "v2", "pr.jsonl", "--set", "gate.max_moved_share=0.2",
        "--comparison-json", "cmp.json", "--comment-markdown", "c.md",
    )  # fmt: skip
    assert code == 1, err
    doc = json.loads((app / "cmp.json").read_text())
    assert doc["verdict"] == "fail"
    assert doc["traffic"]["failed"] is True
    assert "Gate `max_moved_share` = 20.0 %: **fails**" in (app / "c.md").read_text()
    assert (
        f"Failed: {expected_moved_share() * 100:.1f} % of logged traffic changed its top 3, "
        "more than max_moved_share 20.0 %."
    ) in (app / "c.md").read_text()
    loose = capture(app, "v2", "pr2.jsonl", "--set", "gate.max_moved_share=0.9")
    assert loose[0] == 0, loose[1]


def test_the_actions_verdict_output_is_the_traffic_gates_fail(app: Path) -> None:
    """actions-report judges the document afresh: a failed query-log gate is a fail
    there too (the action's `verdict` output), never a pass with a warning that
    the file was edited."""
    make_base(app)
    code, err = capture(
        app, "v2", "pr.jsonl", "--set", "gate.max_moved_share=0.2", "--comparison-json", "cmp.json"
    )
    assert code == 1, err
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(app / "output")}
    report = run_cli(["actions-report", "--comparison", "cmp.json"], cwd=app, environ=environ)
    assert report.code == 0, report.err
    assert "verdict<<" in (app / "output").read_text()
    assert "\nfail\n" in (app / "output").read_text()
    assert "comparison edited" not in report.out
    # The record's own numbers decide, not its `failed` field: a file that says
    # the gate passed while its moved share is above the gate still fails.
    doc = json.loads((app / "cmp.json").read_text())
    doc["traffic"]["failed"] = False
    doc["verdict"] = "report-only"
    (app / "cmp.json").write_text(json.dumps(doc))
    report = run_cli(["actions-report", "--comparison", "cmp.json"], cwd=app, environ=environ)
    assert "verdict=fail" in report.out
    assert "comparison edited" in report.out


def test_without_a_query_log_the_comparison_json_has_no_traffic(app: Path) -> None:
    make_base(app)
    (app / "recall-gate.yaml").write_text("k: 3\nkb: kb.jsonl\ncases: cases.jsonl\n")
    code, err = capture(app, "v2", "pr.jsonl", "--comparison-json", "cmp.json")
    assert code == 0, err
    assert "traffic" not in json.loads((app / "cmp.json").read_text())


def test_a_bad_query_log_exits_2_before_the_retriever_runs(app: Path) -> None:
    (app / "queries.jsonl").write_text(
        '{"id": "q1", "query": "ok"}\n{"id": "q1", "query": "again"}\n{"id": "q3"}\n'
    )
    code, err = capture(app, "v1", "cap.jsonl")
    assert code == 2
    assert "2 of 3 logged queries are unusable" in err
    assert "queries.jsonl:2: query id 'q1' is already used on line 1" in err
    assert "queries.jsonl:3 (query q3): field `query`: required field is missing" in err
    assert not (app / "cap.jsonl").exists()
    assert "Traceback" not in err


def test_a_bad_max_qps_exits_2(app: Path) -> None:
    code, err = capture(app, "v1", "cap.jsonl", "--max-qps", "0")
    assert code == 2
    assert "--max-qps: must be a positive number of requests a second, got 0" in err


def test_a_damaged_snapshot_is_refused_with_exit_2(app: Path) -> None:
    assert capture(app, "v1", "base.jsonl", "--json", "base.json")[0] == 0
    (app / "bad.queries.jsonl").write_text('{"schema": "other"}\n')
    run = run_cli(
        ["baseline", "update", "--results", "base.json", "--queries-snapshot",
         "bad.queries.jsonl"],
        cwd=app,
    )  # fmt: skip
    assert run.code == 2
    assert "bad.queries.jsonl: not a recall-gate query snapshot" in run.err
    assert not (app / "baselines" / "default.json").exists()


@needs_git
def test_a_pull_request_is_compared_with_the_snapshot_at_the_base_commit(app: Path) -> None:
    make_base(app)
    git(app, "init", "-q", "-b", "main")
    git(app, "add", "-A")
    git(app, "commit", "-qm", "base")
    git(app, "checkout", "-qb", "pr")
    # The pull request rewrites the committed snapshot to hide its churn, and
    # gives its changed queries no traffic: the base's snapshot and weights count.
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    (app / "baselines" / "default.queries.jsonl").write_bytes(
        (app / "pr.queries.jsonl").read_bytes()
    )
    lines = (app / "queries.jsonl").read_text().splitlines()
    light = [json.loads(line) | {"weight": 0.001} for line in lines]
    (app / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in light))
    code, err = capture(
        app, "v2", "pr2.jsonl", "--baseline-ref", "main", "--comparison-json", "cmp.json"
    )
    assert code == 0, err
    moved = json.loads((app / "cmp.json").read_text())["traffic"]["groups"]["overall"]
    assert moved["weighted"]["moved"] == pytest.approx(expected_moved_share(), abs=1e-6)


def test_check_validates_the_query_log(app: Path) -> None:
    ok = run_cli(["check"], cwd=app)
    assert ok.code == 0, ok.err
    assert "; query log: 30 queries" in ok.out
    (app / "queries.jsonl").write_text('{"id": "q1", "query": "x", "weight": -2}\n')
    bad = run_cli(["check"], cwd=app)
    assert bad.code == 2
    assert "queries.jsonl:1 (query q1): field `weight`: Input should be greater than 0" in bad.err


def test_capture_repeat_2_calls_a_deterministic_retriever_deterministic(app: Path) -> None:
    make_base(app)
    code, err = capture(app, "v1", "aa.jsonl", "--repeat", "2", "--comparison-json", "cmp.json")
    assert code == 0, err
    assert (
        "A/A: 2 identical captures agree on the top 3 of every case and logged query: "
        "the retriever is deterministic"
    ) in err
    agreement = json.loads((app / "cmp.json").read_text())["self_agreement"]
    assert agreement["cases_changed"] == []
    assert agreement["logged_changed"] == 0


def test_a_retriever_with_a_random_tie_order_is_named_non_deterministic(app: Path) -> None:
    make_base(app)
    code, err = capture(
        app, "tied", "aa.jsonl", "--repeat", "2",
        "--comparison-json", "cmp.json", "--comment-markdown", "c.md",
    )  # fmt: skip
    assert code == 0, err
    assert "A/A: the retriever is NON-DETERMINISTIC: 2 identical captures differ" in err
    agreement = json.loads((app / "cmp.json").read_text())["self_agreement"]
    # 3 tied cards in random order: 5 of 6 orders differ from the first run's.
    assert 0 < len(agreement["cases_changed"]) <= 12
    assert 0 < agreement["logged_moved_share"] <= 1
    assert "> [!WARNING]" in (app / "c.md").read_text()
    assert "NON-DETERMINISTIC" in (app / "c.md").read_text()


def test_queue_exports_ten_ready_to_label_cases_that_check_accepts(app: Path) -> None:
    make_base(app)
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    run = run_cli(["queue", "--artifacts", "pr.jsonl", "--out", "queue.yaml"], cwd=app)
    assert run.code == 0, run.err
    assert "recall-gate queue: 10 logged queries to label → queue.yaml" in run.out
    text = (app / "queue.yaml").read_text()
    assert text.count("  - id: ") == 10
    assert "#   before (base):" in text
    assert "— Topic " in text  # candidates named by their titles
    check = run_cli(["check", "--cases", "queue.yaml"], cwd=app)
    assert check.code == 0, check.err
    assert "10 cases" in check.out


def test_queue_without_a_base_snapshot_exits_2(app: Path) -> None:
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    run = run_cli(["queue", "--artifacts", "pr.jsonl", "--out", "queue.yaml"], cwd=app)
    assert run.code == 2
    assert "no query snapshot beside the baseline" in run.err
    assert not (app / "queue.yaml").exists()


def test_merge_combines_the_shards_logged_query_snapshots(app: Path) -> None:
    assert capture(app, "v1", "whole.jsonl")[0] == 0
    for i in (1, 2, 3):
        code, err = capture(app, "v1", f"s{i}.jsonl", "--shard", f"{i}/3")
        assert code == 0, err
    run = run_cli(["merge", "s1.jsonl", "s2.jsonl", "s3.jsonl", "--out", "m.jsonl"], cwd=app)
    assert run.code == 0, run.err
    assert (app / "m.queries.jsonl").read_bytes() == (app / "whole.queries.jsonl").read_bytes()


def test_merge_refuses_a_shard_without_a_snapshot_when_others_have_one(app: Path) -> None:
    for i in (1, 2):
        assert capture(app, "v1", f"s{i}.jsonl", "--shard", f"{i}/2")[0] == 0
    (app / "s2.queries.jsonl").unlink()
    run = run_cli(["merge", "s1.jsonl", "s2.jsonl", "--out", "m.jsonl"], cwd=app)
    assert run.code == 2
    assert (
        "s2.jsonl: no snapshot of the logged queries beside it, unlike the other shards" in run.err
    )
    assert not (app / "m.jsonl").exists()


def test_a_query_log_outside_the_repository_is_refused(app: Path) -> None:
    (app / "recall-gate.yaml").write_text(
        "k: 3\nkb: kb.jsonl\ncases: cases.jsonl\nqueries: ../elsewhere/queries.jsonl\n"
    )
    code, err = capture(app, "v1", "cap.jsonl")
    assert code == 2
    assert "`queries: ../elsewhere/queries.jsonl` is" in err
    assert "outside the repository" in err


def test_rbo_p_from_the_config_reaches_the_diff_the_json_the_comment_and_the_queue(
    app: Path,
) -> None:
    make_base(app)
    assert capture(app, "v2", "pr.jsonl", "--comparison-json", "at-09.json")[0] == 0
    code, err = capture(
        app, "v2", "pr2.jsonl", "--set", "traffic.rbo_p=0.5",
        "--comparison-json", "at-05.json", "--comment-markdown", "c.md",
    )  # fmt: skip
    assert code == 0, err
    at_09 = json.loads((app / "at-09.json").read_text())["traffic"]
    at_05 = json.loads((app / "at-05.json").read_text())["traffic"]
    assert (at_09["p"], at_05["p"]) == (0.9, 0.5)
    # The same rankings weigh otherwise: a lower p looks less deep.
    assert (
        at_05["groups"]["overall"]["weighted"]["rbo"]
        != at_09["groups"]["overall"]["weighted"]["rbo"]
    )
    assert (
        "RBO is RBO_ext (Webber, Moffat & Zobel 2010, Eq. 32) at p = 0.5."
        in (app / "c.md").read_text()
    )
    queue = run_cli(
        ["queue", "--artifacts", "pr.jsonl", "--out", "q.yaml", "--set", "traffic.rbo_p=0.5"],
        cwd=app,
    )
    assert queue.code == 0, queue.err
    assert "× unjudged (RBO_ext, p = 0.5)." in (app / "q.yaml").read_text()


@pytest.mark.parametrize("p", ["0", "1", "1.5", "-0.2", "high"])
def test_rbo_p_outside_0_and_1_exits_2_naming_the_key(app: Path, p: str) -> None:
    code, err = capture(app, "v1", "cap.jsonl", "--set", f"traffic.rbo_p={p}")
    assert code == 2, err
    assert (
        "field `traffic.rbo_p`: RBO's persistence p must be a number strictly between 0 and 1"
        in err
    )
    assert "Traceback" not in err


def test_a_capture_without_answers_to_the_query_log_is_said_with_the_fix(app: Path) -> None:
    make_base(app)
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    (app / "pr.queries.jsonl").unlink()  # uploaded without its snapshot
    run = run_cli(
        ["score", "--artifacts", "pr.jsonl", "--comparison-json", "s.json",
         "--comment-markdown", "c.md"],
        cwd=app,
    )  # fmt: skip
    assert run.code == 0, run.err
    assert (
        "recall-gate: warning: No query traffic diff: the config names a query log "
        "(queries.jsonl), but the capture holds no answers to it (pr.queries.jsonl is not "
        "beside it)."
    ) in run.err
    assert "upload the action's capture-dir output" in run.err
    doc = json.loads((app / "s.json").read_text())
    assert "traffic" not in doc
    assert doc["traffic_unanswered"] == {
        "queries": "queries.jsonl",
        "snapshot": "pr.queries.jsonl",
        "max_moved_share": None,
    }
    comment = (app / "c.md").read_text()
    assert "No query traffic diff: the config names a query log (`queries.jsonl`)" in comment
    assert "upload the action's `capture-dir` output" in comment
    assert render_comment(read_comparison(app / "s.json")) == comment


def test_a_set_traffic_gate_fails_when_the_capture_holds_no_answers_to_the_log(
    app: Path,
) -> None:
    """A capture uploaded without its snapshot (or a pull request's capture job that
    drops it) must not switch `max_moved_share` off: a gate that cannot be judged
    fails, in the command, the comment and the action's verdict."""
    make_base(app)
    assert capture(app, "v1", "pr.jsonl")[0] == 0  # the base's own answers: nothing moved
    (app / "pr.queries.jsonl").unlink()
    run = run_cli(
        ["score", "--artifacts", "pr.jsonl", "--set", "gate.max_moved_share=0.5",
         "--comparison-json", "s.json", "--comment-markdown", "c.md"],
        cwd=app,
    )  # fmt: skip
    assert run.code == 1, run.err
    assert "Traceback" not in run.err
    doc = json.loads((app / "s.json").read_text())
    assert doc["verdict"] == "fail"
    assert doc["traffic_unanswered"]["max_moved_share"] == 0.5
    comment = (app / "c.md").read_text()
    assert (
        "max_moved_share 50.0 % could not be judged: the capture holds no answers to the "
        "logged queries"
    ) in comment
    assert "Gate `max_moved_share` = 50.0 % fails: it cannot be judged without the answers." in (
        comment
    )
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(app / "output")}
    # A file edited to drop the gate's failure is judged from its own fields still.
    doc["verdict"] = "pass"
    (app / "s.json").write_text(json.dumps(doc))
    report = run_cli(["actions-report", "--comparison", "s.json"], cwd=app, environ=environ)
    assert "\nfail\n" in (app / "output").read_text()
    assert "comparison edited" in report.out
    # Without the gate set, the same capture is reported, not failed.
    unset = run_cli(["score", "--artifacts", "pr.jsonl"], cwd=app)
    assert unset.code == 0, unset.err


def test_without_a_query_log_nothing_is_said_of_one(app: Path) -> None:
    make_base(app)
    (app / "recall-gate.yaml").write_text("k: 3\nkb: kb.jsonl\ncases: cases.jsonl\n")
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    (app / "pr.queries.jsonl").unlink(missing_ok=True)
    run = run_cli(["score", "--artifacts", "pr.jsonl", "--comparison-json", "s.json"], cwd=app)
    assert run.code == 0, run.err
    assert "query log" not in run.err
    assert "traffic_unanswered" not in json.loads((app / "s.json").read_text())


def test_the_traffic_gate_fails_when_the_retriever_answered_no_logged_query(app: Path) -> None:
    """Unanswered logged queries are not "unmoved": with a flaky endpoint allowed
    to fail (max_failures) and every logged query failed, the gate could not be
    judged, so it fails, naming why; the action's verdict says the same."""
    make_base(app)
    code, err = capture(
        app, "down_for_logs", "pr.jsonl", "--max-failures", "100", "--retries", "0",
        "--set", "gate.max_moved_share=0.2", "--comparison-json", "cmp.json",
        "--comment-markdown", "c.md",
    )  # fmt: skip
    assert code == 1, err
    doc = json.loads((app / "cmp.json").read_text())
    assert doc["verdict"] == "fail"
    (gate,) = [g for g in doc["gates"] if g["kind"] == "traffic"]
    assert gate["outcome"] == "unjudged"
    assert gate["reason"] == (
        "could not be judged: 30 of 30 logged queries not answered "
        "(more than max_unanswered_share 10.0 %)"
    )
    assert gate["reason"] in (app / "c.md").read_text()
    environ = {"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": str(app / "output")}
    report = run_cli(["actions-report", "--comparison", "cmp.json"], cwd=app, environ=environ)
    assert report.code == 0, report.err
    assert "\nfail\n" in (app / "output").read_text()


def test_the_traffic_gate_fails_on_a_snapshot_holding_only_its_header(app: Path) -> None:
    make_base(app)
    assert capture(app, "v1", "pr.jsonl")[0] == 0
    snapshot = app / "pr.queries.jsonl"
    snapshot.write_text(snapshot.read_text().splitlines(keepends=True)[0])
    run = run_cli(
        ["score", "--artifacts", "pr.jsonl", "--set", "gate.max_moved_share=0.2",
         "--comparison-json", "s.json"],
        cwd=app,
    )  # fmt: skip
    assert run.code == 1, run.err
    (gate,) = [
        g for g in json.loads((app / "s.json").read_text())["gates"] if g["kind"] == "traffic"
    ]
    assert gate["outcome"] == "unjudged"


def test_max_unanswered_share_lets_a_team_judge_a_log_partly_answered(app: Path) -> None:
    make_base(app)
    code, err = capture(
        app, "down_for_logs", "pr.jsonl", "--max-failures", "100", "--retries", "0",
        "--set", "gate.max_moved_share=0.2", "--set", "gate.max_unanswered_share=1",
        "--comparison-json", "cmp.json",
    )  # fmt: skip
    # Every query unanswered but allowed: nothing was compared, still not judged.
    assert code == 1, err
    (gate,) = [
        g for g in json.loads((app / "cmp.json").read_text())["gates"] if g["kind"] == "traffic"
    ]
    assert gate["reason"] == "could not be judged: no logged query was compared"


def test_a_set_gate_fails_when_the_capture_answered_no_case(app: Path) -> None:
    """Capture completeness: cases the retriever failed score as misses, and past
    max_unanswered_share of them the metric gates could not be judged: a fail
    that names why, in the document and the comment."""
    make_base(app)
    code, err = capture(
        app, "down", "pr.jsonl", "--max-failures", "100", "--retries", "0",
        "--max-regression", "0.5", "--comparison-json", "cmp.json", "--comment-markdown", "c.md",
    )  # fmt: skip
    assert code == 1, err
    doc = json.loads((app / "cmp.json").read_text())
    (gate,) = [g for g in doc["gates"] if g["kind"] == "capture"]
    assert (gate["enforced"], gate["outcome"]) == (True, "unjudged")
    assert gate["reason"] == (
        "could not be judged: 12 of 12 cases not answered (more than max_unanswered_share 10.0 %)"
    )
    assert f"the floors and tolerances {gate['reason']}" in (app / "c.md").read_text()


@needs_git
def test_a_pull_request_that_drops_the_query_log_is_still_judged_on_the_bases(
    app: Path,
) -> None:
    """`queries:` is a gate setting: the base's log and its traffic gate judge a
    pull request that removes the log from its config."""
    make_base(app)
    config = app / "recall-gate.yaml"
    config.write_text(config.read_text() + "gate:\n  max_moved_share: 0.2\n")
    git(app, "init", "-q", "-b", "main")
    git(app, "add", "-A")
    git(app, "commit", "-qm", "base")
    git(app, "checkout", "-qb", "pr")
    config.write_text(config.read_text().replace("queries: queries.jsonl\n", ""))
    code, err = capture(
        app, "v2", "pr.jsonl", "--baseline-ref", "main", "--comparison-json", "cmp.json"
    )
    assert code == 1, err
    doc = json.loads((app / "cmp.json").read_text())
    (gate,) = [g for g in doc["gates"] if g["kind"] == "traffic"]
    assert gate["outcome"] == "fails"


def test_the_traffic_gate_fails_on_a_snapshot_shallower_than_its_k(app: Path) -> None:
    """A capture's snapshot cut to its top 1 hides every move below rank 1: the
    gate, comparing the top 3, could not be judged."""
    make_base(app)
    assert capture(app, "v2", "pr.jsonl")[0] == 0
    snapshot = app / "pr.queries.jsonl"
    header, *rest = (json.loads(line) for line in snapshot.read_text().splitlines())
    cut = [json.dumps(header | {"k": 1})] + [json.dumps([q, ranks[:1]]) for q, ranks in rest]
    snapshot.write_text("\n".join(cut) + "\n")
    run = run_cli(
        ["score", "--artifacts", "pr.jsonl", "--set", "gate.max_moved_share=0.9",
         "--comparison-json", "s.json"],
        cwd=app,
    )  # fmt: skip
    assert run.code == 1, run.err
    doc = json.loads((app / "s.json").read_text())
    (gate,) = [g for g in doc["gates"] if g["kind"] == "traffic"]
    assert gate["reason"] == (
        "could not be judged: the capture's snapshot holds the top 1 of each logged query, "
        "the gate compares the top 3"
    )
