"""Every surface renders from one document, with or without a baseline: the
citation outcomes (a retrieval miss is not a citation miss) and the floor
suggestions are said on each, one way."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from test_render_comment import PATH, baseline, results, suite

from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import (
    ComparisonDocument,
    RunTotals,
    baseline_update_document,
    comparison_document,
)
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.records import CaseResult, Results
from recall_gate.report.baseline_update import render_baseline_update
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.markup import plain_text


def _cited(cases: Sequence[CaseResult]) -> tuple[CaseResult, ...]:
    """Misses are retrieval misses; of the hits, every third is a citation miss."""
    out = []
    hits = 0
    for c in cases:
        if c.metrics.get("retrieval_hit_at_k") == 0:
            outcome = "retrieval_miss"
        else:
            hits += 1
            outcome = "citation_miss" if hits % 3 == 0 else "ok"
        out.append(c.model_copy(update={"citation_outcome": outcome}))
    return tuple(out)


def _doc(current: Results, *, with_baseline: bool) -> ComparisonDocument:
    comparison = compare_to_baseline(
        current=current,
        baseline=baseline(suite()) if with_baseline else None,
        baseline_path=PATH,
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    return comparison_document(comparison, verdict, profile="default")


def _surfaces(doc: ComparisonDocument) -> dict[str, str]:
    return {
        "comment": render_comment(doc, max_chars=60_000),
        "job summary": render_comment(doc),
        "terminal": render_comparison_text(doc),
    }


@pytest.mark.parametrize("with_baseline", [True, False], ids=["baseline", "no baseline"])
def test_every_surface_tells_a_retrieval_miss_from_a_citation_miss(with_baseline: bool) -> None:
    current = results(_cited(suite({"en-000": None, "es-419-001": None})))
    doc = _doc(current, with_baseline=with_baseline)
    assert doc.baseline.status == ("ok" if with_baseline else "missing")
    citation = doc.run.citation
    assert citation is not None
    line = (
        f"ok {citation.ok}, retrieval miss {citation.retrieval_miss}, "
        f"citation miss {citation.citation_miss}."
    )
    assert citation.retrieval_miss > 0
    assert citation.citation_miss > 0
    for name, text in _surfaces(doc).items():
        assert line in text, name


def test_the_baseline_update_body_tells_them_apart_too() -> None:
    new = baseline(_cited(suite({"en-000": None})))
    doc = baseline_update_document(
        compare_to_baseline(current=new, baseline=baseline(suite()), baseline_path=PATH)
    )
    assert doc.run.citation is not None
    for fmt in ("markdown", "text"):
        text = render_baseline_update(doc, new=new, path=PATH, fmt=fmt)
        assert f"retrieval miss {doc.run.citation.retrieval_miss}" in text


@pytest.mark.parametrize("with_baseline", [True, False], ids=["baseline", "no baseline"])
def test_every_surface_suggests_floors_in_one_syntax(with_baseline: bool) -> None:
    doc = _doc(results(suite()), with_baseline=with_baseline)
    assert doc.verdict == "report-only"
    assert doc.suggested_detail
    first = doc.suggested_detail[0]
    setting = f"min-hit: {first.floor:.2f}"
    for name, text in _surfaces(doc).items():
        assert setting in plain_text(text).replace("`", ""), name
        assert "--min-" not in text, name


def test_a_streamed_run_counts_every_missed_case_though_it_lists_the_first() -> None:
    full = results(suite({"en-000": None, "en-003": None, "es-419-001": None}))
    missed = tuple(c for c in full.cases if c.metrics.get("retrieval_hit_at_k") == 0)
    kept = full.model_copy(update={"cases": missed[:1]})
    comparison = compare_to_baseline(current=kept, baseline=None, baseline_path=PATH)
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    totals = RunTotals(
        total=len(full.cases),
        scored=sum(1 for c in full.cases if c.metrics),
        missed=len(missed),
        outcomes={},
    )
    doc = comparison_document(comparison, verdict, profile="default", totals=totals)
    assert (doc.n_cases, doc.run.scored, doc.run.missed_total) == (
        len(full.cases),
        totals.scored,
        len(missed),
    )
    text = render_comparison_text(doc)
    assert f"Missed cases (hit@5 = 0): {len(missed)}" in text
    assert f"… and {len(missed) - 1} more: the results JSON (--json) lists every case." in text
