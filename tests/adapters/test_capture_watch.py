"""The capture watch's per-line shortcuts see what the plain rules see: ids without
a path mark are never file paths, bare-id lines hold nothing outside the KB, and
the card ids of a line are the same whichever way they are read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from recall_gate.adapters.artifacts import CaptureWatch, _may_be_paths
from recall_gate.core.integrity import looks_like_file_path
from recall_gate.core.records import Artifact, RetrievedItem

_PIECES = (
    *("/", "~", "./", "../", "C:\\", "c:/", "file://", "\\", "docs", "a.md", ".MD", "x"),
    *(".markdown", ".mdx", ".txt", ".rst", ".html", ".htm", ".pdf", ".ipynb"),
)
_path_like = st.one_of(
    st.text(max_size=12),
    st.builds("".join, st.lists(st.sampled_from(_PIECES), max_size=4)),
)


@settings(max_examples=500, deadline=None)
@given(ids=st.lists(_path_like, max_size=4))
def test_a_list_holding_a_file_path_always_holds_a_path_mark(ids: list[str]) -> None:
    if any(looks_like_file_path(i) for i in ids):
        assert _may_be_paths(ids)


def test_card_ids_without_a_path_mark_skip_the_pattern() -> None:
    assert not _may_be_paths(["card-0042", "faq#3", "en-setup"])
    assert _may_be_paths(["card-0042", "docs/en/a.md"])


# No path separators: with a KB, the watch maps file paths under it to card ids first.
_ids = st.text(alphabet="abc#-1é", min_size=1, max_size=4)
_items = st.one_of(
    _ids,
    st.builds(
        RetrievedItem,
        id=_ids,
        parent_id=st.one_of(st.none(), st.just(""), _ids),
        outside_kb=st.sampled_from([None, True, False]),
    ),
)


def _reference_card_ids(artifact: Artifact) -> list[str]:
    return [
        item if isinstance(item, str) else (item.parent_id or item.id)
        for item in artifact.retrieved
    ]


@settings(max_examples=300, deadline=None)
@given(items=st.lists(_items, max_size=6))
def test_ranked_card_ids_are_parent_else_id_in_rank_order(items: list[RetrievedItem | str]) -> None:
    artifact = Artifact(case_id="c", retrieved=tuple(items))
    assert artifact.ranked_card_ids() == _reference_card_ids(artifact)


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.lists(_items, max_size=5), min_size=1, max_size=5),
    kb=st.one_of(st.none(), st.frozensets(_ids, max_size=4)),
)
def test_outside_kb_entries_are_the_flagged_items_or_ids_no_card_has(
    lines: list[list[RetrievedItem | str]], kb: frozenset[str] | None
) -> None:
    artifacts = [Artifact(case_id=f"c{n}", retrieved=tuple(items)) for n, items in enumerate(lines)]
    watch = CaptureWatch("capture.jsonl", kb_ids=kb)
    list(watch.watch(enumerate(artifacts, start=1)))
    entries = cases = 0
    examples: list[str] = []
    for artifact in artifacts:
        ids = _reference_card_ids(artifact)
        outside = [
            ident
            for ident, item in zip(ids, artifact.retrieved, strict=True)
            if (isinstance(item, RetrievedItem) and item.outside_kb)
            or (kb is not None and ident not in kb)
        ]
        entries += len(outside)
        cases += bool(outside)
        for ident in outside:
            if len(examples) < 3 and ident not in examples:
                examples.append(ident)
    assert watch.retrieved_entries == sum(len(items) for items in lines)
    assert (watch.outside_entries, watch.outside_cases) == (entries, cases)
    assert watch.outside_examples == examples
