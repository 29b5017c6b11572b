"""``recall-gate capture``: run a user's retriever over the cases, write the
artifacts file, then report the score exactly as ``score`` would."""

from __future__ import annotations

import argparse
from pathlib import Path

from recall_gate import __version__
from recall_gate.adapters.dataset import load_cards, load_cases
from recall_gate.adapters.journal import CaptureJournal
from recall_gate.adapters.trec import write_trec_run
from recall_gate.commands.arguments import (
    Parser,
    add_baseline_comparison,
    add_config,
    add_gate,
    add_outputs,
    add_strict,
    positive_int,
)
from recall_gate.commands.context import Handler, Io, display_path
from recall_gate.commands.evaluation import (
    fail_on_integrity_problems,
    score_and_report,
    unique_cases,
)
from recall_gate.commands.settings import resolve_settings
from recall_gate.core.fingerprint import fingerprint_cards, fingerprint_labels, fingerprint_queries
from recall_gate.core.integrity import find_problems, label_problems
from recall_gate.core.records import Provenance
from recall_gate.errors import InputError
from recall_gate.retrievers import capture
from recall_gate.retrievers.factory import load_retriever


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
        required=True,
        metavar="MODULE:FACTORY",
        help="e.g. app.rag:build_retriever (imported from the current directory)",
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
    add_strict(p)
    add_outputs(p)
    add_gate(p)
    add_baseline_comparison(p)
    return {"capture": _cmd_capture}


def _cmd_capture(args: argparse.Namespace, io: Io) -> int:
    settings = resolve_settings(args, io)
    if not settings.cases:
        raise InputError(
            "capture needs the cases whose queries it runs",
            fix="pass --cases PATH, or set `cases:` in recall-gate.yaml",
        )
    located = load_cases(settings.cases)
    cases = unique_cases(located)
    kb_fingerprint = card_ids = None
    if settings.kb is not None:
        cards = load_cards(settings.kb, files=settings.kb_files())
        # A typo'd gold id fails before the retriever runs.
        fail_on_integrity_problems(find_problems(cards=cards, cases=located), io)
        kb_fingerprint = fingerprint_cards(c for _, c in cards)
        card_ids = frozenset(c.id for _, c in cards)
    else:
        fail_on_integrity_problems(label_problems(located), io)
    config_folder = settings.config_path.resolve().parent if settings.config_path else None
    labels = [c.label() for c in cases]
    dataset_fingerprint = fingerprint_labels(labels)
    queries_fingerprint = fingerprint_queries((c.id, c.query) for c in cases)
    identity = {
        "retriever": args.retriever,
        "k": settings.k,
        "cases": dataset_fingerprint,
        "queries": queries_fingerprint,
        "kb": kb_fingerprint,
        "id_from": args.id_from,
        "label": args.label,
    }
    # Kept until the file is written: a failed capture leaves it, so `score` refuses
    # the earlier file rather than reporting its numbers as this capture's.
    with CaptureJournal.start(args.out, identity) as journal:
        retriever = load_retriever(args.retriever, cwd=io.cwd, config_folder=config_folder)
        captured = capture(
            retriever, cases, k=settings.k, id_from=args.id_from, label=args.label, kb=card_ids
        )
        captured.write(args.out)
        if args.trec_out is not None:
            write_trec_run(
                args.trec_out, captured.artifacts, source=str(args.out), tag="recall-gate"
            )
        journal.finish()
    io.stderr.write(
        f"recall-gate: captured {len(captured.artifacts)} cases at k = {settings.k} with "
        f"{captured.retriever.name} ({captured.retriever.adapter}) → "
        f"{display_path(args.out, io)}\n"
    )
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=dataset_fingerprint,
        queries_fingerprint=queries_fingerprint,
        kb_fingerprint=kb_fingerprint,
        retriever=captured.retriever,
    )
    return score_and_report(
        artifacts=enumerate(captured.artifacts, start=1),
        cases=labels,
        artifacts_source=str(args.out),
        cases_source=", ".join(map(str, settings.cases)),
        provenance=lambda _scored, _watch: provenance,
        settings=settings,
        args=args,
        io=io,
        card_ids=card_ids,
    )
