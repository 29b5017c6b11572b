"""The KB diff of a pull request: each rule of core.kb_diff, on cards."""

from __future__ import annotations

from typing import Any

from recall_gate.core.kb_diff import (
    CardFile,
    FileChange,
    deleted_gold,
    diff_kb,
    follow_renames,
)
from recall_gate.core.records import Card, CaseLabel


def side(card_id: str, *, path: str | None = None, **fields: Any) -> CardFile:
    data = {"id": card_id, "language": "en", "title": f"Title {card_id}", "body": "Body."}
    return CardFile(card=Card.model_validate({**data, **fields}), path=path or f"{card_id}.md")


def label(case_id: str, *gold: str, relevant: tuple[str, ...] | None = None) -> CaseLabel:
    return CaseLabel(
        id=case_id,
        language="en",
        case_type="golden",
        must_cite_one_of=gold,
        relevant_ids=relevant,
    )


def test_a_card_on_one_side_only_is_added_or_deleted() -> None:
    diff = diff_kb(
        [FileChange(base=None, head=side("new")), FileChange(base=side("gone"), head=None)]
    )
    assert [(c.kind, c.card_id) for c in diff.changes] == [("deleted", "gone"), ("added", "new")]


def test_a_changed_body_or_title_is_a_text_edit() -> None:
    diff = diff_kb(
        [
            FileChange(base=side("a"), head=side("a", body="New body.")),
            FileChange(base=side("b"), head=side("b", title="New title")),
        ]
    )
    assert [(c.kind, c.text, c.what) for c in diff.changes] == [
        ("edited", True, "edited"),
        ("edited", True, "edited"),
    ]


def test_a_front_matter_only_change_is_told_apart() -> None:
    diff = diff_kb([FileChange(base=side("a"), head=side("a", tags=("x",)))])
    assert [(c.kind, c.text, c.what) for c in diff.changes] == [
        ("edited", False, "edited: front matter only")
    ]


def test_a_file_change_recall_gate_does_not_read_is_no_card_change() -> None:
    # e.g. trailing whitespace: the parsed card is the same.
    assert diff_kb([FileChange(base=side("a"), head=side("a"))]).changes == ()


def test_a_followed_rename_maps_the_old_id_to_the_new() -> None:
    diff = diff_kb(
        [FileChange(base=side("old", title="T"), head=side("new", path="sub/new.md", title="T"))]
    )
    (change,) = diff.changes
    assert (change.kind, change.base_id, change.card_id, change.text) == (
        "renamed",
        "old",
        "new",
        False,
    )
    assert diff.renames == {"old": "new"}
    assert diff.changed_ids == {"old", "new"}


def test_follow_renames_relabels_gold_and_relevant_ids() -> None:
    case = label("q1", "old", "other", relevant=("old", "new"))
    moved = follow_renames(case, {"old": "new"})
    assert moved.must_cite_one_of == ("new", "other")
    assert moved.relevant_ids == ("new",)
    assert follow_renames(label("q2", "other"), {"old": "new"}) == label("q2", "other")


def test_a_deleted_card_still_cited_is_one_problem_naming_every_case() -> None:
    diff = diff_kb([FileChange(base=side("gone"), head=None)])
    cases = [label("q1", "gone"), label("q2", "x", relevant=("x", "gone")), label("q3", "x")]
    (problem,) = deleted_gold(diff, cases, ref="main")
    assert problem.where == "main:gone.md"
    assert problem.message == (
        "card 'gone' is deleted by this change but is still cited by 2 case(s): q1, q2"
    )
    assert "keep the card" in problem.hint


def test_a_deleted_card_with_a_likely_new_place_names_it() -> None:
    # Moved and rewritten: git sees a deletion and an addition, the file name is kept.
    diff = diff_kb(
        [
            FileChange(base=side("en/setup", path="en/setup.md"), head=None),
            FileChange(base=None, head=side("en/guide/setup", path="en/guide/setup.md")),
        ]
    )
    (problem,) = deleted_gold(diff, [label("q1", "en/setup")], ref="main")
    assert "if it moved to 'en/guide/setup', keep the move a rename" in problem.hint
    assert "`git mv`" in problem.hint


def test_a_deleted_card_no_case_cites_is_no_problem() -> None:
    diff = diff_kb([FileChange(base=side("gone"), head=None)])
    assert deleted_gold(diff, [label("q1", "x")], ref="main") == []


def test_the_summary_counts_each_kind() -> None:
    diff = diff_kb(
        [
            FileChange(base=side("a"), head=side("a", body="B2.")),
            FileChange(base=None, head=side("n1")),
            FileChange(base=None, head=side("n2")),
            FileChange(base=side("d"), head=None),
        ]
    )
    assert diff.summary() == "1 edited, 2 added, 1 deleted"
    assert diff_kb([]).summary() == "no card changed"


def test_new_cards_are_listed_with_the_cases_citing_them() -> None:
    diff = diff_kb([FileChange(base=None, head=side("n1")), FileChange(base=None, head=side("n2"))])
    assert diff.new_cards([label("q1", "n2"), label("q2", "x")]) == {"n1": (), "n2": ("q1",)}


def test_cases_on_changed_cards_are_those_citing_an_edited_or_renamed_card() -> None:
    diff = diff_kb(
        [
            FileChange(base=side("a"), head=side("a", body="Changed.")),
            FileChange(base=side("old", title="T"), head=side("new", title="T")),
            FileChange(base=None, head=side("n1")),
        ]
    )
    cases = [label("q1", "a"), label("q2", "x", relevant=("x", "old")), label("q3", "n1")]
    assert diff.cases_on_changed_cards(cases) == ("q1", "q2")


def test_kb_turnover_counts_text_changes_not_front_matter_over_both_sides() -> None:
    from recall_gate.core.kb_diff import kb_turnover

    diff = diff_kb(
        [
            FileChange(base=side("a"), head=side("a", body="Rewritten.")),
            FileChange(base=side("b"), head=side("b", tags=("x",))),  # front matter only
            FileChange(base=None, head=side("n1")),
            FileChange(base=side("d"), head=None),
        ]
    )
    # a, n1, d changed, of the 20 cards now plus the 1 deleted: 3 / 21 = 0.14.
    turnover = kb_turnover(diff, ref="abc1234", cards_now=20)
    assert (turnover.changed, turnover.cards) == (3, 21)
    assert not turnover.reaudit
    assert kb_turnover(diff, ref="abc1234", cards_now=4).reaudit  # 3 / 5 > 0.2
