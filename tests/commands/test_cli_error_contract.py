"""One error contract for every command (see `recall_gate.cli`).

0 pass / report-only; 1 a failed gate or integrity; 2 anything the user can
fix, one message and a fix; 3 a bug in recall-gate, a short "please report"
note with the traceback only under ``--debug`` / ``RECALL_GATE_DEBUG=1``.
"""

from __future__ import annotations

import errno
from pathlib import Path

import pytest

from cli_runner import run_cli
from recall_gate.commands import evaluation


def _crash_check_with(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    def crash(*_: object) -> int:
        raise exc

    monkeypatch.setattr(evaluation, "_cmd_check", crash)


def test_an_internal_error_is_exit_3_with_a_please_report_note_and_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_check_with(monkeypatch, KeyError("cards"))

    code, out, err = run_cli(["check"], cwd=tmp_path)

    assert code == 3
    assert out == ""
    assert err.splitlines() == [
        "recall-gate: internal error: KeyError: 'cards'",
        "  this is a bug in recall-gate, not in your input: please report it, with the "
        "command you ran and the output of the same command with --debug",
        "  the traceback: rerun with --debug (or RECALL_GATE_DEBUG=1)",
    ]


@pytest.mark.parametrize(
    ("argv", "environ"),
    [
        (["--debug", "check"], {}),
        (["check", "--debug"], {}),
        (["check"], {"RECALL_GATE_DEBUG": "1"}),
        (["check"], {"RECALL_GATE_DEBUG": "true"}),
    ],
)
def test_the_traceback_of_an_internal_error_is_shown_only_under_the_debug_switch(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    environ: dict[str, str],
) -> None:
    _crash_check_with(monkeypatch, KeyError("cards"))

    code, _, err = run_cli(argv, cwd=tmp_path, environ=environ)

    assert code == 3
    assert "Traceback (most recent call last)" in err
    assert "KeyError: 'cards'" in err


def test_debug_off_values_keep_the_traceback_hidden(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_check_with(monkeypatch, KeyError("cards"))

    for value in ("0", "false", "", "off"):
        code, _, err = run_cli(["check"], cwd=tmp_path, environ={"RECALL_GATE_DEBUG": value})
        assert (code, "Traceback" in err) == (3, False)


def test_a_long_internal_error_message_is_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_check_with(monkeypatch, ValueError("x" * 5000))

    _, _, err = run_cli(["check"], cwd=tmp_path)

    assert len(err.splitlines()[0]) < 250


@pytest.mark.parametrize("exit_code", [0, 1, None, "a message"])
def test_code_that_calls_sys_exit_inside_a_command_never_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, exit_code: int | str | None
) -> None:
    _crash_check_with(monkeypatch, SystemExit(exit_code))

    code, _, err = run_cli(["check"], cwd=tmp_path)

    assert code == 2
    assert f"called sys.exit({exit_code!r})" in err
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("number", "said"),
    [
        (errno.ENOSPC, "No space left on device"),
        (errno.EROFS, "Read-only file system"),
        (errno.EACCES, "Permission denied"),
    ],
)
def test_a_full_or_read_only_disk_is_exit_2_naming_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int, said: str
) -> None:
    _crash_check_with(monkeypatch, OSError(number, said, "out/results.json"))

    code, _, err = run_cli(["check"], cwd=tmp_path)

    assert code == 2
    assert err.startswith(f"recall-gate: error: out/results.json: {said}\n  fix: ")
    assert "Traceback" not in err


def test_an_unexpected_os_error_is_an_internal_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _crash_check_with(monkeypatch, OSError(errno.EBADF, "Bad file descriptor"))

    assert run_cli(["check"], cwd=tmp_path).code == 3


def test_interrupted_is_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _crash_check_with(monkeypatch, KeyboardInterrupt())

    code, _, err = run_cli(["check"], cwd=tmp_path)

    assert (code, err) == (130, "recall-gate: interrupted\n")


@pytest.mark.parametrize("flag", ["--help", "--version"])
def test_help_and_version_still_exit_0(tmp_path: Path, flag: str) -> None:
    assert run_cli([flag], cwd=tmp_path).code == 0


@pytest.mark.parametrize("command", [["baseline", "update"], ["floors", "suggest"], ["score"]])
def test_debug_is_accepted_after_any_command_too(tmp_path: Path, command: list[str]) -> None:
    _, _, err = run_cli([*command, "--debug"], cwd=tmp_path)

    assert "recall-gate: error:" in err  # each lacks its inputs here…
    assert "unrecognized arguments" not in err  # …but not because of --debug
