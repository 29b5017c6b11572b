"""What changed between two versions of a baseline, group by group, and when a Δ
is computed (synthetic cases)."""

from __future__ import annotations

import pytest

from factories import baseline_of, case
from recall_gate.core.compare import OVERALL, Group
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult, CaseType
from recall_gate.core.trend import changes_between, trend_groups, trend_point, trend_rows

EN = Group(kind="language", name="en")
PT = Group(kind="language", name="pt-BR")


def _pt(case_id: str, rank: int | None = 1, *, case_type: CaseType = "golden") -> CaseResult:
    return case(case_id, rank, language="pt-BR", case_type=case_type)


def _asked(case_id: str, query: str) -> CaseResult:
    return case(case_id, 1).model_copy(update={"query": query})


def test_cases_added_in_one_language_leave_the_other_languages_comparable() -> None:
    before = baseline_of([case("e1", 1), case("e2", None), _pt("p1")])
    after = baseline_of([case("e1", 1), case("e2", 1), _pt("p1"), _pt("p2", None)])
    assert not changes_between(before, after, OVERALL).comparable
    assert changes_between(before, after, EN).comparable
    pt = changes_between(before, after, PT)
    assert pt.cases.added == ("p2",)
    assert not pt.comparable
    points = [trend_point(b, commit=None, committed_at=None) for b in (before, after)]
    (_, en_row) = trend_rows(points, EN)
    assert en_row.deltas[HIT] == pytest.approx(0.5)
    (_, pt_row) = trend_rows(points, PT)
    assert pt_row.deltas == {}


def test_a_case_moved_to_another_language_leaves_one_group_and_joins_the_other() -> None:
    before = baseline_of([case("c1", 1), case("c2", 1)])
    after = baseline_of([case("c1", 1), _pt("c2")])
    assert changes_between(before, after, EN).cases.removed == ("c2",)
    assert changes_between(before, after, PT).cases.added == ("c2",)
    assert changes_between(before, after, OVERALL).cases.relabelled == ("c2",)


def test_a_dataset_fingerprint_change_the_case_set_explains_is_not_named_again() -> None:
    before = baseline_of([case("e1", 1)], dataset_fingerprint="sha256:a")
    after = baseline_of([case("e1", 1), case("e2", 1)], dataset_fingerprint="sha256:b")
    assert changes_between(before, after).provenance == ()


def test_an_unexplained_dataset_fingerprint_change_blocks_every_delta() -> None:
    before = baseline_of([case("e1", 1), _pt("p1")], dataset_fingerprint="sha256:a")
    after = baseline_of([case("e1", 1), _pt("p1")], dataset_fingerprint="sha256:b")
    for group in (OVERALL, EN, PT):
        changes = changes_between(before, after, group)
        assert [r.what for r in changes.provenance] == ["dataset"]
        assert not changes.comparable


def test_edited_queries_are_counted_in_their_group_and_block_its_delta() -> None:
    before = baseline_of([_asked("e1", "how to reset"), _pt("p1")])
    after = baseline_of([_asked("e1", "how to  reset a password"), _pt("p1")])
    assert changes_between(before, after, EN).edited_queries == 1
    assert not changes_between(before, after, EN).comparable
    assert changes_between(before, after, PT).comparable


def test_the_groups_of_a_trend_are_every_group_any_version_scored() -> None:
    first = baseline_of([case("e1", 1)])
    second = baseline_of([case("e1", 1), _pt("p1", case_type="adversarial")])
    points = [trend_point(b, commit=None, committed_at=None) for b in (first, second)]
    assert [g.label for g in trend_groups(points)] == [
        "overall", "case_type:golden", "case_type:adversarial", "language:en", "language:pt-BR",
    ]  # fmt: skip
    first_pt = trend_rows(points, PT)[0]
    assert first_pt.n == 0
    assert first_pt.means == {}
