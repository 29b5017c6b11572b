"""One artifacts schema: a line read natively — by pydantic-core (JSON read and
validated against `Artifact` in one pass), or by msgspec into the Struct derived
from `Artifact` (what `score` reads) — gets exactly what the full validation
gives (`json` → Python objects → `Artifact`): the same artifact, or the same
message naming the file, line, case, field and fix."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from recall_gate.adapters.dataset import (
    iter_artifacts,
    iter_capture_lines,
    parse_artifact_line,
    parse_capture_line,
)
from recall_gate.adapters.files import describe_validation_error
from recall_gate.core.records import Artifact, RetrievedItem
from recall_gate.errors import InputError

SOURCE = "run.jsonl"
FIX = (
    'each line is {"case_id": "...", "retrieved": ["card-id", ...]} '
    '(an item may be {"id": ..., "parent_id": ..., "score": ...})'
)


def full_validation(line: str, number: int = 7) -> Artifact | str:
    """The validated path's contract, spelt out: json, then the model from Python objects."""
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return (
            f"{SOURCE}:{number}: invalid JSON: {exc.msg} (column {exc.colno})\n"
            "  fix: write one JSON object per line (JSON Lines)"
        )
    where = f"{SOURCE}:{number}"
    if isinstance(obj, dict) and isinstance(obj.get("case_id"), str):
        where += f" (case {obj['case_id']})"
    bad = _non_finite(obj, "")
    if bad is not None:
        return (
            f"{where}: field `{bad[0]}` is {bad[1]}, not a finite number\n  fix: write a "
            "finite number there, or leave the field out: JSON has no NaN or Infinity; check "
            "the retriever or script that wrote this capture"
        )
    if not isinstance(obj, dict):
        return f"{where}: expected a mapping, got {type(obj).__name__}\n  fix: {FIX}"
    try:
        return Artifact.model_validate(obj)
    except ValidationError as exc:
        return f"{where}: {describe_validation_error(exc)}\n  fix: {FIX}"


def _non_finite(value: Any, field: str) -> tuple[str, str] | None:
    """The first NaN or ±Infinity of a parsed line, its field and how JSON spells it."""
    if isinstance(value, float) and not math.isfinite(value):
        return field, "NaN" if math.isnan(value) else ("-Infinity" if value < 0 else "Infinity")
    children: list[tuple[str, Any]] = []
    if isinstance(value, dict):
        children = [(f"{field}.{k}" if field else k, v) for k, v in value.items()]
    elif isinstance(value, list):
        children = [(f"{field}[{i}]", v) for i, v in enumerate(value)]
    for name, child in children:
        if (found := _non_finite(child, name)) is not None:
            return found
    return None


def _as_model(line: Any) -> Artifact:
    """A decoded line as the model it mirrors (its Struct, field for field)."""
    return (
        line if isinstance(line, Artifact) else Artifact.model_validate(msgspec.to_builtins(line))
    )


READERS = {"pydantic-core": parse_artifact_line, "msgspec": parse_capture_line}


def native_path(line: str, number: int = 7, *, reader: str = "pydantic-core") -> Artifact | str:
    try:
        return _as_model(READERS[reader](line, number=number, source=SOURCE))
    except InputError as exc:
        return str(exc)


MALFORMED = [
    '{"case_id": "c1", "retrieved": ["a"]',
    '{"case_id": "c1", "retrieved": ["a"]} trailing',
    '{"case_id": "c1", "retrieved": ["a"],}',
    "{'case_id': 'c1'}",
    "",
    "nul",
    '["c1", ["a"]]',
    '"c1"',
    "42",
    "null",
    '{"retrieved": ["a"]}',
    '{"case_id": "", "retrieved": []}',
    '{"case_id": 7, "retrieved": []}',
    '{"case_id": "c1", "retrieved": "a"}',
    '{"case_id": "c1", "retrieved": null}',
    '{"case_id": "c1", "retrieved": [""]}',
    '{"case_id": "c1", "retrieved": ["a", ""]}',
    '{"case_id": "c1", "retrieved": [1]}',
    '{"case_id": "c1", "retrieved": [null]}',
    '{"case_id": "c1", "retrieved": [["a"]]}',
    '{"case_id": "c1", "retrieved": [{"parent_id": "p"}]}',
    '{"case_id": "c1", "retrieved": [{"id": ""}]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": "high"}]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "parent_id": 3}]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "rank": 1}]}',
    '{"case_id": "c1", "retrieved": [], "language": "english"}',
    '{"case_id": "c1", "retrieved": [], "language": "en_US"}',
    '{"case_id": "c1", "retrieved": [], "language": 5}',
    '{"case_id": "c1", "retrieved": [], "case_type": "x"}',
    '{"case_id": "c1", "retrieved": [], "cited": "a"}',
    '{"case_id": "c1", "retrieved": [], "cited": [1]}',
    '{"case_id": "c1", "retrieved": [], "must_cite_one_of": "a"}',
    '{"case_id": "c1", "retrieved": [], "relevant_ids": {"a": 1}}',
    '{"case_id": "c1", "retrieved": [], "query": 5}',
    '{"case_id": "c1", "retrieved": [], "timings_ms": {"embed": "slow"}}',
    '{"case_id": "c1", "retrieved": [], "timings_ms": [1]}',
    '{"case_id": "c1", "retreived": []}',
    '{"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}',
    '{"case_id": "c1\x01", "retrieved": []}',
    '{"case_id": "\\ud800", "retrieved": []}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": 1e400x}]}',
    '{"case_id": "c1", "retrieved": [], "depth": 0}',
    '{"case_id": "c1", "retrieved": [], "depth": 1.5}',
    '{"case_id": "c1", "retrieved": [], "latency_ms": -1}',
    # A number JSON has not (NaN, Infinity, 1e400 read as Infinity): the line's error.
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": NaN}]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": 1e400}]}',
    '{"case_id": "c1", "retrieved": [], "latency_ms": Infinity}',
    '{"case_id": "c1", "retrieved": [], "timings_ms": {"embed": -Infinity}}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "outside_kb": "maybe"}]}',
    '{"case_id": "c1", "retrieved": [], "retriever": {"adapter": "x", "name": ""}}',
    '{"case_id": "c1", "retrieved": [], "retriever": {"adapter": "x", "name": "y", "k": 5}}',
    '{"case_id": "c1", "retrieved": [], "retriever": {"adapter": "x", "name": "y", '
    '"params": {"k": [5]}}}',
    '{"case_id": "c1", "retrieved": [], "coverage": {"shards": [2, 1], "of": 3, "cases": 9, '
    '"cases_fingerprint": "f"}}',
    '{"case_id": "c1", "retrieved": [], "coverage": {"shards": [4], "of": 3, "cases": 9, '
    '"cases_fingerprint": "f"}}',
    '{"case_id": "c1", "retrieved": [], "coverage": {"shards": [], "of": 3, "cases": 9, '
    '"cases_fingerprint": "f"}}',
    '{"case_id": "c1", "retrieved": [], "language": "PT-br", "case_type": "golden", "x": 1}',
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("line", MALFORMED)
def test_a_malformed_line_gets_the_full_validations_message_word_for_word(
    line: str, reader: str
) -> None:
    expected = full_validation(line)
    assert isinstance(expected, str), "the line is malformed"
    assert native_path(line, reader=reader) == expected


@pytest.mark.parametrize("field", ["extra", "query", "retrieved"])
def test_the_nesting_cap_holds_for_the_struct_reader(field: str) -> None:
    line = '{"case_id": "c1", "%s": %s}' % (field, "[" * 100_000 + "]" * 100_000)  # noqa: UP031
    expected = native_path(line, reader="pydantic-core")
    assert isinstance(expected, str)
    assert "nest" in expected
    assert native_path(line, reader="msgspec") == expected


ODD_BUT_VALID = [
    '{"case_id": "c1", "retrieved": []}',
    '{"case_id": "c1", "case_id": "c2", "retrieved": ["a"]}',  # the last key wins
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": "0.5"}]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "score": 1}]}',
    '{"case_id": "c1", "retrieved": [], "language": "PT-br"}',  # stored canonical: pt-BR
    '{"case_id": "c1", "retrieved": [{"id": "a", "parent_id": ""}]}',
    '{"case_id": "c1", "retrieved": [], "timings_ms": {"embed": "1.5"}}',
    '{"case_id": "c1", "retrieved": [], "query": "uno\u2028dos\x85tres"}',
    '  {"case_id": "c1", "retrieved": ["a"]}\r',
    '{"case_id": "caf\\u00e9", "retrieved": ["\\ud83d\\ude00"]}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "outside_kb": true}], "depth": 20}',
    '{"case_id": "c1", "retrieved": [], "latency_ms": 0, "error": "timeout"}',
    '{"case_id": "c1", "retrieved": [{"id": "a", "outside_kb": "yes"}], "depth": 2.0}',
    '{"case_id": "c1", "retrieved": [], "retriever": {"adapter": "callable", "name": "m.f", '
    '"label": "v2", "params": {"k": 5, "mmr": true, "t": 0.5, "e": "bge", "n": null}}}',
    '{"case_id": "c1", "retrieved": [], "coverage": {"shards": [1, 3], "of": 3, "cases": 9, '
    '"cases_fingerprint": "f"}}',
]


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("line", ODD_BUT_VALID)
def test_a_line_the_full_validation_accepts_is_read_the_same(line: str, reader: str) -> None:
    expected = full_validation(line)
    assert isinstance(expected, Artifact), expected
    got = native_path(line, reader=reader)
    assert isinstance(got, Artifact)
    # NaN != NaN: compare the JSON dumps.
    assert got.model_dump_json() == expected.model_dump_json()


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False),
    st.text(max_size=3),
    st.sampled_from(["en", "es-419", "pt-BR", "golden", "no_match", "a", ""]),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)
_items = st.one_of(
    st.text(max_size=3),
    st.fixed_dictionaries(
        {"id": st.text(max_size=3)},
        optional={
            "parent_id": st.one_of(st.none(), st.text(max_size=3)),
            "score": _values,
            "outside_kb": _values,
        },
    ),
    _values,
)
_fields = {
    "case_id": st.one_of(st.text(max_size=3), _values),
    "retrieved": st.one_of(st.lists(_items, max_size=3), _values),
    "cited": st.one_of(st.lists(st.text(max_size=2), max_size=2), _values),
    "must_cite_one_of": st.one_of(st.lists(st.text(max_size=2), max_size=2), _values),
    "relevant_ids": st.one_of(st.lists(st.text(max_size=2), max_size=2), _values),
    "language": st.one_of(st.sampled_from(["en", "pt-br", "fr", "english", "en_US"]), _values),
    "case_type": st.one_of(st.sampled_from(["golden", "capability", "x"]), _values),
    "query": _values,
    "timings_ms": st.one_of(st.dictionaries(st.text(max_size=2), st.floats()), _values),
    "depth": st.one_of(st.integers(-1, 3), _values),
    "latency_ms": st.one_of(st.floats(-1, 5), _values),
    "error": _values,
    "retriever": st.one_of(
        st.fixed_dictionaries(
            {"adapter": st.text(max_size=2), "name": st.text(max_size=2)},
            optional={"label": _values, "params": _values},
        ),
        _values,
    ),
    "coverage": st.one_of(
        st.fixed_dictionaries(
            {
                "shards": st.lists(st.integers(0, 3), max_size=3),
                "of": st.integers(0, 3),
                "cases": st.integers(-1, 3),
                "cases_fingerprint": st.text(max_size=2),
            }
        ),
        _values,
    ),
    "extra": _values,
}


@pytest.mark.parametrize("reader", READERS)
@settings(max_examples=400, deadline=None)
@given(obj=st.fixed_dictionaries({}, optional=_fields) | _values)
def test_any_line_gets_what_the_full_validation_gives(obj: Any, reader: str) -> None:
    line = json.dumps(obj)
    expected = full_validation(line)
    got = native_path(line, reader=reader)
    if isinstance(expected, str):
        assert got == expected
    else:
        assert isinstance(got, Artifact)
        assert got.model_dump_json() == expected.model_dump_json()


class _SmartUnionArtifact(Artifact):
    """The schema as it was before its union was ordered: pydantic's "smart" union of
    an item and an id. Kept here only to prove the ordered union equal to it."""

    retrieved: tuple[RetrievedItem | str, ...]


def _validated(model: type[Artifact], line: str) -> Artifact | str:
    """The line as ``model`` reads it, or where and why it refuses it."""
    try:
        return model.model_validate_json(line)
    except ValidationError as exc:
        return " / ".join(sorted(f"{e['loc'][:2]} {e['type']}" for e in exc.errors()))


@settings(max_examples=400, deadline=None)
@given(obj=st.fixed_dictionaries({}, optional=_fields) | _values)
def test_the_ordered_union_accepts_and_refuses_what_the_smart_union_did(obj: Any) -> None:
    line = json.dumps(obj)
    smart, ordered = _validated(_SmartUnionArtifact, line), _validated(Artifact, line)
    if isinstance(smart, str):
        assert ordered == smart  # refused, at the same fields for the same reasons
    else:
        assert isinstance(ordered, Artifact)
        assert ordered.model_dump_json() == smart.model_dump_json()
        assert [type(i) for i in ordered.retrieved] == [type(i) for i in smart.retrieved]


@given(items=st.lists(st.one_of(st.text(min_size=1), st.builds(RetrievedItem, id=st.just("a")))))
def test_python_items_keep_their_kind_under_the_ordered_union(
    items: list[RetrievedItem | str],
) -> None:
    ordered = Artifact(case_id="c", retrieved=tuple(items))
    smart = _SmartUnionArtifact(case_id="c", retrieved=tuple(items))
    assert ordered.retrieved == smart.retrieved
    assert [type(i) for i in ordered.retrieved] == [type(i) for i in smart.retrieved]


GOOD = b'{"case_id": "c1", "retrieved": ["a", {"id": "b#1", "parent_id": "b"}]}'
FILES = {
    "plain": GOOD + b"\n" + GOOD.replace(b"c1", b"c2") + b"\n",
    "no final newline": GOOD,
    "a byte-order mark": b"\xef\xbb\xbf" + GOOD + b"\n",
    "CRLF": GOOD + b"\r\n" + GOOD.replace(b"c1", b"c2") + b"\r\n",
    "blank lines, ASCII and Unicode": b"\n  \n" + GOOD + b"\n\xc2\xa0\xe2\x80\xa8\n\x1c\n",
    "only Unicode blanks": b"\xc2\xa0\n\xe2\x80\xa8\n",
    "empty": b"",
    "only blanks": b" \n\t\n",
    "not UTF-8 on line 2": GOOD + b"\n" + GOOD.replace(b"c1", b"c\xff") + b"\n",
    "not UTF-8 after a bad line": b'{"case_id": 1}\n' + b"\xff\n",
    "binary": b"\x00\x01\x02" + GOOD,
    "a bad line": GOOD + b'\n{"case_id": "c2", "retrieved": [""]}\n',
    "a language in another case": b'{"case_id": "c", "retrieved": [], "language": "PT-br"}\n',
    "NaN score": b'{"case_id": "c", "retrieved": [{"id": "a", "score": NaN}]}\n',
    # The struct reader decodes a block of lines in one call: what that call would
    # take but a line-by-line read refuses is read line by line, and named.
    "two values on one line": GOOD + b" " + GOOD.replace(b"c1", b"c2") + b"\n",
    "two values on one line, and a blank line": GOOD + GOOD.replace(b"c1", b"c2") + b"\n\n",
    "many blocks, blank lines among them": b"\n".join(
        b"" if i % 997 == 0 else GOOD.replace(b"c1", b"c%d" % i) for i in range(3000)
    ),
    "many blocks, a bad line deep in them": b"\n".join(
        GOOD.replace(b"c1", b"c%d" % i) if i != 2500 else b'{"case_id": "c"}' for i in range(3000)
    ),
    "a line longer than a block": GOOD.replace(b'"a"', b'"' + b"a" * 70_000 + b'"') + b"\n" + GOOD,
}


def _read_all(reader: Any, path: Path) -> list[tuple[int, str]] | str:
    try:
        return [(n, _as_model(a).model_dump_json()) for n, a in reader(path)]
    except InputError as exc:
        return str(exc)


@pytest.mark.parametrize("content", FILES.values(), ids=FILES.keys())
def test_a_capture_file_reads_the_same_with_the_struct_reader(
    tmp_path: Path, content: bytes
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(content)
    assert _read_all(iter_capture_lines, path) == _read_all(iter_artifacts, path)
