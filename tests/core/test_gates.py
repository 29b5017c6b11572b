"""The gates' rules (core/gates.py): one test per gate kind × outcome, and the one
verdict a list of judged gates makes (a configured gate that could not be
judged fails; an unconfigured one only says what would fail)."""

from __future__ import annotations

from dataclasses import dataclass

from recall_gate.core.gates import (
    Outcome,
    capture_rule,
    decide,
    floor_rule,
    integrity_rule,
    new_cards_rule,
    tolerance_rule,
    traffic_rule,
)

TOLERANCE = {"max_regression": 0.02, "min_group_n": 10, "require_significance": True}
TRAFFIC = {"max_moved_share": 0.2, "max_unanswered_share": 0.1}


@dataclass(frozen=True)
class Gate:
    kind: str
    enforced: bool
    outcome: Outcome


# --- the one verdict -------------------------------------------------------------


def test_a_configured_gate_that_could_not_be_judged_fails_the_verdict() -> None:
    assert decide([Gate("floor", True, "passes"), Gate("traffic", True, "unjudged")]) == "fail"


def test_a_configured_gate_that_fails_fails_the_verdict() -> None:
    assert decide([Gate("tolerance", True, "fails"), Gate("floor", True, "passes")]) == "fail"


def test_configured_gates_that_all_pass_pass() -> None:
    assert decide([Gate("integrity", True, "passes"), Gate("floor", True, "passes")]) == "pass"


def test_an_unconfigured_gate_that_would_fail_is_report_only() -> None:
    gates = [Gate("integrity", True, "passes"), Gate("tolerance", False, "fails")]
    assert decide(gates) == "report-only"


def test_integrity_alone_is_no_knob_report_only() -> None:
    assert decide([Gate("integrity", True, "passes")]) == "report-only"


def test_a_set_traffic_or_new_card_gate_that_passes_leaves_the_verdict_to_the_metrics() -> None:
    gates = [Gate("traffic", True, "passes"), Gate("new_cards", True, "passes")]
    assert decide([*gates, Gate("tolerance", False, "fails")]) == "report-only"
    assert decide([*gates, Gate("tolerance", True, "passes")]) == "pass"


def test_a_set_traffic_gate_that_could_not_be_judged_fails_a_report_only_run() -> None:
    assert decide([Gate("traffic", True, "unjudged"), Gate("floor", False, "passes")]) == "fail"


def test_a_failed_integrity_check_fails_even_with_no_knob_set() -> None:
    assert decide([Gate("integrity", True, "fails"), Gate("floor", False, "passes")]) == "fail"


# --- integrity -------------------------------------------------------------------


def test_integrity_passes_with_no_error() -> None:
    judged = integrity_rule({}, {"errors": 0, "gold_checked": True})
    assert (judged.outcome, judged.reason) == ("passes", "every gold id resolves to a card")


def test_integrity_fails_on_an_error() -> None:
    judged = integrity_rule({}, {"errors": 2})
    assert (judged.outcome, judged.reason) == ("fails", "2 integrity error(s) in the dataset")


# --- capture completeness --------------------------------------------------------


def test_capture_passes_when_few_enough_cases_went_unanswered() -> None:
    judged = capture_rule({"max_unanswered_share": 0.1}, {"cases": 30, "unanswered": 3})
    assert (judged.outcome, judged.reason) == ("passes", "27 of 30 cases answered")


def test_capture_that_answered_nothing_could_not_be_judged() -> None:
    judged = capture_rule({"max_unanswered_share": 0.1}, {"cases": 30, "unanswered": 30})
    assert judged.outcome == "unjudged"
    assert judged.reason == (
        "could not be judged: 30 of 30 cases not answered (more than max_unanswered_share 10.0 %)"
    )


def test_capture_with_no_case_could_not_be_judged() -> None:
    judged = capture_rule({"max_unanswered_share": 0.1}, {"cases": 0, "unanswered": 0})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: the capture holds no case",
    )


# --- floors ----------------------------------------------------------------------


def test_a_floor_met_passes() -> None:
    judged = floor_rule({"floor": 0.8}, {"mean": 0.85, "n": 20})
    assert (judged.outcome, judged.reason) == ("passes", "0.850 meets the floor 0.800")


def test_a_mean_below_the_floor_fails() -> None:
    judged = floor_rule({"floor": 0.8}, {"mean": 0.75, "n": 20})
    assert (judged.outcome, judged.reason) == ("fails", "0.750 below the floor 0.800")


def test_a_floor_over_nothing_scored_could_not_be_judged() -> None:
    judged = floor_rule({"floor": 0.8}, {"mean": None, "n": 0})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: nothing was scored",
    )


def test_a_floor_the_document_lists_as_missed_fails_whatever_its_mean() -> None:
    judged = floor_rule({"floor": 0.8}, {"mean": 0.9, "n": 20, "listed_missed": True})
    assert judged.outcome == "fails"


# --- tolerance -------------------------------------------------------------------


def test_a_drop_within_the_tolerance_passes() -> None:
    judged = tolerance_rule(TOLERANCE, {"delta": -0.01, "n": 20})
    assert (judged.outcome, judged.reason) == ("passes", "-0.010 within the 0.020 tolerance")


def test_a_drop_beyond_the_tolerance_that_is_exempt_passes_saying_why() -> None:
    judged = tolerance_rule(TOLERANCE, {"delta": -0.1, "n": 6, "exempt": "small_n"})
    assert judged.outcome == "passes"
    assert judged.reason == (
        "-0.100 beyond the 0.020 tolerance, exempt: 6 compared cases, fewer than min_group_n 10"
    )


def test_a_likely_real_drop_beyond_the_tolerance_fails_naming_its_p_value() -> None:
    judged = tolerance_rule(
        TOLERANCE, {"delta": -0.058, "n": 60, "significant": True, "p_value": 0.0123}
    )
    assert (judged.outcome, judged.reason) == (
        "fails",
        "-0.058 beyond the 0.020 tolerance, likely real (p = 0.0123)",
    )


def test_a_drop_within_noise_fails_only_because_require_significance_is_off() -> None:
    setting = {**TOLERANCE, "require_significance": False}
    judged = tolerance_rule(
        setting, {"delta": -0.058, "n": 60, "significant": False, "ci_low": -0.1, "ci_high": 0.01}
    )
    assert (judged.outcome, judged.reason) == (
        "fails",
        "-0.058 beyond the 0.020 tolerance, within noise (95 % interval -0.100 to +0.010): "
        "fails because require-significance is off",
    )


def test_a_tolerance_without_a_comparable_baseline_is_reported_not_failed() -> None:
    judged = tolerance_rule(TOLERANCE, {"comparable": False, "baseline": "missing"})
    assert (judged.outcome, judged.reason) == (
        "passes",
        "not checked: no comparable baseline (reported, not failed)",
    )


def test_a_drop_of_exactly_the_tolerance_is_not_beyond_it() -> None:
    assert tolerance_rule(TOLERANCE, {"delta": 0.83 - 0.85, "n": 20}).outcome == "passes"


# --- traffic ---------------------------------------------------------------------


def test_traffic_within_max_moved_share_passes() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.1, "compared": 30, "not_captured": 0})
    assert judged.outcome == "passes"


def test_traffic_beyond_max_moved_share_fails() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.41, "compared": 30, "not_captured": 0})
    assert (judged.outcome, judged.reason) == (
        "fails",
        "41.0 % of logged traffic changed its top k, more than max_moved_share 20.0 %",
    )


def test_traffic_with_every_logged_query_unanswered_could_not_be_judged() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.0, "compared": 0, "not_captured": 30})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: 30 of 30 logged queries not answered "
        "(more than max_unanswered_share 10.0 %)",
    )


def test_traffic_unanswered_past_the_share_could_not_be_judged_though_nothing_moved() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.0, "compared": 26, "not_captured": 4})
    assert judged.outcome == "unjudged"


def test_traffic_unanswered_within_the_share_is_judged_on_what_it_compared() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.0, "compared": 29, "not_captured": 1})
    assert judged.outcome == "passes"


def test_traffic_unanswered_past_the_share_of_the_traffic_could_not_be_judged() -> None:
    # 1 of 30 queries (3.3 % by count) but 31 of 100 weight units (31 %) unanswered.
    judged = traffic_rule(
        TRAFFIC,
        {
            "moved": 0.0,
            "compared": 29,
            "not_captured": 1,
            "not_captured_weight": 31.0,
            "compared_weight": 69.0,
        },
    )
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: the 1 logged queries not answered carry 31.0 % of the logged "
        "traffic (more than max_unanswered_share 10.0 %)",
    )


def test_traffic_unanswered_within_the_share_of_the_traffic_is_judged() -> None:
    # 1 of 30 queries carrying 2 of 100 weight units: within 10 % both ways.
    judged = traffic_rule(
        TRAFFIC,
        {
            "moved": 0.0,
            "compared": 29,
            "not_captured": 1,
            "not_captured_weight": 2.0,
            "compared_weight": 98.0,
        },
    )
    assert judged.outcome == "passes"


def test_traffic_without_answers_to_the_log_could_not_be_judged() -> None:
    judged = traffic_rule(TRAFFIC, {"answered": False})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: the capture holds no answers to the logged queries",
    )


def test_traffic_against_an_empty_base_snapshot_could_not_be_judged() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.0, "compared": 0, "not_in_base": 30})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: no logged query was compared (30 not in the base's snapshot)",
    )


# --- new-card coverage -----------------------------------------------------------


def test_new_cards_cited_enough_pass() -> None:
    judged = new_cards_rule({"min_new_card_coverage": 0.5}, {"cards": 2, "cited": 1})
    assert judged.outcome == "passes"


def test_new_cards_cited_too_little_fail() -> None:
    judged = new_cards_rule({"min_new_card_coverage": 0.5}, {"cards": 3, "cited": 1})
    assert (judged.outcome, judged.reason) == (
        "fails",
        "1 of 3 new cards cited by a case (33.3 %), below min_new_card_coverage 50.0 %",
    )


def test_new_cards_without_the_pull_requests_kb_changes_could_not_be_judged() -> None:
    judged = new_cards_rule({"min_new_card_coverage": 0.5}, {"kb_read": False})
    assert judged.outcome == "unjudged"


def test_a_pull_request_that_adds_no_card_passes_the_new_card_gate() -> None:
    judged = new_cards_rule({"min_new_card_coverage": 0.5}, {"cards": 0, "cited": 0})
    assert (judged.outcome, judged.reason) == ("passes", "the pull request adds no card")


def test_traffic_on_a_snapshot_shallower_than_the_gates_k_could_not_be_judged() -> None:
    judged = traffic_rule(TRAFFIC, {"moved": 0.0, "compared": 30, "k": 1, "k_asked": 5})
    assert (judged.outcome, judged.reason) == (
        "unjudged",
        "could not be judged: the capture's snapshot holds the top 1 of each logged query, "
        "the gate compares the top 5",
    )


def test_a_tolerance_with_no_delta_to_check_is_reported_not_failed() -> None:
    judged = tolerance_rule(TOLERANCE, {"delta": None})
    assert (judged.outcome, judged.reason) == (
        "passes",
        "not checked: the baseline or this run lacks it (reported, not failed)",
    )
