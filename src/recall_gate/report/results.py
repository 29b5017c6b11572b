"""Render results as a Markdown report or a plain-text table (pure).

Every cell that carries a mean carries its n. User-controlled text (ids,
group names) goes through :func:`escape_markdown` so that it renders inert.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from recall_gate.core.coverage import render_coverage, render_never_retrieved
from recall_gate.core.gate import GateResult, suggest_floors
from recall_gate.core.metric_registry import (
    CITATION_COVERAGE,
    GATED_METRICS,
    floor_flag,
    metric_label,
    shown_metrics,
)
from recall_gate.core.moves import missed_cases
from recall_gate.core.records import (
    Aggregates,
    CaseResult,
    KbCoverageCounts,
    Latency,
    LatencyStats,
    MetricSummary,
    OutsideKb,
    Results,
)
from recall_gate.report.markup import (
    Format,
    escape_markdown,
    plain_text,
    shorten,
    shorten_query,
    table,
)

__all__ = [
    "LANGUAGE_CAVEAT",
    "RECALL_CAVEAT",
    "capture_notes",
    "format_mean",
    "missed_table",
    "render_report",
    "render_summary",
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


def _cell(text: str, fmt: Format) -> str:
    if fmt == "markdown":
        return escape_markdown(text)
    return " ".join("".join(c if c.isprintable() else "\ufffd" for c in text).split())


def missed_table(
    cases: Sequence[CaseResult], k: int, fmt: Format, *, limit: int | None = None
) -> tuple[str, int, int] | None:
    """The scored cases with no gold card in the top k, as a table of case,
    query, language, type and gold cards; ``None`` when none missed. Returns
    (table, missed, hidden): at most ``limit`` rows are shown."""
    missed = missed_cases(cases)
    if not missed:
        return None
    shown = missed if limit is None else missed[:limit]
    rows = [
        [
            _cell(c.case_id, fmt),
            _cell(shorten_query(c.query) or "—", fmt),
            _cell(c.language, fmt),
            _cell(c.case_type, fmt),
            _cell(", ".join(c.must_cite_one_of), fmt),
            f"out of top {k}"
            if len(held := dict.fromkeys(c.ranked_ids)) >= k
            else f"not retrieved ({len(held)} returned)",
        ]
        for c in shown
    ]
    header = ["case", "query", "language", "type", "gold cards", "rank"]
    return table(header, rows, fmt), len(missed), len(missed) - len(shown)


def format_mean(summary: MetricSummary | None) -> str:
    return "—" if summary is None else f"{summary.mean:.3f}"


def _group_rows(aggregates: Aggregates, metrics: Sequence[str], fmt: Format) -> list[list[str]]:
    def row(kind: str, name: str, group: dict[str, MetricSummary]) -> list[str]:
        label = escape_markdown(name) if fmt == "markdown" else name
        ns = {group[m].n for m in metrics if m in group}
        n = (
            str(ns.pop())
            if len(ns) == 1
            else (
                "0" if not ns else "/".join(str(group[m].n) if m in group else "0" for m in metrics)
            )
        )
        cells = [format_mean(group.get(m)) for m in metrics]
        if not group:
            cells = ["not scored (no gold)"] + [""] * (len(metrics) - 1)
        return [kind, label, n, *cells]

    rows = [row("overall", "all cases", aggregates.overall)]
    rows += [row("case type", g, v) for g, v in aggregates.by_case_type.items()]
    rows += [row("language", g, v) for g, v in aggregates.by_language.items()]
    return rows


def _heading(text: str, fmt: Format) -> str:
    return f"### {text}" if fmt == "markdown" else f"{text}\n{'=' * len(text)}"


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


def render_report(
    results: Results, *, gate: GateResult | None = None, fmt: Format = "markdown"
) -> str:
    """The report of one results set: gate verdict, table with n, caveats, definitions."""
    outcomes: Counter[str] = Counter(
        c.citation_outcome for c in results.cases if c.citation_outcome
    )
    return render_summary(
        k=results.k,
        aggregates=results.aggregates,
        total=len(results.cases),
        scored=sum(1 for c in results.cases if c.metrics),
        outcomes=outcomes,
        gate=gate,
        fmt=fmt,
        cases=results.cases,
        short_of_k=results.cases_short_of_k,
        gold_checked=results.provenance.kb_fingerprint is not None,
        outside_kb=results.outside_kb,
        kb_coverage=results.kb_coverage,
        kb_retrieved=results.kb_retrieved,
    )


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


def _ms(stats: LatencyStats) -> list[str]:
    return [f"{v:.1f} ms" for v in (stats.p50_ms, stats.p95_ms, stats.max_ms)]


def render_summary(
    *,
    k: int,
    aggregates: Aggregates,
    total: int,
    scored: int,
    outcomes: Mapping[str, int],
    gate: GateResult | None = None,
    fmt: Format = "markdown",
    cases: Sequence[CaseResult] = (),
    missed_total: int | None = None,
    short_of_k: int = 0,
    gold_checked: bool = True,
    outside_kb: OutsideKb | None = None,
    latency: Latency | None = None,
    failed_cases: Sequence[str] = (),
    kb_coverage: KbCoverageCounts | None = None,
    kb_retrieved: KbCoverageCounts | None = None,
) -> str:
    """:func:`render_report` from the counts alone (the scorer keeps no cases).

    ``outcomes`` counts the citation outcomes of the cases that have one;
    ``cases``, when kept, list the missed ones; ``missed_total`` counts them
    when only the first of them were kept; ``short_of_k`` and ``gold_checked``
    feed :func:`capture_notes`.
    """
    agg = aggregates
    shown = shown_metrics(agg.overall)
    metrics = list(shown)
    if CITATION_COVERAGE in agg.overall:
        metrics.append(CITATION_COVERAGE)
    # A shorter list than k is said where the numbers stand, not only in a note.
    short = (
        f" ({short_of_k} of {scored} scored cases hold fewer than {k} cards*)" if short_of_k else ""
    )
    parts = [_heading(f"recall-gate: retrieval quality at k = {k}{short}", fmt)]
    if gate is not None:
        parts.append(_verdict_lines(gate, k, fmt))
    parts.append(
        f"{scored} of {total} cases carry gold and are scored; "
        f"{total - scored} without gold are excluded by design: they have no card to find."
    )
    for note in capture_notes(
        k=k,
        scored=scored,
        short_of_k=short_of_k,
        gold_checked=gold_checked,
        outside_kb=outside_kb,
        fmt=fmt,
        kb_coverage=kb_coverage,
        kb_retrieved=kb_retrieved,
    ):
        parts.append(note if fmt == "markdown" else note.replace("`", "").replace("\\*", "*"))
    star = "\\*" if short_of_k and fmt == "markdown" else "*" if short_of_k else ""
    header = ["group", "name", "n", *(metric_label(m, k) + star for m in metrics)]
    parts.append(table(header, _group_rows(agg, metrics, fmt), fmt))
    if failed_cases:
        parts.append(failures_note(failed_cases, fmt))
    if latency is not None:
        parts.append(latency_table(latency, fmt))
    if any(outcomes.values()):
        counts = {o: outcomes.get(o, 0) for o in ("ok", "retrieval_miss", "citation_miss")}
        parts.append(
            "Citation outcomes (gold-labelled cases with captured citations): "
            f"ok {counts['ok']}, retrieval miss {counts['retrieval_miss']}, "
            f"citation miss {counts['citation_miss']}."
        )
    if gate is not None and gate.verdict == "report-only":
        suggestions = suggest_floors(agg)
        if suggestions:
            parts.append(
                "Suggested floors (observed − margin down to the Wilson 95% lower bound, "
                "at least 0.02): "
                + ", ".join(
                    f"`--{floor_flag(s.metric)} {s.floor:.2f}` (observed {s.observed:.3f}, n={s.n})"
                    for s in suggestions
                )
            )
    missed = missed_table(cases, k, fmt)
    if missed is not None:
        text, count, _ = missed
        if missed_total is not None and missed_total > count:
            text += (
                f"\n\n… and {missed_total - count} more: the results JSON (`--json`) "
                "lists every case."
            )
            count = missed_total
        title = f"Missed cases (hit@{k} = 0): {count}"
        if fmt == "markdown":
            parts.append(f"<details><summary>{title}</summary>\n\n{text}\n\n</details>")
        else:
            parts.append(f"{title}\n{'-' * len(title)}\n\n{text}")
    notes = [RECALL_CAVEAT, LANGUAGE_CAVEAT]
    parts.append("\n".join(f"- {n}" for n in notes))
    definitions = "\n".join(f"- `{m.key}`: {m.definition}" for m in GATED_METRICS if m.key in shown)
    parts.append(f"Metric definitions:\n{definitions}")
    return "\n\n".join(parts) + "\n"


def _verdict_lines(gate: GateResult, k: int, fmt: Format) -> str:
    lines = []
    if gate.verdict == "pass":
        lines.append("**Verdict: pass**" if fmt == "markdown" else "Verdict: pass")
    elif gate.verdict == "fail":
        lines.append("**Verdict: fail**" if fmt == "markdown" else "Verdict: FAIL")
    else:
        lines.append(
            "**Verdict: report-only** (no floor or tolerance set)"
            if fmt == "markdown"
            else "Verdict: report-only (no floor or tolerance set)"
        )
    for check in gate.floor_checks:
        if check.floor is None or not check.failed:
            continue
        observed = "nothing scored" if check.observed is None else f"{check.observed:.3f}"
        lines.append(
            f"- {metric_label(check.metric, k)} {observed} (n={check.n}) is below the floor "
            f"{check.floor:.3f} (--{floor_flag(check.metric)})"
        )
    return "\n".join(lines)
