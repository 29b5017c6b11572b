"""Evaluation commands: ``check`` (dataset integrity), ``score`` (captured
artifacts) and ``run`` (the built-in runner), and the report they share:
results, or a comparison with the baseline when there is one."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from recall_gate import __version__
from recall_gate.commands.arguments import (
    Parser,
    add_baseline_comparison,
    add_config,
    add_gate,
    add_outputs,
    positive_int,
)
from recall_gate.commands.context import Handler, Io, load_command_config, profile_of
from recall_gate.commands.gating import exit_for, floors_of, judge_against_baseline, tolerance_of
from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import score_case
from recall_gate.core.fingerprint import fingerprint_cards, fingerprint_cases, fingerprint_settings
from recall_gate.core.gate import decide
from recall_gate.core.integrity import duplicate_cases, find_problems, languages_without_cards
from recall_gate.core.labels import label_artifacts
from recall_gate.core.records import Artifact, Card, Case, CaseLabel, Provenance, Results
from recall_gate.errors import GateFailure, InputError
from recall_gate.io.artifact_stream import score_artifacts_file
from recall_gate.io.baseline_store import default_baseline_path
from recall_gate.io.config import Config
from recall_gate.io.dataset import load_artifacts, load_cards, load_cases
from recall_gate.io.results_store import atomic_write_text, write_results
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.results import render_report, render_summary

DEFAULT_K = 5


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    check = sub.add_parser("check", help="dataset integrity: every gold id resolves, ids unique")
    add_config(check)
    check.add_argument("--kb", type=Path, metavar="PATH", help="KB directory or file")
    check.add_argument("--cases", type=Path, action="append", metavar="PATH", help="cases file")

    score = sub.add_parser("score", help="score captured artifacts (no store needed)")
    add_config(score)
    score.add_argument("--artifacts", type=Path, required=True, metavar="PATH")
    score.add_argument("--cases", type=Path, action="append", metavar="PATH")
    score.add_argument("--k", type=positive_int, metavar="K")
    add_outputs(score)
    add_gate(score)
    add_baseline_comparison(score)

    run = sub.add_parser("run", help="ingest the KB into Chroma, retrieve every case, score")
    add_config(run, required=True)
    run.add_argument("--k", type=positive_int, metavar="K")
    run.add_argument("--artifacts-out", type=Path, metavar="PATH", help="write the capture here")
    add_outputs(run)
    add_gate(run)
    add_baseline_comparison(run)

    return {"check": _cmd_check, "score": _cmd_score, "run": _cmd_run}


def _unique_cases(located: Sequence[tuple[str, Case]]) -> list[Case]:
    dupes = duplicate_cases(located)
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
    io: Io,
) -> int:
    floors = floors_of(args, config)
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
        profile = profile_of(args, config)
        comparison, verdict = judge_against_baseline(
            results, path=baseline, args=args, io=io, config=config
        )
        if args.markdown is not None:
            atomic_write_text(args.markdown, render_comment(comparison, verdict, profile=profile))
        io.stdout.write(render_comparison_text(comparison, verdict, profile=profile))
        return exit_for(verdict.gate)
    gate = decide(results.aggregates, floors=floors)
    if args.markdown is not None:
        atomic_write_text(args.markdown, render_report(results, gate=gate, fmt="markdown"))
    io.stdout.write(render_report(results, gate=gate, fmt="text"))
    return exit_for(gate)


def _baseline_to_compare(args: argparse.Namespace, io: Io, config: Config | None) -> Path | None:
    """The baseline `score` / `run` compare with: ``--baseline``, else the
    profile's file when it exists or when a tolerance asks for one (then a
    missing file is reported as "no baseline yet"); None: results only."""
    if args.baseline is not None:
        return Path(args.baseline)
    path = io.cwd / default_baseline_path(profile_of(args, config))
    if path.exists() or tolerance_of(args, config) is not None:
        return path
    return None


def _score_streamed(args: argparse.Namespace, io: Io, *, config: Config | None, k: int) -> int:
    """`score --artifacts F` alone: same report as _score_and_report, no per-case records."""
    scores = score_artifacts_file(args.artifacts, k=k)
    gate = decide(scores.aggregates, floors=floors_of(args, config))

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
    return exit_for(gate)


def _cmd_check(args: argparse.Namespace, io: Io) -> int:
    config = load_command_config(args, io, required=False)
    kb = args.kb or (config.kb if config else None)
    case_paths = args.cases or (list(config.cases) if config else [])
    if kb is None or not case_paths:
        raise InputError(
            "check needs a KB and cases",
            fix="pass --kb PATH and --cases PATH, or set `kb` and `cases` in recall-gate.yaml",
        )
    cards = load_cards(kb, default_language=config.default_language if config else None)
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


def _cmd_score(args: argparse.Namespace, io: Io) -> int:
    config = load_command_config(args, io, required=False)
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


def _warn_languages_without_cards(cards: Sequence[Card], cases: Sequence[Case], io: Io) -> None:
    missing = languages_without_cards(cards, cases)
    if missing:
        total = sum(missing.values())
        listed = ", ".join(
            f"{lang} ({n} case{'s' if n != 1 else ''})" for lang, n in missing.items()
        )
        io.stderr.write(
            f"recall-gate: warning: retrieval.same_language is on but no card is in {listed}: "
            f"those {total} case(s) search no card and score as misses "
            "(add cards in that language, fix the case's language, or turn same_language off)\n"
        )


def _cmd_run(args: argparse.Namespace, io: Io) -> int:
    from recall_gate.runner import capture  # heavy: torch, chromadb

    config = load_command_config(args, io, required=True)
    assert config is not None
    if args.k is not None:
        config = config.model_copy(update={"k": args.k})
    if config.kb is None or not config.cases:
        raise InputError(
            "the config sets no `kb` or no `cases`",
            fix="set `kb:` (KB directory) and `cases:` (cases file or directory) in the config",
        )
    cards = load_cards(config.kb, default_language=config.default_language)
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
    if config.retrieval.same_language:
        _warn_languages_without_cards([c for _, c in cards], cases, io)
    progress = io.stderr.isatty() and not io.environ.get("CI")
    log = lambda line: io.stderr.write(f"recall-gate: {line}\n")  # noqa: E731
    captured = capture(config, [c for _, c in cards], cases, progress=progress, log=log)
    if args.artifacts_out is not None:
        from recall_gate.io.results_store import dump_jsonl

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
