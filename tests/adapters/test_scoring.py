"""The one scorer: a capture streamed through `score_capture` into a `ResultsWriter`
gives the results file of the per-case chain (label → score_case → aggregate →
write_results), byte for byte, and the dataset fingerprint of its labels, while
writing each case before it reads the next."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import random
from collections.abc import Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recall_gate.adapters import scoring
from recall_gate.adapters.artifacts import CaptureWatch
from recall_gate.adapters.dataset import iter_artifacts, iter_capture_lines, load_artifacts
from recall_gate.adapters.results_store import ResultsWriter, write_results
from recall_gate.adapters.scoring import score_capture
from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import score_case
from recall_gate.core.fingerprint import fingerprint_labels
from recall_gate.core.labels import label_artifacts
from recall_gate.core.records import Artifact, CaseLabel, CaseResult, Provenance, Results
from recall_gate.errors import InputError

PROVENANCE = Provenance(tool_version="0.0.0", dataset_fingerprint="sha256:0000000000000000")


def capture_lines(n: int, *, seed: int = 7) -> list[str]:
    """Synthetic self-contained captures (ids out of order, duplicates in rankings,
    chunk items, empty gold, relevant_ids and cited now and then)."""
    rng = random.Random(seed)
    cards = [f"card-{i}" for i in range(40)]
    lines = []
    for i in range(n):
        gold = rng.sample(cards, rng.choice([0, 1, 1, 2, 5]))
        ranking = [rng.choice(gold + cards[:10]) for _ in range(rng.randint(0, 14))]
        obj: dict[str, Any] = {
            "case_id": f"case-{i}-{rng.choice(['z', 'a', 'é', 'ß'])}",
            "retrieved": [
                c if rng.random() < 0.5 else {"id": f"{c}#{j}", "parent_id": c, "score": 0.5}
                for j, c in enumerate(ranking)
            ],
            "language": rng.choice(["en", "es-419", "pt-BR"]),
            "case_type": rng.choice(["golden", "adversarial", "capability", "no_match"]),
            "must_cite_one_of": gold,
        }
        if gold and rng.random() < 0.3:
            obj["relevant_ids"] = [*gold[:1], "card-x"]
        if rng.random() < 0.4:
            obj["cited"] = rng.sample([*gold, "card-y"], 1)
        lines.append(json.dumps(obj, ensure_ascii=False) + "\n")
    rng.shuffle(lines)
    return lines


def chain_results(path: Path, *, k: int, provenance: Provenance) -> Results:
    """The per-case chain: every record in memory, then the aggregates."""
    labelled = label_artifacts(load_artifacts(path), artifacts_source=str(path))
    records = [
        score_case(label, a.ranked_card_ids(), k=k, cited=a.cited, items=a.retrieved)
        for label, a in labelled
    ]
    return Results(k=k, provenance=provenance, cases=tuple(records), aggregates=aggregate(records))


@pytest.mark.parametrize("k", [1, 5, 10])
def test_the_streamed_results_file_is_the_per_case_chains_byte_for_byte(
    tmp_path: Path, k: int
) -> None:
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(capture_lines(600)), encoding="utf-8")
    with ResultsWriter(tmp_path / "streamed.json") as writer:
        scored = score_capture(
            iter_artifacts(capture), k=k, artifacts_source=str(capture), results=writer
        )
        writer.finish(k=k, provenance=PROVENANCE, aggregates=scored.aggregates)
    expected = chain_results(capture, k=k, provenance=PROVENANCE)
    write_results(tmp_path / "chain.json", expected)
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "chain.json").read_bytes()
    assert scored.aggregates == expected.aggregates
    assert scored.total == len(expected.cases)
    assert scored.scored == sum(1 for c in expected.cases if c.metrics)
    assert sum(scored.outcomes.values()) == sum(1 for c in expected.cases if c.citation_outcome)


def record(**fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "case_id": "c",
        "case_type": "golden",
        "citation_outcome": None,
        "cited": None,
        "language": "en",
        "metrics": {},
        "must_cite_one_of": (),
        "query": None,
        "ranked_ids": [],
        "relevant_ids": None,
    }
    return {**base, **fields}


WRITER_RECORDS = {
    "no cases": [],
    "unscored case": [record()],
    "plain metrics": [
        record(
            metrics={"retrieval_hit_at_k": 1.0, "retrieval_recall_at_k": 1 / 3},
            must_cite_one_of=("a", "b", "c"),
            ranked_ids=["a", "z"],
        )
    ],
    # repr writes 5e-05 where orjson writes 0.00005: json's own text is used.
    "tiny floats": [record(metrics={"retrieval_recall_at_k": 5e-05, "retrieval_ndcg_at_k": 1e-7})],
    "unicode, controls and quotes in ids": [
        record(case_id='ca"fé\\\u2028\x01\x7f😀', ranked_ids=["\t", "</script>"]),
        record(case_id="b", cited=("x",), citation_outcome="retrieval_miss", query="¿Cómo?"),
    ],
}


@pytest.mark.parametrize("records", WRITER_RECORDS.values(), ids=WRITER_RECORDS.keys())
def test_the_results_writer_writes_the_bytes_of_write_results(
    tmp_path: Path, records: list[dict[str, Any]]
) -> None:
    cases = tuple(CaseResult.model_validate(r) for r in records)
    results = Results(k=3, provenance=PROVENANCE, cases=cases, aggregates=aggregate(cases))
    with ResultsWriter(tmp_path / "streamed.json") as writer:
        for r in records:
            writer.add(r)
        writer.finish(k=3, provenance=PROVENANCE, aggregates=results.aggregates)
    write_results(tmp_path / "whole.json", results)
    assert (tmp_path / "streamed.json").read_bytes() == (tmp_path / "whole.json").read_bytes()


def test_an_unfinished_results_writer_leaves_no_file_behind(tmp_path: Path) -> None:
    with ResultsWriter(tmp_path / "r.json") as writer:
        writer.add(record())
    assert list(tmp_path.iterdir()) == []


def test_the_streamed_label_fingerprint_is_the_fingerprint_of_the_labels(tmp_path: Path) -> None:
    capture = tmp_path / "run.jsonl"
    capture.write_text("\n \n".join(capture_lines(300, seed=3)), encoding="utf-8")  # gaps
    scored = score_capture(
        iter_artifacts(capture), k=5, artifacts_source=str(capture), fingerprint=True
    )
    labels = [label for label, _ in label_artifacts(load_artifacts(capture), artifacts_source="x")]
    assert scored.label_fingerprint == fingerprint_labels(labels)


def test_fingerprint_labels_digests_the_labels_sorted_by_id_as_canonical_json() -> None:
    labels = [
        CaseLabel(id="b\x01é", language="pt-BR", case_type="golden", must_cite_one_of=("x",)),
        CaseLabel(
            id="a",
            language="en",
            case_type="adversarial",
            must_cite_one_of=("y", "z"),
            relevant_ids=("z",),
        ),
    ]
    blob = json.dumps(
        sorted((c.model_dump(mode="json") for c in labels), key=lambda d: d["id"]),
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    digest = "sha256:" + hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]
    assert fingerprint_labels(labels) == digest


class Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def add(self, record: Mapping[str, Any]) -> None:
        self.events.append(f"write {record['case_id']}")


def test_each_case_is_written_before_the_next_artifact_is_read() -> None:
    log = Log()

    def artifacts() -> Iterator[tuple[int, Artifact]]:
        for n in range(1, 4):
            log.events.append(f"read c{n}")
            yield (
                n,
                Artifact(
                    case_id=f"c{n}",
                    retrieved=("a",),
                    language="en",
                    case_type="golden",
                    must_cite_one_of=("a",),
                ),
            )

    score_capture(artifacts(), k=1, artifacts_source="x", results=log)
    assert log.events == ["read c1", "write c1", "read c2", "write c2", "read c3", "write c3"]


# -- the one-loop scorer against the reference loop -----------------------------------


class Forward:
    """A sink that is no ResultsWriter: ``score_capture`` takes the reference loop
    (each case through ``CaseScorer.add`` and the writer's ``add``)."""

    def __init__(self, writer: ResultsWriter) -> None:
        self.writer = writer

    def add(self, record: Mapping[str, Any]) -> None:
        self.writer.add(record)


# the results file, the scored capture and what the missed-case hook was told; or the error
Scored = tuple[bytes, Any, list[tuple[Any, ...]]] | str


def scored_both_ways(
    tmp_path: Path, lines: list[str], *, k: int, metrics: tuple[str, ...] = ()
) -> tuple[Scored, Scored]:
    """What the one loop makes of a capture, then what the reference loop makes of it."""
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(lines), encoding="utf-8")
    out: list[Scored] = []
    for name, wrap in (("fast", lambda w: w), ("reference", Forward)):
        told: list[tuple[Any, ...]] = []
        try:
            with ResultsWriter(tmp_path / f"{name}.json") as writer:
                scored = score_capture(
                    iter_capture_lines(capture),
                    k=k,
                    artifacts_source=str(capture),
                    results=wrap(writer),
                    fingerprint=True,
                    metrics=metrics or ("retrieval_hit_at_k",),
                    watch=CaptureWatch(str(capture), self_labelled=True, unmapped_paths=True),
                    on_missed=partial(tell, told),
                )
                writer.finish(k=k, provenance=PROVENANCE, aggregates=scored.aggregates)
        except InputError as exc:
            out.append(str(exc))
        else:
            out.append(((tmp_path / f"{name}.json").read_bytes(), scored, told))
    return out[0], out[1]


def tell(told: list[tuple[Any, ...]], *args: Any) -> None:
    told.append(tuple(map(tuple_of, args)))


def tuple_of(value: Any) -> Any:
    """A hook argument as a value to compare (a list and a tuple of the same ids alike)."""
    return value if value is None or isinstance(value, str) else tuple(value)


@pytest.mark.parametrize("k", [1, 3, 10, 100])
@pytest.mark.parametrize(
    "metrics", [(), ("retrieval_mrr_at_k", "retrieval_precision_at_k")], ids=["triad", "all five"]
)
def test_the_one_loop_scores_and_writes_as_the_reference_loop_does(
    tmp_path: Path, k: int, metrics: tuple[str, ...]
) -> None:
    fast, reference = scored_both_ways(tmp_path, capture_lines(500, seed=k), k=k, metrics=metrics)
    assert not isinstance(fast, str)
    assert fast == reference
    assert fast[1].missed  # the missed cases' list is compared too
    assert len(fast[2]) == fast[1].missed_total  # the hook is told of every missed case


_ids = st.sampled_from(["a", "b", "c", "d", "é", "x/y.md", "", "\ud800"])
_items = st.one_of(
    _ids.filter(bool),
    st.fixed_dictionaries(
        {"id": _ids.filter(bool)},
        optional={"parent_id": _ids, "score": st.floats(0, 1), "outside_kb": st.just(True)},
    ),
)
_lines = st.fixed_dictionaries(
    {
        "case_id": st.sampled_from(["c1", "c2", "c3", "c4", "c5", "c6"]),
        "retrieved": st.lists(_items, max_size=12),
        "language": st.sampled_from(["en", "pt-BR"]),
        "case_type": st.sampled_from(["golden", "capability", "no_match"]),
        "must_cite_one_of": st.lists(_ids.filter(bool), max_size=4, unique=True),
    },
    optional={
        "relevant_ids": st.lists(_ids.filter(bool), max_size=3, unique=True),
        "cited": st.lists(_ids, max_size=3),
        "query": st.text(max_size=5),
    },
)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    objs=st.lists(_lines, min_size=1, max_size=6, unique_by=lambda o: o["case_id"]),
    k=st.integers(1, 6),
)
def test_the_one_loop_agrees_with_the_reference_loop_on_generated_lines(
    tmp_path_factory: pytest.TempPathFactory, objs: list[dict[str, Any]], k: int
) -> None:
    tmp_path = tmp_path_factory.mktemp("lines")
    lines = [json.dumps(o) + "\n" for o in objs]
    fast, reference = scored_both_ways(
        tmp_path, lines, k=k, metrics=("retrieval_mrr_at_k", "retrieval_precision_at_k")
    )
    assert fast == reference


@pytest.mark.parametrize("in_order", [False, True], ids=["ids shuffled", "ids in order"])
@pytest.mark.parametrize("run", [1, 7, 10_000], ids=["a run a line", "runs of 7", "one run"])
def test_a_capture_indexed_in_sorted_runs_on_disk_keeps_its_label_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: int, in_order: bool
) -> None:
    monkeypatch.setattr(scoring, "_RUN", run)
    monkeypatch.setattr(scoring, "_CHUNK", 3)
    lines = capture_lines(120, seed=5)
    if in_order:  # runs that follow one another, none merged
        lines.sort(key=lambda line: json.loads(line)["case_id"])
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(lines), encoding="utf-8")
    scored = score_capture(
        iter_capture_lines(capture), k=5, artifacts_source=str(capture), fingerprint=True
    )
    labels = [label for label, _ in label_artifacts(load_artifacts(capture), artifacts_source="x")]
    assert scored.label_fingerprint == fingerprint_labels(labels)


@pytest.mark.parametrize("in_order", [False, True], ids=["ids shuffled", "ids in order"])
@pytest.mark.parametrize("run", [1, 4, 10_000], ids=["a run a line", "runs of 4", "one run"])
def test_a_case_s_second_line_is_found_across_runs_as_the_labeller_finds_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run: int, in_order: bool
) -> None:
    monkeypatch.setattr(scoring, "_RUN", run)
    monkeypatch.setattr(scoring, "_CHUNK", 2)
    lines = capture_lines(30, seed=9)
    again = [lines[20], lines[3], lines[3]]  # seconds on lines 31-33: the first is 31's
    lines = [*lines, *again]
    if in_order:  # a case's lines side by side, maybe across two runs
        lines.sort(key=lambda line: json.loads(line)["case_id"])
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(InputError) as expected:
        label_artifacts(load_artifacts(capture), artifacts_source=str(capture))
    with pytest.raises(InputError) as found:
        score_capture(iter_capture_lines(capture), k=5, artifacts_source=str(capture))
    assert "second artifact" in str(expected.value)
    assert str(found.value) == str(expected.value)


@pytest.mark.parametrize("copied", [0, 5_000], ids=["no kernel copy", "a part, then refused"])
def test_the_results_file_is_whole_when_the_kernel_copy_fails_part_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, copied: int
) -> None:
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(capture_lines(200)), encoding="utf-8")

    def score(name: str) -> bytes:
        with ResultsWriter(tmp_path / name) as writer:
            scored = score_capture(
                iter_capture_lines(capture), k=5, artifacts_source="x", results=writer
            )
            writer.finish(k=5, provenance=PROVENANCE, aggregates=scored.aggregates)
        return (tmp_path / name).read_bytes()

    whole = score("kernel.json")
    real = os.copy_file_range
    calls: list[int] = []

    def refusing(src: int, dst: int, count: int, offset_src: int | None = None) -> int:
        calls.append(count)
        if len(calls) == 1 and copied:
            return real(src, dst, copied, offset_src)
        raise OSError(errno.EXDEV, "cross-device")

    monkeypatch.setattr(os, "copy_file_range", refusing)
    assert score("blocks.json") == whole
    assert calls


def test_a_second_line_in_a_run_of_smaller_ids_still_comes_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(scoring, "_RUN", 2)
    line = '{{"case_id": "{}", "retrieved": ["a"], "language": "en", "case_type": "golden", '
    line += '"must_cite_one_of": ["a"]}}\n'
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(line.format(c) for c in ["z", "m", "a", "m"]), encoding="utf-8")
    with pytest.raises(
        InputError, match=r"run.jsonl:4: second artifact for case 'm' \(first on line 2\)"
    ):
        score_capture(iter_capture_lines(capture), k=5, artifacts_source=str(capture))


def test_a_missed_case_s_results_record_keeps_what_the_retriever_said_of_its_cards(
    tmp_path: Path,
) -> None:
    label = {"language": "en", "case_type": "golden", "must_cite_one_of": ["en/gold"]}
    lines = [
        {
            "case_id": "missed",
            "retrieved": [
                {"id": "chroma-17", "parent_id": "en/b", "metadata": {"source": "docs/en/b.md"}},
                "en/c",
            ],
            **label,
        },
        {"case_id": "hit", "retrieved": [{"id": "chroma-3", "parent_id": "en/gold"}], **label},
    ]
    capture = tmp_path / "run.jsonl"
    capture.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with ResultsWriter(tmp_path / "results.json") as writer:
        scored = score_capture(
            iter_artifacts(capture), k=5, artifacts_source=str(capture), results=writer
        )
        writer.finish(k=5, provenance=PROVENANCE, aggregates=scored.aggregates)
    cases = {
        c["case_id"]: c
        for c in json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))["cases"]
    }
    assert cases["missed"]["retrieved_detail"] == {
        "en/b": {"chunk_id": "chroma-17", "metadata": "source: docs/en/b.md"}
    }
    # A hit needs no "what came back instead": its record keeps its bytes.
    assert "retrieved_detail" not in cases["hit"]
    assert [m.model_dump(mode="json")["retrieved_detail"] for m in scored.missed] == [
        cases["missed"]["retrieved_detail"]
    ]
