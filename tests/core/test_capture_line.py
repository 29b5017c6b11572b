"""The capture line's Structs are derived from the one schema (`Artifact` and the
models it holds): same fields, defaults, constraints and methods; a rule they
cannot carry is either checked by `needs_full_validation` or stops the derivation;
the docs' JSON Schema is generated from them."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from pydantic import BaseModel, ConfigDict, Field, field_validator

from recall_gate.core.capture_line import (
    RetrievedLine,
    UnknownRule,
    capture_line_schema,
    decode_line,
    derive_struct,
    needs_full_validation,
    with_fields,
)
from recall_gate.core.records import Artifact, RetrievedItem

SCHEMA_DOC = Path(__file__).resolve().parents[2] / "docs" / "reference" / "capture-line.schema.json"


def test_the_struct_has_every_field_of_the_model_with_its_default() -> None:
    fields = {f.name: f for f in msgspec.structs.fields(derive_struct(Artifact))}
    assert list(fields) == list(Artifact.model_fields)
    for name, info in Artifact.model_fields.items():
        assert fields[name].required == info.is_required(), name
        if not info.is_required():
            assert fields[name].default == info.default, name


def test_the_struct_refuses_what_the_models_constraints_refuse() -> None:
    refused = [
        b'{"case_id": "", "retrieved": []}',  # min_length
        b'{"case_id": "c", "retrieved": [], "depth": 0}',  # gt=0
        b'{"case_id": "c", "retrieved": [], "latency_ms": -0.5}',  # ge=0
        b'{"case_id": "c", "retrieved": [], "case_type": "x"}',  # Literal
        b'{"case_id": "c", "retrieved": [{"id": "a", "rank": 1}]}',  # extra="forbid", nested
        b'{"case_id": "c", "retrieved": [], "retriever": {"adapter": "", "name": "n"}}',
    ]
    for line in refused:
        with pytest.raises(msgspec.ValidationError):
            decode_line(line)


def test_the_struct_keeps_the_models_methods() -> None:
    line = decode_line(b'{"case_id": "c", "retrieved": ["a", {"id": "b#1", "parent_id": "b"}]}')
    assert line.ranked_card_ids() == ["a", "b"]
    item = line.retrieved[1]
    assert isinstance(item, RetrievedLine)
    assert item.card_id == "b"


@pytest.mark.parametrize(
    "line",
    [
        b'{"case_id": "c", "retrieved": [], "language": "PT-br"}',  # canonical case: pt-BR
        b'{"case_id": "c", "retrieved": [], "language": "english"}',  # not a BCP-47 tag
        b'{"case_id": "c", "retrieved": ["a", ""]}',  # an empty id
        b'{"case_id": "c", "retrieved": [], "coverage": {"shards": [2, 1], "of": 2, '
        b'"cases": 3, "cases_fingerprint": "f"}}',  # shards out of order
    ],
)
def test_a_line_the_struct_cannot_judge_goes_to_the_full_validation(line: bytes) -> None:
    assert needs_full_validation(decode_line(line))


def test_a_plain_line_needs_no_full_validation() -> None:
    line = decode_line(
        b'{"case_id": "c", "retrieved": ["a"], "language": "pt-BR", "coverage": '
        b'{"shards": [1, 2], "of": 3, "cases": 3, "cases_fingerprint": "f"}}'
    )
    assert not needs_full_validation(line)


def test_a_validator_the_derivation_does_not_know_stops_it() -> None:
    class Strict(BaseModel):
        model_config = ConfigDict(frozen=True, extra="forbid")
        name: str = Field(min_length=1)

        @field_validator("name")
        @classmethod
        def _shout(cls, value: str) -> str:
            return value.upper()

    with pytest.raises(UnknownRule, match="_shout"):
        derive_struct(Strict)


def test_with_fields_copies_a_struct_and_a_model_alike() -> None:
    struct = decode_line(b'{"case_id": "c", "retrieved": ["a"], "language": "en"}')
    model = Artifact(case_id="c", retrieved=("a",), language="en")
    assert with_fields(struct, language=None).language is None
    assert with_fields(model, language=None) == model.model_copy(update={"language": None})
    assert with_fields(RetrievedItem(id="a"), parent_id="p").card_id == "p"


def test_the_docs_json_schema_is_generated_from_the_one_definition() -> None:
    generated = json.dumps(capture_line_schema(), indent=2, sort_keys=True, ensure_ascii=False)
    assert SCHEMA_DOC.read_text(encoding="utf-8") == generated + "\n", (
        "docs/reference/capture-line.schema.json is out of date: run `make schema`"
    )
