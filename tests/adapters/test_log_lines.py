"""The output guard: one rule per test (see recall_gate.adapters.log_lines)."""

from __future__ import annotations

import io

import pytest

from recall_gate.adapters.actions_runner import ActionsRunner
from recall_gate.adapters.log_lines import (
    GuardedStream,
    end_output,
    guarded,
    write_terminal_control,
    write_workflow_command,
)


def written(*pieces: str) -> str:
    buffer = io.StringIO()
    stream = GuardedStream(buffer)
    for piece in pieces:
        stream.write(piece)
    stream.flush()
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("::warning::x\n", "\\::warning::x\n"),
        ("   ::warning::x\n", "   \\::warning::x\n"),
        ("\t::add-mask::secret\n", "\t\\::add-mask::secret\n"),
        ("query\n::set-output name=verdict::pass\n", "query\n\\::set-output name=verdict::pass\n"),
        ("progress\r::stop-commands::t\n", "progress\r\\::stop-commands::t\n"),
        ("a\u2028::warning::x\n", "a\u2028\\::warning::x\n"),
    ],
)
def test_a_line_starting_with_two_colons_is_neutralised(text: str, shown: str) -> None:
    assert written(text) == shown


def test_a_command_split_across_writes_is_neutralised() -> None:
    assert written("  ", ":", ":warning::x\n") == "  \\::warning::x\n"


def test_two_colons_inside_a_line_are_left_as_they_are() -> None:
    assert written("case ::warning::x\n", ": :x\n", "a:b::c\n") == (
        "case ::warning::x\n: :x\na:b::c\n"
    )


def test_control_characters_are_shown_escaped() -> None:
    assert written("\x1b[31mred\x07\x00\x9b\n") == "\\x1b[31mred\\x07\\x00\\x9b\n"


def test_tab_line_feed_and_carriage_return_pass() -> None:
    assert written("a\tb\r\nc\n") == "a\tb\r\nc\n"


def test_the_sanctioned_workflow_command_starts_its_own_line() -> None:
    buffer = io.StringIO()
    stream = guarded(buffer)
    stream.write("half a line :")
    write_workflow_command(stream, "::error title=recall-gate::lost")
    assert buffer.getvalue() == "half a line :\n::error title=recall-gate::lost\n"


def test_an_annotation_is_written_through_the_sanctioned_function() -> None:
    buffer = io.StringIO()
    runner = ActionsRunner(
        output_path=None,
        summary_path=None,
        stream=guarded(buffer),
        commands=True,
    )
    runner.annotate("warning", "::warning::x\n::set-output name=a::b", title="recall-gate")
    assert buffer.getvalue() == (
        "::warning title=recall-gate::::warning::x%0A::set-output name=a::b\n"
    )


def test_the_progress_bar_terminal_control_passes() -> None:
    buffer = io.StringIO()
    stream = guarded(buffer)
    write_terminal_control(stream, "\r\x1b[2K")
    stream.write("recall-gate: 3/10")
    assert buffer.getvalue() == "\r\x1b[2Krecall-gate: 3/10"


def test_a_stream_is_guarded_once() -> None:
    stream = guarded(io.StringIO())
    assert guarded(stream) is stream


def test_the_end_of_the_output_writes_what_was_held() -> None:
    buffer = io.StringIO()
    stream = guarded(buffer)
    stream.write("done\n  :")
    end_output(stream)
    assert buffer.getvalue() == "done\n  :"
