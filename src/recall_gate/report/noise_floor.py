"""The A/A line of the report (``capture --repeat N``): is the retriever
deterministic, and if not, how much it changes on its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from recall_gate.core.self_agreement import SelfAgreement

if TYPE_CHECKING:  # comparison.py imports this module
    from recall_gate.report.style import Style

__all__ = ["describe_self_agreement", "self_agreement_section"]


def describe_self_agreement(a: SelfAgreement) -> str:
    """One sentence: what differed between the runs."""
    runs = f"{a.runs} identical captures"
    logged = (
        f" and {a.logged_changed:,} of {a.logged:,} logged queries "
        f"({a.logged_moved_share * 100:.1f} % of their traffic)"
        if a.logged
        else ""
    )
    changed = f"{len(a.cases_changed)} of {a.cases} cases ({a.case_share * 100:.1f} %){logged}"
    if a.deterministic:
        every = "every case and logged query" if a.logged else "every case"
        return f"A/A: {runs} agree on the top {a.k} of {every}: the retriever is deterministic"
    return (
        f"A/A: the retriever is NON-DETERMINISTIC: {runs} differ on the top {a.k} of {changed}; "
        "a change of that size between two revisions may be its own noise"
    )


def self_agreement_section(a: SelfAgreement | None, style: Style) -> str | None:
    if a is None:
        return None
    text = style.user(describe_self_agreement(a))
    if a.deterministic:
        return text + "."
    return style.banner("WARNING", [text + "."])
