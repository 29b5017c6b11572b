"""The comparison report: sticky PR comment, job summary and stdout (pure).

Every surface is rendered from ONE model, the comparison document
(:class:`~recall_gate.core.comparison_json.ComparisonDocument`), with or without
a baseline, with ONE set of phrases (:mod:`recall_gate.report.phrases`,
:mod:`recall_gate.report.stale_banner`): the PR comment and the job summary
(Markdown), the terminal (plain text), the Actions annotations
(:mod:`recall_gate.report.actions`) and the baseline update's body
(:mod:`recall_gate.report.baseline_update`). No renderer computes a verdict:
the document carries it.

Layout, top to bottom, so that a reviewer is done in ten seconds:

1. the hidden marker ``<!-- recall-gate:<profile> -->`` (Markdown only);
2. the verdict line, then the headline figures and the baseline it is
   compared with (:mod:`~recall_gate.report.verdict_phrases`);
3. banners: no baseline yet, baseline edited by the PR, stale (one line per
   change) or not comparable baseline, case set changed, list truncated
   (:mod:`~recall_gate.report.banners`);
4. what failed (or, report-only, what *would* fail if enforced), one line per
   group, and the cases behind each;
5. ONE table, metric × group, with n, baseline, current, Δ and a noise mark
   (:mod:`~recall_gate.report.tables`);
6. flipped cases, what came back instead of each lost or missed case, and
   case-set changes, collapsed (:mod:`~recall_gate.report.case_lists`);
7. the citation outcomes, suggested floors (report-only), notes, and metric
   definitions last (:mod:`~recall_gate.report.notes`).

:func:`render_comment` takes a ``max_chars`` budget
(:mod:`~recall_gate.report.fitting`).
"""

from __future__ import annotations

from recall_gate.core.comparison_json import ComparisonDocument, new_card_check
from recall_gate.core.metric_registry import shown_metrics
from recall_gate.core.profile import comment_marker
from recall_gate.report import phrases
from recall_gate.report.banners import banner_blocks
from recall_gate.report.case_lists import (
    cases_behind_section,
    cases_section,
    flips_section,
    instead_section,
    missed_section,
)
from recall_gate.report.fitting import fit_comment
from recall_gate.report.kb_changes import kb_changes_section
from recall_gate.report.label_audit import unwinnable_section
from recall_gate.report.noise_floor import self_agreement_section
from recall_gate.report.notes import (
    capture_section,
    citation_line,
    definitions,
    notes_block,
    suggestions_line,
)
from recall_gate.report.outside_kb import render_outside_share_changes
from recall_gate.report.phrases import is_comparable
from recall_gate.report.style import MARKDOWN, TEXT, Style
from recall_gate.report.tables import chart_section, current_table, delta_table
from recall_gate.report.traffic import traffic_section
from recall_gate.report.verdict_phrases import checks_block, verdict_block

__all__ = ["render_comment", "render_comparison_text", "render_document"]


def _legend(doc: ComparisonDocument, style: Style) -> list[str]:
    legend = []
    if doc.gate.regressions:
        legend.append(f"{style.mark('fail').strip()} drop beyond the set tolerance.")
    if doc.verdict == "report-only" and doc.would_fail_detail.regressions:
        legend.append(
            f"{style.mark('would').strip()} drop that would exceed a "
            f"{doc.would_fail_detail.tolerance:.2f} tolerance if one were set."
        )
    if doc.gate.exempt or (doc.verdict == "report-only" and doc.would_fail_detail.exempt):
        legend.append(
            f"{style.mark('exempt').strip()} drop beyond the tolerance that does not fail "
            f"the gate: fewer than {doc.gate.min_group_n} compared cases (min-group-n), "
            "or a drop the report-level noise test does not call likely real "
            "(require-significance)"
            + (
                ", or a drop within the retriever's own noise (A/A)."
                if any(
                    r.status == "exempt_own_noise"
                    for r in (*doc.gate.exempt, *doc.would_fail_detail.exempt)
                )
                else "."
            )
        )
    return legend


def render_document(doc: ComparisonDocument, *, style: Style, truncated: bool) -> str:
    """The whole report of one document in one style."""
    parts = []
    if style.md:
        parts.append(comment_marker(doc.profile))
    parts.append(verdict_block(doc, style))
    # A change against the baseline: none without one (nothing was measured before).
    outside = (
        render_outside_share_changes(doc.run.outside_kb, doc.baseline.outside_kb, markdown=style.md)
        if is_comparable(doc)
        else None
    )
    if outside is not None:
        parts.append(outside if style.md else outside.replace("`", ""))
    parts += banner_blocks(doc, style, truncated=truncated)
    checks = checks_block(doc, style)
    if checks:
        parts.append(checks)
    parts += cases_behind_section(doc, style)
    legend: list[str] = []
    if doc.deltas:
        fail = {(r.metric, r.group) for r in doc.gate.regressions}
        exempt = {(r.metric, r.group) for r in doc.gate.exempt}
        would: set[tuple[str, str]] = set()
        if doc.verdict == "report-only":
            would = {(r.metric, r.group) for r in doc.would_fail_detail.regressions}
            exempt |= {(r.metric, r.group) for r in doc.would_fail_detail.exempt}
        parts.append(delta_table(doc, style, fail=fail, would=would, exempt=exempt))
        legend = _legend(doc, style)
    else:
        parts.append(current_table(doc, style))
    for section in (
        citation_line(doc, style),
        chart_section(doc, style),
        flips_section(doc, style),
        missed_section(doc, style),
        instead_section(doc, style),
        cases_section(doc, style),
        kb_changes_section(
            doc.pull_request.kb if doc.pull_request else None,
            style,
            metric_name=doc.label,
            noise=lambda d: phrases.noise_cell(d, doc.gate.min_group_n),
            new_cards=new_card_check(doc),
        ),
        unwinnable_section(doc.run.unwinnable, style, k=doc.k),
        capture_section(doc, style),
        traffic_section(
            doc.traffic, style, next((g for g in doc.gates if g.kind == "traffic"), None)
        ),
        self_agreement_section(doc.self_agreement, style),
        suggestions_line(doc, style),
    ):
        if section:
            parts.append(section)
    parts.append(notes_block(doc, style, legend=legend))
    shown = shown_metrics(phrases.overall_means(doc), (d.metric for d in doc.deltas))
    parts.append(definitions(style, shown))
    return "\n\n".join(parts) + "\n"


def render_comment(doc: ComparisonDocument, *, max_chars: int | None = None) -> str:
    """The Markdown report (PR comment, job summary); with ``max_chars``, fitted
    into that many characters (:func:`~recall_gate.report.fitting.fit_comment`)."""
    full = render_document(doc, style=MARKDOWN, truncated=False)
    if max_chars is None:
        return full
    return fit_comment(
        lambda style, truncated: render_document(doc, style=style, truncated=truncated),
        full=full,
        longest=_longest_list(doc),
        max_chars=max_chars,
    )


def _longest_list(doc: ComparisonDocument) -> int:
    c = doc.cases
    return max(
        len(doc.flips.hit_to_miss),
        len(doc.flips.miss_to_hit),
        len(doc.flips.rank_moves),
        len(doc.missed),
        doc.run.scored,
        len(c.added),
        len(c.removed),
        len(c.relabelled),
    )


def render_comparison_text(doc: ComparisonDocument) -> str:
    """The same report as plain text, for a terminal (no marker, no HTML)."""
    return render_document(doc, style=TEXT, truncated=False)
