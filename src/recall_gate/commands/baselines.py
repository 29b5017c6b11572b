"""Baseline commands: ``compare`` (results against the baseline), ``baseline
update`` (write the committed baseline) and ``floors suggest`` (floors from
the baseline's evidence)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import (
    Parser,
    add_baseline_file,
    add_baseline_ref,
    add_config,
    add_deprecated,
    add_gate,
    add_profile,
    add_report_outputs,
    add_subcommands,
    add_tolerance,
)
from recall_gate.commands.context import Console, Handler, display_path, warn
from recall_gate.core.stats import MIN_MARGIN
from recall_gate.errors import InputError
from recall_gate.report.trend_groups import GROUP_SELECTIONS
from recall_gate.settings.values import fraction, non_negative_seconds, optional_path, optional_text

if TYPE_CHECKING:
    from recall_gate.adapters.baseline_store import StoredBaseline
    from recall_gate.core.baseline import Baseline

# Each handler imports what it runs when it runs: `compare --help` loads no model.

# Another update of the same folder is waited for this long (it takes a second).
DEFAULT_LOCK_WAIT = 30.0


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    compare = sub.add_parser(
        "compare",
        help="deltas, flips, staleness and the gate verdict against a baseline",
        description="Compare a results file with the baseline: per metric and group, the "
        "means on the cases present in both, Δ with a noise test, flipped cases, a stale or "
        "missing baseline. Report-only (exit 0) until a floor or a tolerance is set.",
    )
    add_config(compare)
    compare.add_argument(
        "--current", type=Path, required=True, metavar="PATH", help="this run's results JSON"
    )
    add_baseline_file(compare, "--baseline")
    add_baseline_ref(compare)
    add_profile(compare)
    add_report_outputs(compare)
    add_deprecated(
        compare,
        "--json",
        instead="--comparison-json",
        dest="comparison_json",
        type=optional_path,
        metavar="PATH",
    )
    add_deprecated(
        compare,
        "--full-markdown",
        instead="--markdown",
        dest="full_markdown",
        type=optional_path,
        metavar="PATH",
    )
    add_gate(compare)
    add_tolerance(compare)

    baseline = sub.add_parser("baseline", help="write the committed baseline")
    actions = add_subcommands(baseline, dest="baseline_command")
    update = actions.add_parser(
        "update",
        help="write a baseline atomically from a results file",
        description="Write baselines/<profile>.json from a results file: atomic, deterministic "
        "bytes. created_at is --created-at, else $SOURCE_DATE_EPOCH, else the existing "
        "file's when nothing else changed (so a re-run rewrites identical bytes), else now. "
        "A file that is not a valid baseline is never overwritten.",
    )
    add_config(update)
    update.add_argument(
        "--results", type=Path, required=True, metavar="PATH", help="results JSON (score/run)"
    )
    add_baseline_file(update, "--out")
    add_profile(update)
    update.add_argument("--reason", default="", metavar="TEXT", help="why the baseline moves")
    update.add_argument(
        "--created-at",
        type=optional_text,
        metavar="TIMESTAMP",
        help="ISO 8601, e.g. 2026-05-29T12:00:00Z",
    )
    update.add_argument(
        "--git-sha",
        type=optional_text,
        metavar="SHA",
        help="the evaluated commit (default: $GITHUB_SHA, else the checked-out HEAD)",
    )
    update.add_argument(
        "--without-latency",
        action="store_true",
        help="leave the capture's query latency out, so one commit evaluated twice writes "
        "identical bytes (the update-baseline workflow passes it)",
    )
    update.add_argument(
        "--markdown",
        type=optional_path,
        metavar="PATH",
        help="write the old → new report here (the baseline PR's body)",
    )
    update.add_argument(
        "--queries-snapshot",
        type=Path,
        metavar="PATH",
        help="the query log's snapshot a capture wrote beside its artifacts "
        "(NAME.queries.jsonl[.gz]): committed beside the baseline, it is what pull "
        "requests' logged queries are compared with (docs/query-logs.md)",
    )
    update.add_argument(
        "--wait",
        type=non_negative_seconds,
        default=DEFAULT_LOCK_WAIT,
        metavar="SECONDS",
        help="how long to wait while another update of the same baselines folder runs "
        f"(default {DEFAULT_LOCK_WAIT:g}); then exit 2",
    )

    floors = sub.add_parser("floors", help="evidence-based floors (observed minus a margin)")
    floor_actions = add_subcommands(floors, dest="floors_command")
    suggest = floor_actions.add_parser(
        "suggest",
        help="observed − margin per metric, from a baseline",
        description="Suggest floors from a baseline: observed mean minus a margin that reaches "
        "the Wilson 95% lower bound (at least --min-margin), rounded down to two decimals; "
        "and the smallest tolerance (max-regression) each group of its cases can enforce.",
    )
    add_config(suggest)
    add_baseline_file(suggest, "--baseline")
    add_profile(suggest)
    suggest.add_argument(
        "--min-margin", type=fraction, metavar="X", help=f"smallest margin (default {MIN_MARGIN})"
    )
    suggest.add_argument(
        "--write",
        type=Path,
        metavar="CONFIG",
        help="write the floors into this config's `gate:` section (comments and order kept)",
    )

    history = sub.add_parser(
        "history",
        help="the trend of every committed version of baselines/<profile>.json",
        description="Read every committed version of the profile's baseline from git and "
        "print the trend of each metric, with n, per version: overall, and with --by per case "
        "type or language. Δ is the change since the version before, shown only when both "
        "measured the same cases at the same k with the same recorded retriever and settings; "
        "otherwise the row names what changed. Plain text on stdout; --markdown adds Mermaid "
        "charts for a job summary or a pull request.",
    )
    add_config(history)
    add_profile(history)
    add_baseline_file(history, "--baseline")
    history.add_argument(
        "--since",
        type=optional_text,
        metavar="REF",
        help="start at the version the baseline had at this git revision",
    )
    history.add_argument(
        "--by",
        choices=GROUP_SELECTIONS,
        default="overall",
        help="the groups shown besides overall: each case type, each language, or all "
        "(default: overall only; --json always holds every group)",
    )
    history.add_argument(
        "--markdown",
        type=optional_path,
        metavar="PATH",
        help="write the report as Markdown here (with Mermaid charts)",
    )
    history.add_argument(
        "--json", type=optional_path, metavar="PATH", help="write the trend as JSON here"
    )

    return {
        "compare": _cmd_compare,
        "baseline": _cmd_baseline,
        "floors": _cmd_floors,
        "history": _cmd_history,
    }


def _cmd_history(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.baseline_history import read_baseline_history
    from recall_gate.adapters.files import atomic_write_text, dump_json
    from recall_gate.core.trend import trend_point
    from recall_gate.report.history import history_json, render_history
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    shown = display_path(settings.baseline, console)
    history = read_baseline_history(
        settings.baseline, cwd=console.cwd, since=args.since, display=shown
    )
    points = [
        trend_point(v.baseline, commit=v.commit, committed_at=v.committed_at)
        for v in history.versions
    ]
    skipped = history.skipped
    for s in skipped:
        warn(console, f"skipped {s.commit[:12]}:{shown}: {s.problem}")
    if args.json is not None:
        document = history_json(points, profile=settings.profile, path=shown, skipped=skipped)
        atomic_write_text(args.json, dump_json(document))
    if args.markdown is not None:
        markdown = render_history(points, path=shown, by=args.by, skipped=skipped)
        atomic_write_text(args.markdown, markdown)
    console.stdout.write(
        render_history(points, path=shown, fmt="text", by=args.by, skipped=skipped)
    )
    return 0


def _trend_with(new: Baseline, path: Path, console: Console, shown: str) -> str | None:
    """The committed trend of the baseline at ``path`` plus ``new`` as the proposed
    point, for the update's report; ``None`` outside git or before a first commit."""
    from recall_gate.adapters.baseline_history import read_baseline_history
    from recall_gate.core.trend import trend_point
    from recall_gate.report.history import render_history

    try:
        history = read_baseline_history(path, cwd=console.cwd, display=shown)
    except InputError:
        return None
    versions = history.versions
    points = [
        trend_point(v.baseline, commit=v.commit, committed_at=v.committed_at) for v in versions
    ]
    if versions[-1].baseline != new:
        points.append(trend_point(new, commit=None, committed_at=None))
    return render_history(points, path=shown, heading=False, skipped=history.skipped)


def _cmd_compare(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.baseline_store import read_current_results
    from recall_gate.judging.revision import resolve_judged
    from recall_gate.judging.verdict import report_comparison

    settings = resolve_judged(args, console)
    current = read_current_results(args.current)
    full, comment = args.markdown, args.comment_markdown
    if args.full_markdown is not None:
        # The old pair `--markdown C --full-markdown F`: C is still the comment.
        if full is not None and comment is None:
            comment = full
            warn(
                console,
                "with --full-markdown, --markdown keeps its old meaning (the PR comment); "
                "write --comment-markdown PATH for the comment and --markdown PATH for the report",
            )
        full = args.full_markdown
    elif full is not None and comment is None:
        warn(
            console,
            "compare --markdown now writes the full report, as in score and run (the same "
            "text unless it is longer than GitHub's comment limit); the PR comment is "
            "--comment-markdown",
        )
    return report_comparison(
        current,
        settings=settings,
        console=console,
        comparison_json=args.comparison_json,
        comment_markdown=comment,
        full_markdown=full,
    )


def _cmd_baseline(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.baseline_store import git_head_sha, read_current_results
    from recall_gate.adapters.baseline_writer import BaselineUpdate, update_baseline
    from recall_gate.adapters.query_snapshot import load_snapshot, snapshot_file
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    results = read_current_results(args.results)
    if not any(case.metrics for case in results.cases):
        raise InputError(
            f"{args.results}: no case carries gold, so a baseline would compare nothing",
            fix="score a case set with gold labels (`must_cite_one_of`)",
        )
    out = args.out or settings.baseline
    shown = display_path(out, console)
    # Read (and refused when bad) before anything is written.
    snapshot = None if args.queries_snapshot is None else load_snapshot(args.queries_snapshot)
    # The snapshot lands with the baseline, as one set: both new or both old.
    beside = None if snapshot is None else snapshot_file(out, snapshot)

    def write_snapshot_beside() -> None:
        if snapshot is not None and beside is not None:
            console.stdout.write(
                f"recall-gate: wrote {display_path(beside[0], console)} "
                f"({len(snapshot.rankings):,} logged queries)\n"
            )

    update_baseline(
        results,
        BaselineUpdate(
            git_sha=args.git_sha or console.environ.get("GITHUB_SHA") or git_head_sha(console.cwd),
            reason=args.reason,
            with_latency=not args.without_latency,
            created_at=args.created_at,
            environ=console.environ,
            together=() if beside is None else [(beside[0], beside[1])],
            remove=() if beside is None else [beside[2]],
        ),
        out=out,
        console=console,
        wait=args.wait,
        under_lock=write_snapshot_beside,
        report=lambda existing, baseline: _report_update(
            args, console, existing=existing, baseline=baseline, out=out, shown=shown
        ),
    )
    return 0


def _report_update(
    args: argparse.Namespace,
    console: Console,
    *,
    existing: StoredBaseline | None,
    baseline: Baseline,
    out: Path,
    shown: str,
) -> None:
    """The old → new report of a written baseline: stdout, and --markdown."""
    from recall_gate.adapters.files import atomic_write_text
    from recall_gate.core.compare import compare_to_baseline
    from recall_gate.core.comparison_json import baseline_update_document
    from recall_gate.report.baseline_update import render_baseline_update

    doc = baseline_update_document(
        compare_to_baseline(
            current=baseline, baseline=existing.baseline if existing else None, baseline_path=shown
        )
    )
    if args.markdown is not None:
        body = render_baseline_update(doc, new=baseline, path=shown)
        trend = _trend_with(baseline, out, console, shown)
        if trend is not None:
            body += f"\n#### Trend\n\n{trend}"
        atomic_write_text(args.markdown, body)
    console.stdout.write(render_baseline_update(doc, new=baseline, path=shown, fmt="text"))


def _cmd_floors(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.baseline_store import read_baseline
    from recall_gate.adapters.config_edit import write_floors
    from recall_gate.core.gate import suggest_floors
    from recall_gate.core.gate_calibration import suggest_tolerances
    from recall_gate.core.metric_registry import floor_flag, floor_key, metric_label
    from recall_gate.core.metrics import HIT
    from recall_gate.report.markup import table
    from recall_gate.report.noise_floor import enforceable_tolerances
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    path = settings.baseline
    shown = display_path(path, console)
    stored = read_baseline(path, display=shown)
    if stored is None:
        raise InputError(
            f"{shown}: no baseline yet, so no evidence for a floor",
            fix=f"create it: `recall-gate baseline update --results results.json --out {shown}`",
        )
    margin = args.min_margin if args.min_margin is not None else MIN_MARGIN
    suggested = suggest_floors(stored.baseline.aggregates, min_margin=margin)
    k = stored.baseline.k
    rows = [
        [
            floor_flag(s.metric),
            metric_label(s.metric, k),
            f"{s.observed:.3f}",
            str(s.n),
            f"{s.margin:.3f}",
            f"{s.floor:.2f}",
        ]
        for s in suggested
    ]
    console.stdout.write(
        f"recall-gate: floors suggested from {shown} (observed − margin, down to the Wilson "
        f"95% lower bound, at least {margin:.2f})\n\n"
        + table(["flag", "metric", "observed", "n", "margin", "floor"], rows, "text")
        + "\n"
    )
    groups, cells = suggest_tolerances(stored.baseline.aggregates, min_group_n=settings.min_group_n)
    console.stdout.write(enforceable_tolerances(groups, cells=cells, hit=metric_label(HIT, k)))
    if args.write is not None:
        floors = {floor_key(s.metric): s.floor for s in suggested}
        write_floors(args.write, floors)
        written = ", ".join(f"{key}: {value:.2f}" for key, value in floors.items())
        target = display_path(args.write, console)
        console.stdout.write(f"\nrecall-gate: wrote gate floors into {target}: {written}\n")
    return 0
