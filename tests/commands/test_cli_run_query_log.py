"""`run` with a query log, as `capture` does it: the built-in runner asks the
logged queries with the cases (same store, same settings), `--artifacts-out X`
writes their snapshot beside the capture (X.queries.jsonl), and with a base
snapshot the comparison carries the traffic diff, whether or not the capture is
written. The model is replaced by the runner tests' stand-in embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import recall_gate.runner.pipeline
from cli_runner import run_cli
from recall_gate.adapters.query_snapshot import load_snapshot
from stand_in_embedder import HashingEmbedder

CARDS = {
    "parking": ("Parking", "The garage on Elm Street is free for patients and visitors."),
    "refills": ("Refills", "Refills take two business days once the doctor approves them."),
    "hours": ("Opening hours", "The clinic opens at eight and closes at six on weekdays."),
    "billing": ("Billing", "Invoices are sent by mail and can be paid online by card."),
}
CASES = [
    ("c1", "is the garage free", "parking"),
    ("c2", "how long does a refill take", "refills"),
    ("c3", "when does the clinic open", "hours"),
]
LOGGED = [
    ("q1", "garage free for visitors", 10),
    ("q2", "refill two days doctor", 5),
    ("q3", "pay invoice online by card", 3),
    ("q4", "clinic closes at six", 1),
]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(recall_gate.runner.pipeline, "Embedder", HashingEmbedder)
    (tmp_path / ".git").mkdir()
    write_kb(tmp_path, CARDS)
    (tmp_path / "cases.jsonl").write_text(
        "".join(
            json.dumps(
                {
                    "id": i,
                    "language": "en",
                    "case_type": "golden",
                    "query": q,
                    "must_cite_one_of": [gold],
                }
            )
            + "\n"
            for i, q, gold in CASES
        )
    )
    (tmp_path / "queries.jsonl").write_text(
        "".join(
            json.dumps({"id": i, "query": q, "language": "en", "weight": w}) + "\n"
            for i, q, w in LOGGED
        )
    )
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 2\nkb: kb\ncases: cases.jsonl\nqueries: queries.jsonl\n"
        "store: {path: store}\nchunking: {max_chars: 200}\n"
    )
    return tmp_path


def write_kb(root: Path, cards: dict[str, tuple[str, str]]) -> None:
    kb = root / "kb"
    kb.mkdir(exist_ok=True)
    for old in kb.glob("*.md"):
        old.unlink()
    for card_id, (title, body) in cards.items():
        (kb / f"{card_id}.md").write_text(
            f"---\nid: {card_id}\nlanguage: en\ntitle: {title}\n---\n{body}\n"
        )


def run(project: Path, *args: str) -> str:
    done = run_cli(["run", *args], cwd=project, environ={"HF_HUB_OFFLINE": "1"})
    assert done.code == 0, done.err
    return done.err


def make_base(project: Path) -> None:
    run(project, "--artifacts-out", "base.jsonl", "--json", "base.json")
    update = run_cli(
        ["baseline", "update", "--results", "base.json", "--queries-snapshot",
         "base.queries.jsonl", "--created-at", "2026-01-01T00:00:00Z", "--git-sha", "0" * 40],
        cwd=project,
    )  # fmt: skip
    assert update.code == 0, update.err


def test_run_writes_the_logged_queries_snapshot_beside_its_artifacts(project: Path) -> None:
    err = run(project, "--artifacts-out", "cap.jsonl")
    assert "4 of 4 logged queries → cap.queries.jsonl" in err
    snapshot = load_snapshot(project / "cap.queries.jsonl")
    assert snapshot.k == 2
    assert list(snapshot.rankings) == ["q1", "q2", "q3", "q4"]
    assert all(len(r) == 2 for r in snapshot.rankings.values())
    assert snapshot.rankings["q1"][0] == "parking"
    assert snapshot.rankings["q3"][0] == "billing"
    # The capture holds the cases alone: logged queries are never scored.
    assert len((project / "cap.jsonl").read_text().splitlines()) == len(CASES)
    # The capture job of the two-job PR check (`run --no-score`) keeps the same answers.
    run(project, "--no-score", "--artifacts-out", "job/capture.jsonl")
    assert load_snapshot(project / "job" / "capture.queries.jsonl") == snapshot


def test_run_without_a_query_log_writes_no_snapshot(project: Path) -> None:
    (project / "recall-gate.yaml").write_text(
        "k: 2\nkb: kb\ncases: cases.jsonl\nstore: {path: store}\n"
    )
    err = run(project, "--artifacts-out", "cap.jsonl")
    assert not (project / "cap.queries.jsonl").exists()
    assert "logged queries" not in err


def test_run_with_a_base_snapshot_shows_the_traffic_diff(project: Path) -> None:
    make_base(project)
    # Unchanged: nothing moved.
    run(project, "--comparison-json", "same.json")
    same = json.loads((project / "same.json").read_text())["traffic"]
    assert same["movers"] == []
    assert same["groups"]["overall"]["weighted"]["moved"] == 0.0
    # The billing card is gone: the queries that found it move, and only they.
    write_kb(project, {k: v for k, v in CARDS.items() if k != "billing"})
    run(project, "--comparison-json", "pr.json", "--comment-markdown", "c.md")
    traffic = json.loads((project / "pr.json").read_text())["traffic"]
    assert traffic["groups"]["overall"]["n"] == 4
    movers = {m["id"]: m for m in traffic["movers"]}
    assert movers["q3"]["before"][0] == "billing"
    assert "billing" not in movers["q3"]["after"]
    # Every mover had the billing card in its top 2: nothing else changed.
    assert all("billing" in m["before"] for m in movers.values())
    assert traffic["groups"]["overall"]["weighted"]["moved"] > 0
    assert "<details><summary>Query traffic:" in (project / "c.md").read_text()
