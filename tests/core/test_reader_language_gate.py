"""gate.min_reader_language_share (core/gates.py reader_language_rule): per case
language, the share of the cases that found their gold page that found it in
their own language; each outcome once."""

from __future__ import annotations

from recall_gate.core.gates import reader_language_rule

SET = {"min_reader_language_share": 0.9}


def test_a_language_below_the_share_fails_naming_it() -> None:
    judged = reader_language_rule(SET, {"language": "zh", "found": 20, "in_language": 11})
    assert judged.outcome == "fails"
    assert judged.reason == (
        "11 of 20 zh cases found their gold page in zh (55.0 %), below "
        "min_reader_language_share 90.0 %"
    )


def test_a_language_at_the_share_passes() -> None:
    judged = reader_language_rule(SET, {"language": "en", "found": 10, "in_language": 9})
    assert judged.outcome == "passes"


def test_a_language_none_of_whose_cases_found_their_page_could_not_be_judged() -> None:
    judged = reader_language_rule(SET, {"language": "zh", "found": 0, "in_language": 0})
    assert judged.outcome == "unjudged"
    assert "no zh case found its gold page in any language" in judged.reason


def test_a_kb_with_one_language_per_id_passes_with_the_reason() -> None:
    judged = reader_language_rule(SET, {"translated": False})
    assert judged.outcome == "passes"
    assert "one language" in judged.reason


def test_unset_it_passes() -> None:
    assert reader_language_rule({"min_reader_language_share": None}, {}).outcome == "passes"
