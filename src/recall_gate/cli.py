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
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from io import TextIOWrapper
from pathlib import Path
from typing import Literal, NoReturn, TextIO

from pydantic import ValidationError

from recall_gate import __version__
from recall_gate.aggregate import aggregate
from recall_gate.baseline import Baseline, make_baseline, normalise_timestamp
from recall_gate.baseline_store import (
    default_baseline_path,
    dump_baseline,
    git_head_sha,
    read_baseline,
    read_baseline_at_ref,
    read_current_results,
    write_baseline,
)
from recall_gate.comment import (
    COMMENT_BUDGET,
    render_baseline_update,
    render_comment,
    render_comparison_text,
)
from recall_gate.compare import (
    BaselineEdit,
    Comparison,
    ComparisonVerdict,
    compare_to_baseline,
    comparison_json,
    judge_comparison,
)
from recall_gate.config import Config, GateSettings, load_config
from recall_gate.config_edit import write_gate_settings
from recall_gate.dataset import (
    describe_validation_error,
    load_artifacts,
    load_cards,
    load_cases,
)
from recall_gate.errors import GateFailure, InputError, RecallGateError
from recall_gate.evaluate import score_case
from recall_gate.fingerprint import fingerprint_cards, fingerprint_cases, fingerprint_settings
from recall_gate.gate import FLOOR_FLAGS, Floors, GateResult, decide, suggest_floors
from recall_gate.integrity import find_problems
from recall_gate.labels import label_artifacts
from recall_gate.models import Artifact, Case, CaseLabel, Provenance, Results
from recall_gate.render import metric_label, render_report, render_summary, table
from recall_gate.results_io import atomic_write_text, dump_json, write_results
from recall_gate.stream import score_artifacts_file

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


def _add_subcommands(
    p: argparse.ArgumentParser, *, dest: str, metavar: str = "ACTION"
) -> argparse._SubParsersAction[_Parser]:
    sub = p.add_subparsers(dest=dest, metavar=metavar, parser_class=_Parser)
    sub.required = True
    return sub


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="recall-gate", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--version", action="version", version=f"recall-gate {__version__}")
    sub = _add_subcommands(parser, dest="command", metavar="COMMAND")

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
    _add_baseline_comparison(score)

    run = sub.add_parser("run", help="ingest the KB into Chroma, retrieve every case, score")
    _add_config(run, required=True)
    run.add_argument("--k", type=_positive_int, metavar="K")
    run.add_argument("--artifacts-out", type=Path, metavar="PATH", help="write the capture here")
    _add_outputs(run)
    _add_gate(run)
    _add_baseline_comparison(run)

    _add_compare_commands(sub)
    _add_comment(sub)
    _add_actions_report(sub)
    _add_propose_baseline(sub)
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
    config: Config | None,
    args: argparse.Namespace,
    io: _Io,
) -> int:
    floors = _floors(args, config)
    records = [
        score_case(label, artifact.ranked_card_ids(), k=k, cited=artifact.cited)
        for label, artifact in labelled
    ]
    results = Results(
        k=k, provenance=provenance, cases=tuple(records), aggregates=aggregate(records)
    )
    if args.json is not None:
        write_results(args.json, results)
    baseline = _baseline_to_compare(args, io, config)
    if baseline is not None:
        # The same report as the PR comment: deltas, flips and the verdict.
        profile = _profile_of(args, config)
        comparison, verdict = _judge_against_baseline(
            results, path=baseline, args=args, io=io, config=config
        )
        if args.markdown is not None:
            atomic_write_text(args.markdown, render_comment(comparison, verdict, profile=profile))
        io.stdout.write(render_comparison_text(comparison, verdict, profile=profile))
        return _exit_for(verdict.gate)
    gate = decide(results.aggregates, floors=floors)
    if args.markdown is not None:
        atomic_write_text(args.markdown, render_report(results, gate=gate, fmt="markdown"))
    io.stdout.write(render_report(results, gate=gate, fmt="text"))
    return _exit_for(gate)


def _baseline_to_compare(args: argparse.Namespace, io: _Io, config: Config | None) -> Path | None:
    """The baseline `score` / `run` compare with: ``--baseline``, else the
    profile's file when it exists or when a tolerance asks for one (then a
    missing file is reported as "no baseline yet"); None: results only."""
    if args.baseline is not None:
        return Path(args.baseline)
    path = io.cwd / default_baseline_path(_profile_of(args, config))
    if path.exists() or _tolerance(args, config) is not None:
        return path
    return None


def _score_streamed(args: argparse.Namespace, io: _Io, *, config: Config | None, k: int) -> int:
    """`score --artifacts F` alone: same report as _score_and_report, no per-case records."""
    scores = score_artifacts_file(args.artifacts, k=k)
    gate = decide(scores.aggregates, floors=_floors(args, config))

    def report(fmt: Literal["markdown", "text"]) -> str:
        return render_summary(
            k=k,
            aggregates=scores.aggregates,
            total=scores.total,
            scored=scores.scored,
            outcomes=scores.outcomes,
            gate=gate,
            fmt=fmt,
        )

    if args.markdown is not None:
        atomic_write_text(args.markdown, report("markdown"))
    io.stdout.write(report("text"))
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
    if not args.cases and args.json is None and _baseline_to_compare(args, io, config) is None:
        # Self-contained capture and no results file: one streamed pass, flat memory.
        return _score_streamed(args, io, config=config, k=k)
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
        config=config,
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
        config=config,
        args=args,
        io=io,
    )


# -- compare, baseline update, floors suggest ------------------------------------

_PROFILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")


def _profile_name(text: str) -> str | None:
    """A profile name; an empty string means unset (how the action passes it)."""
    if not text.strip():
        return None
    if not _PROFILE_NAME.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"use letters, digits, '.', '_' or '-' (starting with a letter or digit), got {text!r}"
        )
    return text


def _optional_text(text: str) -> str | None:
    return text.strip() or None


def _optional_path(text: str) -> Path | None:
    return Path(text) if text.strip() else None


def _add_baseline_file(
    p: argparse._ActionsContainer,
    flag: str,
    *,
    help: str = "the baseline file (default: baselines/<profile>.json)",
) -> None:
    p.add_argument(flag, type=_optional_path, metavar="PATH", help=help)


def _add_profile(p: argparse._ActionsContainer) -> None:
    p.add_argument(
        "--profile",
        type=_profile_name,
        metavar="NAME",
        help="profile (default: the config's, else 'default'): names the baseline file",
    )


def _add_tolerance(p: argparse._ActionsContainer) -> None:
    p.add_argument(
        "--max-regression",
        type=_fraction,
        metavar="X",
        help="tolerance: fail when a metric drops by more than X in any group",
    )


def _add_baseline_comparison(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "baseline (compared when --baseline is given, the profile's baseline file "
        "exists, or a tolerance is set)"
    )
    _add_baseline_file(
        g, "--baseline", help="the baseline file (default: baselines/<profile>.json if present)"
    )
    _add_profile(g)
    _add_tolerance(g)


def _add_compare_commands(sub: argparse._SubParsersAction[_Parser]) -> None:
    compare = sub.add_parser(
        "compare",
        help="deltas, flips, staleness and the gate verdict against a baseline",
        description="Compare a results file with the baseline: per metric and group, the "
        "means on the cases present in both, Δ with a noise test, flipped cases, a stale or "
        "missing baseline. Report-only (exit 0) until a floor or a tolerance is set.",
    )
    _add_config(compare)
    compare.add_argument(
        "--current", type=Path, required=True, metavar="PATH", help="this run's results JSON"
    )
    _add_baseline_file(compare, "--baseline")
    compare.add_argument(
        "--baseline-ref",
        type=_optional_text,
        metavar="REF",
        help="read the baseline as it is at this git revision (the PR's base); a different "
        "working-tree file is reported as the PR's edit of the baseline",
    )
    _add_profile(compare)
    compare.add_argument(
        "--markdown",
        type=_optional_path,
        metavar="PATH",
        help="write the PR comment here (shortened to fit GitHub's 65,536-character limit)",
    )
    compare.add_argument(
        "--full-markdown",
        type=_optional_path,
        metavar="PATH",
        help="write the full report here (for the job summary)",
    )
    compare.add_argument(
        "--json", type=_optional_path, metavar="PATH", help="write the comparison JSON here"
    )
    _add_gate(compare)
    _add_tolerance(compare)

    baseline = sub.add_parser("baseline", help="write the committed baseline")
    actions = _add_subcommands(baseline, dest="baseline_command")
    update = actions.add_parser(
        "update",
        help="write a baseline atomically from a results file",
        description="Write baselines/<profile>.json from a results file: atomic, deterministic "
        "bytes. created_at is --created-at, else $SOURCE_DATE_EPOCH, else the existing "
        "file's when nothing else changed (so a re-run rewrites identical bytes), else now. "
        "A file that is not a valid baseline is never overwritten.",
    )
    _add_config(update)
    update.add_argument(
        "--results", type=Path, required=True, metavar="PATH", help="results JSON (score/run)"
    )
    _add_baseline_file(update, "--out")
    _add_profile(update)
    update.add_argument("--reason", default="", metavar="TEXT", help="why the baseline moves")
    update.add_argument(
        "--created-at",
        type=_optional_text,
        metavar="TIMESTAMP",
        help="ISO 8601, e.g. 2026-05-29T12:00:00Z",
    )
    update.add_argument(
        "--git-sha",
        type=_optional_text,
        metavar="SHA",
        help="the evaluated commit (default: $GITHUB_SHA, else the checked-out HEAD)",
    )
    update.add_argument(
        "--markdown",
        type=_optional_path,
        metavar="PATH",
        help="write the old → new report here (the baseline PR's body)",
    )

    floors = sub.add_parser("floors", help="evidence-based floors (ADR-0023 future work 1)")
    floor_actions = _add_subcommands(floors, dest="floors_command")
    suggest = floor_actions.add_parser(
        "suggest",
        help="observed − margin per metric, from a baseline",
        description="Suggest floors from a baseline: observed mean minus a margin that reaches "
        "the Wilson 95% lower bound (at least --min-margin), rounded down to two decimals.",
    )
    _add_config(suggest)
    _add_baseline_file(suggest, "--baseline")
    _add_profile(suggest)
    suggest.add_argument(
        "--min-margin", type=_fraction, metavar="X", help="smallest margin (default 0.02)"
    )
    suggest.add_argument(
        "--write",
        type=Path,
        metavar="CONFIG",
        help="write the floors into this config's `gate:` section (comments and order kept)",
    )


def _profile_of(args: argparse.Namespace, config: Config | None) -> str:
    if args.profile:
        return str(args.profile)
    return config.profile if config is not None else "default"


def _shown(path: Path, io: _Io) -> str:
    """A path as the user thinks of it: relative to the working directory when inside."""
    try:
        return path.relative_to(io.cwd).as_posix()
    except ValueError:
        return str(path)


def _judge_against_baseline(
    current: Results, *, path: Path, args: argparse.Namespace, io: _Io, config: Config | None
) -> tuple[Comparison, ComparisonVerdict]:
    """Compare ``current`` with the baseline at ``path`` (at ``--baseline-ref``
    when given) and apply the floors and the tolerance."""
    ref = getattr(args, "baseline_ref", None)
    shown = _shown(path, io)
    edit = None
    if ref:
        stored = read_baseline_at_ref(path, ref=ref, cwd=io.cwd)
        working = read_baseline(path, display=shown)
        old = stored.baseline if stored else None
        new = working.baseline if working else None
        if old != new:
            edit = BaselineEdit(old=old, new=new)
    else:
        stored = read_baseline(path, display=shown)
    comparison = compare_to_baseline(
        current=current,
        baseline=stored.baseline if stored else None,
        baseline_path=shown,
        baseline_ref=ref,
        edit=edit,
    )
    verdict = judge_comparison(
        comparison, floors=_floors(args, config), max_regression=_tolerance(args, config)
    )
    return comparison, verdict


def _tolerance(args: argparse.Namespace, config: Config | None) -> float | None:
    if args.max_regression is not None:
        return float(args.max_regression)
    return config.gate.max_regression if config else None


def _cmd_compare(args: argparse.Namespace, io: _Io) -> int:
    config = _config(args, io, required=False)
    profile = _profile_of(args, config)
    current = read_current_results(args.current)
    path = args.baseline or io.cwd / default_baseline_path(profile)
    comparison, verdict = _judge_against_baseline(
        current, path=path, args=args, io=io, config=config
    )
    if args.json is not None:
        atomic_write_text(
            args.json, dump_json(comparison_json(comparison, verdict, profile=profile))
        )
    if args.markdown is not None:
        atomic_write_text(
            args.markdown,
            render_comment(comparison, verdict, profile=profile, max_chars=COMMENT_BUDGET),
        )
    if args.full_markdown is not None:
        atomic_write_text(args.full_markdown, render_comment(comparison, verdict, profile=profile))
    io.stdout.write(render_comparison_text(comparison, verdict, profile=profile))
    return _exit_for(verdict.gate)


def _created_at(args: argparse.Namespace, io: _Io, *, unchanged_since: str | None) -> str:
    """--created-at, else $SOURCE_DATE_EPOCH, else ``unchanged_since``, else now."""
    if args.created_at:
        try:
            return normalise_timestamp(args.created_at)
        except ValueError as exc:
            raise InputError(f"--created-at: {exc}", fix="pass e.g. 2026-05-29T12:00:00Z") from None
    epoch = io.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            moment = datetime.fromtimestamp(int(epoch), tz=UTC)
        except (ValueError, OverflowError, OSError):
            raise InputError(
                f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix timestamp",
                fix="set it to whole seconds since 1970 (`git log -1 --format=%ct`) or unset it",
            ) from None
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if unchanged_since is not None:
        return unchanged_since
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _make_baseline(
    results: Results, *, created_at: str, git_sha: str | None, reason: str
) -> Baseline:
    try:
        return make_baseline(results, created_at=created_at, git_sha=git_sha, reason=reason)
    except ValidationError as exc:
        raise InputError(
            f"cannot make a baseline: {describe_validation_error(exc)}",
            fix="check --git-sha (or $GITHUB_SHA) and --created-at",
        ) from None


def _cmd_baseline(args: argparse.Namespace, io: _Io) -> int:
    config = _config(args, io, required=False)
    profile = _profile_of(args, config)
    results = read_current_results(args.results)
    if not any(case.metrics for case in results.cases):
        raise InputError(
            f"{args.results}: no case carries gold, so a baseline would compare nothing",
            fix="score a case set with gold labels (`must_cite_one_of`)",
        )
    out = args.out or io.cwd / default_baseline_path(profile)
    shown = _shown(out, io)
    try:
        existing = read_baseline(out, display=shown)
    except InputError as exc:
        raise InputError(
            f"refusing to overwrite {shown}: {exc.message}",
            fix="move that file away or pass another --out: only a valid baseline is replaced",
        ) from None
    git_sha = args.git_sha or io.environ.get("GITHUB_SHA") or git_head_sha(io.cwd)
    unchanged_since = None
    if existing is not None:
        candidate = _make_baseline(
            results,
            created_at=existing.baseline.created_at,
            git_sha=git_sha,
            reason=args.reason,
        )
        if candidate == existing.baseline:
            unchanged_since = existing.baseline.created_at
    baseline = _make_baseline(
        results,
        created_at=_created_at(args, io, unchanged_since=unchanged_since),
        git_sha=git_sha,
        reason=args.reason,
    )
    text = dump_baseline(baseline)
    if existing is not None and existing.text == text:
        io.stdout.write(f"recall-gate: {shown} is up to date (identical bytes, not rewritten)\n")
    else:
        write_baseline(out, baseline)
        io.stdout.write(f"recall-gate: wrote {shown}\n")
    comparison = compare_to_baseline(
        current=baseline, baseline=existing.baseline if existing else None, baseline_path=shown
    )
    if args.markdown is not None:
        atomic_write_text(
            args.markdown, render_baseline_update(comparison, new=baseline, path=shown)
        )
    io.stdout.write(render_baseline_update(comparison, new=baseline, path=shown, fmt="text"))
    return 0


def _cmd_floors(args: argparse.Namespace, io: _Io) -> int:
    config = _config(args, io, required=False)
    profile = _profile_of(args, config)
    path = args.baseline or io.cwd / default_baseline_path(profile)
    shown = _shown(path, io)
    stored = read_baseline(path, display=shown)
    if stored is None:
        raise InputError(
            f"{shown}: no baseline yet, so no evidence for a floor",
            fix=f"create it: `recall-gate baseline update --results results.json --out {shown}`",
        )
    margin = args.min_margin if args.min_margin is not None else 0.02
    suggested = suggest_floors(stored.baseline.aggregates, min_margin=margin)
    k = stored.baseline.k
    rows = [
        [
            FLOOR_FLAGS[s.metric],
            metric_label(s.metric, k),
            f"{s.observed:.3f}",
            str(s.n),
            f"{s.margin:.3f}",
            f"{s.floor:.2f}",
        ]
        for s in suggested
    ]
    io.stdout.write(
        f"recall-gate: floors suggested from {shown} (observed − margin, down to the Wilson "
        f"95% lower bound, at least {margin:.2f})\n\n"
        + table(["flag", "metric", "observed", "n", "margin", "floor"], rows, "text")
        + "\n"
    )
    if args.write is not None:
        settings = {FLOOR_FLAGS[s.metric].replace("-", "_"): s.floor for s in suggested}
        write_gate_settings(args.write, settings)
        written = ", ".join(f"{key}: {value:.2f}" for key, value in settings.items())
        io.stdout.write(
            f"\nrecall-gate: wrote gate floors into {_shown(args.write, io)}: {written}\n"
        )
    return 0


# -- comment ---------------------------------------------------------------------

DEFAULT_API_URL = "https://api.github.com"
_COMMENT_ENV = """environment:
  GITHUB_TOKEN         token allowed to write PR comments (required)
  GITHUB_API_URL       REST API root (default https://api.github.com; GHES: https://HOST/api/v3)
  GITHUB_REPOSITORY    default for --repo
  GITHUB_EVENT_PATH    webhook payload: the PR number and head SHA of a pull_request
                       event; for workflow_run, the PR is found from the run's head SHA
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS   set by the Actions runner

exit codes: 0 posted, updated, unchanged, skipped, or refused for lack of permission
(a warning: a comment never changes the verdict); 2 anything else."""


def _add_comment(sub: argparse._SubParsersAction[_Parser]) -> None:
    comment = sub.add_parser(
        "comment",
        help="upsert the sticky PR comment from a rendered report",
        description="Create or update the ONE recall-gate comment of a profile on a pull "
        "request (found by its hidden marker, across all pages); skipped when unchanged or "
        "when the PR has moved on to a newer commit.",
        epilog=_COMMENT_ENV,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    comment.add_argument(
        "--body", type=Path, required=True, metavar="PATH", help="the comment's Markdown"
    )
    comment.add_argument(
        "--profile", default="default", metavar="NAME", help="one comment per profile"
    )
    comment.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    comment.add_argument(
        "--pr",
        type=_positive_int,
        metavar="N",
        help="default: the event's pull request, else the open PR whose head is --head-sha",
    )
    comment.add_argument(
        "--head-sha", metavar="SHA", help="the commit reported on (default: the event's PR head)"
    )


def _cmd_comment(args: argparse.Namespace, io: _Io) -> int:
    # Imported here: only this command talks to GitHub.
    import requests

    from recall_gate.actions_io import ActionsRunner, EventContext, load_event
    from recall_gate.dataset import read_text
    from recall_gate.github import comment_marker, find_pr_for_head_sha, upsert_comment
    from recall_gate.github_client import GitHubClient, GitHubPermissionError

    runner = ActionsRunner.from_environ(io.environ, stream=io.stdout)
    token = io.environ.get("GITHUB_TOKEN", "")
    marker = comment_marker(args.profile)
    body = read_text(args.body, what="comment body")
    event_path = io.environ.get("GITHUB_EVENT_PATH", "")
    event = load_event(Path(event_path)) if event_path else EventContext()
    head_sha = args.head_sha or event.head_sha
    if head_sha is None:
        if event_path and args.pr is None:
            runner.annotate(
                "notice",
                "the triggering event is not about a pull request; no comment posted",
                title="recall-gate",
            )
            return 0
        raise InputError(
            "no head commit to report on",
            fix="pass --head-sha SHA (the pull request's head commit)",
        )
    repo = args.repo or io.environ.get("GITHUB_REPOSITORY") or event.repository
    if not repo:
        raise InputError(
            "no repository to comment on",
            fix="pass --repo OWNER/NAME (GITHUB_REPOSITORY inside GitHub Actions)",
        )
    if not token:
        raise InputError(
            "no GitHub token: GITHUB_TOKEN is not set",
            fix="set GITHUB_TOKEN to a token allowed to write PR comments "
            "(the action passes its `github-token` input)",
        )
    base_url = io.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    with requests.Session() as session:
        client = GitHubClient(session, base_url=base_url, token=token)
        try:
            pr = args.pr or event.pr_number
            if pr is None:
                pr = find_pr_for_head_sha(
                    client, repo=repo, head_sha=head_sha, head_label=event.head_label
                )
            if pr is None:
                runner.annotate(
                    "notice",
                    f"no open pull request of {repo} has head {head_sha}; no comment posted",
                    title="recall-gate",
                )
                return 0
            outcome = upsert_comment(
                client,
                repo=repo,
                pr_number=pr,
                marker=marker,
                body=body,
                bot_login=None,
                head_sha=head_sha,
            )
        except GitHubPermissionError as exc:
            runner.annotate("warning", str(exc), title="recall-gate: PR comment not posted")
            runner.append_summary(
                f"> [!WARNING]\n> The recall-gate PR comment was not posted: {exc.message}\n"
                f">\n> Fix: {exc.fix}\n"
            )
            return 0
    where = f"{repo}#{pr}"
    if outcome.status == "skipped_stale":
        io.stdout.write(
            f"recall-gate: {where} has moved on to {outcome.pr_head_sha}; "
            f"its comment was left to that commit's run\n"
        )
    else:
        io.stdout.write(f"recall-gate: PR comment {outcome.status}: {outcome.html_url}\n")
    for duplicate in outcome.deleted_duplicates:
        io.stdout.write(f"recall-gate: deleted duplicate comment {duplicate}\n")
    runner.set_outputs(
        {"comment-status": str(outcome.status), "comment-url": outcome.html_url or ""}
    )
    return 0


# -- actions-report ------------------------------------------------------------


def _add_actions_report(sub: argparse._SubParsersAction[_Parser]) -> None:
    report = sub.add_parser(
        "actions-report",
        help="GitHub Actions: step outputs, job summary and annotations of a comparison",
        description="Turn `compare --json` into the action's step outputs (verdict, hit, "
        "recall, ndcg, n, regressions), append a report to the job summary, and annotate "
        "failed floors, regressions and a stale or missing baseline. Outside GitHub Actions "
        "the annotations are printed as plain lines.",
    )
    report.add_argument(
        "--comparison", type=Path, required=True, metavar="PATH", help="`compare --json` output"
    )
    report.add_argument(
        "--summary", type=Path, metavar="PATH", help="Markdown to append to the job summary"
    )


def _cmd_actions_report(args: argparse.Namespace, io: _Io) -> int:
    import json

    from recall_gate.actions_io import ActionsRunner, comparison_annotations, comparison_outputs
    from recall_gate.dataset import read_text

    source = str(args.comparison)
    try:
        comparison = json.loads(read_text(args.comparison, what="comparison file"))
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: invalid JSON: {exc.msg} (line {exc.lineno})",
            fix="pass the file written by `recall-gate compare --json`",
        ) from None
    if not isinstance(comparison, dict) or comparison.get("kind") != "recall-gate-comparison":
        raise InputError(
            f"{source}: not a recall-gate comparison (no kind: recall-gate-comparison)",
            fix="pass the file written by `recall-gate compare --json`",
        )
    runner = ActionsRunner.from_environ(io.environ, stream=io.stdout)
    outputs = comparison_outputs(comparison)
    runner.set_outputs(outputs)
    if args.summary is not None:
        runner.append_summary(read_text(args.summary, what="report"))
    for note in comparison_annotations(comparison):
        runner.annotate(note.level, note.message, title=note.title)
    io.stdout.write(
        "recall-gate: "
        + ", ".join(f"{key}={value or '—'}" for key, value in outputs.items())
        + "\n"
    )
    return 0


# -- propose-baseline ----------------------------------------------------------


def _add_propose_baseline(sub: argparse._SubParsersAction[_Parser]) -> None:
    propose = sub.add_parser(
        "propose-baseline",
        help="commit a baseline file to a new branch and open a pull request (REST API)",
        description="Create a branch from --base, commit the baseline file to it and open a "
        "pull request, all through the REST API: nothing is pushed to --base (protected "
        "branches are fine) and no git credentials are needed.",
        epilog="environment: GITHUB_TOKEN (contents: write, pull-requests: write), "
        "GITHUB_API_URL, GITHUB_REPOSITORY; GITHUB_SERVER_URL and GITHUB_RUN_ID link the run.",
    )
    propose.add_argument(
        "--file",
        required=True,  # a str: it is the path inside the repository too
        metavar="PATH",
        help="the baseline file, relative to the repository root (the working directory)",
    )
    propose.add_argument("--base", required=True, metavar="BRANCH", help="the default branch")
    propose.add_argument("--profile", default="default", metavar="NAME")
    propose.add_argument("--reason", default="", metavar="TEXT", help="why the baseline moves")
    propose.add_argument(
        "--body", type=Path, metavar="PATH", help="Markdown for the PR body (old → new report)"
    )
    propose.add_argument("--branch", metavar="NAME", help="default: recall-gate/baseline-...")
    propose.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")


def _cmd_propose_baseline(args: argparse.Namespace, io: _Io) -> int:
    from datetime import UTC, datetime

    import requests

    from recall_gate.actions_io import ActionsRunner
    from recall_gate.dataset import read_text
    from recall_gate.github import create_branch, create_pull_request, get_branch_sha, put_file
    from recall_gate.github_client import GitHubClient
    from recall_gate.render import escape_markdown

    runner = ActionsRunner.from_environ(io.environ, stream=io.stdout)
    token = io.environ.get("GITHUB_TOKEN", "")
    relative = Path(args.file)
    if relative.is_absolute() or ".." in relative.parts:
        raise InputError(
            f"{relative}: the baseline must be given relative to the repository root",
            fix="run from the repository root and pass e.g. baselines/default.json",
        )
    content = read_text(io.cwd / relative, what="baseline file").encode("utf-8")
    repo = args.repo or io.environ.get("GITHUB_REPOSITORY", "")
    if not repo:
        raise InputError("no repository", fix="pass --repo OWNER/NAME")
    if not token:
        raise InputError(
            "no GitHub token: GITHUB_TOKEN is not set",
            fix="set GITHUB_TOKEN to a token with contents: write and pull-requests: write",
        )
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    branch = args.branch or f"recall-gate/baseline-{args.profile}-{stamp}"
    reason = " ".join(args.reason.split())
    title = f"Update the {args.profile} retrieval baseline" + (f": {reason}" if reason else "")
    lines = [f"Updates `{relative.as_posix()}` from an evaluation of `{args.base}`."]
    run_id = io.environ.get("GITHUB_RUN_ID")
    if run_id:
        server = io.environ.get("GITHUB_SERVER_URL", "https://github.com")
        lines[0] += f" Opened by [workflow run {run_id}]({server}/{repo}/actions/runs/{run_id})."
    if args.body is not None:  # `baseline update --markdown`: reason, then old → new
        lines += ["", read_text(args.body, what="PR body").rstrip("\n")]
    else:
        lines += ["", f"Reason: {escape_markdown(reason) if reason else '(none given)'}"]
    base_url = io.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    with requests.Session() as session:
        client = GitHubClient(session, base_url=base_url, token=token)
        sha = get_branch_sha(client, repo=repo, branch=args.base)
        create_branch(client, repo=repo, branch=branch, from_sha=sha)
        put_file(
            client,
            repo=repo,
            branch=branch,
            path=relative.as_posix(),
            content=content,
            message=title,
        )
        pull = create_pull_request(
            client, repo=repo, head=branch, base=args.base, title=title, body="\n".join(lines)
        )
    io.stdout.write(f"recall-gate: opened pull request #{pull.number}: {pull.url}\n")
    runner.set_outputs({"pull-request-url": pull.url, "branch": branch})
    return 0


_COMMANDS = {
    "check": _cmd_check,
    "score": _cmd_score,
    "run": _cmd_run,
    "compare": _cmd_compare,
    "baseline": _cmd_baseline,
    "floors": _cmd_floors,
    "comment": _cmd_comment,
    "actions-report": _cmd_actions_report,
    "propose-baseline": _cmd_propose_baseline,
}


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
    io = _Io(
        stdout=stdout or sys.stdout,
        stderr=stderr or sys.stderr,
        environ=os.environ if environ is None else environ,
        cwd=cwd or Path.cwd(),
    )
    try:
        args = build_parser().parse_args(argv)
        if cwd is not None:
            _anchor_paths(args, cwd)
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
