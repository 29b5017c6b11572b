"""``run`` reads its KB, cases and k from the settings as ``score`` and
``capture`` do: an action input (``RECALL_GATE_CASES``, ``RECALL_GATE_K``)
counts for ``run`` too, and the k it scores at is the settings', never copied
back into the config.

The built-in runner is replaced by a stand-in that retrieves each case's gold
first (no model, no store): what is under test is what ``run`` hands it and
how the capture is judged."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import recall_gate.runner
from cli_runner import run_cli
from recall_gate.adapters.config import Config
from recall_gate.core.records import Artifact, Card, Case

CARDS = {"parking": "Parking", "refills": "Refills"}
CASES = (
    "cases:\n"
    "  - {id: c1, language: en, case_type: golden, query: where to park, "
    "must_cite_one_of: [parking]}\n"
    "  - {id: c2, language: en, case_type: golden, query: refill time, "
    "must_cite_one_of: [refills]}\n"
)


class StandInRunner:
    """Retrieves each case's first gold card, then every other card: all hits."""

    def __init__(self) -> None:
        self.calls: list[tuple[Config, list[str], list[str]]] = []

    def __call__(
        self, config: Config, cards: Sequence[Card], cases: Sequence[Case], **_: Any
    ) -> Any:
        self.calls.append((config, [c.id for c in cards], [c.id for c in cases]))
        ids = [c.id for c in cards]
        artifacts = [
            Artifact(
                case_id=case.id,
                retrieved=(
                    *case.must_cite_one_of[:1],
                    *(i for i in ids if i not in case.must_cite_one_of[:1]),
                ),
            )
            for case in cases
        ]
        return type("Captured", (), {"artifacts": artifacts, "embedder_id": "stand-in@1"})()


@pytest.fixture
def runner(monkeypatch: pytest.MonkeyPatch) -> StandInRunner:
    stand_in = StandInRunner()
    monkeypatch.setattr(recall_gate.runner, "run_pipeline", stand_in)
    return stand_in


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A config naming the KB but no cases; the cases file beside it."""
    (tmp_path / ".git").mkdir()
    kb = tmp_path / "kb"
    kb.mkdir()
    for card_id, title in CARDS.items():
        (kb / f"{card_id}.md").write_text(
            f"---\nid: {card_id}\nlanguage: en\ntitle: {title}\n---\nAbout {title}.\n",
            encoding="utf-8",
        )
    (tmp_path / "recall-gate.yaml").write_text("kb: kb\n", encoding="utf-8")
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "cases.yaml").write_text(CASES, encoding="utf-8")
    return tmp_path


def test_run_reads_the_cases_the_environment_names_as_score_does(
    project: Path, runner: StandInRunner
) -> None:
    environ = {"RECALL_GATE_CASES": "eval/cases.yaml"}

    run = run_cli(["run", "--json", "run.json"], cwd=project, environ=environ)

    assert run.code == 0, run.err
    assert [ids for _, _, ids in runner.calls] == [["c1", "c2"]]
    assert "cases:    eval/cases.yaml\n" in run.out
    # score, given the capture run wrote, reads the same cases from the same variable.
    written = run_cli(
        ["run", "--no-score", "--artifacts-out", "capture.jsonl"], cwd=project, environ=environ
    )
    assert written.code == 0, written.err
    score = run_cli(["score", "--artifacts", "capture.jsonl"], cwd=project, environ=environ)
    assert score.code == 0, score.err
    assert "cases:    eval/cases.yaml\n" in score.out


def test_run_without_cases_anywhere_says_where_to_name_them(
    project: Path, runner: StandInRunner
) -> None:
    run = run_cli(["run"], cwd=project)

    assert run.code == 2
    assert "run has no KB or no cases" in run.err
    assert "RECALL_GATE_CASES" in run.err
    assert runner.calls == []


def test_run_scores_at_the_settings_k_and_leaves_the_config_as_written(
    project: Path, runner: StandInRunner
) -> None:
    environ = {"RECALL_GATE_CASES": "eval/cases.yaml", "RECALL_GATE_K": "1"}

    run = run_cli(["run", "--json", "run.json"], cwd=project, environ=environ)

    assert run.code == 0, run.err
    results = json.loads((project / "run.json").read_text(encoding="utf-8"))
    assert results["k"] == 1
    assert results["provenance"]["settings"]["k"] == 1  # the staleness check sees k = 1
    ((config, _, _),) = runner.calls
    assert config.k == 5  # the config's own value: k travels in the settings
