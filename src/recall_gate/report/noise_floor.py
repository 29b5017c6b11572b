"""The noise lines of the report: the A/A line (``capture --repeat N``: is the
retriever deterministic, and if not, how much it changes on its own), and the
gate's own calibration at this run's n (how often it fails a no-op pull
request, the smallest drop it catches)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from recall_gate.core.comparison_records import CalibrationRecord
from recall_gate.core.gate_calibration import POWER, SuggestedTolerance
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.stats import FAMILY_LEVEL, PROMISED_FALSE_FAIL
from recall_gate.report.markup import table

if TYPE_CHECKING:  # comparison.py imports this module
    from recall_gate.report.style import Style

__all__ = [
    "calibration_line",
    "describe_self_agreement",
    "enforceable_tolerances",
    "self_agreement_section",
]


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


def _group(label: str) -> str:
    kind, _, name = label.partition(":")
    return {"case_type": f"type {name}", "language": f"language {name}"}.get(kind, label)


def _group_order(label: str) -> tuple[int, str]:
    """Overall first, then the case types, then the languages, each by name: the
    report's order, whatever order the document's mapping was read back in."""
    kind, _, name = label.partition(":")
    return ({"case_type": 1, "language": 2}.get(kind, 0), name)


def calibration_line(c: CalibrationRecord, hit: str) -> str:
    """One sentence: how often this gate fails a no-op pull request at this n, and
    the smallest ``hit`` (``hit@5``) drop it catches 80 % of the time per group."""
    rows = f"{c.cells} gated row{'' if c.cells == 1 else 's'}"
    if c.false_fail is None:
        fails = (
            f"with require-significance off, every drop beyond the tolerance fails, "
            f"within noise or not ({rows})"
        )
    else:
        fails = (
            f"a no-op pull request fails at most {PROMISED_FALSE_FAIL * 100:.0f} % of the "
            f"time ({rows} tested together at the {c.false_fail * 100:.0f} % level)"
        )
    drops = [
        f"{_group(label)} −{share:.3f}" if share is not None else f"{_group(label)} never"
        for label, share in sorted(c.smallest_drop.items(), key=lambda item: _group_order(item[0]))
    ]
    caught = (
        f"; smallest {hit} drop caught 80 % of the time: {', '.join(drops)} "
        f"(only lost hits assumed: from {c.fewest_lost} lost with none gained in a row"
        f"{f', and beyond the {c.tolerance:g} tolerance' if c.tolerance else ''})"
        if drops
        else ""
    )
    return f"This gate at this n: {fails}{caught}."


def enforceable_tolerances(groups: Sequence[SuggestedTolerance], *, cells: int, hit: str) -> str:
    """``floors suggest``'s tolerance table: the smallest ``hit`` (``hit@5``) drop
    each group can enforce, and the ``max-regression`` the overall row suggests."""
    if not groups:
        return ""
    rows = [
        [
            _group(g.group),
            str(g.n),
            str(g.fewest_lost),
            f"{g.enforceable:.2f}",
            "never" if g.caught is None else f"{g.caught:.3f}",
        ]
        for g in groups
    ]
    overall = groups[0]
    return (
        f"\nrecall-gate: the smallest {hit} drop each group can enforce (lost hits alone, none "
        f"gained; {cells} rows tested together at {FAMILY_LEVEL * 100:.0f} %, bounded by "
        "Bonferroni)\n\n"
        + table(
            ["group", "n", "fewest lost", "smallest tolerance", f"caught {POWER:.0%} from"],
            rows,
            "text",
        )
        + f"\n\nmax-regression: {overall.enforceable:.2f}  ({_group(overall.group)}: a smaller "
        "tolerance gates no drop more with require-significance on; a group's own row says "
        "what it can enforce)\n"
    )
