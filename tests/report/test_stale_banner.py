"""One changed setting is one line of the stale banner, on every surface.

The reference baseline (baselines/default.json, made by the built-in runner)
records `retrieval.mode` three times: as a setting, as the provenance's
retrieval mode and in the built-in retriever's params. Switching the mode to
hybrid is one change, and the baseline does record its settings: no surface
may say it twice, nor that the baseline predates recorded settings."""

from __future__ import annotations

from pathlib import Path

from recall_gate.adapters.baseline_store import parse_baseline
from recall_gate.core.baseline import Baseline
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import (
    ComparisonDocument,
    baseline_update_document,
    comparison_document,
)
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.trend import changes_between
from recall_gate.report.actions import comparison_annotations
from recall_gate.report.baseline_update import render_baseline_update
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.history import change_phrases
from recall_gate.report.style import MARKDOWN, TEXT

REFERENCE = Path(__file__).resolve().parents[2] / "baselines" / "default.json"


def _reference() -> Baseline:
    return parse_baseline(REFERENCE.read_text(encoding="utf-8"), source=str(REFERENCE))


def _hybrid(base: Baseline) -> Baseline:
    """The reference run again, with `--set retrieval.mode=hybrid`."""
    prov = base.provenance
    assert prov.settings
    assert prov.retriever is not None
    provenance = prov.model_copy(
        update={
            "config_fingerprint": "sha256:hybrid0000000000",
            "retrieval_mode": "hybrid",
            "settings": {**prov.settings, "retrieval.mode": "hybrid"},
            "retriever": prov.retriever.model_copy(
                update={"params": {**prov.retriever.params, "mode": "hybrid"}}
            ),
        }
    )
    return base.model_copy(update={"provenance": provenance, "created_at": "2026-06-01T00:00:00Z"})


def _doc() -> tuple[ComparisonDocument, Baseline, Baseline]:
    base = _reference()
    current = _hybrid(base)
    comparison = compare_to_baseline(current=current, baseline=base, baseline_path="b.json")
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    return comparison_document(comparison, verdict, profile="default"), current, base


def test_one_changed_setting_is_one_line_of_the_stale_banner_on_every_surface() -> None:
    doc, current, base = _doc()
    assert doc.baseline.status == "stale"
    comparison = compare_to_baseline(current=current, baseline=base, baseline_path="b.json")
    surfaces = {
        "comment": render_comment(doc, max_chars=60_000),
        "job summary": render_comment(doc),
        "terminal": render_comparison_text(doc),
        "annotations": "\n".join(a.message for a in comparison_annotations(doc)),
        "baseline update": render_baseline_update(
            baseline_update_document(comparison), new=current, path="b.json"
        ),
        "history": "\n".join(
            line
            for style in (MARKDOWN, TEXT)
            for line in change_phrases(changes_between(base, current), style)
        ),
    }
    for name, text in surfaces.items():
        lines = [line for line in text.splitlines() if "dense" in line and "hybrid" in line]
        assert len(lines) == (2 if name == "history" else 1), (name, lines)
        assert "retriever mode" not in text, name
        assert "predates" not in text, name
    assert "Stale baseline: 1 change since it was made" in surfaces["terminal"]
    assert "- retrieval mode dense → hybrid" in surfaces["terminal"]
    assert "> - retrieval mode `dense` → `hybrid`" in surfaces["comment"]
