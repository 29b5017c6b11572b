"""Labels worth a second look (pure rendering): the missed cases no captured
depth could make a hit ("unwinnable at depth N"), and the cases citing a card
rewritten since they were written (label rot). Reported, never gated."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from recall_gate.core.comparison_records import LabelRotRecord
from recall_gate.core.label_rot import REWRITE_SIMILARITY, RottenLabel
from recall_gate.core.records import Unwinnable

if TYPE_CHECKING:
    from recall_gate.report.style import Style

__all__ = [
    "SHALLOW_HISTORY",
    "label_rot_note",
    "rotten_labels_line",
    "unwinnable_line",
    "unwinnable_section",
]

SHALLOW_HISTORY = (
    "label rot not checked: the git history is shallow "
    "(fetch it whole, e.g. `fetch-depth: 0`, to check it)"
)


def _depths(unwinnable: Unwinnable) -> str:
    low, high = unwinnable.depths or (0, 0)
    return f"depth {low}" if low == high else f"depths {low}–{high}"


def unwinnable_line(unwinnable: Unwinnable, *, k: int) -> str:
    """``Unwinnable at depth 20: 3 of 7 missed cases captured deeper than 5 have
    none of their labelled cards anywhere in the capture …``."""
    n, checked = unwinnable.total, unwinnable.checked
    if not n:
        line = (
            f"Unwinnable: none of the {checked} missed case{'' if checked == 1 else 's'} "
            f"captured deeper than {k}: each has a labelled card further down its capture "
            "(ranked low, not lost)"
        )
    else:
        line = (
            f"Unwinnable at {_depths(unwinnable)}: {n:,} of {checked:,} missed "
            f"case{'' if checked == 1 else 's'} captured deeper than {k} "
            f"{'has' if n == 1 else 'have'} none of their labelled cards anywhere in the "
            "capture (a labelling or index problem, not a ranking one)"
        )
    if unwinnable.shallow:
        line += (
            f"; {unwinnable.shallow:,} more captured no deeper than {k}, not told"
            " (capture deeper to tell)"
        )
    return line


def unwinnable_section(unwinnable: Unwinnable | None, style: Style, *, k: int) -> str | None:
    """One line, and the cases in a collapsed list; ``None`` when nothing was told
    (no missed case captured deeper than k), the line alone when none is unwinnable."""
    if unwinnable is None:
        return None
    line = unwinnable_line(unwinnable, k=k)
    if not unwinnable.total:
        return line + "."
    cases = unwinnable.cases
    shown = cases if style.limit is None else cases[: style.limit]
    items = [f"- {style.literal(c.case_id)}: not in the {c.depth} cards captured" for c in shown]
    if unwinnable.total > len(shown):
        items.append(f"- … and {unwinnable.total - len(shown):,} more")
    advice = (
        "Check each label against the KB (is the gold card the one that answers?) and "
        "the index (is the card ingested, and retrievable for this query at all?)."
    )
    return style.collapsed(line, ["\n".join(items), advice])


def rotten_labels_line(
    labels: Sequence[RottenLabel], *, limit: int | None = 10, name: Callable[[str], str] = str
) -> str:
    """``labels worth re-auditing: 2 cases cite a card rewritten since the
    cases file's last commit (…): q1 → en/refunds (12% alike since abc1234), …``."""
    shown = labels if limit is None else labels[:limit]
    named = ", ".join(
        f"{name(r.case_id)} → {name(r.card_id)} ({r.similarity:.0%} alike since {r.since[:12]})"
        for r in shown
    )
    if len(shown) < len(labels):
        named += f" … and {len(labels) - len(shown)} more"
    cases = len({r.case_id for r in labels})
    return (
        f"labels worth re-auditing: {cases} case{' cites' if cases == 1 else 's cite'} a card "
        f"rewritten since the cases file's last commit (under {REWRITE_SIMILARITY:.0%} of "
        f"its words alike): {named}"
    )


def label_rot_note(label_rot: LabelRotRecord | None, style: Style) -> str | None:
    """The report's note on label rot: the labels worth re-auditing, or that a
    shallow clone could not tell (``None``: nothing to say)."""
    if label_rot is None:
        return None
    if label_rot.shallow:
        text = SHALLOW_HISTORY
    elif label_rot.labels:
        text = rotten_labels_line(label_rot.labels, limit=style.limit, name=style.literal)
    else:
        return None
    return text[0].upper() + text[1:] + "."
