"""The KB changes of a pull request in the report (pure rendering): the cards
it adds, edits, renames and deletes with the cases citing each, the cases on
the changed cards base → pull request (tested like any group, report-only),
and the new cards with their cases ("2 new cards, 0 cases"). Absent when the
pull request changes no card."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from recall_gate.core.comparison_json import (
    CardChangeRecord,
    DeltaRecord,
    KbChangesRecord,
    KbTurnoverRecord,
)
from recall_gate.core.kb_diff import REAUDIT_TURNOVER, NewCardCoverage
from recall_gate.report.markup import table

if TYPE_CHECKING:
    from recall_gate.report.style import Style

__all__ = [
    "kb_changes_section",
    "kb_summary",
    "kb_turnover_note",
    "new_card_coverage_phrase",
    "new_cards_line",
]

_KINDS = ("edited", "renamed", "added", "deleted")


def kb_summary(cards: Sequence[CardChangeRecord]) -> str:
    """``3 edited, 2 added, 1 deleted`` (kinds with none left out)."""
    counts = [(sum(1 for c in cards if c.kind == kind), kind) for kind in _KINDS]
    return ", ".join(f"{n} {kind}" for n, kind in counts if n)


def _new_count(new: Mapping[str, Sequence[str]]) -> str:
    citing = len({case for cases in new.values() for case in cases})
    return (
        f"{len(new)} new card{'' if len(new) == 1 else 's'}, "
        f"{citing} case{'' if citing == 1 else 's'}"
    )


def new_cards_line(
    new: Mapping[str, Sequence[str]], name: Callable[[str], str] = str, limit: int | None = None
) -> str:
    """``2 new cards, 0 cases: en/a, en/b`` (a card some case cites carries its
    count; at most ``limit`` named)."""
    items = list(new.items())
    shown = items if limit is None else items[:limit]
    named = ", ".join(
        f"{name(card)} ({len(cases)})" if cases else name(card) for card, cases in shown
    )
    if len(shown) < len(items):
        named += f" … and {len(items) - len(shown)} more"
    return f"{_new_count(new)}: {named}"


def new_card_coverage_phrase(
    check: NewCardCoverage, name: Callable[[str], str] = str, limit: int | None = None
) -> str:
    """``new-card coverage 0/2 (0%) is below gate.min_new_card_coverage 0.5: no
    case cites en/a, en/b`` (met: ``… meets …``)."""
    share = f"{check.cited}/{check.cards} ({(check.share or 0.0):.0%})"
    if not check.failed:
        return f"new-card coverage {share} meets gate.min_new_card_coverage {check.floor:g}"
    bare = check.uncovered if limit is None else check.uncovered[:limit]
    named = ", ".join(name(card) for card in bare)
    if len(bare) < len(check.uncovered):
        named += f" … and {len(check.uncovered) - len(bare)} more"
    return (
        f"new-card coverage {share} is below gate.min_new_card_coverage {check.floor:g}: "
        f"no case cites {named}"
    )


def _what(card: CardChangeRecord, style: Style) -> str:
    if card.kind == "edited":
        return "edited" if card.text else "edited: front matter only"
    if card.kind == "renamed" and card.base_id is not None:
        moved = f"renamed from {style.literal(card.base_id)}"
        return moved + (", text edited" if card.text else "")
    return card.kind


def _cases(ids: Sequence[str], style: Style) -> str:
    if not ids:
        return "0"
    shown = ids if style.limit is None else ids[: style.limit]
    more = len(ids) - len(shown)
    return (
        f"{len(ids)}: "
        + ", ".join(style.literal(i) for i in shown)
        + (f" … and {more} more" if more else "")
    )


def kb_changes_section(
    kb: KbChangesRecord | None,
    style: Style,
    *,
    metric_name: Callable[[str], str],
    noise: Callable[[DeltaRecord], str],
    new_cards: NewCardCoverage | None = None,
) -> str | None:
    """The collapsed section; ``None`` when no card changed (or the diff was
    not read). ``metric_name`` and ``noise`` are the report's own phrasings."""
    if kb is None or not kb.cards:
        return None
    new = {c.card_id: c.cases for c in kb.cards if c.kind == "added"}
    summary = f"KB changes in this pull request: {kb_summary(kb.cards)}"
    if new:
        summary += f"; {_new_count(new)}"
    # A comment over GitHub's limit lists fewer rows (style.limit), the count kept.
    shown = kb.cards if style.limit is None else kb.cards[: style.limit]
    rows = [
        [_what(c, style), style.literal(c.card_id), style.user(c.title), _cases(c.cases, style)]
        for c in shown
    ]
    body = [table(["change", "card", "title", "cases citing it"], rows, style.fmt)]
    if len(shown) < len(kb.cards):
        body.append(
            f"… and {len(kb.cards) - len(shown)} more changed cards (the job summary lists all)."
        )
    if kb.deltas:
        group = f"cases on changed cards ({len(kb.on_changed)})"
        body.append(
            table(
                ["group", "n", "metric", "baseline", "this PR", "Δ", "noise"],
                [
                    [
                        group if i == 0 else "",
                        str(d.n),
                        metric_name(d.metric),
                        "—" if d.baseline is None else f"{d.baseline:.3f}",
                        "—" if d.current is None else f"{d.current:.3f}",
                        "—" if d.delta is None else f"{d.delta:+.3f}".replace("-", "−"),
                        noise(d),
                    ]
                    for i, d in enumerate(kb.deltas)
                ],
                style.fmt,
            )
        )
    elif not kb.on_changed and any(c.kind in ("edited", "renamed") for c in kb.cards):
        body.append("No case cites an edited or renamed card: no metric here measures this change.")
    if new:
        body.append(style.bold(new_cards_line(new, style.literal, style.limit)) + ".")
    if new and new_cards is not None:
        word = "fails" if new_cards.failed else "passes"
        body.append(
            f"Gate {style.code('min_new_card_coverage')} = {new_cards.floor:g}: {word} "
            f"({new_cards.cited} of {new_cards.cards} new cards cited by a case)."
        )
    return style.collapsed(summary, body)


def kb_turnover_note(turnover: KbTurnoverRecord | None, style: Style) -> str | None:
    """``KB turnover since the baseline (abc1234): 23 of 700 cards (3.3%) …``."""
    if turnover is None:
        return None
    ref = turnover.ref[:12] if len(turnover.ref) == 40 else turnover.ref
    note = (
        f"KB turnover since the baseline ({style.literal(ref)}): {turnover.changed} of "
        f"{turnover.cards} cards ({turnover.share:.1%}) added, deleted, renamed or rewritten"
    )
    if turnover.reaudit:
        return (
            f"{note}: above {REAUDIT_TURNOVER:.0%}, the labels are worth re-auditing (gold "
            "written against pages since rewritten or removed caps recall silently)."
        )
    return note + "."
