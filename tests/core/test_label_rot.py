"""Label rot: the cases citing a card rewritten since their cases file's last
commit (core/label_rot.py), on cards."""

from __future__ import annotations

from recall_gate.core.kb_diff import CardFile, FileChange
from recall_gate.core.label_rot import RottenLabel, card_similarity, rotten_labels
from recall_gate.core.records import Card, CaseLabel

TEXT = "Refunds are paid within ten days of the request to the card used to pay."


def card(card_id: str, body: str = TEXT, title: str = "Refunds") -> Card:
    return Card(id=card_id, language="en", title=title, body=body)


def change(before: Card | None, after: Card | None) -> FileChange:
    def side(c: Card | None) -> CardFile | None:
        return None if c is None else CardFile(card=c, path=f"docs/{c.id}.md")

    return FileChange(base=side(before), head=side(after))


def label(case_id: str, *gold: str, relevant: tuple[str, ...] | None = None) -> CaseLabel:
    return CaseLabel(
        id=case_id, language="en", case_type="golden", must_cite_one_of=gold, relevant_ids=relevant
    )


def test_similarity_is_difflibs_ratio_over_the_words_of_title_and_text() -> None:
    assert card_similarity(card("a"), card("a")) == 1.0
    # 16 words each side (title and text), one replaced: 2 * 15 / 32.
    assert round(card_similarity(card("a"), card("a", TEXT.replace("ten", "five"))), 4) == round(
        30 / 32, 4
    )
    assert card_similarity(card("a"), card("a", "Shipping takes a week.", "Shipping")) < 0.2


def test_a_case_citing_a_rewritten_card_is_a_label_worth_re_auditing() -> None:
    rewritten = card("en/refunds", "Shipping takes a week to most countries.", "Shipping")
    found = rotten_labels(
        [
            label("q1", "en/refunds"),
            label("q2", "en/other"),
            label("q3", "x", relevant=("en/refunds",)),
        ],
        [change(card("en/refunds"), rewritten)],
        since="abc",
    )
    assert [(r.case_id, r.card_id, r.since) for r in found] == [
        ("q1", "en/refunds", "abc"),
        ("q3", "en/refunds", "abc"),
    ]
    assert all(r.similarity < 0.5 for r in found)


def test_a_reworded_card_is_no_rewrite() -> None:
    reworded = card("en/refunds", TEXT.replace("within ten days", "in ten working days"))
    assert (
        rotten_labels(
            [label("q1", "en/refunds")], [change(card("en/refunds"), reworded)], since="abc"
        )
        == ()
    )


def test_the_share_that_makes_a_rewrite_is_a_setting_of_the_rule() -> None:
    reworded = card("en/refunds", TEXT.replace("within ten days", "in ten working days"))
    found = rotten_labels(
        [label("q1", "en/refunds")],
        [change(card("en/refunds"), reworded)],
        since="abc",
        threshold=0.95,
    )
    assert [r.case_id for r in found] == ["q1"]


def test_a_card_added_or_deleted_since_is_no_rewrite() -> None:
    cases = [label("q1", "en/new"), label("q2", "en/gone")]
    changes = [change(None, card("en/new")), change(card("en/gone"), None)]
    assert rotten_labels(cases, changes, since="abc") == ()


def test_a_renamed_and_rewritten_card_is_found_by_either_id() -> None:
    moved = card("en/guide/refunds", "Shipping takes a week.", "Shipping")
    found = rotten_labels(
        [label("old", "en/refunds"), label("new", "en/guide/refunds")],
        [change(card("en/refunds"), moved)],
        since="abc",
    )
    assert [(r.case_id, r.card_id) for r in found] == [
        ("old", "en/refunds"),
        ("new", "en/guide/refunds"),
    ]
    assert isinstance(found[0], RottenLabel)
