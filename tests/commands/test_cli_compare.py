"""`compare`, `baseline update` and `floors suggest`, in process, files under tmp_path.

Results files come from the real `score` command on self-contained captures.
Key user-facing messages are asserted word for word.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli
from git_repo import git, needs_git
from recall_gate.core.github_limits import COMMENT_BUDGET, comment_length

LANGS = ("en", "es-419", "pt-BR")
SHA = "0123456789abcdef0123456789abcdef01234567"


def cli(argv: Sequence[str], cwd: Path, environ: Mapping[str, str] | None = None) -> CliRun:
    return run_cli(argv, cwd=cwd, environ=environ)


def capture(path: Path, misses: set[int], *, n: int = 30) -> Path:
    """A self-contained capture of ``n`` gold cases; case i hits at rank (i % 4) + 1
    unless ``i`` is in ``misses``; plus one case without gold."""
    lines = []
    for i in range(n):
        gold = f"card-{i}"
        retrieved = [f"other-{i}-{j}" for j in range(5)]
        if i not in misses:
            retrieved[i % 4] = gold
        lines.append(
            {
                "case_id": f"case-{i:02d}",
                "retrieved": retrieved,
                "language": LANGS[i % 3],
                "case_type": "golden",
                "must_cite_one_of": [gold],
            }
        )
    lines.append(
        {
            "case_id": "capability-1",
            "retrieved": ["x"],
            "language": "en",
            "case_type": "capability",
            "must_cite_one_of": [],
        }
    )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def scored(tmp_path: Path, name: str, misses: set[int]) -> Path:
    artifacts = capture(tmp_path / f"{name}.jsonl", misses)
    out = tmp_path / f"{name}.json"
    run = cli(["score", "--artifacts", str(artifacts), "--json", str(out)], tmp_path)
    assert run.code == 0, run.err
    return out


@pytest.fixture
def runs(tmp_path: Path) -> dict[str, Path]:
    """Results of a reference run and of a degraded one (8 more misses)."""
    return {
        "good": scored(tmp_path, "good", {0, 7}),
        "bad": scored(tmp_path, "bad", {0, 7, 1, 2, 3, 5, 6, 9, 10, 11}),
    }


def update(
    tmp_path: Path, results: Path, *extra: str, environ: Mapping[str, str] | None = None
) -> CliRun:
    return cli(["baseline", "update", "--results", str(results), *extra], tmp_path, environ)


BASELINE = "baselines/default.json"


# --- baseline update -------------------------------------------------------------------


def test_baseline_update_is_atomic_and_byte_identical_on_a_rerun(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    first = update(tmp_path, runs["good"], "--reason", "first baseline")
    assert first.code == 0, first.err
    assert first.out.startswith(f"recall-gate: wrote {BASELINE}\n")
    written = (tmp_path / BASELINE).read_bytes()
    again = update(tmp_path, runs["good"], "--reason", "first baseline")
    assert again.code == 0
    assert again.out.startswith(
        f"recall-gate: {BASELINE} is up to date (identical bytes, not rewritten)\n"
    )
    assert (tmp_path / BASELINE).read_bytes() == written
    assert sorted(p.name for p in (tmp_path / "baselines").iterdir()) == ["default.json"]
    data = json.loads(written)
    assert data["kind"] == "recall-gate-baseline"
    assert data["reason"] == "first baseline"
    assert data["git_sha"] is None  # tmp_path is not a git work tree, no GITHUB_SHA


def test_an_update_that_would_change_only_the_stamps_is_up_to_date_and_not_written(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"], "--reason", "first baseline", "--git-sha", "a" * 40)
    written = (tmp_path / BASELINE).read_bytes()
    # After the baseline PR is merged: another commit, another time, another reason.
    again = update(
        tmp_path,
        runs["good"],
        "--reason",
        "re-run after the merge",
        "--git-sha",
        "b" * 40,
        environ={"SOURCE_DATE_EPOCH": "1780000000"},
    )
    assert again.code == 0, again.err
    assert again.out.startswith(
        f"recall-gate: {BASELINE} is up to date: the same cases, aggregates, fingerprints "
        "and settings (only created_at, git_sha and reason would change); not rewritten\n"
    )
    assert (tmp_path / BASELINE).read_bytes() == written


def test_two_updates_on_one_commit_with_source_date_epoch_write_identical_bytes(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"], "--created-at", "2026-05-01T00:00:00Z")
    old = (tmp_path / BASELINE).read_bytes()
    written = []
    for _ in range(2):
        (tmp_path / BASELINE).write_bytes(old)  # each run starts from the committed file
        run = update(
            tmp_path,
            runs["bad"],
            "--reason",
            "moved",
            "--git-sha",
            "c" * 40,
            environ={"SOURCE_DATE_EPOCH": "1780000000"},
        )
        assert run.code == 0, run.err
        written.append((tmp_path / BASELINE).read_bytes())
    assert written[0] == written[1]
    assert json.loads(written[0])["created_at"] == "2026-05-28T20:26:40Z"


def test_created_at_comes_from_the_flag_then_source_date_epoch(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"], "--created-at", "2026-05-29T14:00:00+02:00")
    assert json.loads((tmp_path / BASELINE).read_text())["created_at"] == "2026-05-29T12:00:00Z"
    update(tmp_path, runs["bad"], environ={"SOURCE_DATE_EPOCH": "1780000000"})
    assert json.loads((tmp_path / BASELINE).read_text())["created_at"] == "2026-05-28T20:26:40Z"


def test_a_changed_result_gets_a_new_created_at_and_the_old_to_new_report(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"], "--created-at", "2026-05-01T00:00:00Z")
    report = tmp_path / "pr-body.md"
    run = update(
        tmp_path, runs["bad"], "--reason", "degraded on purpose", "--markdown", str(report)
    )
    assert run.code == 0
    assert json.loads((tmp_path / BASELINE).read_text())["created_at"] != "2026-05-01T00:00:00Z"
    body = report.read_text()
    assert body.startswith(
        f"### recall-gate baseline update: {BASELINE}\n\nReason: “degraded on purpose”."
    )
    assert "| **overall** | 30 | hit@5 | 0.933 | 0.667 | −0.267 |" in body
    assert "Flipped cases: 8 hit → miss, 0 miss → hit" in body


def test_git_sha_comes_from_the_flag_then_github_sha(tmp_path: Path, runs: dict[str, Path]) -> None:
    update(tmp_path, runs["good"], environ={"GITHUB_SHA": SHA})
    assert json.loads((tmp_path / BASELINE).read_text())["git_sha"] == SHA
    bad = update(tmp_path, runs["good"], "--git-sha", "main")
    assert bad.code == 2
    assert bad.err == (
        "recall-gate: error: cannot make a baseline: field `git_sha`: expected a "
        "hexadecimal git commit SHA, got 'main'\n"
        "  fix: check --git-sha (or $GITHUB_SHA) and --created-at\n"
    )


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (
            "{not json",
            "corrupted baseline: invalid JSON "
            "(Expecting property name enclosed in double quotes, line 1)",
        ),
        ('{"name": "x"}', 'not a recall-gate baseline (no "kind": "recall-gate-baseline")'),
        (
            '{"kind": "recall-gate-baseline", "schema_version": 7}',
            "baseline schema_version 7 is newer than this recall-gate reads (1)",
        ),
    ],
)
def test_baseline_update_refuses_to_overwrite_what_is_not_a_baseline(
    tmp_path: Path, runs: dict[str, Path], content: str, why: str
) -> None:
    target = tmp_path / BASELINE
    target.parent.mkdir()
    target.write_text(content)
    run = update(tmp_path, runs["good"])
    assert run.code == 2
    assert run.err == (
        f"recall-gate: error: refusing to overwrite {BASELINE}: {BASELINE}: {why}\n"
        "  fix: move that file away or pass another --out: only a valid baseline is replaced\n"
    )
    assert target.read_text() == content


def test_baseline_update_refuses_to_overwrite_a_results_file(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    target = tmp_path / "out.json"
    shutil.copy(runs["bad"], target)
    run = update(tmp_path, runs["good"], "--out", str(target))
    assert run.code == 2
    assert "refusing to overwrite out.json: out.json: is a results file, not a baseline" in run.err
    assert target.read_bytes() == runs["bad"].read_bytes()


# --- compare: verdicts and exit codes ---------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "code", "verdict"),
    [
        ([], 0, "report-only"),
        (["--max-regression", "", "--min-hit", ""], 0, "report-only"),  # the action's empty inputs
        (["--max-regression", "0.05"], 1, "fail"),
        (["--max-regression", "0.3"], 0, "pass"),
        (["--min-hit", "0.7"], 1, "fail"),
        (["--min-hit", "0.6"], 0, "pass"),
    ],
)
def test_compare_exit_code_per_gate_setting(
    tmp_path: Path, runs: dict[str, Path], flags: list[str], code: int, verdict: str
) -> None:
    update(tmp_path, runs["good"], "--created-at", "2026-05-01T00:00:00Z")
    out = tmp_path / "comparison.json"
    run = cli(["compare", "--current", str(runs["bad"]), "--json", str(out), *flags], tmp_path)
    assert run.code == code, run.err
    assert json.loads(out.read_text())["verdict"] == verdict


def test_an_unchanged_run_passes_an_enforced_zero_tolerance(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"])
    run = cli(["compare", "--current", str(runs["good"]), "--max-regression", "0"], tmp_path)
    assert run.code == 0
    assert run.out.startswith(
        "config:   none (no recall-gate.yaml here or in a parent folder)\n"
        "baseline: baselines/default.json\n\n"
    )
    assert run.out.partition("\n\n")[2].startswith(
        "recall-gate default: PASS\n\nPassed: no drop beyond the 0.000 tolerance."
    )


def test_the_config_gate_section_applies_and_flags_override_it(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"])
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  max_regression: 0.05\n")
    assert cli(["compare", "--current", str(runs["bad"])], tmp_path).code == 1
    assert (
        cli(["compare", "--current", str(runs["bad"]), "--max-regression", "0.5"], tmp_path).code
        == 0
    )


def test_no_baseline_yet_is_reported_not_failed(tmp_path: Path, runs: dict[str, Path]) -> None:
    comment = tmp_path / "comment.md"
    run = cli(
        [
            "compare",
            "--current",
            str(runs["bad"]),
            "--max-regression",
            "0.01",
            "--markdown",
            str(comment),
        ],
        tmp_path,
    )
    assert run.code == 0
    assert "No baseline yet for profile default: baselines/default.json does not exist" in run.out
    assert (
        "`recall-gate baseline update --results results.json --out baselines/default.json "
        '--reason "first baseline"`' in comment.read_text()
    )


def test_compare_writes_the_comment_the_full_report_and_the_json(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"])
    comment, full, data = tmp_path / "c.md", tmp_path / "full.md", tmp_path / "c.json"
    run = cli(
        [
            "compare", "--current", str(runs["bad"]), "--profile", "default",
            "--comment-markdown", str(comment), "--markdown", str(full),
            "--comparison-json", str(data),
        ],
        tmp_path,
    )  # fmt: skip
    assert run.code == 0
    assert run.err == ""
    text = comment.read_text()
    assert text.startswith(
        "<!-- recall-gate:default -->\n\n### 📊 recall-gate `default`: **report-only**"
    )
    assert comment_length(text) <= COMMENT_BUDGET
    assert full.read_text() == text  # small enough: nothing was shortened
    payload = json.loads(data.read_text())
    assert {k: payload[k] for k in ("verdict", "regressions", "n", "k")} | {
        "hit": payload["metrics"]["hit"]
    } == {
        "verdict": "report-only",
        "regressions": 0,
        "n": 30,
        "k": 5,
        "hit": 0.666667,
    }
    assert payload["delta"]["hit"] == pytest.approx(-0.266667)
    assert payload["baseline"]["status"] == "ok"
    assert payload["baseline"]["source"] == BASELINE
    assert [f["case_id"] for f in payload["flips"]["hit_to_miss"]] == [
        "case-01", "case-02", "case-03", "case-05", "case-06", "case-09", "case-10", "case-11",
    ]  # fmt: skip


def test_a_profile_names_the_baseline_file_and_the_marker(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"], "--profile", "nightly")
    assert (tmp_path / "baselines/nightly.json").is_file()
    comment = tmp_path / "c.md"
    cli(
        [
            "compare",
            "--current",
            str(runs["good"]),
            "--profile",
            "nightly",
            "--markdown",
            str(comment),
        ],
        tmp_path,
    )
    assert comment.read_text().startswith("<!-- recall-gate:nightly -->\n")
    assert "Baseline: `baselines/nightly.json`" in comment.read_text()


def test_a_bad_profile_is_refused(tmp_path: Path, runs: dict[str, Path]) -> None:
    run = cli(["compare", "--current", str(runs["good"]), "--profile", "../x"], tmp_path)
    assert run.code == 2
    assert "argument --profile: use letters, digits, '.', '_' or '-'" in run.err


def test_an_out_of_range_tolerance_is_refused(tmp_path: Path, runs: dict[str, Path]) -> None:
    run = cli(["compare", "--current", str(runs["good"]), "--max-regression", "5"], tmp_path)
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: recall-gate compare: argument --max-regression: must be in [0, 1], "
        "got 5\n  fix: see `recall-gate compare --help`\n"
    )


# --- compare: bad baselines ----------------------------------------------------------------


def _write_baseline(tmp_path: Path, text: str) -> None:
    (tmp_path / "baselines").mkdir(exist_ok=True)
    (tmp_path / BASELINE).write_text(text)


FIX_RESTORE = (
    "  fix: restore it with `git checkout -- baselines/default.json`, "
    "or re-create it with `recall-gate baseline update`\n"
)


def test_a_corrupted_baseline_exits_2_naming_the_file_and_the_fix(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    _write_baseline(tmp_path, '{"kind": "recall-gate-baseline", ')
    run = cli(["compare", "--current", str(runs["good"])], tmp_path)
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: baselines/default.json: corrupted baseline: invalid JSON "
        "(Expecting property name enclosed in double quotes, line 1)\n" + FIX_RESTORE
    )
    assert run.out == ""


def test_a_newer_baseline_schema_exits_2_asking_for_an_upgrade(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"])
    data = json.loads((tmp_path / BASELINE).read_text())
    data["schema_version"] = 2
    _write_baseline(tmp_path, json.dumps(data))
    run = cli(["compare", "--current", str(runs["good"])], tmp_path)
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: baselines/default.json: baseline schema_version 2 is newer than "
        "this recall-gate reads (1)\n"
        "  fix: upgrade recall-gate (`pip install -U recall-gate`), or pin the action to the "
        "version that wrote the baseline\n"
    )


def test_a_results_file_given_as_baseline_exits_2_with_the_command_that_fixes_it(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    run = cli(["compare", "--current", str(runs["bad"]), "--baseline", str(runs["good"])], tmp_path)
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: good.json: is a results file, not a baseline\n"
        "  fix: make it a baseline: `recall-gate baseline update --results good.json "
        "--out baselines/<profile>.json --reason TEXT`\n"
    )


# --- compare --baseline-ref ---------------------------------------------------------------


@needs_git
def test_a_pr_that_edits_the_baseline_is_compared_with_the_base_one(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    update(tmp_path, runs["good"], "--reason", "base")
    git(tmp_path, "add", BASELINE)
    git(tmp_path, "commit", "-q", "-m", "baseline")
    # The PR re-baselines on its degraded run, hoping to pass.
    update(tmp_path, runs["bad"], "--reason", "looks fine to me")
    data = tmp_path / "c.json"
    run = cli(
        [
            "compare", "--current", str(runs["bad"]), "--baseline-ref", "main",
            "--max-regression", "0.05", "--json", str(data),
        ],
        tmp_path,
    )  # fmt: skip
    assert run.code == 1
    assert "This pull request changes the baseline baselines/default.json" in run.out
    assert "Overall, old → new: hit@5 0.933 → 0.667 (n 30 → 30)" in run.out
    payload = json.loads(data.read_text())
    assert payload["baseline"]["edited_in_pr"] is True
    assert payload["baseline"]["source"] == "main:baselines/default.json"
    assert payload["baseline"]["reason"] == "base"


@needs_git
def test_an_unknown_baseline_ref_exits_2(tmp_path: Path, runs: dict[str, Path]) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    run = cli(
        ["compare", "--current", str(runs["good"]), "--baseline-ref", "origin/main"], tmp_path
    )
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: --baseline-ref origin/main: unknown git revision (not fetched?)\n"
        "  fix: fetch it first: `actions/checkout` with `fetch-depth: 0`, or "
        "`git fetch origin origin/main`\n"
    )


@needs_git
def test_no_baseline_at_the_ref_but_one_in_the_pr_is_the_first_baseline(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "commit", "-q", "--allow-empty", "-m", "empty")
    update(tmp_path, runs["good"], "--reason", "first")
    run = cli(["compare", "--current", str(runs["good"]), "--baseline-ref", "main"], tmp_path)
    assert run.code == 0
    assert "This pull request adds the first baseline baselines/default.json" in run.out


# --- floors suggest ---------------------------------------------------------------------

COMMENTED = """\
# Reference evaluation: synthetic data only.
profile: default
k: 5   # top k
gate:                 # empty: report-only
  max_regression: 0.05   # keep: set by hand
  min_hit: null
  min_recall: null
  min_ndcg: null
retrieval:
  mode: dense         # dense | hybrid
"""


def test_floors_suggest_prints_evidence_based_floors(tmp_path: Path, runs: dict[str, Path]) -> None:
    update(tmp_path, runs["good"])
    run = cli(["floors", "suggest"], tmp_path)
    assert run.code == 0
    assert run.out.splitlines()[0] == (
        "recall-gate: floors suggested from baselines/default.json (observed − margin, down to "
        "the Wilson 95% lower bound, at least 0.02)"
    )
    # hit 28/30 = 0.933; Wilson (z = 2): centre (0.933 + 4/60) = 1.0, spread
    # 2·sqrt(0.933·0.067/30 + 4/3600) = 0.1129 → (1.0 − 0.1129) / (1 + 4/30) = 0.7827;
    # margin 0.933 − 0.7827 = 0.151 → floor ⌊78.27⌋ / 100 = 0.78.
    assert "min-hit     hit@5     0.933     30  0.151   0.78" in run.out


def test_floors_suggest_write_keeps_comments_and_order(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    update(tmp_path, runs["good"])
    config = tmp_path / "recall-gate.yaml"
    config.write_text(COMMENTED)
    run = cli(["floors", "suggest", "--write", str(config)], tmp_path)
    assert run.code == 0, run.err
    assert run.out.endswith(
        "recall-gate: wrote gate floors into recall-gate.yaml: hit: 0.78, recall: 0.78, "
        "ndcg: 0.42\n"
    )
    # The deprecated gate.min_* keys are replaced where they stood; the rest is kept.
    assert config.read_text() == COMMENTED.replace(
        "  min_hit: null\n  min_recall: null\n  min_ndcg: null\n",
        "  floors:\n    hit: 0.78\n    recall: 0.78\n    ndcg: 0.42\n",
    )
    # The written floors are live: the degraded run now fails on them.
    assert (
        cli(["compare", "--current", str(runs["bad"]), "--max-regression", "1"], tmp_path).code == 1
    )


def test_floors_suggest_without_a_baseline_says_how_to_make_one(tmp_path: Path) -> None:
    run = cli(["floors", "suggest"], tmp_path)
    assert run.code == 2
    assert run.err == (
        "recall-gate: error: baselines/default.json: no baseline yet, so no evidence for a floor\n"
        "  fix: create it: `recall-gate baseline update --results results.json "
        "--out baselines/default.json`\n"
    )


# --- score / run compare with the committed baseline ----------------------------------


def test_score_compares_with_the_profile_baseline_and_equals_the_run_it_was_made_from(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    # nDCG at ranks 2-4 has more digits than a baseline file keeps: the run the
    # baseline was made from must still compare as unchanged, not "likely real".
    assert update(tmp_path, runs["good"], "--reason", "first").code == 0
    run = cli(["score", "--artifacts", str(tmp_path / "good.jsonl")], tmp_path)
    assert run.code == 0, run.err
    assert "Baseline: baselines/default.json" in run.out
    assert "likely real (" not in run.out  # a noise cell, not the legend
    assert "changed rank" not in run.out


def test_score_with_a_tolerance_fails_on_a_regression_against_the_profile_baseline(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    assert update(tmp_path, runs["good"], "--reason", "first").code == 0
    bad = tmp_path / "bad.jsonl"
    assert cli(["score", "--artifacts", str(bad)], tmp_path).code == 0  # report-only
    run = cli(["score", "--artifacts", str(bad), "--max-regression", "0.05"], tmp_path)
    assert run.code == 1, run.out


def test_score_with_a_tolerance_and_no_baseline_reports_no_baseline_yet(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    run = cli(
        ["score", "--artifacts", str(tmp_path / "good.jsonl"), "--max-regression", "0.05"],
        tmp_path,
    )
    assert run.code == 0, run.err
    assert "No baseline yet" in run.out


def test_score_without_a_baseline_prints_the_results_report(
    tmp_path: Path, runs: dict[str, Path]
) -> None:
    run = cli(["score", "--artifacts", str(tmp_path / "good.jsonl")], tmp_path)
    assert run.code == 0, run.err
    assert "Baseline:" not in run.out
    assert "No baseline yet" in run.out
    assert "recall-gate default: REPORT-ONLY" in run.out
