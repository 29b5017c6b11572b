"""The report's case lists (pure): flipped and moved cases, what came back
instead of a lost or missed case, case-set changes, the cases behind a drop."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import RetrievedDetail
from recall_gate.report import phrases
from recall_gate.report.markup import table
from recall_gate.report.style import Style, fmt_rank, held, listed_items, more_pointer, query_cell
from recall_gate.report.tables import move_table

__all__ = [
    "OPEN_CASES",
    "cases_behind_section",
    "cases_section",
    "flips_section",
    "instead_section",
    "missed_section",
]


def flips_section(doc: ComparisonDocument, style: Style) -> str | None:
    if not phrases.is_comparable(doc):
        return None
    flips = doc.flips
    lost, gained = flips.hit_to_miss, flips.miss_to_hit
    down = tuple(m for m in flips.rank_moves if m.direction == "down")
    up = tuple(m for m in flips.rank_moves if m.direction == "up")
    if not lost and not gained and not down and not up:
        return f"No case flipped {doc.label(HIT)} or moved rank."
    body = []
    for title, moves in (
        ("hit → miss", lost),
        ("miss → hit", gained),
        (f"ranked lower, still a hit ({doc.label(RECALL)} or {doc.label(NDCG)} down)", down),
        (f"ranked higher ({doc.label(RECALL)} or {doc.label(NDCG)} up)", up),
    ):
        if moves:
            body += [style.bold(f"{title} ({len(moves)})"), move_table(moves, style, doc)]
    summary = f"Flipped cases: {len(lost)} hit → miss, {len(gained)} miss → hit"
    if down or up:
        summary += f"; rank moves: {len(down)} lower, {len(up)} higher"
    return style.collapsed(summary, body)


# One row of "what came back instead": case id, query, gold cards, this run's
# top k cards and what the retriever said of them.
CameBack = tuple[str, str, Sequence[str], Sequence[str], Mapping[str, RetrievedDetail] | None]


def _said(detail: RetrievedDetail | None, style: Style) -> str:
    """What the retriever said of a card, after it: `` (chunk c-12; source: a.md)``."""
    if detail is None:
        return ""
    parts = []
    if detail.chunk_id:
        parts.append(f"chunk {style.user(detail.chunk_id)}")
    if detail.metadata:
        parts.append(style.user(detail.metadata))
    return f" ({'; '.join(parts)})" if parts else ""


def _came_back(
    retrieved: Sequence[str], detail: Mapping[str, RetrievedDetail] | None, style: Style
) -> str:
    if not retrieved:
        return "nothing retrieved"
    said = detail or {}
    return " · ".join(
        f"{rank}: {style.user(card)}{_said(said.get(card), style)}"
        for rank, card in enumerate(retrieved, 1)
    )


def instead_section(doc: ComparisonDocument, style: Style) -> str | None:
    """For every lost case (hit → miss), or with no baseline every missed case:
    the top k this run retrieved instead of the gold card, with ranks."""
    k = doc.k
    rows: list[CameBack]
    if phrases.is_comparable(doc):
        rows = [
            (m.case_id, m.query or "", (m.card,), m.retrieved, m.retrieved_detail)
            for m in doc.flips.hit_to_miss
        ]
        which = "lost case"
    elif doc.baseline.status == "missing":
        rows = [
            (c.case_id, c.query or "", c.gold, c.retrieved, c.retrieved_detail) for c in doc.missed
        ]
        which = "missed case"
    else:
        return None
    if not rows:
        return None
    shown = rows if style.limit is None else rows[: style.limit]
    hidden = len(rows) - len(shown)
    summary = f"What came back instead: the top {k} of this run for each {which} ({len(rows)})"
    if not shown:
        return style.collapsed(summary, [more_pointer(hidden)])
    text = table(
        ["case", "query", "gold", f"came back instead (rank: card, top {k})"],
        [
            [
                style.user(case_id),
                query_cell(query or None, style),
                ", ".join(style.user(g) for g in gold),
                _came_back(retrieved, detail, style),
            ]
            for case_id, query, gold, retrieved, detail in shown
        ],
        style.fmt,
    )
    return style.collapsed(summary, [text + (f"\n\n{more_pointer(hidden)}" if hidden else "")])


def missed_section(doc: ComparisonDocument, style: Style) -> str | None:
    """With no baseline to compare with, which cases miss now (hit@k = 0)."""
    if doc.baseline.status != "missing" or not doc.missed:
        return None
    k = doc.k
    missed = doc.missed
    shown = missed if style.limit is None else missed[: style.limit]
    rows = [
        [
            style.user(c.case_id),
            query_cell(c.query, style),
            style.user(c.language),
            style.user(c.case_type),
            style.user(", ".join(c.gold)),
            fmt_rank(None, k, held(c.retrieved, k)),
        ]
        for c in shown
    ]
    header = ["case", "query", "language", "type", "gold cards", "rank"]
    hidden = len(missed) - len(shown)
    text = table(header, rows, style.fmt) + (f"\n\n{more_pointer(hidden)}" if hidden else "")
    # A streamed run keeps its first missed cases only: the results JSON has them all.
    total = doc.run.missed_total or len(missed)
    if total > len(missed) and not hidden:
        text += (
            f"\n\n… and {total - len(missed)} more: the results JSON "
            f"({style.code('--json')}) lists every case."
        )
    return style.collapsed(f"Missed cases ({doc.label(HIT)} = 0): {total}", [text])


def cases_section(doc: ComparisonDocument, style: Style) -> str | None:
    changes = doc.cases
    if not phrases.cases_changed(doc):
        return None
    body = []
    for word, note, items in (
        ("added", "", changes.added),
        ("removed", "", changes.removed),
        ("relabelled", ", gold changed: not compared", changes.relabelled),
    ):
        if not items:
            continue
        shown, hidden = listed_items(items, style)
        line = f"{style.bold(f'{word} ({len(items)}{note})')}: " + ", ".join(shown)
        body.append(line + (f" {more_pointer(hidden)}" if hidden else ""))
    summary = (
        f"Case set changes: {len(changes.added)} added, {len(changes.removed)} removed, "
        f"{len(changes.relabelled)} relabelled"
    )
    return style.collapsed(summary, body)


# Up to this many cases behind a drop are shown open; more are collapsed.
OPEN_CASES = 5


def cases_behind_section(doc: ComparisonDocument, style: Style) -> list[str]:
    """For every over-tolerance row, the cases behind it (collapsed when long)."""
    out = []
    listed: dict[frozenset[str], str] = {}
    for line in phrases.drop_lines(doc):
        cases = line.cases
        if not cases:
            continue
        metrics = ", ".join(doc.label(r.metric) for r in line.drops)
        where = f"{phrases.group_phrase(line.group)}, {metrics}"
        title = f"Cases behind {where} ({line.fate}): {len(cases)}"
        ids = frozenset(m.case_id for m in cases)
        if ids in listed:
            # The same cases again (e.g. all of a language's drops are overall's).
            out.append(
                f"Cases behind {where} ({line.fate}): the same {len(cases)} as {listed[ids]}."
            )
            continue
        listed[ids] = where
        body = move_table(cases, style, doc)
        if len(cases) > OPEN_CASES:
            out.append(style.collapsed(title, [body]))
        else:
            out.append(f"{style.bold(title)}\n\n{body}")
    return out
