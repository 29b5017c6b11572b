"""What the gate can see at the team's n: how often it fails a no-op pull
request and the smallest drop it catches, in the comparison document and in
`floors suggest`. Synthetic cases through the real evaluator."""

from __future__ import annotations

import pytest
from scipy import stats as scipy_stats  # type: ignore[import-untyped]  # no stubs in dev

from factories import baseline_of, case, results
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.gate_calibration import bonferroni_critical, suggest_tolerances
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult


def two_languages(lost_en: int = 0) -> tuple[list[CaseResult], list[CaseResult]]:
    base = [case(f"en-{i:02d}", 1) for i in range(20)]
    base += [case(f"de-{i:02d}", 1, language="de") for i in range(20)]
    cur = [case(f"en-{i:02d}", None if i < lost_en else 1) for i in range(20)]
    cur += [case(f"de-{i:02d}", 1, language="de") for i in range(20)]
    return base, cur


def test_the_document_says_how_often_a_no_op_fails_and_the_smallest_drop_caught() -> None:
    base, cur = two_languages(lost_en=3)
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.02))
    doc = comparison_document(comparison, verdict, profile="default")
    c = doc.calibration
    assert c is not None
    # 3 metrics × overall, golden, en, de; every one with a tolerance and n ≥ 10.
    assert (c.cells, c.false_fail, c.tolerance) == (12, 0.03, 0.02)
    # The three lost cases are every change, the same in every moving row: the
    # largest standardised drop under the flips is (Σ ±1)/√3, √3 for 1 pattern of 8,
    # so its upper 3 % point is √3 itself (reached 12.5 % of the time).
    assert c.critical == pytest.approx(3**0.5)
    assert c.fewest_lost == 6  # √4 = 2 > √3, and the row's own test: 2^-6 < 0.03 ≤ 2^-5
    en = c.smallest_drop["language:en"]
    assert en is not None
    assert scipy_stats.binom.sf(5, 20, en) == pytest.approx(0.8, abs=1e-6)
    assert set(c.smallest_drop) == {"overall", "case_type:golden", "language:en", "language:de"}


def test_with_require_significance_off_there_is_no_bound_and_one_lost_hit_will_do() -> None:
    base, cur = two_languages(lost_en=3)
    comparison = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    verdict = judge_comparison(
        comparison, floors=Floors(), tolerances=Tolerances.every(0.02), require_significance=False
    )
    c = comparison_document(comparison, verdict, profile="default").calibration
    assert c is not None
    assert (c.false_fail, c.fewest_lost) == (None, 1)


def test_without_a_comparison_there_is_no_calibration() -> None:
    base, _ = two_languages()
    comparison = compare_to_baseline(current=results(base), baseline=None, baseline_path="b.json")
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances.every(0.02))
    assert comparison_document(comparison, verdict, profile="default").calibration is None


def test_floors_suggest_names_the_smallest_tolerance_each_group_can_enforce() -> None:
    base, _ = two_languages()
    groups, cells = suggest_tolerances(baseline_of(base).aggregates, min_group_n=10)
    # overall, golden, en, de × hit, recall, nDCG: 12 rows; Bonferroni: z at 1 − 0.03/12.
    assert cells == 12
    assert bonferroni_critical(12) == pytest.approx(2.807, abs=1e-3)
    # √7 = 2.646 < 2.807 < √8 = 2.828: 8 lost hits; 8/40 = 0.20, 8/20 = 0.40.
    assert [(g.group, g.n, g.fewest_lost, g.enforceable) for g in groups] == [
        ("overall", 40, 8, 0.2),
        ("case_type:golden", 40, 8, 0.2),
        ("language:en", 20, 8, 0.4),
        ("language:de", 20, 8, 0.4),
    ]
    assert groups[2].caught is not None
    assert scipy_stats.binom.sf(7, 20, groups[2].caught) == pytest.approx(0.8, abs=1e-6)
    # A group below min-group-n can enforce nothing: it is not gated.
    small, _ = suggest_tolerances(baseline_of(base).aggregates, min_group_n=30)
    assert [g.group for g in small] == ["overall", "case_type:golden"]


def test_the_fewest_lost_hits_follow_the_rows_the_gate_would_hold() -> None:
    one = [case(f"c{i:02d}", 1) for i in range(40)]
    groups, cells = suggest_tolerances(baseline_of(one).aggregates, min_group_n=10)
    # overall, golden, en × 3 metrics = 9 rows: z(1 − 0.03/9) = 2.713; √8 > 2.713 > √7.
    assert cells == 9
    assert {g.fewest_lost for g in groups} == {8}
    assert HIT in baseline_of(one).aggregates.overall
