"""The Actions adapter: runner files, workflow commands and the event. One named
test per rule."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from recall_gate.adapters.actions_runner import (
    SUMMARY_MAX_BYTES,
    ActionsRunner,
    escape_data,
    escape_property,
    load_event,
)
from recall_gate.errors import InputError

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
