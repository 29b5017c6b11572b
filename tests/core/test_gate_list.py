"""The list of gates a comparison document is judged by (core/gate_list.py): the
run's verdict is decided from it once, and `judged()` (what actions-report runs
on a comparison file, untrusted data) decides it again from the document's own
figures with the same rules, whatever its verdict, regressions or gates say."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from factories import baseline_of, case, results
from recall_gate.adapters.files import atomic_write_text, dump_json
from recall_gate.adapters.results_store import read_comparison
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document, judged
from recall_gate.core.comparison_records import GateEntryRecord
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult
from recall_gate.core.traffic_diff import diff_traffic
from recall_gate.core.traffic_record import UnansweredLog, traffic_record


def many(n: int, rank: int | None, *, prefix: str = "c") -> list[CaseResult]:
    return [case(f"{prefix}{i:03d}", rank) for i in range(n)]


def document(
    current: Sequence[CaseResult],
    *,
    floors: Floors | None = None,
    tolerances: Tolerances | None = None,
    failed_cases: tuple[str, ...] = (),
) -> ComparisonDocument:
    comparison = compare_to_baseline(
        current=results(current).model_copy(update={"failed_cases": failed_cases}),
        baseline=baseline_of(many(20, 1)),
        baseline_path="baselines/default.json",
    )
    verdict = judge_comparison(
        comparison, floors=floors or Floors(), tolerances=tolerances or Tolerances()
    )
    return comparison_document(comparison, verdict, profile="default")


def half_lost() -> list[CaseResult]:
    return [case(f"c{i:03d}", 1 if i < 10 else None) for i in range(20)]


def regressed() -> ComparisonDocument:
    """Ten of twenty cases lose their hit: a likely-real drop beyond 0.02."""
    return document(half_lost(), tolerances=Tolerances.every(0.02))


def unchanged(**knobs: object) -> ComparisonDocument:
    return document(many(20, 1), tolerances=Tolerances.every(0.02), **knobs)  # type: ignore[arg-type]


def entries(doc: ComparisonDocument, kind: str) -> list[GateEntryRecord]:
    return [g for g in doc.gates if g.kind == kind]


def logged(n: int) -> list[LoggedQuery]:
    return [LoggedQuery(id=f"q{i}", query=f"query {i}") for i in range(n)]


def with_traffic(
    doc: ComparisonDocument, *, current: dict[str, list[str]], max_moved_share: float = 0.2
) -> ComparisonDocument:
    base = {f"q{i}": [f"card-{i}"] for i in range(30)}
    diff = diff_traffic(logged(30), base=base, current=current, k=5)
    record = traffic_record(diff, titles={}, max_moved_share=max_moved_share)
    return judged(doc.model_copy(update={"traffic": record}))[0]


def test_the_document_records_every_gate_with_its_outcome_and_reason() -> None:
    doc = regressed()
    assert doc.verdict == "fail"
    failing = [g for g in entries(doc, "tolerance") if g.outcome == "fails"]
    assert {g.subject for g in failing} >= {"hit · overall"}
    hit = next(g for g in failing if g.subject == "hit · overall")
    assert hit.enforced
    assert hit.setting["max_regression"] == 0.02
    assert hit.observed["delta"] == -0.5
    assert hit.reason.startswith(
        "-0.500 beyond the 0.020 tolerance, likely real (report-level p = "
    )
    assert [g.kind for g in doc.gates][:2] == ["integrity", "capture"]
    assert doc.regressions == len(failing)


def test_no_knob_set_is_report_only_and_keeps_what_would_fail() -> None:
    doc = document(half_lost())
    assert doc.verdict == "report-only"
    would = [g for g in doc.gates if not g.enforced and g.outcome == "fails"]
    assert any(g.kind == "tolerance" and g.subject == "hit · overall" for g in would)


def test_judged_fails_a_document_whose_regression_was_deleted() -> None:
    doc = regressed()
    gate = doc.gate.model_copy(update={"regressions": ()})
    edited = doc.model_copy(update={"gate": gate, "verdict": "pass", "regressions": 0})
    redone, changed = judged(edited)
    assert (redone.verdict, changed) == ("fail", True)
    assert redone.regressions == doc.regressions


def test_judged_fails_a_document_whose_verdict_was_edited() -> None:
    redone, changed = judged(regressed().model_copy(update={"verdict": "pass"}))
    assert (redone.verdict, changed) == ("fail", True)


def test_judged_fails_a_document_whose_failing_gates_were_removed() -> None:
    doc = regressed()
    kept = tuple(g for g in doc.gates if g.outcome == "passes")
    redone, _ = judged(doc.model_copy(update={"gates": kept, "verdict": "pass", "regressions": 0}))
    assert redone.verdict == "fail"


def test_judged_leaves_a_document_it_wrote_as_it_is() -> None:
    doc = regressed()
    assert judged(doc) == (doc, False)


def test_judged_fails_a_document_whose_traffic_entry_was_removed() -> None:
    moved = {f"q{i}": [f"other-{i}"] for i in range(30)}
    doc = with_traffic(unchanged(), current=moved)
    assert doc.verdict == "fail"
    assert [g.outcome for g in entries(doc, "traffic")] == ["fails"]
    kept = tuple(g for g in doc.gates if g.kind != "traffic")
    traffic = doc.traffic.model_copy(update={"failed": False}) if doc.traffic else None
    edited = doc.model_copy(update={"gates": kept, "verdict": "pass", "traffic": traffic})
    redone, changed = judged(edited)
    assert (redone.verdict, changed) == ("fail", True)


def test_the_traffic_gate_fails_when_the_capture_answered_no_logged_query() -> None:
    doc = with_traffic(unchanged(), current={})
    assert doc.verdict == "fail"
    (traffic,) = entries(doc, "traffic")
    assert (traffic.outcome, traffic.reason) == (
        "unjudged",
        "could not be judged: 30 of 30 logged queries not answered "
        "(more than max_unanswered_share 10.0 %)",
    )


def test_the_traffic_gate_passes_when_what_it_compared_did_not_move() -> None:
    same = {f"q{i}": [f"card-{i}"] for i in range(30)}
    doc = with_traffic(unchanged(), current=same)
    assert doc.verdict == "pass"
    assert [g.outcome for g in entries(doc, "traffic")] == ["passes"]


def test_a_capture_without_answers_to_the_log_fails_a_configured_traffic_gate() -> None:
    missing = UnansweredLog(queries="q.jsonl", snapshot="c.queries.jsonl", max_moved_share=0.2)
    doc, _ = judged(unchanged().model_copy(update={"traffic_unanswered": missing}))
    assert doc.verdict == "fail"
    assert [g.outcome for g in entries(doc, "traffic")] == ["unjudged"]


def test_a_capture_that_answered_no_case_fails_a_configured_gate() -> None:
    # Every case failed in the retriever: scored as misses, and a small n would
    # have left the drop exempt. The capture gate cannot judge it: a fail.
    few = [case(f"c{i:03d}", None) for i in range(5)]
    doc = document(
        few, tolerances=Tolerances.every(0.02), failed_cases=tuple(c.case_id for c in few)
    )
    assert doc.verdict == "fail"
    (capture,) = entries(doc, "capture")
    assert capture.outcome == "unjudged"
    assert capture.reason.startswith("could not be judged: 5 of 5 cases not answered")


def test_a_floor_on_a_run_that_scored_nothing_fails() -> None:
    doc = document([case("c000", None, gold=())], floors=Floors({HIT: 0.5}))
    assert doc.verdict == "fail"
    (hit,) = [g for g in entries(doc, "floor") if g.subject == "hit"]
    assert hit.outcome == "unjudged"


def test_a_written_document_read_back_is_judged_the_same(tmp_path: Path) -> None:
    """What actions-report does: the JSON file read back and judged again gives
    the verdict, the counts and every gate's outcome the command gave."""
    moved = {f"q{i}": [f"other-{i}"] for i in range(30)}
    for doc in (regressed(), unchanged(), with_traffic(unchanged(), current=moved)):
        path = tmp_path / "comparison.json"
        atomic_write_text(path, dump_json(doc.model_dump(mode="json")))
        redone, changed = judged(read_comparison(path))
        assert not changed
        assert (redone.verdict, redone.regressions) == (doc.verdict, doc.regressions)
        assert [(g.kind, g.subject, g.outcome, g.reason) for g in redone.gates] == [
            (g.kind, g.subject, g.outcome, g.reason) for g in doc.gates
        ]
