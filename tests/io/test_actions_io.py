"""The Actions adapter: runner files, workflow commands, the event, and what a
comparison becomes there. One named test per rule."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from recall_gate.errors import InputError
from recall_gate.io.actions_runner import (
    SUMMARY_MAX_BYTES,
    ActionsRunner,
    comparison_annotations,
    comparison_outputs,
    escape_data,
    escape_property,
    load_event,
)

HIT = "retrieval_hit_at_k"
RECALL = "retrieval_recall_at_k"


def runner(tmp_path: Path, *, commands: bool = True) -> tuple[ActionsRunner, io.StringIO]:
    stream = io.StringIO()
    return (
        ActionsRunner(
            output_path=tmp_path / "output",
            summary_path=tmp_path / "summary.md",
            stream=stream,
            commands=commands,
        ),
        stream,
    )


# -- workflow commands ---------------------------------------------------------------


def test_a_message_cannot_end_the_command_or_start_another() -> None:
    assert escape_data("50%\r\n::error::x") == "50%25%0D%0A::error::x"


def test_a_property_also_escapes_colon_and_comma() -> None:
    assert escape_property("a: b, c%") == "a%3A b%2C c%25"


def test_annotations_are_workflow_commands_inside_actions(tmp_path: Path) -> None:
    actions, stream = runner(tmp_path)
    actions.annotate("warning", "line 1\nline 2", title="recall-gate: x")
    assert stream.getvalue() == "::warning title=recall-gate%3A x::line 1%0Aline 2\n"


def test_annotations_are_plain_lines_outside_actions(tmp_path: Path) -> None:
    actions, stream = runner(tmp_path, commands=False)
    actions.annotate("error", "below the floor", title="recall-gate")
    assert stream.getvalue() == "error: recall-gate: below the floor\n"


# -- outputs and summary ---------------------------------------------------------------


def test_outputs_use_a_heredoc_so_values_may_span_lines(tmp_path: Path) -> None:
    actions, _ = runner(tmp_path)
    actions.set_outputs({"verdict": "pass", "note": "a\nb"})
    lines = (tmp_path / "output").read_text().splitlines()
    assert lines[0].startswith("verdict<<recall_gate_")
    assert lines[1:3] == ["pass", lines[0].split("<<")[1]]
    assert lines[3].startswith("note<<")
    assert lines[4:6] == ["a", "b"]


def test_an_invalid_output_name_is_refused(tmp_path: Path) -> None:
    actions, _ = runner(tmp_path)
    with pytest.raises(ValueError, match="invalid step output name"):
        actions.set_outputs({"bad name": "x"})


def test_outside_actions_outputs_and_summary_are_dropped() -> None:
    stream = io.StringIO()
    actions = ActionsRunner.from_environ({}, stream=stream)
    actions.set_outputs({"verdict": "pass"})
    actions.append_summary("# report")
    assert (actions.output_path, actions.summary_path, actions.commands) == (None, None, False)


def test_the_summary_is_appended(tmp_path: Path) -> None:
    actions, _ = runner(tmp_path)
    (tmp_path / "summary.md").write_text("earlier step\n")
    actions.append_summary("# report")
    assert (tmp_path / "summary.md").read_text() == "earlier step\n# report\n"


def test_a_summary_over_one_mib_is_cut_at_a_line_with_a_note(tmp_path: Path) -> None:
    actions, _ = runner(tmp_path)
    row = "| case | 0.500 |\n"
    actions.append_summary(row * (SUMMARY_MAX_BYTES // len(row) + 10))
    text = (tmp_path / "summary.md").read_text()
    assert len(text.encode()) <= SUMMARY_MAX_BYTES
    assert "cut to fit GitHub's 1 MiB job-summary limit" in text
    kept = text.split("\n\n> [!NOTE]")[0].strip("\n").split("\n")
    assert set(kept) == {"| case | 0.500 |"}, "no row is left half-written"


def test_an_unwritable_runner_file_is_an_input_error(tmp_path: Path) -> None:
    actions = ActionsRunner(
        output_path=tmp_path / "missing-dir" / "output",
        summary_path=None,
        stream=io.StringIO(),
        commands=True,
    )
    with pytest.raises(InputError, match="GITHUB_OUTPUT"):
        actions.set_outputs({"verdict": "pass"})


# -- the event ----------------------------------------------------------------------------


def write_event(tmp_path: Path, payload: Any) -> Path:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    return path


def test_a_pull_request_event_gives_number_head_and_label(tmp_path: Path) -> None:
    event = load_event(
        write_event(
            tmp_path,
            {
                "pull_request": {"number": 7, "head": {"sha": "a" * 40, "label": "o:b"}},
                "repository": {"full_name": "o/r"},
                "sender": {"login": "someone"},
            },
        )
    )
    assert (event.repository, event.pr_number, event.head_sha, event.head_label) == (
        "o/r",
        7,
        "a" * 40,
        "o:b",
    )


def test_a_workflow_run_event_gives_no_pr_number_even_when_the_payload_lists_one(
    tmp_path: Path,
) -> None:
    event = load_event(
        write_event(
            tmp_path,
            {
                "workflow_run": {
                    "head_sha": "b" * 40,
                    "head_branch": "feature",
                    "head_repository": {"full_name": "fork/r", "owner": {"login": "fork"}},
                    "pull_requests": [{"number": 1}],
                },
                "repository": {"full_name": "o/r"},
            },
        )
    )
    assert event.pr_number is None
    assert (event.head_sha, event.head_label) == ("b" * 40, "fork:feature")


def test_another_event_gives_only_the_repository(tmp_path: Path) -> None:
    event = load_event(write_event(tmp_path, {"ref": "x", "repository": {"full_name": "o/r"}}))
    assert (event.repository, event.pr_number, event.head_sha) == ("o/r", None, None)


def test_a_malformed_event_names_the_field(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="pull_request"):
        load_event(write_event(tmp_path, {"pull_request": {"number": "x"}}))


# -- what a comparison becomes ------------------------------------------------------------


def comparison(**overrides: Any) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "kind": "recall-gate-comparison",
        "k": 5,
        "verdict": "pass",
        "hit": 0.8125,
        "recall": 0.75,
        "ndcg": 1.0,
        "n": 16,
        "regressions": 0,
        "gate": {"failed_floors": [], "regressions": [], "integrity_problems": []},
        "would_fail_detail": {"tolerance": 0.05, "failed_floors": [], "regressions": []},
        "baseline": {"status": "ok", "source": "baselines/default.json", "stale": []},
    }
    payload.update(overrides)
    return payload


def test_outputs_map_one_to_one_and_an_absent_mean_is_empty() -> None:
    assert comparison_outputs(comparison(ndcg=None)) == {
        "verdict": "pass",
        "hit": "0.8125",
        "recall": "0.75",
        "ndcg": "",
        "n": "16",
        "regressions": "0",
    }


def test_a_pass_with_an_ok_baseline_annotates_nothing() -> None:
    assert comparison_annotations(comparison()) == []


def test_failed_floors_and_regressions_are_errors() -> None:
    notes = comparison_annotations(
        comparison(
            verdict="fail",
            gate={
                "failed_floors": [{"metric": HIT, "floor": 0.9, "observed": 0.8125, "n": 16}],
                "regressions": [
                    {
                        "metric": RECALL,
                        "group": "language:en",
                        "baseline": 0.9,
                        "current": 0.8,
                        "delta": -0.1,
                        "n": 8,
                        "tolerance": 0.05,
                    }
                ],
                "integrity_problems": ["case c1: gold id x is not a card"],
            },
        )
    )
    assert [(n.level, n.message) for n in notes] == [
        ("error", "case c1: gold id x is not a card"),
        ("error", "hit@5 is 0.812 (n=16), below the floor 0.900 (min-hit)"),
        (
            "error",
            "recall@5 (language:en): 0.900 → 0.800 (-0.100, n=8), beyond the tolerance 0.050",
        ),
    ]


def drops(count: int) -> list[dict[str, Any]]:
    """``count`` regression records of hit@k, 1.0 → 0.5 in groups g0, g1, …"""
    return [
        {
            "metric": HIT,
            "group": f"g{i}",
            "baseline": 1.0,
            "current": 0.5,
            "delta": -0.5,
            "n": 4,
            "tolerance": 0.05,
        }
        for i in range(count)
    ]


def test_report_only_gives_one_warning_with_what_would_fail() -> None:
    would = drops(5)
    notes = comparison_annotations(
        comparison(
            verdict="report-only",
            would_fail_detail={"tolerance": 0.05, "failed_floors": [], "regressions": would},
        )
    )
    [note] = notes
    assert note.level == "warning"
    assert note.message.startswith("5 check(s) would fail")
    assert "(g0)" in note.message
    assert "(g3)" not in note.message
    assert "and 2 more" in note.message


def test_a_missing_baseline_is_a_notice_and_a_stale_one_a_warning() -> None:
    [missing] = comparison_annotations(
        comparison(baseline={"status": "missing", "source": "baselines/x.json", "stale": []})
    )
    assert missing.level == "notice"
    assert "no baseline at baselines/x.json" in missing.message
    [stale] = comparison_annotations(
        comparison(
            baseline={
                "status": "stale",
                "source": "b.json",
                "stale": [
                    {"what": "kb", "baseline": "sha256:1", "current": "sha256:2"},
                    {
                        "what": "config",
                        "baseline": "sha256:3",
                        "current": "sha256:4",
                        "changes": [
                            {
                                "setting": "chunking.max_chars",
                                "label": "chunk size (characters)",
                                "baseline": "500",
                                "current": "120",
                            }
                        ],
                    },
                    {"what": "embedder", "baseline": "a@sha256:1", "current": "b@sha256:2"},
                ],
            }
        )
    )
    assert stale.level == "warning"
    assert stale.message == (
        "the baseline b.json is stale: the knowledge base's card texts changed; "
        "chunk size (characters) 500 → 120; embedder a → b; refresh it with the "
        "update-baseline workflow"
    )


def test_more_than_ten_annotations_of_a_level_are_summarised() -> None:
    regressions = drops(14)
    notes = comparison_annotations(
        comparison(
            verdict="fail",
            gate={"failed_floors": [], "regressions": regressions, "integrity_problems": []},
        )
    )
    assert len(notes) == 10
    assert notes[-1].message == "… and 5 more: see the job summary"


def test_a_regression_annotation_names_its_cases_and_an_exempt_row_is_a_notice() -> None:
    from factories import baseline_of, case, results
    from recall_gate.core.compare import compare_to_baseline, comparison_json, judge_comparison
    from recall_gate.core.gate import Floors

    base = [case(f"en-{i:02d}", 2) for i in range(20)]
    base += [case("es-a", 1, language="es-419"), case("es-b", 1, language="es-419")]
    cur = [case(f"en-{i:02d}", None if i < 3 else 2) for i in range(20)]
    cur += [case("es-a", 3, language="es-419"), case("es-b", 1, language="es-419")]
    compared = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(compared, floors=Floors(), max_regression=0.05)
    notes = comparison_annotations(comparison_json(compared, verdict, profile="default"))
    hit = next(n for n in notes if n.level == "error" and n.message.startswith("hit@5 (overall)"))
    assert hit.message.endswith(
        "; cases: en-00 (en, golden) rank 2 → out of top 5; "
        "en-01 (en, golden) rank 2 → out of top 5; en-02 (en, golden) rank 2 → out of top 5"
    )
    exempt = [n for n in notes if n.level == "notice"]
    assert any(
        n.message.startswith("nDCG@5 (language:es-419): 1.000 → 0.750")
        and "exempt: too few compared cases (min-group-n)" in n.message
        and n.message.endswith("; cases: es-a (es-419, golden) rank 1 → 3")
        for n in exempt
    )
