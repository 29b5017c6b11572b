"""The trend report and the Mermaid charts against golden files (see tests/golden.py)."""

from __future__ import annotations

import re

from factories import baseline_of, case
from golden import assert_golden
from recall_gate.core.baseline import Baseline
from recall_gate.core.metrics import HIT, MRR
from recall_gate.core.records import CaseResult
from recall_gate.core.trend import SkippedVersion, TrendPoint, trend_point, trend_rows
from recall_gate.report.charts import mermaid_label
from recall_gate.report.history import change_phrases, history_json, render_history
from recall_gate.report.style import TEXT

HYBRID = {"adapter": "langchain-retriever", "name": "app.Hybrid", "params": {"top_k": 5}}
RERANKED = {"adapter": "langchain-retriever", "name": "app.Reranked", "params": {"top_k": 20}}


def _cases(en_misses: int, *, pt: int = 4, pt_misses: int = 0, k: int = 5) -> list[CaseResult]:
    """Synthetic: 10 English golden cases, ``pt`` Brazilian Portuguese adversarial ones."""
    return [
        *(case(f"en{i}", None if i < en_misses else 2, k=k) for i in range(10)),
        *(
            case(f"pt{i}", None if i < pt_misses else 1, language="pt-BR",
                 case_type="adversarial", k=k)
            for i in range(pt)
        ),
    ]  # fmt: skip


def _points() -> list[TrendPoint]:
    """Four committed versions and a proposed one, each step changing one thing:
    a re-run (same everything: Δ), a retriever swap, Portuguese cases added, k."""
    versions = [
        ("a", "2026-05-01", _cases(4), HYBRID, 5, "first baseline"),
        ("b", "2026-05-08", _cases(2), HYBRID, 5, "hybrid | `bm25` <b>@team</b>"),
        ("c", "2026-05-15", _cases(1), RERANKED, 5, "rerank top 20"),
        ("d", "2026-05-22", _cases(1, pt=7, pt_misses=3), RERANKED, 5, "3 hard pt-BR cases"),
    ]
    points = [
        trend_point(
            baseline_of(cases, k=k, reason=why, retriever=retriever),
            commit=sha * 40,
            committed_at=f"{date}T10:00:00+00:00",
        )
        for sha, date, cases, retriever, k, why in versions
    ]
    proposed = baseline_of(
        _cases(0, pt=7, pt_misses=3, k=10), k=10, reason="k 10", retriever=RERANKED
    )
    return [*points, trend_point(proposed, commit=None, committed_at=None)]


SKIPPED = (
    SkippedVersion(
        commit="e" * 40,
        committed_at="2026-05-10T10:00:00+00:00",
        problem="corrupted baseline: invalid JSON (Expecting value, line 1)",
    ),
)


def test_the_trend_per_group_names_each_change_and_computes_no_delta_across_it() -> None:
    points = _points()
    text = render_history(points, path="baselines/default.json", fmt="text", by="all",
                          skipped=SKIPPED)  # fmt: skip
    assert_golden("history_groups.txt", text)
    markdown = render_history(points, path="baselines/default.json", by="all", skipped=SKIPPED)
    assert markdown.count("```mermaid") == 3
    assert "\\<b\\>@\u200dteam\\</b\\>" in markdown  # the reason renders inert
    assert_golden("history_groups.md", markdown)


def test_the_default_trend_is_overall_and_says_where_the_groups_are() -> None:
    text = render_history(_points(), path="baselines/default.json", fmt="text")
    assert "language pt-BR" not in text
    assert " ".join(text.split()).endswith(
        "Also by case type (golden, adversarial): recall-gate history --by case_type; "
        "by language (en, pt-BR): recall-gate history --by language; both: --by all."
    )
    assert_golden("history.txt", text)
    assert_golden("history.md", render_history(_points(), path="baselines/default.json"))


def test_a_chart_label_cannot_end_its_quoted_string_or_start_markup() -> None:
    assert mermaid_label('x" --> y\n<script>') == "x_ --_ y _script_"
    assert mermaid_label("") == "_"
    assert len(mermaid_label("z" * 100)) == 24


def test_a_metric_the_baselines_carry_beyond_the_default_set_gets_its_columns() -> None:
    with_mrr = [
        c.model_copy(update={"metrics": {**c.metrics, MRR: 0.5 if c.metrics[HIT] else 0.0}})
        for c in _cases(4, pt=0)
    ]
    points = [
        trend_point(baseline_of(with_mrr, reason="mrr"), commit="a" * 40, committed_at=None),
    ]
    text = render_history(points, path="b.json", fmt="text")
    (header_line,) = [line for line in text.splitlines() if line.startswith("version")]
    header = header_line.split()
    assert header[header.index("nDCG@5") :][:4] == ["nDCG@5", "Δ", "MRR@5", "Δ"]
    assert history_json(points, profile="p", path="b.json")["points"][0]["mrr"] == 0.3


PREFIX = "embedder.query_prefix"


def test_a_pipe_in_a_changed_setting_stays_inside_its_markdown_cell() -> None:
    before = baseline_of(_cases(4), settings={PREFIX: "q"}, config_fingerprint="a")
    after = baseline_of(_cases(4), settings={PREFIX: "a|b"}, config_fingerprint="b")
    markdown = render_history(_two(before, after), path="b.json")
    (row,) = [line for line in markdown.splitlines() if line.startswith("| bbbbbbb |")]
    assert row.endswith("| query prefix `q` → `a\\|b` |")
    assert len(re.findall(r"(?<!\\)\|", row)) == 13  # 12 columns: no cell split by the pipe


def _two(before: Baseline, after: Baseline) -> list[TrendPoint]:
    return [
        trend_point(b, commit=sha * 40, committed_at=None)
        for b, sha in ((before, "a"), (after, "b"))
    ]


def test_a_queries_fingerprint_change_says_whether_any_recorded_query_changed() -> None:
    unrecorded = baseline_of(_cases(0), queries_fingerprint="sha256:a")
    recorded = [c.model_copy(update={"query": f"q {c.case_id}"}) for c in _cases(0)]
    first = baseline_of(recorded, queries_fingerprint="sha256:b")
    recipe = baseline_of(recorded, queries_fingerprint="sha256:c")
    changes = trend_rows(_two(unrecorded, first))[1].changes
    assert changes is not None
    assert change_phrases(changes, TEXT) == [
        "queries changed (not recorded case by case in both versions)"
    ]
    changes = trend_rows(_two(first, recipe))[1].changes
    assert changes is not None
    assert change_phrases(changes, TEXT) == [
        "queries fingerprint changed, though no recorded query did"
    ]
    edited = [
        c.model_copy(update={"query": "another"}) if c.case_id == "en0" else c for c in recorded
    ]
    changes = trend_rows(_two(first, baseline_of(edited, queries_fingerprint="sha256:d")))[
        1
    ].changes
    assert changes is not None
    assert change_phrases(changes, TEXT) == ["queries edited: 1"]


def test_a_long_reason_is_cut_on_a_terminal_and_whole_in_markdown() -> None:
    why = "Regenerated with the bundled model after the KB moved to docs/, " * 3
    points = [trend_point(baseline_of(_cases(0), reason=why), commit="a" * 40, committed_at=None)]
    text = render_history(points, path="b.json", fmt="text")
    (line,) = [x for x in text.splitlines() if x.startswith("aaaaaaa")]
    assert line.endswith("Regenerated with the bundled model after the KB moved to do…")
    assert why.strip() in render_history(points, path="b.json").replace("\\", "")
