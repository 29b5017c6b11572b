"""One model, one set of phrases: the PR comment, the job summary, the terminal
and the Actions annotations are rendered from the comparison document, and each
thing is said by one function, so the surfaces cannot drift apart.

Each test swaps one phrase function for a marker and checks that every surface
shows the marker: none of them has a wording of its own."""

from __future__ import annotations

import pytest
from test_render_comment import DROPPED, PATH, SETTINGS, baseline, results, suite

from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT
from recall_gate.report import phrases, stale_banner
from recall_gate.report.actions import comparison_annotations
from recall_gate.report.comparison import render_comment, render_comparison_text


def _surfaces(doc: ComparisonDocument) -> dict[str, str]:
    """Every text a comparison becomes: comment, job summary, stdout, annotations."""
    return {
        "comment": render_comment(doc, max_chars=60_000),
        "job summary": render_comment(doc),
        "terminal": render_comparison_text(doc),
        "annotations": "\n".join(a.message for a in comparison_annotations(doc)),
    }


def _stale_failing_doc() -> ComparisonDocument:
    """A stale baseline (chunk size changed), six lost cases, a missed floor."""
    comparison = compare_to_baseline(
        current=results(
            suite(DROPPED),
            config_fingerprint="sha256:config02",
            settings={**SETTINGS, "chunking.max_chars": 120},
        ),
        baseline=baseline(suite(), settings=SETTINGS),
        baseline_path=PATH,
    )
    verdict = judge_comparison(
        comparison, floors=Floors({HIT: 0.9}), tolerances=Tolerances.every(0.02)
    )
    assert comparison.status == "stale"
    assert verdict.gate.verdict == "fail"
    return comparison_document(comparison, verdict, profile="default")


def test_every_surface_says_what_changed_since_the_baseline_with_one_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(
        stale_banner, "stale_reason_lines", lambda reason, doc, style: [f"MARK-{reason.what}"]
    )
    for name, text in _surfaces(_stale_failing_doc()).items():
        assert "MARK-config" in text, name


def test_every_surface_words_a_missed_floor_with_one_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(phrases, "floor_phrase", lambda item, doc, *, would: f"MARK-{item.metric}")
    for name, text in _surfaces(_stale_failing_doc()).items():
        assert "MARK-retrieval_hit_at_k" in text, name


def test_every_surface_words_a_failing_group_with_one_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(phrases, "drop_phrase", lambda line, doc: f"MARK-{line.group}")
    for name, text in _surfaces(_stale_failing_doc()).items():
        assert "MARK-overall" in text, name
        assert "MARK-language:pt-BR" in text, name


def test_every_surface_words_a_missing_baseline_with_one_function(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(phrases, "missing_baseline_phrase", lambda doc, style: "MARK-missing")
    comparison = compare_to_baseline(current=results(suite()), baseline=None, baseline_path=PATH)
    doc = comparison_document(
        comparison,
        judge_comparison(comparison, floors=Floors(), tolerances=Tolerances()),
        profile="default",
    )
    for name, text in _surfaces(doc).items():
        assert "MARK-missing" in text, name


def test_one_annotation_per_failing_group_and_shared_cases_named_once() -> None:
    notes = comparison_annotations(_stale_failing_doc())
    regressions = [n for n in notes if n.title == "recall-gate: regression"]
    # overall and language pt-BR fail (type golden's 4 lost are within noise); each is
    # one annotation with all its metrics.
    assert [n.message.split(":")[0] for n in regressions] == ["overall", "language pt-BR"]
    assert "hit@5" in regressions[0].message
    assert "nDCG@5" in regressions[0].message
    # pt-BR's six cases are overall's: named once, then referred to.
    assert regressions[0].message.count("pt-BR-005") == 1
    assert "pt-BR-005" not in regressions[1].message
    assert regressions[1].message.endswith(": the same cases as overall")
