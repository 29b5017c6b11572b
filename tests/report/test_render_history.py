"""The trend report and the Mermaid charts against golden files (see tests/golden.py)."""

from __future__ import annotations

from factories import baseline_of, case
from golden import assert_golden
from recall_gate.core.trend import trend_point
from recall_gate.report.charts import mermaid_label
from recall_gate.report.history import render_history


def test_the_trend_of_three_versions_has_one_chart_per_metric_and_a_table() -> None:
    versions = [
        (4, "a" * 40, "2026-05-01T10:00:00+00:00", "first baseline"),
        (2, "b" * 40, "2026-05-08T10:00:00+00:00", "hybrid | `bm25` <b>@team</b>"),
        (3, "c" * 40, "2026-05-15T10:00:00+00:00", "chunks 500 → 120"),
    ]
    points = [
        trend_point(
            baseline_of([case(f"c{i}", None if i < misses else 2) for i in range(10)], reason=why),
            commit=sha,
            committed_at=date,
        )
        for misses, sha, date, why in versions
    ]
    proposed = baseline_of([case(f"c{i}", 1) for i in range(12)], k=5, reason="rerank")
    points.append(trend_point(proposed, commit=None, committed_at=None))
    text = render_history(points, path="baselines/default.json")
    assert text.count("```mermaid") == 3
    assert "\\<b\\>@\u200dteam\\</b\\>" in text  # the reason renders inert
    assert_golden("history.md", text)
    assert_golden("history.txt", render_history(points, path="baselines/default.json", fmt="text"))


def test_a_chart_label_cannot_end_its_quoted_string_or_start_markup() -> None:
    assert mermaid_label('x" --> y\n<script>') == "x_ --_ y _script_"
    assert mermaid_label("") == "_"
    assert len(mermaid_label("z" * 100)) == 24
