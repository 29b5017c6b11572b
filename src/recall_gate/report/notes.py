"""The foot of the report (pure): the citation outcomes, suggested floors,
capture notes, caveats and metric definitions, and the notes about a capture
(:func:`capture_notes`, :func:`failures_note`, :func:`latency_table`)."""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.core.coverage import render_coverage, render_never_retrieved
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import KbCoverageCounts, Latency, LatencyStats, OutsideKb
from recall_gate.core.stats import (
    FAMILY_LEVEL,
    NORMAL_MIN_CHANGED,
    PROMISED_FALSE_FAIL,
    RESAMPLES,
    min_detectable_lost,
)
from recall_gate.report import phrases
from recall_gate.report.kb_changes import kb_turnover_note
from recall_gate.report.label_audit import label_rot_note
from recall_gate.report.markup import Format, escape_markdown, plain_text, shorten, table
from recall_gate.report.noise_floor import calibration_line
from recall_gate.report.reader_language import reader_language_notes
from recall_gate.report.style import Style
from recall_gate.report.traffic import unanswered_note

__all__ = [
    "LANGUAGE_CAVEAT",
    "RECALL_CAVEAT",
    "capture_notes",
    "capture_section",
    "citation_line",
    "definitions",
    "failures_note",
    "latency_table",
    "notes_block",
    "suggestions_line",
]

RECALL_CAVEAT = (
    "recall@k is a conservative lower bound: `must_cite_one_of` is disjunctive, so "
    "surfacing one of two acceptable cards scores 0.5 although the citation contract "
    "is met. Read hit@k as the success figure."
)
LANGUAGE_CAVEAT = (
    "Cross-language differences are indicative, not significance-tested: the "
    "per-language sets are small, unequal and independently written."
)


# At most this many characters of a document id shown as an example: ids come
# from the retriever, which a pull request controls.
_EXAMPLE_CHARS = 120


def _example(ident: str, fmt: Format) -> str:
    """A retrieved document's id, inert: a code span when that is safe, else escaped."""
    ident = shorten(ident, _EXAMPLE_CHARS)
    if fmt != "markdown":
        return plain_text(ident)
    if "`" not in ident and ident.isprintable() and ident.strip() == ident and ident:
        return f"`{ident}`"
    return escape_markdown(ident)


def capture_notes(
    *,
    k: int,
    scored: int,
    short_of_k: int,
    gold_checked: bool,
    outside_kb: OutsideKb | None = None,
    fmt: Format = "markdown",
    kb_coverage: KbCoverageCounts | None = None,
    kb_retrieved: KbCoverageCounts | None = None,
    baseline_retrieved: KbCoverageCounts | None = None,
) -> list[str]:
    """What a reader must know about the capture behind the numbers: cases scored
    on fewer than k cards, pages outside the KB, gold ids no KB vouched for, and
    the share of the KB the cases cite."""
    notes = []
    if short_of_k:
        held = "holds" if short_of_k == 1 else "hold"
        notes.append(
            f"\\* Depth: {short_of_k} of {scored} scored case{'' if scored == 1 else 's'} "
            f"{held} fewer than k = {k} distinct retrieved cards: their metrics are computed "
            "on a shorter list than k (the retriever returned no more, even asked deeper; "
            "capture more ids per case, or lower k)."
        )
    if outside_kb is not None:
        examples = ", ".join(_example(e, fmt) for e in outside_kb.examples)
        notes.append(
            f"Outside the KB: {outside_kb.entries} retrieved document"
            f"{'' if outside_kb.entries == 1 else 's'} in {outside_kb.cases} case"
            f"{'' if outside_kb.cases == 1 else 's'} map to no card (e.g. {examples}): kept at "
            "their rank as non-relevant results (`--strict` refuses them)."
        )
    if not gold_checked:
        notes.append(
            "Gold ids were not checked against a KB (none was given): a mistyped gold id "
            "scores as a miss. Set `kb:` in recall-gate.yaml, or run `recall-gate check`."
        )
    if kb_coverage is not None:
        notes.append(
            f"{render_coverage(kb_coverage)}: a card no case cites moves no metric here "
            "(`recall-gate cards --uncovered` lists them)."
        )
    if kb_retrieved is not None:
        notes.append(
            render_never_retrieved(kb_retrieved, k=k, baseline=baseline_retrieved)
            + ": a card no case retrieves is a card the gate cannot see lost from the index."
        )
    return notes


_FAILED_ID_CHARS = 80


def failures_note(failed_cases: Sequence[str], fmt: Format) -> str:
    """The cases the retriever could not answer, scored as misses (``--max-failures``)."""
    ids = (shorten(c, _FAILED_ID_CHARS) for c in failed_cases[:20])  # ids are user text
    shown = ", ".join(escape_markdown(c) if fmt == "markdown" else c for c in ids)
    more = f" and {len(failed_cases) - 20} more" if len(failed_cases) > 20 else ""
    return (
        f"{len(failed_cases)} case(s) the retriever could not answer are recorded as "
        f"failures and scored as misses (capture --max-failures): {shown}{more}."
    )


def latency_table(latency: Latency, fmt: Format, *, baseline: Latency | None = None) -> str:
    """p50 / p95 / max query latency, overall and per group (report-only); with a
    ``baseline`` that has latency, each value reads ``before → after (±change)``."""

    def cells(stats: LatencyStats, before: LatencyStats | None) -> list[str]:
        now = (stats.p50_ms, stats.p95_ms, stats.max_ms)
        if before is None:
            return [f"{v:.1f} ms" for v in now]
        was = (before.p50_ms, before.p95_ms, before.max_ms)
        return [f"{b:.1f} → {v:.1f} ms ({v - b:+.1f})" for b, v in zip(was, now, strict=True)]

    def name_cell(name: str) -> str:
        return escape_markdown(name) if fmt == "markdown" else name

    old = baseline
    overall_before = old.overall if old is not None else None
    rows = [["overall", "all", str(latency.overall.n), *cells(latency.overall, overall_before)]]
    for kind, groups, before in (
        ("case_type", latency.by_case_type, old.by_case_type if old else {}),
        ("language", latency.by_language, old.by_language if old else {}),
    ):
        rows += [
            [kind, name_cell(name), str(s.n), *cells(s, before.get(name))]
            for name, s in groups.items()
        ]
    title = "Query latency of the capture (report-only; no gate reads it)"
    title += ", against the baseline's:" if baseline is not None else ":"
    return title + "\n\n" + table(["group", "name", "n", "p50", "p95", "max"], rows, fmt)


def citation_line(doc: ComparisonDocument, style: Style) -> str | None:
    """The citation outcomes of this run, with or without a baseline: a retrieval
    miss (no gold card retrieved) is told apart from a citation miss (retrieved,
    not cited)."""
    c = doc.run.citation
    if c is None:
        return None
    return (
        f"{style.bold('Citation outcomes')} (gold-labelled cases with captured citations): "
        f"ok {c.ok}, retrieval miss {c.retrieval_miss}, citation miss {c.citation_miss}."
    )


def suggestions_line(doc: ComparisonDocument, style: Style) -> str | None:
    if doc.verdict != "report-only" or not doc.suggested_detail:
        return None
    source = "the baseline" if phrases.is_comparable(doc) else "this run"
    items = ", ".join(
        f"{style.literal(phrases.floor_setting(s))} (observed {s.observed or 0.0:.3f}, n = {s.n})"
        for s in doc.suggested_detail
    )
    return (
        f"{style.bold('Suggested floors')} from {source} (observed − margin, down to the "
        f"Wilson 95% lower bound, at least 0.02): {items}. Write them into the config with "
        f"{style.literal('recall-gate floors suggest --write recall-gate.yaml')}."
    )


def _language_note(doc: ComparisonDocument) -> str:
    """What the † on language rows means, true to what the table shows: each
    language's row is tested and gated like any group; languages are not
    compared with one another."""
    if not doc.deltas:
        return f"† {LANGUAGE_CAVEAT}"
    return (
        "† A language's row compares this run with the baseline on that language's cases, "
        "and is noise-tested and gated like any group. Differences between languages are "
        "indicative, not significance-tested: the per-language sets are small, unequal "
        "and independently written."
    )


def notes_block(doc: ComparisonDocument, style: Style, *, legend: Sequence[str]) -> str:
    k = doc.k
    notes = list(legend)
    run = doc.run
    for note in capture_notes(
        k=k,
        scored=run.scored,
        short_of_k=run.short_of_k,
        gold_checked=run.gold_checked,
        outside_kb=run.outside_kb,
        fmt=style.fmt,
        kb_coverage=run.kb_coverage,
        kb_retrieved=run.kb_retrieved,
        baseline_retrieved=doc.baseline.kb_retrieved if phrases.is_comparable(doc) else None,
    ):
        notes.append(note if style.md else note.replace("`", "").replace("\\*", "*"))
    if phrases.is_comparable(doc) and doc.baseline.short_of_k:
        depth = phrases.short_phrase(
            doc.baseline.short_of_k, phrases.baseline_scored(doc), k, past=True
        )
        notes.append(
            f"{phrases.short_star(doc, style)} Depth of the baseline: {depth}: "
            "a delta on those cases compares a shorter list with this run's."
        )
    turnover = kb_turnover_note(doc.baseline.kb_turnover, style)
    if turnover:
        notes.append(turnover)
    notes += reader_language_notes(doc, comparable=phrases.is_comparable(doc))
    if doc.traffic_unanswered is not None:
        notes.append(unanswered_note(doc.traffic_unanswered, style))
    label_rot = label_rot_note(doc.label_rot, style)
    if label_rot:
        notes.append(label_rot if style.md else label_rot.replace("`", ""))
    notes.append(RECALL_CAVEAT if style.md else RECALL_CAVEAT.replace("`", ""))
    notes.append(_language_note(doc))
    min_group_n = doc.gate.min_group_n
    if doc.deltas:
        notes.append(
            f"Noise: {doc.label(HIT)} flips are tested with an exact two-sided McNemar test; "
            f"{doc.label(RECALL)} and {doc.label(NDCG)} deltas with a paired sign-flip "
            f"permutation test (exact, {RESAMPLES:,} seeded draws, or its normal "
            f"approximation from {NORMAL_MIN_CHANGED} changed cases). “likely real” = "
            f"p < 0.05; groups with n < {min_group_n} are not tested. The gate tests the "
            "rows it holds to a tolerance together (a one-sided report-level p, likely "
            f"real below {FAMILY_LEVEL:g}), so a no-op pull request fails at most "
            f"{PROMISED_FALSE_FAIL * 100:.0f} % of the time (measured by the calibration "
            "benchmark)."
        )
        overall = phrases.delta_for(doc, HIT)
        if doc.calibration is not None:
            notes.append(calibration_line(doc.calibration, doc.label(HIT)))
        elif overall is not None and overall.n >= min_group_n:
            n, least = overall.n, min_detectable_lost()
            notes.append(
                f"Detectable drop: on {n} compared cases, {doc.label(HIT)} is called likely "
                "real from "
                f"{least} lost hits with none gained (−{least / n:.3f}); a smaller drop, or one "
                "offset by gains, reads as noise. Subgroups need as many lost hits on fewer cases."
            )
    if run.unscored:
        notes.append(
            f"{run.unscored} case{' is' if run.unscored == 1 else 's are'} without gold "
            "(capability, no_match): not scored, by design: they have no card to find."
        )
    return "\n".join(f"- {n}" for n in notes)


def definitions(style: Style, shown: Sequence[str]) -> str:
    specs = [m for m in GATED_METRICS if m.key in shown]
    if style.md:
        items = [f"- `{m.key}`: {m.definition}" for m in specs]
    else:
        items = [f"- {m.key}: {m.definition.replace('`', '')}" for m in specs]
    return style.collapsed("Metric definitions", ["\n".join(items)])


def capture_section(doc: ComparisonDocument, style: Style) -> str | None:
    """Cases the retriever could not answer, and the query latency against the
    baseline's when it has one (report-only)."""
    run = doc.run
    parts = []
    if run.failed_cases:
        parts.append(failures_note(run.failed_cases, style.fmt))
    if run.latency is not None:
        parts.append(latency_table(run.latency, style.fmt, baseline=doc.baseline.latency))
    if not parts:
        return None
    return (
        style.collapsed("Capture: failures and latency", parts) if style.md else "\n\n".join(parts)
    )
