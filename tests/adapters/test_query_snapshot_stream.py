"""The query snapshot is read as it streams (gzip inflated a block at a time, lines
split across blocks): every line is given with the number it has in the file,
whatever the block size, the gzip members and the runs of blank lines."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall_gate.adapters import query_snapshot
from recall_gate.errors import InputError


def _reference(data: bytes) -> list[tuple[int, bytes]]:
    return [(n, line) for n, line in enumerate(data.split(b"\n"), start=1) if line]


_texts = st.lists(
    st.one_of(
        st.binary(min_size=0, max_size=12).map(lambda b: b.replace(b"\n", b"x")),
        st.integers(1, 60).map(lambda n: b"\n" * (n - 1)),  # runs of blank lines
    ),
    max_size=40,
).map(b"\n".join)


@settings(max_examples=300, deadline=None)
@given(data=_texts, block=st.integers(1, 9), zipped=st.booleans(), members=st.integers(1, 3))
def test_each_line_streams_with_its_number_in_the_file(
    data: bytes, block: int, zipped: bool, members: int
) -> None:
    packed = data
    if zipped:
        cut = max(1, len(data) // members)
        pieces = [data[i : i + cut] for i in range(0, len(data), cut)] or [b""]
        packed = b"".join(gzip.compress(piece, mtime=0) for piece in pieces)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(query_snapshot, "_BLOCK", block)
        blocks = (
            query_snapshot._inflated(packed, source="s")
            if zipped
            else iter([data[i : i + block] for i in range(0, len(data), block)])
        )
        got = list(query_snapshot._lines(blocks, source="s"))
    assert got == _reference(data)


def test_a_bad_line_is_named_by_its_number_across_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    header = b'{"cards":["a"],"k":1,"schema":"recall-gate/query-snapshot","version":1}\n'
    data = header + b'["q1",[0]]\n' + b"\n" * 500 + b"not json\n"
    monkeypatch.setattr(query_snapshot, "_BLOCK", 64)
    with pytest.raises(InputError, match="line 503 is not JSON"):
        query_snapshot.decode_snapshot(gzip.compress(data, mtime=0), source="s")
