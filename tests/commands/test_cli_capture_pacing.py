"""`recall-gate capture` at scale: --concurrency, --retries, --timeout,
--max-failures, --quiet, and --resume from the journal an interrupted capture
leaves. Bad values exit 2 with one message. Synthetic cases; no timing asserts."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import recall_gate
from cli_runner import run_cli, without_latency
from recall_gate.retrievers.capture import Progress
from recall_gate.retrievers.progress_line import ProgressLine

N = 60

APP = '''
import os, signal, threading
from pathlib import Path

CALLS = Path(__file__).parent / "calls.txt"
HANG = threading.Event()
LOCK = threading.Lock()
SENT = []

def answer(query, k):
    i = int(query.rsplit(" ", 1)[1])
    cards = [f"card-{(i + j) % 7}" for j in range(k)]
    return cards if i % 2 == 0 else [cards[1], cards[0], *cards[2:]]

def search(query, k):
    with CALLS.open("a") as calls:
        calls.write(query + "\\n")
    return answer(query, k)

def hangs(query, k):
    if query.endswith(" 5"):
        HANG.wait(30)
    return answer(query, k)

def broken(query, k):
    if query.endswith((" 3", " 7")):
        raise ValueError("bad query")
    return answer(query, k)

def interrupted(query, k):
    """Answers 10 cases, then the user presses Ctrl-C (SIGINT to the process)."""
    with CALLS.open("a") as calls:
        calls.write(query + "\\n")
    with LOCK:  # once, whichever thread counts past ten first
        if sum(1 for _ in CALLS.open()) >= 10 and not SENT:
            SENT.append(True)
            os.kill(os.getpid(), signal.SIGINT)
            return answer(query, k)
    if SENT:  # a user is slower than the CPU: the capture cannot finish before the signal lands
        HANG.wait(1)
    return answer(query, k)

def killed(query, k):
    """Answers 25 cases, then the process is killed mid-capture (a cancelled CI job)."""
    with CALLS.open("a") as calls:
        calls.write(query + "\\n")
    if sum(1 for _ in CALLS.open()) > 25:
        os.kill(os.getpid(), 9)
    return answer(query, k)
'''


@pytest.fixture
def app(tmp_path: Path) -> Path:
    lines = ["cases:"]
    for i in range(N):
        lines.append(
            f"  - {{id: c{i:03d}, language: en, case_type: golden, "
            f"query: 'synthetic question {i}', must_cite_one_of: [card-{i % 7}]}}"
        )
    (tmp_path / "cases.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (tmp_path / "recall-gate.yaml").write_text("k: 3\ncases: cases.yaml\n", encoding="utf-8")
    (tmp_path / "pace_rag.py").write_text(APP, encoding="utf-8")
    sys.modules.pop("pace_rag", None)
    return tmp_path


def lines_without_timing(path: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    for line in lines:
        line.pop("latency_ms", None)
    return lines


def test_any_concurrency_writes_the_same_capture_and_scores(app: Path) -> None:
    one = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "1.jsonl",
                   "--concurrency", "1"], cwd=app)  # fmt: skip
    many = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "16.jsonl",
                    "--concurrency", "16"], cwd=app)  # fmt: skip
    assert one.code == many.code == 0, one.err + many.err
    assert lines_without_timing(app / "1.jsonl") == lines_without_timing(app / "16.jsonl")
    assert (
        without_latency(one.out).split("\n\n", 1)[1]
        == without_latency(many.out).split("\n\n", 1)[1]
    )
    assert "Query latency of the capture" in one.out


def test_every_line_records_its_latency(app: Path) -> None:
    result = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl"], cwd=app)
    assert result.code == 0, result.err
    latencies = [json.loads(line)["latency_ms"] for line in (app / "a.jsonl").open()]
    assert len(latencies) == N
    assert all(isinstance(ms, float) and ms >= 0 for ms in latencies)


def test_a_hanging_query_times_out_with_exit_2_naming_the_case(app: Path) -> None:
    argv = ["capture", "--retriever", "pace_rag:hangs", "--out", "a.jsonl"]
    try:
        result = run_cli([*argv, "--timeout", "0.2", "--retries", "0"], cwd=app)
    finally:
        sys.modules["pace_rag"].HANG.set()
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: case 'c005': the retriever timed out after 0.2 s "
        "(query 'synthetic question 5')\n  fix: make the retriever answer this query"
    )
    assert not (app / "a.jsonl").exists()


def test_max_failures_records_failures_as_misses_and_says_so(app: Path) -> None:
    argv = ["capture", "--retriever", "pace_rag:broken", "--out", "a.jsonl", "--json", "r.json"]
    result = run_cli([*argv, "--max-failures", "2"], cwd=app)
    assert result.code == 0, result.err
    assert (
        "recall-gate: warning: 2 case(s) the retriever could not answer are recorded as "
        "failures and score as misses (--max-failures): 'c003', 'c007'\n"
    ) in result.err
    lines = {line["case_id"]: line for line in map(json.loads, (app / "a.jsonl").open())}
    assert lines["c003"]["error"] == "raised ValueError: bad query"
    assert lines["c003"]["retrieved"] == []
    cases = {c["case_id"]: c for c in json.loads((app / "r.json").read_text())["cases"]}
    assert cases["c003"]["metrics"]["retrieval_hit_at_k"] == 0.0
    over = run_cli([*argv, "--max-failures", "1"], cwd=app)
    assert over.code == 2
    assert over.err.startswith("recall-gate: error: case 'c007': the retriever raised ValueError")


BAD_FLAGS = {
    "--concurrency 0": (["--concurrency", "0"], "--concurrency: must be a positive integer"),
    "--shard 4/3": (["--shard", "4/3"], "--shard: shard 4/3 does not exist"),
    "--shard x": (["--shard", "x"], "--shard: expected I/N with 1 <= I <= N"),
    "--shard 0/3": (["--shard", "0/3"], "--shard: shard 0/3 does not exist"),
    "--retries -1": (["--retries", "-1"], "--retries: must be 0 or more"),
    "--timeout 0": (["--timeout", "0"], "--timeout: must be a positive number of seconds"),
    "--max-failures x": (["--max-failures", "x"], "--max-failures: expected 0 or a positive"),
}


@pytest.mark.parametrize(("flags", "message"), BAD_FLAGS.values(), ids=BAD_FLAGS.keys())
def test_bad_pacing_flags_exit_2_with_one_message(
    app: Path, flags: list[str], message: str
) -> None:
    result = run_cli(
        ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", *flags], cwd=app
    )
    assert result.code == 2
    assert result.err.count("recall-gate: error:") == 1
    assert message in result.err
    assert not (app / "calls.txt").exists()  # refused before the retriever was asked


def test_a_bad_capture_section_in_the_config_exits_2_naming_the_field(app: Path) -> None:
    (app / "recall-gate.yaml").write_text("cases: cases.yaml\ncapture: {concurrency: 0}\n")
    result = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl"], cwd=app)
    assert result.code == 2
    assert "capture.concurrency" in result.err


def test_an_interrupted_capture_resumed_asks_at_most_the_remaining_cases_plus_concurrency(
    app: Path,
) -> None:
    concurrency = 4
    argv = ["capture", "--retriever", "pace_rag:killed", "--out", "a.jsonl", "--quiet"]
    killed = subprocess.run(
        [sys.executable, "-c", "from recall_gate.cli import entry_point as e; e()", *argv,
         "--concurrency", str(concurrency)],
        cwd=app, capture_output=True, text=True, check=False,
        env={**os.environ, "PYTHONPATH": str(Path(recall_gate.__file__).parents[1])},
    )  # fmt: skip
    assert killed.returncode == -9
    assert not (app / "a.jsonl").exists()
    journal = (app / "a.jsonl.journal").read_text().splitlines()
    answered = len(journal) - 1  # the header, then one line per answered case
    assert 0 < answered <= 25
    (app / "calls.txt").unlink()
    resume = ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--resume"]
    resumed = run_cli([*resume, "--concurrency", str(concurrency)], cwd=app)
    # the identity names the retriever spec: resume with the same one
    assert resumed.code == 2
    assert "is the journal of another capture (retriever: journal 'pace_rag:killed'" in (
        resumed.err
    )
    (app / "pace_rag.py").write_text(
        (app / "pace_rag.py").read_text().replace("def killed(", "def _killed(")
        + "\nkilled = search\n"
    )
    sys.modules.pop("pace_rag", None)
    resumed = run_cli(
        ["capture", "--retriever", "pace_rag:killed", "--out", "a.jsonl", "--resume",
         "--concurrency", str(concurrency)], cwd=app,
    )  # fmt: skip
    assert resumed.code == 0, resumed.err
    asked = (app / "calls.txt").read_text().splitlines()
    assert len(asked) <= (N - answered) + concurrency
    assert len(asked) == N - answered  # a killed case's line is never half-kept
    assert f"({answered} from the journal)" in resumed.err
    assert not (app / "a.jsonl.journal").exists()
    fresh = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "b.jsonl"], cwd=app)
    assert fresh.code == 0
    assert lines_without_timing(app / "a.jsonl") == lines_without_timing(app / "b.jsonl")


def test_resume_without_a_journal_exits_2(app: Path) -> None:
    argv = ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--resume"]
    result = run_cli(argv, cwd=app)
    assert result.code == 2
    assert result.err.startswith(
        "recall-gate: error: --resume: no unfinished capture to a.jsonl (a.jsonl.journal not found)"
    )


def test_a_journal_from_another_capture_exits_2_naming_what_differs(app: Path) -> None:
    (app / "a.jsonl.journal").write_text(
        json.dumps({"journal": 1, "capture": {"retriever": "pace_rag:search", "k": 5}}) + "\n"
    )
    argv = ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--resume"]
    result = run_cli(argv, cwd=app)
    assert result.code == 2
    assert "a.jsonl.journal is the journal of another capture (" in result.err
    assert "k: journal 5, now 3" in result.err
    assert not (app / "calls.txt").exists()


def test_progress_is_a_plain_line_without_a_terminal_and_nothing_when_quiet(app: Path) -> None:
    loud = run_cli(["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl"], cwd=app)
    quiet = run_cli(
        ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--quiet"], cwd=app
    )
    assert "\r" not in loud.err
    assert "capturing:" not in quiet.err


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_plain_progress_line_comes_every_few_seconds_with_rate_and_eta() -> None:
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, live=False, every=5.0, clock=clock)
    for done in range(1, 101):
        clock.now = done * 0.1  # ten cases a second
        line(Progress(done=done, total=100, failed=0, elapsed=clock.now))
    assert stream.getvalue().splitlines() == [
        "recall-gate: capturing: 50/100 cases · 10.0/s · ETA 5s",
    ]


def test_the_live_bar_redraws_one_line_and_ends_it() -> None:
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, live=True, clock=clock)
    for done in range(1, 5):
        clock.now = done * 1.0
        line(Progress(done=done, total=4, failed=1, elapsed=clock.now))
    text = stream.getvalue()
    assert text.count("\r\x1b[2K") == 4
    assert text.endswith("4/4 cases · 1.0/s · ETA 0s · 1 failed\n")


def test_p50_p95_and_max_latency_are_reported_overall_and_per_group(app: Path) -> None:
    argv = ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--json", "r.json"]
    result = run_cli(argv, cwd=app)
    assert result.code == 0, result.err
    assert "Query latency of the capture (report-only; no gate reads it):" in result.out
    latency = json.loads((app / "r.json").read_text())["latency"]
    assert latency["overall"]["n"] == N
    assert set(latency["overall"]) == {"p50_ms", "p95_ms", "max_ms", "n"}
    assert (
        latency["overall"]["p50_ms"] <= latency["overall"]["p95_ms"] <= latency["overall"]["max_ms"]
    )
    assert set(latency["by_language"]) == {"en"}
    rescored = run_cli(["score", "--artifacts", "a.jsonl", "--json", "s.json"], cwd=app)
    assert rescored.code == 0, rescored.err
    assert json.loads((app / "s.json").read_text())["latency"] == latency


def test_ctrl_c_keeps_the_journal_and_says_how_to_resume(app: Path) -> None:
    argv = ["capture", "--retriever", "pace_rag:interrupted", "--out", "a.jsonl", "--quiet"]
    done = subprocess.run(
        [sys.executable, "-c", "from recall_gate.cli import entry_point as e; e()", *argv],
        cwd=app, capture_output=True, text=True, check=False, timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(recall_gate.__file__).parents[1])},
    )  # fmt: skip
    assert done.returncode == 130
    assert (
        "recall-gate: capture interrupted: the answers so far are kept in a.jsonl.journal; "
        "the same command with --resume asks only the cases not yet answered" in done.stderr
    )
    assert "Traceback" not in done.stderr
    assert not (app / "a.jsonl").exists()
    assert len((app / "a.jsonl.journal").read_text().splitlines()) > 1


def test_the_comparison_shows_the_latency_change_against_a_baseline_that_has_it(
    app: Path,
) -> None:
    argv = ["capture", "--retriever", "pace_rag:search", "--out", "a.jsonl", "--quiet"]
    first = run_cli([*argv, "--json", "r1.json"], cwd=app)
    assert first.code == 0, first.err
    update = ["baseline", "update", "--results", "r1.json", "--reason", "first"]
    assert run_cli([*update, "--out", "baselines/default.json"], cwd=app).code == 0
    second = run_cli(argv, cwd=app)  # compares with baselines/default.json beside the config
    assert second.code == 0, second.err
    assert (
        "Query latency of the capture (report-only; no gate reads it), against the baseline's:"
        in second.out
    )
    table = second.out.split("against the baseline's:", 1)[1]
    overall = next(line for line in table.splitlines() if line.startswith("overall"))
    assert overall.count(" → ") == 3  # p50, p95 and max: before → after (±change)


def test_a_first_query_far_slower_than_the_rest_does_not_set_the_eta() -> None:
    stream, clock = io.StringIO(), Clock()
    line = ProgressLine(stream, live=False, every=5.0, clock=clock)
    # The first case takes 60 s (an index built on first use), then ten a second.
    for done in range(1, 101):
        clock.now = 60.0 + (done - 1) * 0.1
        line(Progress(done=done, total=100, failed=0, elapsed=clock.now))
    # At 51 done, 65.0 s: 50 cases in the 5 s since the first → 10/s, 49 left → 5 s
    # (from the start, 51 / 65 s = 0.8/s would say ETA 1m02s).
    assert stream.getvalue().splitlines() == [
        "recall-gate: capturing: 1/100 cases · 0.0/s · ETA ?",  # one case: no rate yet
        "recall-gate: capturing: 51/100 cases · 10.0/s · ETA 5s",
    ]
