"""The command line: the one wiring point.

``main(argv, environ)`` parses flags, reads files through the adapters, calls
the pure core and prints. It alone reads the environment; nothing below it
prints or exits. Every :class:`RecallGateError` becomes one message on stderr
and its exit code (2 unusable input, 1 failed gate); never a traceback.

The commands live in the private ``recall_gate.commands`` package, one module
per concept; each adds its subparsers here and hands back its handlers, which
receive the :class:`~recall_gate.commands.context.Io` built below.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from io import TextIOWrapper
from pathlib import Path
from typing import TextIO

from recall_gate import __version__
from recall_gate.commands import baselines, capturing, converting, evaluation, github_actions
from recall_gate.commands.arguments import Parser, add_subcommands
from recall_gate.commands.context import Handler, Io
from recall_gate.errors import RecallGateError

__all__ = ["entry_point", "main"]


def _build_parser() -> tuple[argparse.ArgumentParser, dict[str, Handler]]:
    """The parser of every command, and each command's handler by name."""
    parser = Parser(prog="recall-gate", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"recall-gate {__version__}")
    sub = add_subcommands(parser, dest="command", metavar="COMMAND")
    # The order here is the order of `recall-gate --help`.
    handlers = {
        **evaluation.add_commands(sub),
        **capturing.add_commands(sub),
        **converting.add_commands(sub),
        **baselines.add_commands(sub),
        **github_actions.add_commands(sub),
    }
    return parser, handlers


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
    """Run one command; return its exit code (0 ok / report-only, 1 gate failed, 2 bad input)."""
    io = Io(
        stdout=stdout or sys.stdout,
        stderr=stderr or sys.stderr,
        environ=os.environ if environ is None else environ,
        cwd=cwd or Path.cwd(),
    )
    try:
        parser, handlers = _build_parser()
        args = parser.parse_args(argv)
        if cwd is not None:
            _anchor_paths(args, cwd)
        return handlers[args.command](args, io)
    except RecallGateError as exc:
        io.stderr.write(f"recall-gate: error: {exc}\n")
        return exc.exit_code
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    except KeyboardInterrupt:
        io.stderr.write("recall-gate: interrupted\n")
        return 130


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
        code = 0
    sys.exit(code)
