"""Evaluation commands: ``check`` (dataset integrity), ``score`` (captured
artifacts) and ``run`` (the built-in runner), and the report they share:
results, or a comparison with the baseline when there is one."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import (
    Parser,
    add_baseline_comparison,
    add_baseline_ref,
    add_config,
    add_gate,
    add_no_score,
    add_outputs,
    add_strict,
    outputs_asked,
    refuse_outputs_without_score,
)
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.errors import GateFailure, InputError
from recall_gate.settings.values import positive_int

if TYPE_CHECKING:
    from recall_gate.adapters.config import Config
    from recall_gate.core.records import Retriever

# Each handler imports what it runs when it runs: `score --help` loads no model.


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    check = sub.add_parser("check", help="dataset integrity: every gold id resolves, ids unique")
    add_config(check)
    check.add_argument("--kb", type=Path, metavar="PATH", help="KB directory or file")
    check.add_argument("--cases", type=Path, action="append", metavar="PATH", help="cases file")
    add_baseline_ref(check)
    check.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on a query copied into a card or on near-duplicate cards "
        "(warnings otherwise); refuse (exit 2) a front-matter key that is no card field "
        "(kept as metadata otherwise)",
    )

    score = sub.add_parser("score", help="score captured artifacts or a TREC run (no store needed)")
    add_config(score)
    score.add_argument("--artifacts", type=Path, metavar="PATH", help="the capture (JSONL)")
    score.add_argument("--capture-dir", type=Path, metavar="DIR", help="a capture job's folder")
    score.add_argument(
        "--cases", type=Path, action="append", metavar="PATH", help="cases file (default: config)"
    )
    ir = score.add_argument_group(
        "TREC / BEIR input (instead of --artifacts / --cases; queries the qrels do not "
        "judge are left out, as trec_eval does)"
    )
    ir.add_argument("--run", type=Path, metavar="PATH", help="a TREC run (or artifacts JSONL)")
    ir.add_argument(
        "--run-format", choices=("trec", "jsonl"), help="the run's format (default: detected)"
    )
    ir.add_argument(
        "--qrels", type=Path, metavar="PATH", help="TREC or BEIR qrels (or cases JSONL)"
    )
    ir.add_argument(
        "--qrels-format",
        choices=("trec", "beir", "jsonl"),
        help="the qrels' format (default: detected)",
    )
    score.add_argument(
        "--kb", type=Path, metavar="PATH", help="check gold ids against this KB (default: config)"
    )
    score.add_argument("--k", type=positive_int, metavar="K")
    add_strict(score)
    add_outputs(score)
    add_gate(score)
    add_baseline_comparison(score)

    run = sub.add_parser("run", help="ingest the KB into Chroma, retrieve every case, score")
    add_config(run, required=True)
    run.add_argument("--k", type=positive_int, metavar="K")
    run.add_argument("--artifacts-out", type=Path, metavar="PATH", help="write the capture here")
    add_no_score(run)
    add_strict(run)
    add_outputs(run)
    add_gate(run)
    add_baseline_comparison(run)

    return {"check": _cmd_check, "score": _cmd_score, "run": _cmd_run}


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
    import dataclasses

    from recall_gate.adapters.dataset import card_ids_of, load_cases
    from recall_gate.adapters.query_log import load_query_log
    from recall_gate.core.coverage import kb_coverage, render_coverage
    from recall_gate.core.integrity import find_problems
    from recall_gate.core.kb_diff import deleted_gold
    from recall_gate.judging.dataset_notes import report_leakage, warn_case_languages
    from recall_gate.judging.kb_judging import (
        follow_located,
        gold_read_as_cards,
        new_card_coverage_failure,
        pull_request_kb,
        read_kb_noted,
        write_kb_changes,
        write_label_rot,
    )
    from recall_gate.judging.oracle import judged_cases, working_tree_cases
    from recall_gate.judging.revision import resolve_judged

    settings = resolve_judged(args, console)
    kb, case_paths = settings.kb, settings.cases
    if kb is None or not case_paths:
        raise InputError(
            "check needs a KB and cases",
            fix="pass --kb PATH and --cases PATH, or set `kb` and `cases` in recall-gate.yaml",
        )
    files = settings.kb_files()
    if args.strict and files.strict_front_matter is None:
        files = dataclasses.replace(files, strict_front_matter="--strict")
    read = read_kb_noted(kb, files, console)
    cards = [(e.where, e.card) for e in read.cards]
    written = working_tree_cases(settings) if settings.base is not None else load_cases(case_paths)
    # Judged at a base revision: the base's cases too (as the base has them: they
    # judge the pull request), each rename the pull request makes followed, each
    # deleted card still cited named with its cases.
    diff = pull_request_kb(settings)
    card_ids = card_ids_of(read.cards)
    # A gold id written as the URL of a card's page is that card (one note says how many).
    cases, _ = gold_read_as_cards(follow_located(written, diff), card_ids, console)
    kb_problems = []
    if diff is not None and settings.base is not None and diff.of("deleted"):
        judged, _ = judged_cases(settings, written)
        by_id = {c.id: c for _, c in (*written, *judged)}
        kb_problems = deleted_gold(diff, list(by_id.values()), ref=settings.base.ref)
    config = settings.config
    # The query log, validated like the cases (exit 2 listing every bad line).
    logged = load_query_log(config.queries) if config and config.queries else None
    warn_case_languages([c for _, c in cards], [c for _, c in cases], console)
    gone = frozenset(c.card_id for c in diff.of("deleted")) if diff is not None else frozenset()
    problems = kb_problems + find_problems(
        cards=cards,
        cases=cases,
        reported=gone,
        skipped=read.skipped_ids(),
        card_ids=card_ids,
    )
    if problems:
        console.stderr.write(f"recall-gate check: {len(problems)} integrity problem(s)\n")
        for problem in problems:
            console.stderr.write(f"  {problem}\n")
        raise GateFailure(
            "dataset integrity failed: a labelling error must not pass for a retrieval failure",
            fix="fix the ids listed above",
        )
    report_leakage([c for _, c in cards], cases, console, strict=args.strict)
    gold = sum(1 for _, c in cases if c.gold_labelled)
    console.stdout.write(
        f"recall-gate check: ok — {len(cards)} cards, {len(cases)} cases "
        f"({gold} gold-labelled), every gold and relevant id resolves"
        + (f"; query log: {len(logged):,} queries" if logged is not None else "")
        + "\n"
    )
    coverage = kb_coverage([c for _, c in cards], [c for _, c in cases])
    console.stdout.write(f"recall-gate check: {render_coverage(coverage)}\n")
    write_label_rot(settings, console)
    if diff is not None and settings.base is not None:
        write_kb_changes(
            diff, ref=settings.base.ref, cases=[c for _, c in written], console=console
        )
        floor = settings.value("min_new_card_coverage")
        failure = new_card_coverage_failure(diff, floor=floor, cases=[c for _, c in written])
        if failure is not None:
            raise failure
    return 0


def _cmd_score(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.judging.file_scoring import score_capture_file, score_trec_run
    from recall_gate.judging.revision import resolve_judged

    if args.capture_dir is not None:  # the two-job check's hand-over, read within caps
        from recall_gate.adapters.capture_folder import capture_file_of

        args.artifacts = capture_file_of(args.capture_dir, also=(args.artifacts, args.run))
    settings = resolve_judged(args, console)
    outputs = outputs_asked(args)
    if args.qrels is None and args.run is None:
        if args.artifacts is None:
            raise InputError(
                "score needs a capture",
                fix="pass --artifacts PATH (a capture JSONL), or --run PATH --qrels PATH "
                "(a TREC run and its qrels)",
            )
        return score_capture_file(
            args.artifacts, outputs=outputs, settings=settings, console=console
        )
    if args.run is not None and args.artifacts is not None:
        raise InputError(
            "score takes --run or --artifacts, not both", fix="pass the capture once, as --run"
        )
    if args.qrels is not None and args.cases:
        raise InputError(
            "score takes --qrels or --cases, not both", fix="pass the judgments once, as --qrels"
        )
    run: Path | None = args.run if args.run is not None else args.artifacts
    if run is None or args.qrels is None:
        raise InputError(
            "score --run needs --qrels, and --qrels needs --run",
            fix="pass --run PATH (a TREC run, or artifacts JSONL) and --qrels PATH "
            "(TREC or BEIR qrels, or cases)",
        )
    return score_trec_run(
        run,
        # --artifacts with --qrels: a capture, whatever its first line looks like.
        run_format=args.run_format or (None if args.run is not None else "jsonl"),
        qrels=args.qrels,
        qrels_format=args.qrels_format,
        outputs=outputs,
        settings=settings,
        console=console,
    )


def _cmd_run(args: argparse.Namespace, console: Console) -> int:
    from recall_gate import __version__
    from recall_gate.adapters.artifacts import dump_artifacts
    from recall_gate.adapters.query_log import load_query_log
    from recall_gate.adapters.query_snapshot import QuerySnapshot, write_with_snapshot
    from recall_gate.core.fingerprint import (
        fingerprint_cards,
        fingerprint_cases,
        fingerprint_queries,
        fingerprint_settings,
    )
    from recall_gate.core.records import Provenance
    from recall_gate.core.staleness import flatten_settings
    from recall_gate.judging.capture_scoring import cards_checked, score_fresh_capture
    from recall_gate.judging.dataset_notes import warn_languages_without_cards
    from recall_gate.judging.oracle import judged_cases, working_tree_cases
    from recall_gate.judging.revision import resolve_judged
    from recall_gate.runner import run_pipeline  # heavy: torch, chromadb

    settings = resolve_judged(args, console, config_required=True)
    config = settings.config
    assert config is not None
    if settings.kb is None or not settings.cases:
        raise InputError(
            "run has no KB or no cases",
            fix="set `kb:` (KB directory) and `cases:` (cases file or directory) in the config, "
            "or pass them as RECALL_GATE_KB and RECALL_GATE_CASES (the action's inputs)",
        )
    if args.no_score and args.artifacts_out is None:
        raise InputError(
            "run --no-score writes only the capture, and --artifacts-out names no file for it",
            fix="add --artifacts-out PATH (the judge scores that file with `recall-gate score`)",
        )
    refuse_outputs_without_score(args)
    located, plan = judged_cases(settings, working_tree_cases(settings))
    cards, _, located, plan = cards_checked(settings, console, located, plan)
    cases = [case for _, case in located]
    judged = list(plan.judged) if plan is not None else cases
    if config.retrieval.same_language:
        warn_languages_without_cards([c for _, c in cards], cases, console)
    # The query log, asked with the cases (validated before the model loads).
    queries = load_query_log(config.queries) if config.queries is not None else []
    progress = console.stderr.isatty() and not console.environ.get("CI")
    log = lambda line: console.stderr.write(f"recall-gate: {line}\n")  # noqa: E731
    captured = run_pipeline(
        config, [c for _, c in cards], cases, progress=progress, log=log, queries=queries
    )
    retriever = _builtin_retriever(config, captured.embedder_id)
    # Each logged query's top k, as `capture` keeps them: the snapshot beside the capture.
    k = settings.k
    logged = (
        QuerySnapshot(k=k, rankings={i: r[:k] for i, r in captured.logged.items()})
        if queries
        else None
    )
    if args.artifacts_out is not None:
        text = dump_artifacts(captured.artifacts, retriever=retriever)
        written = write_with_snapshot(args.artifacts_out, text, logged)  # the two together
        if logged is not None and written is not None:
            console.stderr.write(
                f"recall-gate: {len(logged.rankings)} of {len(queries)} logged queries → "
                f"{display_path(written, console)}\n"
            )
    if args.no_score:
        return 0  # the capture job of a two-job PR check: the judge job scores it
    # The runner retrieves deep enough for any k: the k scored is the settings'.
    retrieval = {**config.retrieval_fingerprint_payload(), "k": settings.k}
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=fingerprint_cases(judged),
        queries_fingerprint=fingerprint_queries((c.id, c.query) for c in judged),
        kb_fingerprint=fingerprint_cards(c for _, c in cards),
        config_fingerprint=fingerprint_settings(retrieval),
        embedder=captured.embedder_id,
        retrieval_mode=config.retrieval.mode + ("+rerank" if config.reranker.enabled else ""),
        settings={**flatten_settings(retrieval), "kb.cards": len(cards)},
        retriever=retriever,
    )
    return score_fresh_capture(
        captured.artifacts,
        judged=judged,
        plan=plan,
        provenance=provenance,
        artifacts_source="the capture",
        settings=settings,
        outputs=outputs_asked(args),
        console=console,
        cards=[c for _, c in cards],
        logged=logged,
    )


def _builtin_retriever(config: Config, embedder_id: str) -> Retriever:
    """The built-in runner as a capture's retriever (its settings are in the config fingerprint)."""
    from recall_gate.core.records import Retriever

    return Retriever(
        adapter="builtin",
        name="recall_gate.runner",
        params={
            "mode": config.retrieval.mode,
            "embedder": embedder_id,
            "reranker": config.reranker.model if config.reranker.enabled else None,
        },
    )
