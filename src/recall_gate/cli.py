"""The command line: the one wiring point.

``main(argv, environ)`` parses flags, reads files through the adapters, calls
the pure core and prints. It alone reads the environment; nothing below it
prints or exits.

The error contract, the same for every command:

* **0** passed, or report-only; **1** a gate failed (integrity, a floor, an
  enforced regression) — a :class:`~recall_gate.errors.GateFailure`.
* **2** anything the user can fix (:class:`~recall_gate.errors.InputError`):
  one message naming the file or field, and a fix. A disk that is full or
  read-only, or a path without permission, is one too, naming the path.
* **3** an internal error — a bug in recall-gate: a short "please report"
  message; the traceback only with ``--debug`` or ``RECALL_GATE_DEBUG=1``.
* **130** interrupted (Ctrl-C).
* **141** the reader closed stdout early (``recall-gate score … | head``): the
  command ends quietly, as a Unix tool cut off by its reader does (128 +
  SIGPIPE); never 0, since the reader may have gone before the verdict.

Never a traceback otherwise, and the GitHub token (``GITHUB_TOKEN``) is masked
in everything written to stdout and stderr. No line written there can start a
workflow command, whatever a user's text holds (:mod:`recall_gate.adapters.log_lines`).

The commands live in the private ``recall_gate.commands`` package, one module
per concept; each adds its subparsers here and hands back its handlers, which
receive the :class:`~recall_gate.commands.context.Console` built below.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io as io_module
import os
import sys
import traceback
from collections.abc import Mapping, Sequence
from io import TextIOWrapper
from pathlib import Path
from typing import Final, TextIO

from recall_gate import __version__
from recall_gate.adapters.log_lines import end_output, guarded
from recall_gate.commands.arguments import Parser, add_subcommands, refuse_unrecognized
from recall_gate.commands.context import Console, Handler, warn
from recall_gate.errors import (
    INTERNAL_ERROR_EXIT,
    InputError,
    Interrupted,
    RecallGateError,
    is_huge_integer,
)

__all__ = ["COMMAND_MODULES", "DEBUG_ENV", "WORKING_DIRECTORY_ENV", "entry_point", "main"]

DEBUG_ENV: Final = "RECALL_GATE_DEBUG"
# The folder recall-gate works in, as if started there (relative paths, the config's
# discovery, the git work tree), whatever the process's own working directory: the
# action's judge runs from a folder of its own and names the checkout here.
WORKING_DIRECTORY_ENV: Final = "RECALL_GATE_WORKING_DIRECTORY"
_DEBUG_FLAG: Final = "--debug"
_DEBUG_HELP: Final = f"on an internal error, print the traceback (also {DEBUG_ENV}=1)"
_SECRET_ENV: Final = ("GITHUB_TOKEN",)
_MASK: Final = "<token hidden>"
# OSErrors the user fixes (space, a read-only mount, permissions, quota): exit 2.
_ENVIRONMENT_ERRNOS: Final = frozenset(
    {errno.ENOSPC, errno.EROFS, errno.EACCES, errno.EPERM, errno.EDQUOT, errno.EMFILE}
)
_INTERNAL_MESSAGE_CHARS: Final = 200
READER_GONE_EXIT: Final = 141  # 128 + SIGPIPE, what `seq 99999 | head` leaves seq with


# The command modules, in the order of `recall-gate --help`, and the commands each
# adds (a test holds this table to what their add_commands returns). A command
# imports its own module only: `score` never loads capture's or comment's code.
COMMAND_MODULES: Final = {
    "evaluation": ("check", "score", "run"),
    "cards": ("cards",),
    "capturing": ("capture",),
    "merging": ("merge",),
    "queueing": ("queue",),
    "converting": ("convert",),
    "baselines": ("compare", "baseline", "floors", "history"),
    "github_actions": ("comment", "actions-report"),
    "proposing": ("propose-baseline",),
    "explaining": ("settings",),
}
_TOP_FLAGS_WITH_NO_VALUE: Final = frozenset({_DEBUG_FLAG})


def _modules_for(argv: Sequence[str]) -> list[str]:
    """The command modules a parse of ``argv`` needs: the one of its command, or
    every one (no command, ``--help`` / ``--version``, or a name none of them has)."""
    for arg in argv:
        if arg in _TOP_FLAGS_WITH_NO_VALUE:
            continue
        for module, commands in COMMAND_MODULES.items():
            if arg in commands:
                return [module]
        break
    return list(COMMAND_MODULES)


def _build_parser(
    argv: Sequence[str] = (),
) -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser of ``argv``'s command (of every command when it names none), and
    each command's handler by name."""
    parser = Parser(prog="recall-gate", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"recall-gate {__version__}")
    sub = add_subcommands(parser, dest="command", metavar="COMMAND")
    handlers: dict[str, Handler] = {}
    for name in _modules_for(argv):
        module = importlib.import_module(f"recall_gate.commands.{name}")
        handlers.update(module.add_commands(sub))
    _add_debug(parser, top=True)
    return parser, handlers


def _add_debug(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``--debug`` before or after the command, on every (sub)command."""
    parser.add_argument(
        _DEBUG_FLAG,
        action="store_true",
        default=False if top else argparse.SUPPRESS,
        help=_DEBUG_HELP,
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                _add_debug(child)


def _debug_requested(argv: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Decided before parsing, so that a crash while parsing obeys it too."""
    value = environ.get(DEBUG_ENV, "").strip().lower()
    return _DEBUG_FLAG in argv or value not in {"", "0", "false", "no", "off"}


class _ReaderWatch(io_module.TextIOBase):
    """stdout, noting when its reader has gone (a closed pipe: ``| head``), so that
    the error this raises is told from a broken pipe anywhere else."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if self.gone:
            return len(text)  # nobody reads on: what is left goes nowhere
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self.gone = True
            raise

    def flush(self) -> None:
        if self.gone:
            return
        try:
            self._stream.flush()
        except BrokenPipeError:
            self.gone = True
            raise

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is a read-only attr
        return getattr(self._stream, "encoding", None) or "utf-8"


class _MaskingStream(io_module.TextIOBase):
    """A text stream that writes through, with every secret masked."""

    def __init__(self, stream: TextIO, secrets: Sequence[str]) -> None:
        self._stream = stream
        self._secrets = secrets

    def write(self, text: str) -> int:
        for secret in self._secrets:
            text = text.replace(secret, _MASK)
        return self._stream.write(text)

    def flush(self) -> None:
        self._stream.flush()

    def isatty(self) -> bool:
        return self._stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]  # TextIOBase's is a read-only attr
        return getattr(self._stream, "encoding", None) or "utf-8"


def _masked(stream: TextIO, environ: Mapping[str, str]) -> TextIO:
    """``stream``, masking the secrets of ``environ`` (longest first) when there are any."""
    values = {environ.get(name, "") for name in _SECRET_ENV}
    secrets = sorted({v for raw in values for v in (raw, raw.strip()) if v}, key=len, reverse=True)
    return _MaskingStream(stream, secrets) if secrets else stream  # type: ignore[return-value]


def _environment_error(exc: OSError) -> str | None:
    """The one-line message of an OSError the user can fix, else ``None``."""
    if exc.errno not in _ENVIRONMENT_ERRNOS:
        return None
    where = exc.filename if exc.filename is not None else "a file"
    return f"{where}: {exc.strerror or os.strerror(exc.errno or 0)}"


def _internal_error(exc: BaseException, *, debug: bool) -> str:
    summary = " ".join(f"{type(exc).__name__}: {exc}".split())
    if len(summary) > _INTERNAL_MESSAGE_CHARS:
        summary = summary[: _INTERNAL_MESSAGE_CHARS - 1] + "…"
    lines = [
        f"recall-gate: internal error: {summary}",
        "  this is a bug in recall-gate, not in your input: please report it, with the "
        f"command you ran and the output of the same command with {_DEBUG_FLAG}",
    ]
    if debug:
        lines.append("".join(traceback.format_exception(exc)).rstrip("\n"))
    else:
        lines.append(f"  the traceback: rerun with {_DEBUG_FLAG} (or {DEBUG_ENV}=1)")
    return "\n".join(lines) + "\n"


def _check_working_directory(named: str) -> None:
    """``RECALL_GATE_WORKING_DIRECTORY`` names an absolute path of a folder, or the
    InputError saying so."""
    if not Path(named).is_absolute() or not Path(named).is_dir():
        raise InputError(
            f"{WORKING_DIRECTORY_ENV}={named!r} is not the absolute path of a folder",
            fix=f"set {WORKING_DIRECTORY_ENV} to the absolute path of the folder recall-gate "
            "works in (the repository's checkout), or unset it",
        )


def _anchor_paths(args: argparse.Namespace, cwd: Path) -> None:
    """Resolve relative path flags against ``cwd``, the caller's working directory."""
    for name, value in vars(args).items():
        if isinstance(value, Path) and not value.is_absolute():
            setattr(args, name, cwd / value)
        elif isinstance(value, list) and any(isinstance(v, Path) for v in value):
            setattr(args, name, [cwd / v if isinstance(v, Path) else v for v in value])


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    cwd: Path | None = None,
) -> int:
    """Run one command; return its exit code (see the module docstring)."""
    env = os.environ if environ is None else environ
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = _debug_requested(arguments, env)
    reader = _ReaderWatch(stdout or sys.stdout)
    named = None if cwd is not None else env.get(WORKING_DIRECTORY_ENV) or None
    # Every line checked once, here: no user text starts a workflow command.
    console = Console(
        stdout=guarded(_masked(reader, env)),  # type: ignore[arg-type]
        stderr=guarded(_masked(stderr or sys.stderr, env)),
        environ=env,
        cwd=cwd or (Path(named) if named else Path.cwd()),
    )
    try:
        if named:
            _check_working_directory(named)
        code = _run(arguments, console, anchor=cwd is not None or named is not None)
    except (Exception, KeyboardInterrupt, SystemExit) as raised:
        if reader.gone and isinstance(raised, BrokenPipeError):
            code = READER_GONE_EXIT  # the reader's choice, not an error: nothing to say
        else:
            failure = _as_input_error(raised)
            console.stderr.write(_error_message(failure, debug=debug))
            code = _exit_code(failure)
    try:
        end_output(console.stdout)
    except BrokenPipeError:
        if not reader.gone:
            raise
        code = READER_GONE_EXIT
    finally:
        end_output(console.stderr)
    return code


def _run(arguments: list[str], console: Console, *, anchor: bool) -> int:
    """Parse ``arguments`` and run their command's handler (``anchor``: resolve relative
    path flags against the console's working directory)."""
    parser, handlers = _build_parser(arguments)
    try:
        args, extras = parser.parse_known_args(arguments)
    except SystemExit as exc:  # --help / --version: argparse printed them
        return exc.code if isinstance(exc.code, int) else 0
    refuse_unrecognized(parser, args, extras)
    if anchor:
        _anchor_paths(args, console.cwd)
    for line in getattr(args, "deprecations", None) or ():
        warn(console, line)
    return handlers[args.command](args, console)


def _exit_code(exc: BaseException) -> int:
    if isinstance(exc, RecallGateError):
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        return 130
    if isinstance(exc, SystemExit):
        return 2
    if isinstance(exc, OSError) and _environment_error(exc) is not None:
        return 2
    return INTERNAL_ERROR_EXIT


def _error_message(exc: BaseException, *, debug: bool) -> str:
    """What stderr says for ``exc``: one message and a fix, or the internal-error note."""
    if isinstance(exc, RecallGateError):
        trace = "".join(traceback.format_exception(exc)) if debug else ""
        return f"recall-gate: error: {exc}\n{trace}"
    if isinstance(exc, Interrupted):
        return f"recall-gate: interrupted: {exc.outcome}\n"
    if isinstance(exc, KeyboardInterrupt):
        return "recall-gate: interrupted\n"
    if isinstance(exc, SystemExit):
        # Nothing below the CLI exits: this is code recall-gate ran (a retriever,
        # a plugin) calling sys.exit(). Never a pass, whatever its code.
        return (
            f"recall-gate: error: code run by recall-gate called sys.exit({exc.code!r})\n"
            "  fix: a retriever must return its results or raise an exception, not exit\n"
        )
    if isinstance(exc, OSError) and (message := _environment_error(exc)) is not None:
        return (
            f"recall-gate: error: {message}\n"
            "  fix: free disk space, or check that the path is writable (not a read-only "
            "mount) and its permissions\n"
        )
    return _internal_error(exc, debug=debug)


def _as_input_error(exc: BaseException) -> BaseException:
    """A failure the input caused, met by a reader without its own guard, as the
    input error it is."""
    if is_huge_integer(exc):
        return InputError(
            f"an input holds a number of more than {sys.get_int_max_str_digits():,} "
            "digits, which Python refuses to read",
            fix="find the overlong number in the files this command reads (rerun with "
            "--debug to see which reader met it) and write it as it is meant",
        )
    return exc


def entry_point() -> None:
    """Console script: ``main()`` with the process's streams and exit code."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, TextIOWrapper):
            # A lone surrogate in a user's id must print as an escape, not crash.
            stream.reconfigure(errors="backslashreplace")
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`recall-gate … | head`): nothing is left to say
        # to it; point stdout at devnull so the interpreter's final flush is quiet.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = READER_GONE_EXIT
    if code == READER_GONE_EXIT:
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    # Threads the code under test left behind never hold the process past its
    # outputs, nor abort it at shutdown.
    from recall_gate.adapters.process_exit import exit_with

    exit_with(code)
