"""The one in-process runner of the command line for tests: `cli.main` with
captured streams, a working directory and an explicit (default: empty)
environment, so no test depends on the shell it runs in."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from recall_gate.cli import main


class CliRun(NamedTuple):
    """What one command did: its exit code and what it printed."""

    code: int
    out: str
    err: str


def run_cli(argv: Sequence[str], *, cwd: Path, environ: Mapping[str, str] | None = None) -> CliRun:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), {} if environ is None else environ, stdout=out, stderr=err, cwd=cwd)
    return CliRun(code, out.getvalue(), err.getvalue())


_LATENCY_SECTION = re.compile(r"Query latency of the capture[^\n]*\n\n(?:[^\n]+\n)+\n?")


def without_latency(report: str) -> str:
    """A report without its latency section: the one part two captures of the same
    retrieval do not share (wall times differ from run to run)."""
    return _LATENCY_SECTION.sub("", report)


def write_capture(path: Path, *, hits: int, n: int = 20) -> Path:
    """A self-contained capture: the first ``hits`` cases retrieve their gold card first."""
    lines = [
        {
            "case_id": f"case-{i:02d}",
            "retrieved": [f"card-{i}" if i < hits else "other", "filler"],
            "language": "en",
            "case_type": "golden",
            "must_cite_one_of": [f"card-{i}"],
        }
        for i in range(n)
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path
