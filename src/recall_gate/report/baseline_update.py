"""The body of a baseline update (the update-baseline PR, and the terminal of
``baseline update``), rendered from the document core builds for it (pure)."""

from __future__ import annotations

from recall_gate.core.baseline import Baseline
from recall_gate.core.comparison_json import ComparisonDocument, SummaryRecord
from recall_gate.report import phrases, stale_banner
from recall_gate.report.case_lists import cases_section, flips_section, instead_section
from recall_gate.report.markup import Format, escape_markdown
from recall_gate.report.notes import citation_line, notes_block
from recall_gate.report.style import Style
from recall_gate.report.tables import current_table, delta_table

__all__ = [
    "render_baseline_update",
]


def render_baseline_update(
    doc: ComparisonDocument, *, new: Baseline, path: str, fmt: Format = "markdown"
) -> str:
    """What a baseline update changes (the update-baseline PR body): reason,
    provenance, and old → new per metric and group with n. ``doc`` is the
    update's document (:func:`~recall_gate.core.comparison_json.baseline_update_document`:
    the new baseline as the run, the previous one as the baseline); ``new``
    gives its reason, time and commit."""
    style = Style(fmt)
    k = doc.k
    title = f"recall-gate baseline update: {path}"
    parts = [
        f"### {escape_markdown(title)}" if style.md else f"{title}\n{'=' * len(title)}",
        f"Reason: “{style.user(new.reason)}”." if new.reason else "No reason given (--reason).",
        "New baseline: "
        f"{phrases.made_phrase(new.created_at, new.git_sha, None, style, why=False)}; "
        f"k = {k}, {doc.run.scored} of {doc.n_cases} cases scored"
        + (
            f" ({phrases.short_phrase(doc.run.short_of_k, doc.run.scored, k)}"
            f"{phrases.short_star(doc, style)})."
            if doc.run.short_of_k
            else "."
        ),
    ]
    if doc.baseline.status == "missing":
        parts.append("No previous baseline: this is the first one.")
        parts.append(current_table(doc, style))
    else:
        parts.append(f"Previous baseline: {phrases.baseline_made(doc, style)}.")
        changed = [f"- {c}" for c in stale_banner.stale_changes(doc, style)]
        if changed:
            parts.append("What changed since the previous baseline:\n" + "\n".join(changed))
        if phrases.is_comparable(doc):
            if phrases.cases_changed(doc):
                c = doc.cases
                parts.append(
                    f"Case set: {len(c.added)} added, {len(c.removed)} removed, "
                    f"{len(c.relabelled)} relabelled; old → new is on the {c.compared} "
                    "scored cases present in both."
                )
            parts.append(delta_table(doc, style, fail=set(), would=set(), columns=("old", "new")))
            for section in (
                flips_section(doc, style),
                instead_section(doc, style),
                cases_section(doc, style),
            ):
                if section:
                    parts.append(section)
        else:
            new_overall = {
                m: SummaryRecord(mean=mean, n=g.n)
                for g in doc.run.groups
                if g.group == "overall"
                for m, mean in g.means.items()
            }
            parts.append(
                "Overall, old → new: "
                + phrases.overall_change(doc.baseline.overall, new_overall, k)
            )
            parts.append(current_table(doc, style))
    citation = citation_line(doc, style)
    if citation:
        parts.append(citation)
    parts.append(notes_block(doc, style, legend=()))
    return "\n\n".join(parts) + "\n"
