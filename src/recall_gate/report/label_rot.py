"""Labels worth a second look (pure rendering): the missed cases no captured
depth could make a hit ("unwinnable at depth N"). Reported, never gated."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall_gate.core.records import Unwinnable

if TYPE_CHECKING:
    from recall_gate.report.style import Style

__all__ = ["unwinnable_line", "unwinnable_section"]


def _depths(unwinnable: Unwinnable) -> str:
    depths = sorted({c.depth for c in unwinnable.cases})
    return f"depth {depths[0]}" if len(depths) == 1 else f"depths {depths[0]}–{depths[-1]}"


def unwinnable_line(unwinnable: Unwinnable, *, k: int) -> str:
    """``Unwinnable at depth 20: 3 of 7 missed cases captured deeper than 5 have
    none of their labelled cards anywhere in the capture …``."""
    n, checked = len(unwinnable.cases), unwinnable.checked
    line = (
        f"Unwinnable at {_depths(unwinnable)}: {n} of {checked} missed "
        f"case{'' if checked == 1 else 's'} captured deeper than {k} "
        f"{'has' if n == 1 else 'have'} none of their labelled cards anywhere in the capture "
        "(a labelling or index problem, not a ranking one)"
    )
    if unwinnable.shallow:
        line += (
            f"; {unwinnable.shallow} more captured no deeper than {k}, not told"
            " (capture deeper to tell)"
        )
    return line


def unwinnable_section(unwinnable: Unwinnable | None, style: Style, *, k: int) -> str | None:
    """One line, and the cases in a collapsed list; ``None`` when nothing was told
    (no missed case captured deeper than k), the line alone when none is unwinnable."""
    if unwinnable is None:
        return None
    line = unwinnable_line(unwinnable, k=k)
    if not unwinnable.cases:
        return line + "."
    cases = unwinnable.cases
    shown = cases if style.limit is None else cases[: style.limit]
    items = [f"- {style.literal(c.case_id)}: not in the {c.depth} cards captured" for c in shown]
    if len(shown) < len(cases):
        items.append(f"- … and {len(cases) - len(shown)} more (the job summary lists all)")
    advice = (
        "Check each label against the KB (is the gold card the one that answers?) and "
        "the index (is the card ingested, and retrievable for this query at all?)."
    )
    return style.collapsed(line, ["\n".join(items), advice])
