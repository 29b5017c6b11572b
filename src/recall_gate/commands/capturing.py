"""``recall-gate capture``: run a user's retriever over the cases, write the
artifacts file, then report the score exactly as ``score`` would."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import (
    RESULT_FLAGS,
    Parser,
    add_baseline_comparison,
    add_config,
    add_gate,
    add_no_score,
    add_outputs,
    add_strict,
    asked_flags,
    outputs_asked,
    refuse_outputs_without_score,
)
from recall_gate.commands.context import Console, Handler
from recall_gate.core.pacing import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from recall_gate.errors import InputError
from recall_gate.settings.values import (
    non_negative_int,
    positive_int,
    positive_rate,
    positive_seconds,
    shard_spec,
)

if TYPE_CHECKING:
    from recall_gate.adapters.config import Config
    from recall_gate.core.logged_query import LoggedQuery

# The handler imports what it runs when it runs: `capture --help` loads the parser alone.


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "capture",
        help="run your retriever (LangChain, LlamaIndex, Haystack, a function) over the "
        "cases, write the artifacts, score them",
        description="Import MODULE:FACTORY (a retriever, or a function returning one), run "
        "every case's query through it, write the artifacts file atomically, then report "
        "the score as `recall-gate score` does.",
    )
    add_config(p)
    p.add_argument(
        "--retriever",
        metavar="MODULE:FACTORY",
        help="e.g. app.rag:build_retriever (imported from the current directory; "
        "default: the config's capture.retriever)",
    )
    p.add_argument("--out", type=Path, required=True, metavar="PATH", help="the artifacts file")
    p.add_argument("--error-json", type=Path, metavar="PATH", help="on failure, why (JSON)")
    p.add_argument(
        "--trec-out",
        type=Path,
        metavar="PATH",
        help="also write the capture as a TREC run (for trec_eval, ranx, pytrec_eval)",
    )
    p.add_argument(
        "--cases", type=Path, action="append", metavar="PATH", help="cases file (default: config)"
    )
    p.add_argument(
        "--kb",
        type=Path,
        metavar="PATH",
        help="map document paths to these cards (default: config)",
    )
    p.add_argument("--k", type=positive_int, metavar="K", help="documents per query")
    p.add_argument(
        "--id-from",
        metavar="FIELD",
        help="the document field holding the card id or file path, e.g. metadata.source "
        "(default: metadata.card_id, metadata.id, metadata.source, metadata.file_path, …, id)",
    )
    p.add_argument("--label", metavar="TEXT", help="your name for this retriever (provenance)")
    p.add_argument(
        "--no-gate",
        action="store_true",
        help="capture and report, but exit 0 on a failed gate (a later step, e.g. the "
        "action in score mode, judges); exit codes 2 and 3 still say it could not run",
    )
    add_no_score(p)
    run = p.add_argument_group("running the cases (see docs/large-evaluation-sets.md)")
    run.add_argument(
        "--concurrency",
        type=positive_int,
        metavar="N",
        help=f"cases asked at once; 1 = one at a time (default: capture.concurrency in "
        f"the config, else {DEFAULT_CONCURRENCY})",
    )
    run.add_argument(
        "--retries",
        type=non_negative_int,
        metavar="N",
        help=f"asks again after a transient failure (connection error, timeout, HTTP 429/5xx), "
        f"with exponential backoff (default {DEFAULT_RETRIES})",
    )
    run.add_argument(
        "--timeout",
        type=positive_seconds,
        metavar="S",
        help=f"seconds per attempt before a query times out (default {DEFAULT_TIMEOUT:g})",
    )
    run.add_argument(
        "--max-failures",
        type=non_negative_int,
        metavar="N",
        help="record up to N cases the retriever cannot answer (scored as misses, named in "
        "the report) instead of failing the capture (default 0)",
    )
    run.add_argument(
        "--max-qps",
        type=positive_rate,
        metavar="R",
        help="at most R requests a second to the retriever, across every lane and retry "
        "(with --shard I/N each shard takes R/N); default: capture.max_qps, else no cap",
    )
    run.add_argument(
        "--shard",
        type=shard_spec,
        metavar="I/N",
        help="capture only shard I of N (a deterministic split by case id), to merge with "
        "`recall-gate merge`; a shard is not scored",
    )
    run.add_argument(
        "--resume",
        action="store_true",
        help="continue an interrupted capture from its journal (OUT.journal): only the cases "
        "not yet answered are asked",
    )
    run.add_argument(
        "--repeat",
        type=positive_int,
        default=1,
        metavar="N",
        help="capture N times with nothing changed (A/A) and report what differs between the "
        "runs: the retriever's own noise; the first run is the one written and scored",
    )
    run.add_argument("--quiet", action="store_true", help="no progress on stderr")
    add_strict(p)
    add_outputs(p)
    add_gate(p)
    add_baseline_comparison(p)
    return {"capture": _cmd_capture}


def _logged_queries(config: Config | None) -> list[LoggedQuery]:
    """The config's query log (``queries:``), asked with the cases; none without one."""
    if config is None or config.queries is None:
        return []
    from recall_gate.adapters.query_log import load_query_log

    return load_query_log(config.queries)


def _refuse_outputs_for_a_shard(args: argparse.Namespace) -> None:
    asked = asked_flags(args, RESULT_FLAGS)
    if asked:
        raise InputError(
            f"--shard {args.shard} with {', '.join(asked)}: a shard holds part of the cases "
            "and is not scored",
            fix="capture each shard with --shard alone, merge them (`recall-gate merge "
            "shard-*.jsonl --out capture.jsonl`), then `recall-gate score --artifacts "
            "capture.jsonl` with those flags",
        )


def _cmd_capture(args: argparse.Namespace, console: Console) -> int:
    """``capture``, writing why it failed into ``--error-json`` when given."""
    from recall_gate.adapters.capture_folder import records_failure

    return records_failure(_capture)(args, console)


def _capture(args: argparse.Namespace, console: Console) -> int:
    from recall_gate import __version__
    from recall_gate.core.fingerprint import (
        fingerprint_cards,
        fingerprint_labels,
        fingerprint_queries,
    )
    from recall_gate.core.integrity import label_problems
    from recall_gate.core.records import Provenance
    from recall_gate.judging.capture_scoring import (
        cards_checked,
        fail_on_integrity_problems,
        score_fresh_capture,
    )
    from recall_gate.judging.oracle import judged_cases, unique_cases, working_tree_cases
    from recall_gate.judging.revision import resolve_judged
    from recall_gate.retrievers.capture import fingerprint_case_set
    from recall_gate.retrievers.capture_job import (
        CaptureJob,
        capture_journaled,
        repeat_for_agreement,
    )
    from recall_gate.retrievers.progress_line import ProgressLine

    settings = resolve_judged(args, console)
    retriever, label, id_from = (
        settings.value(f"capture.{name}") for name in ("retriever", "label", "id_from")
    )
    if not retriever:
        raise InputError(
            "capture needs the retriever to run",
            fix="pass --retriever MODULE:FACTORY (e.g. app.rag:build_retriever), or set "
            "`capture: {retriever: MODULE:FACTORY}` in recall-gate.yaml",
        )
    if not settings.cases:
        raise InputError(
            "capture needs the cases whose queries it runs",
            fix="pass --cases PATH, or set `cases:` in recall-gate.yaml",
        )
    if args.shard is not None:
        _refuse_outputs_for_a_shard(args)
    refuse_outputs_without_score(args)
    # Judged at a base revision: the base's cases run (as the base has them) plus the
    # pull request's new ones; only the base's are judged.
    located, plan = judged_cases(settings, working_tree_cases(settings))
    kb_fingerprint = card_ids = cards = None
    if settings.kb is not None:
        cards, card_ids, located, plan = cards_checked(settings, console, located, plan)
        kb_fingerprint = fingerprint_cards(c for _, c in cards)
    else:
        fail_on_integrity_problems(label_problems(located), console)
    cases = unique_cases(located)
    judged = list(plan.judged) if plan is not None else cases
    config_folder = settings.config_path.resolve().parent if settings.config_path else None
    # What makes a resumed capture this one (not how fast it asks).
    identity = {
        "retriever": retriever,
        "k": settings.k,
        "cases": fingerprint_case_set(cases),  # every case asked: labels and queries
        "kb": kb_fingerprint,
        "id_from": id_from,
        "label": label,
        "shard": None if args.shard is None else str(args.shard),
    }
    job = CaptureJob(
        retriever_spec=retriever,
        id_from=id_from,
        label=label,
        cases=cases,
        queries=_logged_queries(settings.config),
        k=settings.k,
        card_ids=card_ids,
        kb_root=settings.kb,
        config_folder=config_folder,
        shard=args.shard,
        pacing={
            name: settings.value(f"capture.{name}")
            for name in ("concurrency", "retries", "timeout", "max_failures", "max_qps")
        },
    )
    live = console.stderr.isatty() and not console.environ.get("CI")
    captured = capture_journaled(
        console,
        job=job,
        identity=identity,
        out=args.out,
        trec_out=args.trec_out,
        resume=args.resume,
        progress=None if args.quiet else ProgressLine(console.stderr, live=live),
    )
    agreement = None
    if args.repeat > 1:
        agreement = repeat_for_agreement(console, captured, job=job, repeat=args.repeat)
    if args.no_score:
        return 0  # the capture job of a two-job PR check: the judge job scores it
    if captured.coverage is not None:
        console.stderr.write(
            f"recall-gate: {captured.coverage.describe()} is not scored on its own: capture "
            "every shard, `recall-gate merge` their files, then score the merged file\n"
        )
        return 0
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=fingerprint_labels([c.label() for c in judged]),
        queries_fingerprint=fingerprint_queries((c.id, c.query) for c in judged),
        kb_fingerprint=kb_fingerprint,
        retriever=captured.retriever,
    )
    code = score_fresh_capture(
        captured.artifacts,
        judged=judged,
        plan=plan,
        provenance=provenance,
        artifacts_source=str(args.out),
        settings=settings,
        outputs=outputs_asked(args),
        console=console,
        cards=None if cards is None else [c for _, c in cards],
        card_ids=card_ids,
        self_agreement=agreement,
    )
    if code == 1 and args.no_gate:
        console.stderr.write(
            "recall-gate: the gate failed (see the report above); exit 0 because of --no-gate\n"
        )
        return 0
    return code
