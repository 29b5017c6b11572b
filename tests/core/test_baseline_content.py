"""Whether a baseline would change: decided on its content, never on its stamps.

`same_content` compares what was measured and how (k, per-case records,
aggregates, fingerprints, settings); `created_at`, `git_sha`, `reason` and the
tool version are stamps of an update. `make_baseline(with_latency=False)`
leaves the capture's wall-clock latency out, so one commit evaluated twice
gives one file.
"""

from __future__ import annotations

from factories import case, results
from recall_gate.core.baseline import make_baseline, same_content
from recall_gate.core.records import Latency, LatencyStats, RetrievedDetail

CASES = [case("a", 1), case("b", 3), case("c", None, language="es-419")]


def test_baselines_that_differ_only_in_stamps_have_the_same_content() -> None:
    old = make_baseline(results(CASES), created_at="2026-01-01T00:00:00Z", git_sha="a" * 40,
                        reason="first")  # fmt: skip
    new = make_baseline(
        results(CASES, tool_version="0.3.0"),
        created_at="2026-02-02T00:00:00Z",
        git_sha="b" * 40,
        reason="after the merge",
    )
    assert old != new
    assert same_content(old, new)


def test_a_changed_case_record_is_a_change_of_content() -> None:
    old = make_baseline(results(CASES), created_at="2026-01-01T00:00:00Z", git_sha=None, reason="")
    moved = [case("a", 2), *CASES[1:]]  # one rank moves: the aggregates move with it
    new = make_baseline(results(moved), created_at="2026-01-01T00:00:00Z", git_sha=None, reason="")
    assert not same_content(old, new)


def test_a_changed_fingerprint_or_setting_is_a_change_of_content() -> None:
    stamps = {"created_at": "2026-01-01T00:00:00Z", "git_sha": None, "reason": ""}
    old = make_baseline(results(CASES, kb_fingerprint="sha256:kb1"), **stamps)  # type: ignore[arg-type]
    kb = make_baseline(results(CASES, kb_fingerprint="sha256:kb2"), **stamps)  # type: ignore[arg-type]
    settings = make_baseline(
        results(CASES, kb_fingerprint="sha256:kb1", settings={"chunking.max_chars": 120}),
        **stamps,  # type: ignore[arg-type]
    )
    assert not same_content(old, kb)
    assert not same_content(old, settings)


def test_a_baseline_without_latency_leaves_the_captures_wall_clock_out() -> None:
    timed = results(CASES).model_copy(
        update={"latency": Latency(overall=LatencyStats(p50_ms=3.0, p95_ms=9.0, max_ms=12.0, n=3))}
    )
    untimed = results(CASES)
    stamps = {"created_at": "2026-01-01T00:00:00Z", "git_sha": None, "reason": ""}
    assert make_baseline(timed, **stamps).latency is not None  # type: ignore[arg-type]
    dropped = make_baseline(timed, with_latency=False, **stamps)  # type: ignore[arg-type]
    assert dropped.latency is None
    assert dropped == make_baseline(untimed, **stamps)  # type: ignore[arg-type]
    assert same_content(dropped, make_baseline(timed, **stamps))  # type: ignore[arg-type]


def test_what_the_retriever_said_of_a_missed_case_s_cards_stays_out_of_the_baseline() -> None:
    plain = case("en-1", None)
    said = plain.model_copy(
        update={"retrieved_detail": {plain.ranked_ids[0]: RetrievedDetail(chunk_id="chroma-17")}}
    )
    run = results([said])
    baseline = make_baseline(run, created_at="2026-05-01T12:00:00Z", git_sha=None, reason="r")
    assert baseline.cases[0].retrieved_detail is None
    assert "retrieved_detail" not in baseline.model_dump(mode="json")["cases"][0]
    # A re-index that renames chunks is no change of what was measured.
    assert same_content(baseline, run)
    assert same_content(results([plain]), run)
