"""The one scorer: a capture streamed through `score_capture` into a `ResultsWriter`
gives the results file of the per-case chain (label → score_case → aggregate →
write_results), byte for byte, and the dataset fingerprint of its labels, while
writing each case before it reads the next."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from recall_gate.adapters.dataset import iter_artifacts, load_artifacts
from recall_gate.adapters.results_store import ResultsWriter, write_results
from recall_gate.adapters.scoring import score_capture
from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import score_case
from recall_gate.core.fingerprint import fingerprint_labels
from recall_gate.core.labels import label_artifacts
from recall_gate.core.records import Artifact, CaseLabel, CaseResult, Provenance, Results

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
    records = [score_case(label, a.ranked_card_ids(), k=k, cited=a.cited) for label, a in labelled]
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
