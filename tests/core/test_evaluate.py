"""The retrieval-recall evaluator: one named test per rule of the decision record."""

from __future__ import annotations

import math

import pytest

from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import classify_citation, score_case
from recall_gate.core.metric_registry import DEFAULT_METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.core.records import Artifact, CaseLabel, CaseType


def label(
    case_id: str = "c1",
    *,
    gold: tuple[str, ...] = ("a",),
    relevant: tuple[str, ...] | None = None,
    case_type: CaseType = "golden",
) -> CaseLabel:
    return CaseLabel(
        id=case_id,
        language="en",
        case_type=case_type,
        must_cite_one_of=gold,
        relevant_ids=relevant,
    )


def test_empty_gold_emits_no_keys_and_leaves_n_unchanged() -> None:
    scored = score_case(label("gold"), ["a", "b"], k=5)
    assert set(scored.metrics) == set(DEFAULT_METRIC_KEYS)
    # A capability case without gold, whose ranking would "hit" anything.
    empty = score_case(label("no-gold", gold=(), case_type="capability"), ["a", "b"], k=5)
    assert empty.metrics == {}
    assert empty.citation_outcome is None

    before = aggregate([scored])
    after = aggregate([scored, empty])
    for key in DEFAULT_METRIC_KEYS:
        assert after.overall[key] == before.overall[key]
        assert after.overall[key].n == 1
    # Its group shows up, with nothing scored (not a vacuous 1.0).
    assert after.by_case_type["capability"] == {}


def test_parent_identity_parent_id_wins_over_chunk_id() -> None:
    artifact = Artifact.model_validate(
        {
            "case_id": "c1",
            "retrieved": [
                {"id": "card-a#chunk-3", "parent_id": "card-a", "score": 0.9},
                {"id": "card-a#chunk-1", "parent_id": "card-a", "score": 0.8},
                {"id": "card-b"},  # no parent: the id is the card
                "card-c",  # a bare id string is a card id
            ],
        }
    )
    ranked = artifact.ranked_card_ids()
    assert ranked == ["card-a", "card-a", "card-b", "card-c"]
    # The chunk id is not a card: gold on it never matches.
    assert score_case(label(gold=("card-a#chunk-3",)), ranked, k=5).metrics[HIT] == 0.0
    # Two chunks of one card are one card: card-c sits at distinct rank 3, not 4.
    result = score_case(label(gold=("card-c",)), ranked, k=3)
    assert result.ranked_ids == ("card-a", "card-b", "card-c")
    assert result.metrics == {HIT: 1.0, RECALL: 1.0, NDCG: pytest.approx(0.5)}  # 1/log2(4)


def test_parent_identity_empty_parent_id_falls_back_to_the_item_id() -> None:
    artifact = Artifact.model_validate(
        {"case_id": "c1", "retrieved": [{"id": "card-a", "parent_id": None}]}
    )
    assert artifact.ranked_card_ids() == ["card-a"]


def test_adversarial_case_with_gold_is_scored() -> None:
    # The answer must refuse, but the right card must still be retrieved.
    result = score_case(label(gold=("policy",), case_type="adversarial"), ["x", "policy"], k=5)
    assert result.metrics == {HIT: 1.0, RECALL: 1.0, NDCG: pytest.approx(1 / math.log2(3))}
    groups = aggregate([result])
    assert groups.by_case_type["adversarial"][HIT].n == 1
    assert groups.overall[HIT].n == 1


def test_adversarial_case_without_gold_is_not_scored() -> None:
    result = score_case(label(gold=(), case_type="adversarial"), ["x"], k=5)
    assert result.metrics == {}


@pytest.mark.parametrize("case_type", ["golden", "adversarial", "capability", "no_match"])
def test_scoring_is_keyed_on_gold_not_on_case_type(case_type: CaseType) -> None:
    assert score_case(label(gold=("a",), case_type=case_type), ["a"], k=1).metrics[HIT] == 1.0
    assert score_case(label(gold=(), case_type=case_type), ["a"], k=1).metrics == {}


def test_metrics_use_retrieved_not_cited_ids() -> None:
    # Gold cited but never retrieved: a retrieval miss, whatever the answer cited.
    missed = score_case(label(gold=("a",)), ["x", "y"], k=2, cited=["a"])
    assert missed.metrics == {HIT: 0.0, RECALL: 0.0, NDCG: 0.0}
    # Gold retrieved but not cited: retrieval did its job.
    found = score_case(label(gold=("a",)), ["a", "y"], k=2, cited=["y"])
    assert found.metrics == {HIT: 1.0, RECALL: 1.0, NDCG: 1.0}
    # Without citations the metrics are the same.
    assert score_case(label(gold=("a",)), ["a", "y"], k=2).metrics == found.metrics


def test_relevant_ids_drive_recall_and_ndcg_hit_stays_on_must_cite() -> None:
    # must_cite_one_of {a}; relevant_ids {a, b, c}; top 3 = a, x, b.
    # hit = 1 (a); recall = 2/3; DCG = 1 + 1/log2(4) = 1.5;
    # IDCG(3) = 1 + 0.6309 + 0.5 = 2.1309; nDCG = 0.7039
    result = score_case(label(gold=("a",), relevant=("a", "b", "c")), ["a", "x", "b"], k=3)
    assert result.metrics == {
        HIT: 1.0,
        RECALL: pytest.approx(2 / 3),
        NDCG: pytest.approx(0.7039, abs=5e-5),
    }
    # A relevant card in the top k is no hit when no must_cite_one_of card is.
    other = score_case(label(gold=("a",), relevant=("b",)), ["b", "x"], k=2)
    assert other.metrics == {HIT: 0.0, RECALL: 1.0, NDCG: 1.0}
    assert other.relevant_ids == ("b",)


def test_relevant_ids_need_gold() -> None:
    with pytest.raises(ValueError, match="relevant_ids is set but must_cite_one_of is empty"):
        label(gold=(), relevant=("a",))
    with pytest.raises(ValueError, match="relevant_ids is empty"):
        label(gold=("a",), relevant=())


# --- citation classification ------------------------------------------------------


def test_citation_retrieval_miss_when_no_gold_card_is_in_the_top_k() -> None:
    # Gold at rank 3 > k = 2, even though the answer cited it.
    result = score_case(label(gold=("a",)), ["x", "y", "a"], k=2, cited=["a"])
    assert result.citation_outcome == "retrieval_miss"


def test_citation_miss_when_a_gold_card_is_retrieved_but_none_is_cited() -> None:
    result = score_case(label(gold=("a", "b")), ["a", "y"], k=2, cited=["y"])
    assert result.citation_outcome == "citation_miss"
    assert score_case(label(gold=("a",)), ["a"], k=1, cited=[]).citation_outcome == (
        "citation_miss"
    )


def test_citation_ok_when_a_gold_card_is_cited() -> None:
    # Disjunctive gold: citing any one of the listed cards meets the contract.
    result = score_case(label(gold=("a", "b")), ["b", "a"], k=2, cited=["x", "b"])
    assert result.citation_outcome == "ok"
    assert result.cited == ("x", "b")


def test_citation_outcome_is_absent_without_captured_citations() -> None:
    result = score_case(label(gold=("a",)), ["a"], k=1)
    assert result.citation_outcome is None
    assert result.cited is None


def test_citation_outcome_is_absent_for_empty_gold() -> None:
    result = score_case(label(gold=(), case_type="no_match"), ["a"], k=1, cited=["a"])
    assert result.citation_outcome is None
    assert result.cited == ("a",)


@pytest.mark.parametrize(
    ("hit", "cited", "expected"),
    [
        (0.0, ["a"], "retrieval_miss"),
        (0.0, [], "retrieval_miss"),
        (1.0, [], "citation_miss"),
        (1.0, ["x"], "citation_miss"),
        (1.0, ["x", "a"], "ok"),
    ],
)
def test_classify_citation_table(hit: float, cited: list[str], expected: str) -> None:
    assert classify_citation(hit=hit, gold=frozenset({"a", "b"}), cited=cited) == expected


# --- the per-case record --------------------------------------------------------------


def test_case_result_keeps_the_deduplicated_top_k_and_the_labels() -> None:
    result = score_case(label("c9", gold=("b",)), ["a", "a", "b", "c", "d"], k=3)
    assert result.case_id == "c9"
    assert result.language == "en"
    assert result.case_type == "golden"
    assert result.ranked_ids == ("a", "b", "c")
    assert result.must_cite_one_of == ("b",)
    assert result.relevant_ids is None


def test_k_must_be_positive() -> None:
    with pytest.raises(ValueError, match="k must be a positive integer"):
        score_case(label(), ["a"], k=0)


def test_the_case_scorer_keeps_the_first_missed_cases_and_counts_them_all() -> None:
    from recall_gate.core.evaluate import CaseScorer

    scorer = CaseScorer(1, keep_missed=2)
    for i in range(5):
        scorer.add(f"c{i}", ("en", "golden", ("gold",), None), ["other", "gold"])
    scorer.add("hit", ("en", "golden", ("gold",), None), ["gold"])
    scorer.add("unscored", ("en", "no_match", (), None), ["x"])
    assert [c.case_id for c in scorer.missed] == ["c0", "c1"]
    assert (scorer.missed_total, scorer.scored, scorer.total) == (5, 6, 7)
