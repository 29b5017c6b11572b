"""The change in how much of the capture maps to no KB card, per group, for the top
of the report (pure rendering).

A retriever that starts returning ids the KB cannot map (URLs after a site
migration, one language's pages gone) reads as a retrieval failure in every
metric; the share of documents outside the KB says which it is. So a change of
it against the baseline is named right under the verdict, not in a closing note.
"""

from __future__ import annotations

from recall_gate.core.records import OutsideKb

__all__ = ["SHARE_CHANGE", "outside_share_changes", "render_outside_share_changes"]

# A move of 5 points or more in a group's outside-KB share is worth a line.
SHARE_CHANGE = 0.05


def _shares(outside: OutsideKb | None) -> dict[tuple[str, str], float]:
    if outside is None:
        return {}
    return {
        **{("language", g): s for g, s in outside.share_by_language.items()},
        **{("case type", g): s for g, s in outside.share_by_case_type.items()},
    }


def outside_share_changes(
    current: OutsideKb | None, baseline: OutsideKb | None
) -> list[tuple[str, str, float, float]]:
    """``(kind, group, baseline share, current share)`` of every group whose share of
    retrieved documents outside the KB moved by :data:`SHARE_CHANGE` or more."""
    now, before = _shares(current), _shares(baseline)
    return [
        (kind, group, before.get((kind, group), 0.0), share)
        for (kind, group), share in sorted((now | {k: 0.0 for k in before if k not in now}).items())
        if abs(share - before.get((kind, group), 0.0)) >= SHARE_CHANGE
    ]


def render_outside_share_changes(
    current: OutsideKb | None, baseline: OutsideKb | None, *, markdown: bool
) -> str | None:
    """One line per moved group, or None when no group moved."""
    changes = outside_share_changes(current, baseline)
    if not changes:
        return None
    moved = "; ".join(
        f"{kind} {group}: {before:.0%} → {now:.0%}" for kind, group, before, now in changes
    )
    lead = (
        "⚠️ **Retrieved documents outside the KB changed**"
        if markdown
        else ("Retrieved documents outside the KB changed")
    )
    return (
        f"{lead} ({moved}): a group whose ids stop mapping to cards scores as a retrieval "
        "failure. Check the ids the retriever returns (`recall-gate cards` lists the URLs "
        "each card is found by) before reading the deltas."
    )
