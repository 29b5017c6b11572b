"""``recall-gate queue``: the logged queries to label next, as a cases file."""

from __future__ import annotations

import argparse
from pathlib import Path

from recall_gate.commands.arguments import Parser, add_config
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.errors import InputError
from recall_gate.settings.values import positive_int

__all__ = ["add_commands"]

_LOG_FIX = "set `queries:` in recall-gate.yaml to your query log (docs/query-logs.md)"


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "queue",
        help="the logged queries to label next, as ready-to-label cases",
        description="Rank the config's logged queries by weight × (1 − RBO) × unjudged (the "
        "share of their cards no labelled case covers), comparing a capture's snapshot with "
        "the base's, and write the top N as a cases file that `check` accepts "
        "(docs/query-logs.md).",
    )
    add_config(p)
    p.add_argument(
        "--artifacts",
        type=Path,
        required=True,
        metavar="PATH",
        help="the capture whose logged queries are compared (its NAME.queries.jsonl beside it)",
    )
    p.add_argument("--out", type=Path, required=True, metavar="PATH", help="the cases file")
    p.add_argument(
        "--top", type=positive_int, default=10, metavar="N", help="queries to export (10)"
    )
    return {"queue": _cmd_queue}


def _cmd_queue(args: argparse.Namespace, console: Console) -> int:
    # Imported when it runs: `queue --help` loads the parser alone.
    from recall_gate.adapters.dataset import load_cases
    from recall_gate.adapters.files import atomic_write_text
    from recall_gate.adapters.query_log import load_query_log
    from recall_gate.adapters.query_snapshot import read_snapshot, snapshot_paths
    from recall_gate.adapters.queue_file import render_queue
    from recall_gate.core.label_queue import rank_for_labelling
    from recall_gate.judging.query_traffic import base_snapshot, card_titles
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    config = settings.config
    if config is None or config.queries is None:
        raise InputError("queue needs a query log", fix=_LOG_FIX)
    queries = load_query_log(config.queries)
    current = read_snapshot(args.artifacts)
    if current is None:
        raise InputError(
            f"{display_path(snapshot_paths(args.artifacts)[0], console)}: no snapshot of the "
            "logged queries beside the artifacts",
            fix="capture with `queries:` in recall-gate.yaml: `recall-gate capture --out F` "
            "writes F's snapshot beside it",
        )
    base = base_snapshot(settings)
    if base is None:
        raise InputError(
            f"no query snapshot beside the baseline "
            f"({display_path(snapshot_paths(settings.baseline)[0], console)})",
            fix="commit one: `recall-gate baseline update --results F --queries-snapshot "
            "NAME.queries.jsonl`",
        )
    gold = frozenset(
        g
        for _, case in (load_cases(settings.cases) if settings.cases else [])
        for g in (*case.must_cite_one_of, *(case.relevant_ids or ()))
    )
    entries = rank_for_labelling(
        queries,
        base=base.rankings,
        current=current.rankings,
        gold=gold,
        k=min(settings.k, base.k, current.k),
        top=args.top,
        p=config.traffic.rbo_p,
    )
    if not entries:
        console.stdout.write(
            "recall-gate queue: nothing to label — no logged query moved onto cards the "
            "labelled cases do not cover\n"
        )
        return 0
    text = render_queue(
        entries, titles=card_titles(settings), source=str(args.artifacts), p=config.traffic.rbo_p
    )
    atomic_write_text(args.out, text)
    console.stdout.write(
        f"recall-gate queue: {len(entries)} logged queries to label → "
        f"{display_path(args.out, console)}\n"
    )
    return 0
