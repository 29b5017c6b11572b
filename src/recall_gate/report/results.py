"""Render results as a Markdown report or a plain-text table (pure).

Every cell that carries a mean carries its n. User-controlled text (ids,
group names) goes through :func:`escape_markdown` so that it renders inert.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Literal

from recall_gate.core.gate import GateResult, suggest_floors
from recall_gate.core.metric_registry import (
    CITATION_COVERAGE,
    GATED_METRICS,
    floor_flag,
    metric_label,
)
from recall_gate.core.metrics import METRIC_KEYS
from recall_gate.core.records import Aggregates, MetricSummary, Results

__all__ = [
    "LANGUAGE_CAVEAT",
    "RECALL_CAVEAT",
    "escape_markdown",
    "format_mean",
    "render_report",
    "render_summary",
    "table",
]

Format = Literal["markdown", "text"]

RECALL_CAVEAT = (
    "recall@k is a conservative lower bound: `must_cite_one_of` is disjunctive, so "
    "surfacing one of two acceptable cards scores 0.5 although the citation contract "
    "is met. Read hit@k as the success figure."
)
LANGUAGE_CAVEAT = (
    "Cross-language differences are indicative, not significance-tested: the "
    "per-language sets are small, unequal and independently written."
)

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape_markdown(text: str) -> str:
    """Make user text inert in GitHub Markdown: no markup, no HTML, no pings.

    Whitespace runs (newlines too: they would break a table row) become one
    space; other invisible characters (controls, bidi overrides) become U+FFFD
    so they cannot disguise text; Markdown punctuation is backslash-escaped;
    a zero-width joiner after ``@`` and ``#`` stops mentions (``@org/team``)
    and issue cross-references (``#123``, ``org/repo#1``).
    """
    text = " ".join(text.split())
    text = "".join(c if c.isprintable() else "\ufffd" for c in text)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    text = text.replace("&", "&amp;")
    return text.replace("@", "@\u200d").replace("#", "#\u200d")


def format_mean(summary: MetricSummary | None) -> str:
    return "—" if summary is None else f"{summary.mean:.3f}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]], fmt: Format) -> str:
    """A Markdown pipe table, or aligned plain text."""
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=False)]

    def fmt_row(row: Sequence[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip()

    out = [fmt_row(header), "  ".join("-" * w for w in widths)]
    out += [fmt_row(row) for row in rows]
    return "\n".join(out)


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
    )


def render_summary(
    *,
    k: int,
    aggregates: Aggregates,
    total: int,
    scored: int,
    outcomes: Mapping[str, int],
    gate: GateResult | None = None,
    fmt: Format = "markdown",
) -> str:
    """:func:`render_report` from the counts alone (the streaming scorer keeps no cases).

    ``outcomes`` counts the citation outcomes of the cases that have one.
    """
    agg = aggregates
    metrics = list(METRIC_KEYS)
    if CITATION_COVERAGE in agg.overall:
        metrics.append(CITATION_COVERAGE)
    parts = [_heading(f"recall-gate: retrieval quality at k = {k}", fmt)]
    if gate is not None:
        parts.append(_verdict_lines(gate, k, fmt))
    parts.append(
        f"{scored} of {total} cases carry gold and are scored; "
        f"{total - scored} without gold are excluded by design (ADR-0023 (B))."
    )
    header = ["group", "name", "n", *(metric_label(m, k) for m in metrics)]
    parts.append(table(header, _group_rows(agg, metrics, fmt), fmt))
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
    notes = [RECALL_CAVEAT, LANGUAGE_CAVEAT]
    parts.append("\n".join(f"- {n}" for n in notes))
    definitions = "\n".join(f"- `{m.key}`: {m.definition}" for m in GATED_METRICS)
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
