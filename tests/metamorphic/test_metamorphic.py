"""The gate, tried with base → pull-request pairs whose truth is known by construction.

Each pair starts from one seeded base (tests/metamorphic/pairs.py: 3 languages × 20
golden cases, a Docusaurus site or plain language folders, a query log, the gate
set in the base's ``recall-gate.yaml``, a baseline written by ``recall-gate
baseline update``) and changes ONE thing in the pull request:

- a change that makes retrieval worse in a way the gate promises to see must end
  the judge job with exit 1 (the gate failed) or 2 (the input was refused), never
  0, and a failed verdict must name, among its failing gates, the one that
  promises to see the change (``test_worse_pr_is_never_passed``);
- a change that leaves every card in every top k where it was must pass (exit 0)
  with Δ 0 on every metric in every group and no traffic moved
  (``test_noop_pr_passes_with_zero_delta``).

Every pair runs through the commands the action's jobs run (``capture`` where the
pull request's retriever runs; ``score --capture-dir … --comparison-json``,
``actions-report`` and the verdict it enforces where it is judged), with the pull
request event's base SHA, in process.

When a new gate or input lands, it joins this suite: a planted change it must
catch, and a no-op it must let pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from git_repo import needs_git

from .changes import NOOP, REFUSED, WORSE, Change, judge_pair
from .pairs import (
    DEPTH,
    HIT_FLOOR,
    LANGUAGES,
    Judged,
    K,
    World,
)

pytestmark = needs_git

METRICS = ("retrieval_hit_at_k", "retrieval_recall_at_k", "retrieval_ndcg_at_k")


@pytest.mark.parametrize("name", list(WORSE))
def test_worse_pr_is_never_passed(worlds: dict[str, World], tmp_path: Path, name: str) -> None:
    change = WORSE[name]
    judged = judge_pair(worlds, change, tmp_path)
    assert judged.exit_code in (1, 2), judged.why()
    # `recall-gate score` run by hand says the same as the job (3 would be a crash).
    assert judged.score_code in (1, 2), judged.why()
    if judged.exit_code == 1 and judged.comparison is None:
        # A gate failed before any comparison: the dataset's integrity, and only it.
        assert change.caught_by in ("integrity", REFUSED), judged.why()
        assert "dataset integrity failed" in judged.log, judged.why()
    elif judged.exit_code == 1:
        # Failed, naming why, by the gate that promises to see this change (others may too).
        assert judged.comparison is not None
        against = [g for g in _gates(judged.comparison) if g["outcome"] != "passes"]
        assert all(g["reason"] for g in against), against
        if change.caught_by != REFUSED:
            assert change.caught_by in {g["kind"] for g in against}, judged.why()


def _gates(comparison: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The enforced gates of the one verdict, each with its outcome and reason."""
    return [g for g in comparison["gates"] if g["enforced"]]


def _deltas(comparison: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    deltas: list[Mapping[str, Any]] = comparison["deltas"]
    return deltas


def assert_unmoved(judged: Judged) -> None:
    """The job passed, every metric of every group moved by 0 on every case both sides
    hold, no case flipped or moved rank, and no logged query moved."""
    assert (judged.exit_code, judged.score_code, judged.verdict) == (0, 0, "pass"), judged.why()
    assert judged.comparison is not None
    gates = _gates(judged.comparison)
    assert {g["kind"] for g in gates} >= {"tolerance", "traffic"}, gates
    assert [g for g in gates if g["outcome"] != "passes"] == []
    deltas = _deltas(judged.comparison)
    groups = {d["group"] for d in deltas}
    assert {"overall", *(f"language:{lang}" for lang in LANGUAGES)} <= groups, groups
    assert {d["metric"] for d in deltas} >= set(METRICS)
    moved = [d for d in deltas if d["delta"] != 0 or d["baseline"] != d["current"]]
    assert moved == [], judged.why()
    assert all(d["n"] == d["n_total"] for d in deltas), "every case compared"
    flips = judged.comparison["flips"]
    assert flips == {"hit_to_miss": [], "miss_to_hit": [], "rank_moves": []}, flips
    traffic = judged.comparison["traffic"]
    assert traffic["groups"]["overall"]["n"] == 30, "every logged query compared"
    assert traffic["groups"]["overall"]["weighted"]["moved"] == 0.0


@pytest.mark.parametrize("name", list(NOOP))
def test_noop_pr_passes_with_zero_delta(
    worlds: dict[str, World], tmp_path: Path, name: str
) -> None:
    assert_unmoved(judge_pair(worlds, NOOP[name], tmp_path))


def test_an_integrity_failure_is_a_failed_gate_never_an_error_of_the_capture(
    worlds: dict[str, World], tmp_path: Path
) -> None:
    """A pull request whose KB loses a page a case cites fails the integrity gate
    before any comparison: the job's verdict is `fail` (exit 1, as `score` itself
    exits), not an `error` blaming the capture."""
    judged = judge_pair(worlds, WORSE["pr-deletes-a-translation-and-answers-in-english"], tmp_path)
    assert (judged.score_code, judged.exit_code, judged.verdict) == (1, 1, "fail"), judged.why()


def test_a_pr_that_rewrites_the_query_snapshot_is_told_so(
    worlds: dict[str, World], tmp_path: Path
) -> None:
    """The committed snapshot is the traffic gate's baseline: a pull request that
    rewrites it is judged by the base's and told so, as a baseline edit is, so a
    reviewer sees the next pull request's bar move."""
    judged = judge_pair(
        worlds, WORSE["pr-rewrites-only-the-base-snapshot-and-moves-the-traffic"], tmp_path
    )
    assert judged.exit_code == 1, judged.why()
    assert judged.comparison is not None
    assert judged.comparison["traffic"]["snapshot_edited_in_pr"] == "changed"
    assert "This pull request changes the query snapshot" in judged.comment, judged.comment


@pytest.mark.parametrize("name", ["cases.jsonl", "recall-gate.yaml", "queries.jsonl"])
def test_a_pr_file_linked_to_a_file_outside_the_checkout_is_refused_unread(
    worlds: dict[str, World], tmp_path: Path, name: str
) -> None:
    """The judge reads the pull request as data: a config, cases file or query log
    that the pull request turns into a link to a file of the runner (a token in a
    credentials file) is refused, and no line of that file reaches the log, the
    comment or the comparison."""
    secret = "ghs_planted0secret0value0123456789"
    outside = tmp_path / "runner-credentials"
    outside.write_text(f'{{"id": "x", "query": "{secret}"}}\n{secret}\n', encoding="utf-8")

    def link(world: World, repo: Path) -> None:
        (repo / name).unlink()
        (repo / name).symlink_to(outside)

    judged = judge_pair(worlds, Change(lambda world: world.capture, edit=link), tmp_path)
    assert judged.exit_code != 0, judged.why()
    assert secret not in judged.log + judged.comment + json.dumps(judged.comparison)


def test_every_worse_change_names_the_gate_that_must_catch_it() -> None:
    assert [name for name, change in WORSE.items() if change.caught_by is None] == []


def test_the_base_world_is_what_the_pairs_assume(worlds: dict[str, World]) -> None:
    """The planted changes need a base where each language has hits to lose,
    misses to delete and gold below the cut to permute."""
    for world in worlds.values():
        for language in LANGUAGES:
            cases = [c["id"] for c in world.cases if c["language"] == language]
            hitting = [c for c in cases if world.hits(c)]
            assert 12 <= len(hitting) < len(cases), (world.layout.name, language)
        hits = sum(world.hits(c["id"]) for c in world.cases)
        assert hits / len(world.cases) >= HIT_FLOOR + 0.01, "the base clears its floor"
        below = [
            c
            for c, r in world.capture.rankings.items()
            if world.gold(c) in r[K:DEPTH] and not world.hits(c)
        ]
        assert below, "some gold lies below the cut"
