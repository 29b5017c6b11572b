"""Pairing captured artifacts with case labels: self-contained captures, or a
cases file as the source of truth (a conflicting capture is an error)."""

from __future__ import annotations

from typing import Any, get_type_hints

import pytest

from recall_gate.core.labels import label_artifacts
from recall_gate.core.records import Artifact, Case, CaseLabel
from recall_gate.errors import InputError

SRC = "run.jsonl"


def artifact(case_id: str, **fields: Any) -> Artifact:
    return Artifact.model_validate({"case_id": case_id, "retrieved": ["a"], **fields})


def case(case_id: str, **fields: Any) -> Case:
    data = {
        "id": case_id,
        "language": "en",
        "case_type": "golden",
        "query": "q",
        "must_cite_one_of": ["a"],
        **fields,
    }
    return Case.model_validate(data)


def numbered(*artifacts: Artifact) -> list[tuple[int, Artifact]]:
    return list(enumerate(artifacts, start=1))


def error_of(*args: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        label_artifacts(*args, **kwargs)
    return str(caught.value)


# --- self-contained captures ------------------------------------------------------


def test_a_self_contained_capture_labels_itself() -> None:
    captured = artifact(
        "c1",
        language="pt-BR",
        case_type="adversarial",
        must_cite_one_of=["a", "b"],
        relevant_ids=["b"],
    )
    [(label, same)] = label_artifacts(numbered(captured), artifacts_source=SRC)
    assert same is captured
    assert (label.id, label.language, label.case_type) == ("c1", "pt-BR", "adversarial")
    assert label.must_cite_one_of == ("a", "b")
    assert label.relevant_ids == ("b",)


def test_a_self_contained_capture_may_carry_empty_gold() -> None:
    captured = artifact("c1", language="en", case_type="capability", must_cite_one_of=[])
    [(label, _)] = label_artifacts(numbered(captured), artifacts_source=SRC)
    assert label.must_cite_one_of == ()
    assert not label.gold_labelled


def test_a_capture_without_case_fields_needs_a_cases_file() -> None:
    message = error_of(numbered(artifact("c1", language="en")), artifacts_source=SRC)
    assert message == (
        "run.jsonl:1: no case_type, must_cite_one_of for case 'c1'\n"
        "  fix: pass --cases with the case set, or capture the case's fields on each line"
    )


def test_a_capture_with_relevant_ids_but_no_gold_is_rejected() -> None:
    captured = artifact(
        "c1", language="en", case_type="golden", must_cite_one_of=[], relevant_ids=["a"]
    )
    # One line in our own words: no pydantic report, no input dump, no URL.
    assert error_of(numbered(captured), artifacts_source=SRC) == (
        "run.jsonl:1: case 'c1': relevant_ids is set but must_cite_one_of is empty: "
        "a case is scored only when it carries gold in must_cite_one_of\n"
        "  fix: fix the case's gold fields"
    )


def test_two_lines_for_one_case_are_rejected() -> None:
    lines = [(1, artifact("c1")), (2, artifact("c2")), (4, artifact("c1"))]
    assert error_of(lines, artifacts_source=SRC) == (
        "run.jsonl:4: second artifact for case 'c1' (first on line 1)\n"
        "  fix: keep one line per case"
    )


# --- with a cases file ------------------------------------------------------------


def test_the_cases_file_orders_and_labels_the_capture() -> None:
    cases = [case("c2", must_cite_one_of=["b"]), case("c1")]
    pairs = label_artifacts(numbered(artifact("c1"), artifact("c2")), cases, artifacts_source=SRC)
    assert [(label.id, art.case_id) for label, art in pairs] == [("c2", "c2"), ("c1", "c1")]
    assert pairs[0][0].must_cite_one_of == ("b",)


def test_matching_case_fields_in_the_capture_are_accepted() -> None:
    captured = artifact(
        "c1",
        language="en",
        case_type="golden",
        must_cite_one_of=["b", "a", "a"],  # gold is a set: order and repeats carry no meaning
    )
    cases = [case("c1", must_cite_one_of=["a", "b"])]
    [(label, _)] = label_artifacts(numbered(captured), cases, artifacts_source=SRC)
    assert label.must_cite_one_of == ("a", "b")  # the cases file wins


def test_an_artifact_for_an_unknown_case_is_rejected() -> None:
    message = error_of(
        numbered(artifact("c1"), artifact("ghost")),
        [case("c1")],
        artifacts_source=SRC,
        cases_source="cases.yaml",
    )
    assert message == (
        "run.jsonl:2: artifact for unknown case 'ghost'\n"
        "  fix: add the case to cases.yaml, or drop the line from the capture"
    )


def test_a_case_with_no_artifact_is_rejected() -> None:
    cases = [case(f"c{i}") for i in range(1, 8)]
    message = error_of(
        numbered(artifact("c1")), cases, artifacts_source=SRC, cases_source="cases.yaml"
    )
    assert message == (
        "run.jsonl: 6 case(s) of cases.yaml have no artifact: "
        "'c2', 'c3', 'c4', 'c5', 'c6' …\n"
        "  fix: re-run the capture over the whole case set, or remove those cases"
    )


@pytest.mark.parametrize(
    ("field", "captured", "shown"),
    [
        ("must_cite_one_of", ["z"], '["z"] in the capture but ["a"]'),
        ("relevant_ids", ["a"], '["a"] in the capture but null'),
        ("language", "es-419", '"es-419" in the capture but "en"'),
        ("case_type", "no_match", '"no_match" in the capture but "golden"'),
    ],
)
def test_a_capture_that_contradicts_the_cases_file_is_rejected(
    field: str, captured: Any, shown: str
) -> None:
    message = error_of(
        numbered(artifact("c1", **{field: captured})),
        [case("c1")],
        artifacts_source=SRC,
        cases_source="cases.yaml",
    )
    assert message == (
        f"run.jsonl:1: case 'c1' field `{field}` is {shown} in cases.yaml\n"
        "  fix: re-capture against the current case set (the cases file is the source of truth)"
    )


# --- one artifact at a time: the errors of the whole capture, in its order ---------


def test_a_second_line_of_a_case_is_reported_before_an_earlier_unlabelled_line() -> None:
    lines = [(1, artifact("c0")), (2, artifact("c1", **SELF)), (3, artifact("c1", **SELF))]
    assert error_of(lines, artifacts_source=SRC).startswith(
        "run.jsonl:3: second artifact for case 'c1' (first on line 2)"
    )


def test_an_unknown_case_is_reported_before_missing_cases_and_contradictions() -> None:
    lines = numbered(artifact("c1", language="es-419"), artifact("ghost"))
    message = error_of(lines, [case("c1"), case("c2")], artifacts_source=SRC)
    assert message.startswith("run.jsonl:2: artifact for unknown case 'ghost'")


def test_contradictions_are_reported_in_the_cases_files_order() -> None:
    lines = numbered(artifact("c1", language="es-419"), artifact("c2", case_type="no_match"))
    message = error_of(lines, [case("c2"), case("c1")], artifacts_source=SRC)
    assert message.startswith("run.jsonl:2: case 'c2' field `case_type`")


def test_a_self_contained_capture_reports_its_first_unlabelled_line() -> None:
    lines = numbered(artifact("c1", **SELF), artifact("c2"), artifact("c3", language="en"))
    assert error_of(lines, artifacts_source=SRC).startswith("run.jsonl:2: no language")


SELF = {"language": "en", "case_type": "golden", "must_cite_one_of": ["a"]}


@pytest.mark.parametrize("field", ["language", "case_type", "must_cite_one_of", "relevant_ids"])
def test_a_case_label_field_has_the_artifact_fields_type(field: str) -> None:
    # The labeller takes a complete line's label fields without validating a
    # CaseLabel: that holds while the types agree (the artifact's may be None).
    label_type: Any = get_type_hints(CaseLabel, include_extras=True)[field]
    artifact_type = get_type_hints(Artifact, include_extras=True)[field]
    assert artifact_type in (label_type, label_type | None)
