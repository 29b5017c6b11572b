"""``recall-gate capture``: run a user's retriever over the cases, write the
artifacts file, then report the score exactly as ``score`` would."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from recall_gate import __version__
from recall_gate.adapters.config import CaptureSettings, Config
from recall_gate.adapters.dataset import card_ids_of
from recall_gate.adapters.journal import CaptureJournal
from recall_gate.adapters.query_log import load_query_log
from recall_gate.adapters.query_snapshot import QuerySnapshot, write_snapshot
from recall_gate.adapters.trec import write_trec_run
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
    refuse_outputs_without_score,
)
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.commands.progress import ProgressLine
from recall_gate.core.coverage import kb_coverage
from recall_gate.core.fingerprint import fingerprint_cards, fingerprint_labels, fingerprint_queries
from recall_gate.core.integrity import find_problems, label_problems
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.pacing import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from recall_gate.core.records import Artifact, Case, Provenance, RetrievedItem
from recall_gate.core.self_agreement import SelfAgreement, measure_self_agreement
from recall_gate.errors import InputError
from recall_gate.judging.capture_scoring import fail_on_integrity_problems, score_and_report
from recall_gate.judging.knowledge_base import read_kb_noted
from recall_gate.judging.oracle import (
    judged_cases,
    new_case_results,
    unique_cases,
    working_tree_cases,
)
from recall_gate.judging.revision import resolve_judged
from recall_gate.judging.verdict import pull_request_changes
from recall_gate.report.noise_floor import describe_self_agreement
from recall_gate.retrievers import capture
from recall_gate.retrievers.capture import Capture, fingerprint_case_set
from recall_gate.retrievers.factory import load_retriever
from recall_gate.settings.values import (
    non_negative_int,
    positive_int,
    positive_rate,
    positive_seconds,
    shard_spec,
)


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


def _pacing(args: argparse.Namespace, config: Config | None) -> dict[str, Any]:
    """Flag > config ``capture:`` > default, for each of the capture's run settings."""
    section = config.capture if config is not None else CaptureSettings()
    return {
        name: getattr(section, name) if getattr(args, name) is None else getattr(args, name)
        for name in ("concurrency", "retries", "timeout", "max_failures", "max_qps")
    }


def _rankings(captured: Capture) -> dict[str, tuple[str, ...]]:
    return {
        a.case_id: tuple(i.card_id if isinstance(i, RetrievedItem) else i for i in a.retrieved)
        for a in captured.artifacts
        if a.error is None
    }


@dataclass(frozen=True)
class _CaptureRun:
    """What every capture of one command shares: the cases and logged queries
    asked, how deep, the KB that maps documents to cards, and the pacing."""

    args: argparse.Namespace
    cases: list[Case]
    queries: list[LoggedQuery]
    k: int
    card_ids: frozenset[str] | None
    kb_root: Path | None
    config_folder: Path | None
    pacing: dict[str, Any]

    def retriever(self, console: Console) -> Any:
        return load_retriever(
            self.args.retriever, cwd=console.cwd, config_folder=self.config_folder
        )

    def capture(self, retriever: Any, **journal: Any) -> Capture:
        args = self.args
        return capture(
            retriever,
            self.cases,
            k=self.k,
            id_from=args.id_from,
            label=args.label,
            kb=self.card_ids,
            kb_root=self.kb_root,
            shard=args.shard,
            queries=self.queries,
            **journal,
            **self.pacing,
        )


def _self_agreement(console: Console, first: Capture, *, run: _CaptureRun) -> SelfAgreement:
    """``--repeat N``: N - 1 more captures, unchanged, against the first (A/A)."""
    retriever = run.retriever(console)
    pairs, logged = [], []
    for _ in range(run.args.repeat - 1):
        again = run.capture(retriever)
        pairs.append((_rankings(first), _rankings(again)))
        logged.append((first.logged, again.logged))
    agreement = measure_self_agreement(pairs, queries=run.queries, logged=logged, k=run.k)
    console.stderr.write(f"recall-gate: {describe_self_agreement(agreement)}\n")
    return agreement


def _logged_queries(config: Config | None) -> list[LoggedQuery]:
    """The config's query log (``queries:``), asked with the cases; none without one."""
    if config is None or config.queries is None:
        return []
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


def _answered(journal: CaptureJournal) -> dict[str, Artifact]:
    """The journal's lines that are still valid artifacts (a resumed capture's answers)."""
    answered = {}
    for case_id, line in journal.answered.items():
        try:
            answered[case_id] = Artifact.model_validate(line)
        except ValidationError:
            continue  # asked again
    return answered


def _say_captured(
    captured: Capture, *, args: argparse.Namespace, console: Console, k: int, resumed: int
) -> None:
    """What was captured, where, how much came from the journal, and what failed."""
    console.stderr.write(
        f"recall-gate: captured {len(captured.artifacts)} cases at k = {k} with "
        f"{captured.retriever.name} ({captured.retriever.adapter}) → "
        f"{display_path(args.out, console)}"
        + (f" ({resumed} from the journal)" if resumed else "")
        + "\n"
    )
    deeper = [a.depth for a in captured.artifacts if a.depth is not None and a.depth > k]
    if deeper:
        console.stderr.write(
            f"recall-gate: {len(deeper)} case(s) held fewer than {k} distinct cards in the "
            f"first {k} documents and were asked deeper (up to {max(deeper)} documents)\n"
        )
    if captured.failed:
        console.stderr.write(
            f"recall-gate: warning: {len(captured.failed)} case(s) the retriever could not "
            "answer are recorded as failures and score as misses (--max-failures): "
            + ", ".join(repr(a.case_id) for a in captured.failed[:10])
            + (" …" if len(captured.failed) > 10 else "")
            + "\n"
        )


def _capture_journaled(
    console: Console, *, identity: dict[str, Any], run: _CaptureRun
) -> tuple[Capture, int]:
    """The capture, written to ``--out``, with its journal; and how many of its
    answers came from the journal of an interrupted one (``--resume``)."""
    args = run.args
    live = console.stderr.isatty() and not console.environ.get("CI")
    progress = None if args.quiet else ProgressLine(console.stderr, live=live)
    # Kept until the file is written: a failed capture leaves it, so `score` refuses
    # the earlier file rather than reporting its numbers as this capture's, and
    # `--resume` asks only the cases it does not hold.
    opened = CaptureJournal.resume if args.resume else CaptureJournal.start
    with opened(args.out, identity) as journal:
        answered = _answered(journal)
        resumed = sum(1 for a in answered.values() if a.error is None)
        retriever = run.retriever(console)
        try:
            captured = run.capture(
                retriever,
                answered=answered,
                on_artifact=lambda a: journal.record(a.model_dump(mode="json", exclude_none=True)),
                on_progress=progress,
            )
        except KeyboardInterrupt:
            if progress is not None:
                progress.end()
            console.stderr.write(
                f"recall-gate: capture interrupted: the answers so far are kept in "
                f"{display_path(journal.path, console)}; the same command with --resume asks "
                "only the cases not yet answered\n"
            )
            raise
        except BaseException:
            if progress is not None:
                progress.end()
            raise
        captured.write(args.out)
        if run.queries:
            written = write_snapshot(args.out, QuerySnapshot(k=run.k, rankings=captured.logged))
            console.stderr.write(
                f"recall-gate: {len(captured.logged)} of {len(run.queries)} logged queries → "
                f"{display_path(written, console)}\n"
            )
        if args.trec_out is not None:
            write_trec_run(
                args.trec_out, captured.artifacts, source=str(args.out), tag="recall-gate"
            )
        journal.finish()
    return captured, resumed


def _cmd_capture(args: argparse.Namespace, console: Console) -> int:
    settings = resolve_judged(args, console)
    chosen = settings.config.capture if settings.config is not None else None
    args.retriever = args.retriever or (chosen.retriever if chosen else None)
    args.label = args.label or (chosen.label if chosen else None)
    args.id_from = args.id_from or (chosen.id_from if chosen else None)
    if not args.retriever:
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
    cases = unique_cases(located)
    judged = list(plan.judged) if plan is not None else cases
    judged_ids = {c.id for c in judged}
    kb_fingerprint = card_ids = None
    cards = None
    if settings.kb is not None:
        read = read_kb_noted(settings.kb, settings.kb_files(), console)
        cards = [(e.where, e.card) for e in read.cards]
        # A typo'd gold id fails before the retriever runs.
        fail_on_integrity_problems(
            find_problems(
                cards=cards,
                cases=located,
                skipped=read.skipped_ids(),
                card_ids=card_ids_of(read.cards),
            ),
            console,
        )
        kb_fingerprint = fingerprint_cards(c for _, c in cards)
        card_ids = card_ids_of(read.cards)
    else:
        fail_on_integrity_problems(label_problems(located), console)
    config_folder = settings.config_path.resolve().parent if settings.config_path else None
    labels = [c.label() for c in judged]
    dataset_fingerprint = fingerprint_labels(labels)
    queries_fingerprint = fingerprint_queries((c.id, c.query) for c in judged)
    # What makes a resumed capture this one (not how fast it asks).
    identity = {
        "retriever": args.retriever,
        "k": settings.k,
        "cases": fingerprint_case_set(cases),  # every case asked: labels and queries
        "kb": kb_fingerprint,
        "id_from": args.id_from,
        "label": args.label,
        "shard": None if args.shard is None else str(args.shard),
    }
    queries = _logged_queries(settings.config)
    run = _CaptureRun(
        args=args,
        cases=cases,
        queries=queries,
        k=settings.k,
        card_ids=card_ids,
        kb_root=settings.kb,
        config_folder=config_folder,
        pacing=_pacing(args, settings.config),
    )
    captured, resumed = _capture_journaled(console, identity=identity, run=run)
    _say_captured(captured, args=args, console=console, k=settings.k, resumed=resumed)
    agreement = None
    if args.repeat > 1:
        agreement = _self_agreement(console, captured, run=run)
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
        dataset_fingerprint=dataset_fingerprint,
        queries_fingerprint=queries_fingerprint,
        kb_fingerprint=kb_fingerprint,
        retriever=captured.retriever,
    )
    new = [a for a in captured.artifacts if a.case_id not in judged_ids]
    code = score_and_report(
        artifacts=enumerate((a for a in captured.artifacts if a.case_id in judged_ids), start=1),
        cases=labels,
        artifacts_source=str(args.out),
        cases_source=", ".join(map(str, settings.cases)),
        provenance=lambda _scored, _watch: provenance,
        settings=settings,
        args=args,
        console=console,
        card_ids=card_ids,
        kb_coverage=None if cards is None else kb_coverage([c for _, c in cards], labels).counts,
        kb_cards=None if cards is None else [c for _, c in cards],
        pull_request=lambda: pull_request_changes(
            settings,
            console,
            plan=plan,
            cases_at_base=plan is not None,
            added=new_case_results(new, plan.added, k=settings.k) if plan is not None else (),
        ),
        self_agreement=agreement,
    )
    if code == 1 and args.no_gate:
        console.stderr.write(
            "recall-gate: the gate failed (see the report above); exit 0 because of --no-gate\n"
        )
        return 0
    return code
