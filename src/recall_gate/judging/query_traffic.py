"""The query log's diff as the commands judge it: this capture's snapshot (beside
its artifacts) against the base's (beside the baseline), over the config's
query log. When a base revision judges (a pull request), the snapshot and the
log (its weights and languages) are read as the base has them, like the
baseline: a pull request that edits either is still judged by the base's."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from recall_gate.adapters.dataset import load_cards
from recall_gate.adapters.query_log import load_query_log, load_query_log_at
from recall_gate.adapters.query_snapshot import (
    QuerySnapshot,
    read_snapshot,
    read_snapshot_at,
    snapshot_paths,
)
from recall_gate.console import Console, display_path
from recall_gate.core.traffic_diff import diff_traffic
from recall_gate.core.traffic_record import TrafficRecord, UnansweredLog, traffic_record
from recall_gate.judging.revision import JudgedSettings
from recall_gate.report.style import TEXT
from recall_gate.report.traffic import unanswered_note
from recall_gate.settings import Settings

__all__ = ["base_snapshot", "card_titles", "judge_traffic", "logged_top_cards"]


def base_snapshot(settings: Settings) -> QuerySnapshot | None:
    """The snapshot beside the baseline: at the base revision when one judges."""
    if isinstance(settings, JudgedSettings) and settings.base is not None:
        return read_snapshot_at(settings.base.tree, settings.baseline)
    return read_snapshot(settings.baseline)


def card_titles(settings: Settings) -> dict[str, str]:
    """Card id → title, when the settings name a KB."""
    if settings.kb is None:
        return {}
    return {c.id: c.title for _, c in load_cards(settings.kb, files=settings.kb_files())}


def judge_traffic(
    settings: JudgedSettings,
    console: Console,
    *,
    artifacts: Path,
    current: QuerySnapshot | None = None,
) -> TrafficRecord | UnansweredLog | None:
    """The traffic diff of a run with a query log (``queries:``); what is missing
    when the capture holds no answers to the log (no snapshot beside
    ``artifacts``: said on stderr too, with the fix, and in the report; with
    ``gate.max_moved_share`` set, the gate fails); or None:
    no log, or no snapshot at the base yet (said on stderr: ``baseline update``
    writes it). ``current``: the answers of a run made just now (``run`` holds
    them), read from beside ``artifacts`` when not given."""
    config = settings.config
    if config is None or config.queries is None:
        return None
    if current is None:
        current = read_snapshot(artifacts)
    if current is None:
        missing = UnansweredLog(
            queries=display_path(config.queries, console),
            snapshot=display_path(snapshot_paths(artifacts)[0], console),
            max_moved_share=settings.value("max_moved_share"),
        )
        console.stderr.write(f"recall-gate: warning: {unanswered_note(missing, TEXT)}\n")
        return missing
    base = base_snapshot(settings)
    if base is None:
        console.stderr.write(
            "recall-gate: no query snapshot beside the baseline yet "
            f"({display_path(snapshot_paths(settings.baseline)[0], console)}): the query "
            "log is compared once `recall-gate baseline update` has written one\n"
        )
        return None
    if settings.base is not None:
        queries = load_query_log_at(settings.base.tree, config.queries)
        if queries is None:
            console.stderr.write(
                f"recall-gate: the base ({settings.base.ref}) has no query log at "
                f"{display_path(config.queries, console)}: the logged queries are compared "
                "once it has\n"
            )
            return None
    else:
        queries = load_query_log(config.queries)
    # The gate compares the top k the run and the base's snapshot both hold; a
    # capture's snapshot shallower than that cannot judge it (said, and failed).
    asked = min(settings.k, base.k)
    diff = diff_traffic(
        queries,
        base=base.rankings,
        current=current.rankings,
        k=min(asked, current.k),
        p=config.traffic.rbo_p,
    )
    titles = card_titles(settings) if diff.movers else {}
    return traffic_record(
        diff,
        titles=titles,
        max_moved_share=settings.value("max_moved_share"),
        max_unanswered_share=settings.value("max_unanswered_share"),
        k_asked=asked,
        snapshot_edited_in_pr=_snapshot_edit(settings, base),
    )


def _snapshot_edit(
    settings: JudgedSettings, base: QuerySnapshot
) -> Literal["changed", "deleted"] | None:
    """Whether the pull request's copy of the snapshot beside the baseline (read
    as data, within the snapshot's caps) differs from the base's, which judges."""
    if settings.base is None:
        return None
    working = read_snapshot(settings.baseline)
    if working is None:
        return "deleted"
    return "changed" if working != base else None


def logged_top_cards(
    settings: Settings, *, artifacts: Path, current: QuerySnapshot | None = None
) -> tuple[int, frozenset[str]] | None:
    """With a query log (``queries:``) and the snapshot the capture wrote beside
    ``artifacts`` (or ``current``, one made just now): how many logged queries
    it answered, and the cards in their top k (None: no log, or no snapshot)."""
    config = settings.config
    if config is None or config.queries is None:
        return None
    snapshot = current if current is not None else read_snapshot(artifacts)
    if snapshot is None:
        return None
    k = settings.k
    cards = frozenset(card for ranking in snapshot.rankings.values() for card in ranking[:k])
    return len(snapshot.rankings), cards
