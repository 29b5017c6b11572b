"""The command line: the one wiring point.

``main(argv, environ)`` parses flags, reads files through the adapters, calls
the pure core and prints. It alone reads the environment; nothing below it
prints or exits. Every :class:`RecallGateError` becomes one message on stderr
and its exit code (2 unusable input, 1 failed gate); never a traceback.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, TextIO

from recall_gate import __version__
from recall_gate.aggregate import aggregate
from recall_gate.config import Config, GateSettings, load_config
from recall_gate.dataset import load_artifacts, load_cards, load_cases
from recall_gate.errors import GateFailure, InputError, RecallGateError
from recall_gate.evaluate import score_case
from recall_gate.fingerprint import fingerprint_cards, fingerprint_cases, fingerprint_settings
from recall_gate.gate import Floors, GateResult, decide
from recall_gate.integrity import find_problems
from recall_gate.labels import label_artifacts
from recall_gate.models import Artifact, Case, CaseLabel, Provenance, Results
from recall_gate.render import render_report
from recall_gate.results_io import atomic_write_text, write_results

__all__ = ["entry_point", "main"]

DEFAULT_CONFIG = "recall-gate.yaml"
DEFAULT_K = 5


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns every exit."""

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{self.prog}: {message}", fix=f"see `{self.prog} --help`")


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def _fraction(text: str) -> float | None:
    """A float in [0, 1]; an empty string means unset (how the action passes it)."""
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def _add_outputs(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", type=Path, metavar="PATH", help="write the results JSON here")
    p.add_argument("--markdown", type=Path, metavar="PATH", help="write the Markdown report here")


def _add_gate(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("gate (all inactive when unset: report-only)")
    g.add_argument("--min-hit", type=_fraction, metavar="X", help="floor on overall hit@k")
    g.add_argument("--min-recall", type=_fraction, metavar="X", help="floor on overall recall@k")
    g.add_argument("--min-ndcg", type=_fraction, metavar="X", help="floor on overall nDCG@k")


def _add_config(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    p.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        default=None,
        help=f"recall-gate.yaml (default: ./{DEFAULT_CONFIG}{'' if required else ' if present'})",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="recall-gate", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"recall-gate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    check = sub.add_parser("check", help="dataset integrity: every gold id resolves, ids unique")
    _add_config(check)
    check.add_argument("--kb", type=Path, metavar="PATH", help="KB directory or file")
    check.add_argument("--cases", type=Path, action="append", metavar="PATH", help="cases file")

    score = sub.add_parser("score", help="score captured artifacts (no store needed)")
    _add_config(score)
    score.add_argument("--artifacts", type=Path, required=True, metavar="PATH")
    score.add_argument("--cases", type=Path, action="append", metavar="PATH")
    score.add_argument("--k", type=_positive_int, metavar="K")
    _add_outputs(score)
    _add_gate(score)

    run = sub.add_parser("run", help="ingest the KB into Chroma, retrieve every case, score")
    _add_config(run, required=True)
    run.add_argument("--k", type=_positive_int, metavar="K")
    run.add_argument("--artifacts-out", type=Path, metavar="PATH", help="write the capture here")
    _add_outputs(run)
    _add_gate(run)
    return parser


@dataclass(frozen=True)
class _Io:
    stdout: TextIO
    stderr: TextIO
    environ: Mapping[str, str]
    cwd: Path


def _config(args: argparse.Namespace, io: _Io, *, required: bool) -> Config | None:
    if args.config is not None:
        return load_config(args.config)
    default = io.cwd / DEFAULT_CONFIG
    if default.is_file():
        return load_config(default)
    if required:
        raise InputError(
            f"{default}: no config file",
            fix=f"create {DEFAULT_CONFIG} (see the README) or pass --config PATH",
        )
    return None


def _floors(args: argparse.Namespace, config: Config | None) -> Floors:
    gate = config.gate if config else GateSettings()

    def pick(flag: float | None, configured: float | None) -> float | None:
        return flag if flag is not None else configured

    return Floors(
        min_hit=pick(args.min_hit, gate.min_hit),
        min_recall=pick(args.min_recall, gate.min_recall),
        min_ndcg=pick(args.min_ndcg, gate.min_ndcg),
    )


def _unique_cases(located: Sequence[tuple[str, Case]]) -> list[Case]:
    problems = find_problems(cards=(), cases=located)
    dupes = [p for p in problems if p.message.startswith("duplicate case id")]
    if dupes:
        raise InputError(str(dupes[0]), fix="give each case a unique id")
    return [case for _, case in located]


def _score_and_report(
    *,
    labelled: Sequence[tuple[CaseLabel, Artifact]],
    k: int,
    provenance: Provenance,
    floors: Floors,
    args: argparse.Namespace,
    io: _Io,
) -> int:
    records = [
        score_case(label, artifact.ranked_card_ids(), k=k, cited=artifact.cited)
        for label, artifact in labelled
    ]
    results = Results(
        k=k, provenance=provenance, cases=tuple(records), aggregates=aggregate(records)
    )
    gate = decide(results.aggregates, floors=floors)
    if args.json is not None:
        write_results(args.json, results)
    if args.markdown is not None:
        atomic_write_text(args.markdown, render_report(results, gate=gate, fmt="markdown"))
    io.stdout.write(render_report(results, gate=gate, fmt="text"))
    return _exit_for(gate)


def _exit_for(gate: GateResult) -> int:
    return 1 if gate.verdict == "fail" else 0


def _cmd_check(args: argparse.Namespace, io: _Io) -> int:
    config = _config(args, io, required=False)
    kb = args.kb or (config.kb if config else None)
    case_paths = args.cases or (list(config.cases) if config else [])
    if kb is None or not case_paths:
        raise InputError(
            "check needs a KB and cases",
            fix="pass --kb PATH and --cases PATH, or set `kb` and `cases` in recall-gate.yaml",
        )
    cards = load_cards(kb)
    cases = load_cases(case_paths)
    problems = find_problems(cards=cards, cases=cases)
    if problems:
        io.stderr.write(f"recall-gate check: {len(problems)} integrity problem(s)\n")
        for problem in problems:
            io.stderr.write(f"  {problem}\n")
        raise GateFailure(
            "dataset integrity failed: a labelling error must not pass for a retrieval failure",
            fix="fix the ids listed above",
        )
    gold = sum(1 for _, c in cases if c.gold_labelled)
    io.stdout.write(
        f"recall-gate check: ok — {len(cards)} cards, {len(cases)} cases "
        f"({gold} gold-labelled), every gold and relevant id resolves\n"
    )
    return 0


def _cmd_score(args: argparse.Namespace, io: _Io) -> int:
    config = _config(args, io, required=False)
    k = args.k or (config.k if config else DEFAULT_K)
    artifacts = load_artifacts(args.artifacts)
    case_paths = args.cases or None
    cases = _unique_cases(load_cases(case_paths)) if case_paths else None
    labelled = label_artifacts(
        artifacts,
        cases,
        artifacts_source=str(args.artifacts),
        cases_source=", ".join(map(str, case_paths)) if case_paths else "the cases file",
    )
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=fingerprint_cases(label for label, _ in labelled),
    )
    return _score_and_report(
        labelled=labelled,
        k=k,
        provenance=provenance,
        floors=_floors(args, config),
        args=args,
        io=io,
    )


def _cmd_run(args: argparse.Namespace, io: _Io) -> int:
    from recall_gate.runner import capture  # heavy: torch, chromadb

    config = _config(args, io, required=True)
    assert config is not None
    if args.k is not None:
        config = config.model_copy(update={"k": args.k})
    if config.kb is None or not config.cases:
        raise InputError(
            "the config sets no `kb` or no `cases`",
            fix="set `kb:` (KB directory) and `cases:` (cases file or directory) in the config",
        )
    cards = load_cards(config.kb)
    located = load_cases(config.cases)
    problems = find_problems(cards=cards, cases=located)
    if problems:
        for problem in problems:
            io.stderr.write(f"  {problem}\n")
        raise GateFailure(
            f"dataset integrity failed ({len(problems)} problem(s)); run `recall-gate check`",
            fix="fix the ids listed above",
        )
    cases = [case for _, case in located]
    progress = io.stderr.isatty() and not io.environ.get("CI")
    log = lambda line: io.stderr.write(f"recall-gate: {line}\n")  # noqa: E731
    captured = capture(config, [c for _, c in cards], cases, progress=progress, log=log)
    if args.artifacts_out is not None:
        from recall_gate.results_io import dump_jsonl

        atomic_write_text(args.artifacts_out, dump_jsonl(captured.artifacts))
    labelled = label_artifacts(
        list(enumerate(captured.artifacts, start=1)),
        cases,
        artifacts_source="the capture",
        cases_source=", ".join(map(str, config.cases)),
    )
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=fingerprint_cases(cases),
        kb_fingerprint=fingerprint_cards(c for _, c in cards),
        config_fingerprint=fingerprint_settings(config.retrieval_fingerprint_payload()),
        embedder=captured.embedder_id,
        retrieval_mode=config.retrieval.mode + ("+rerank" if config.reranker.enabled else ""),
    )
    return _score_and_report(
        labelled=labelled,
        k=config.k,
        provenance=provenance,
        floors=_floors(args, config),
        args=args,
        io=io,
    )


_COMMANDS = {"check": _cmd_check, "score": _cmd_score, "run": _cmd_run}


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    *,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
    cwd: Path | None = None,
) -> int:
    """Run one command; return its exit code (0 ok / report-only, 1 gate failed, 2 bad input)."""
    io = _Io(
        stdout=stdout or sys.stdout,
        stderr=stderr or sys.stderr,
        environ=os.environ if environ is None else environ,
        cwd=cwd or Path.cwd(),
    )
    try:
        args = build_parser().parse_args(argv)
        return _COMMANDS[args.command](args, io)
    except RecallGateError as exc:
        io.stderr.write(f"recall-gate: error: {exc}\n")
        return exc.exit_code
    except SystemExit as exc:  # --help / --version
        return int(exc.code or 0)
    except KeyboardInterrupt:
        io.stderr.write("recall-gate: interrupted\n")
        return 130


def entry_point() -> None:
    sys.exit(main())
