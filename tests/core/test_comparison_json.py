"""The comparison JSON is a typed, versioned document: written from one
comparison, validated when read back, refused when tampered with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from factories import baseline_of, case, results
from recall_gate.adapters.files import atomic_write_text, dump_json
from recall_gate.adapters.results_store import read_comparison
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult
from recall_gate.errors import InputError


def many(n: int, rank: int | None, *, prefix: str = "c") -> list[CaseResult]:
    return [case(f"{prefix}{i:03d}", rank) for i in range(n)]


def document() -> ComparisonDocument:
    base = baseline_of(many(20, 1))
    cur = results(many(18, 1) + many(2, None, prefix="z"))
    comparison = compare_to_baseline(
        current=cur, baseline=base, baseline_path="baselines/default.json"
    )
    verdict = judge_comparison(
        comparison, floors=Floors({HIT: 0.5}), tolerances=Tolerances.every(0.5)
    )
    return comparison_document(comparison, verdict, profile="default")


def test_comparison_json_carries_the_action_outputs_and_details() -> None:
    payload = document().model_dump(mode="json")
    assert payload["kind"] == "recall-gate-comparison"
    assert payload["schema_version"] == 5
    assert payload["verdict"] == "pass"
    assert payload["regressions"] == 0
    assert (payload["metrics"]["hit"], payload["n"]) == (0.9, 20)
    assert set(payload["metrics"]) == {"hit", "recall", "ndcg"}
    assert payload["baseline"]["status"] == "ok"
    assert payload["baseline"]["source"] == "baselines/default.json"
    assert payload["gate"]["floors"] == {"hit": 0.5}
    assert payload["gate"]["tolerances"] == {
        "hit": 0.5, "recall": 0.5, "ndcg": 0.5, "mrr": 0.5, "precision": 0.5
    }  # fmt: skip
    assert payload["cases"] == {
        "compared": 18,
        "added": ["z000", "z001"],
        "removed": ["c018", "c019"],
        "relabelled": [],
    }
    assert set(payload) == {
        "kind", "schema_version", "profile", "k", "verdict", "regressions", "would_fail",
        "metrics", "n", "n_cases", "delta", "baseline", "gate",
        "would_fail_detail", "suggested_floors", "suggested_detail", "deltas", "flips",
        "missed", "cases", "run", "pull_request", "labels", "gates", "calibration",
    }  # fmt: skip
    # The metric labels are built once, here: every surface reads them.
    assert payload["labels"]["retrieval_hit_at_k"] == "hit@5"
    assert payload["labels"]["retrieval_ndcg_at_k"] == "nDCG@5"
    # Everything the report says is in the document: it is rendered from it.
    assert payload["run"]["scored"] == 20
    assert [g["group"] for g in payload["run"]["groups"]] == [
        "overall",
        "case_type:golden",
        "language:en",
    ]
    assert [m["retrieved"] for m in payload["missed"]] == [
        ["noise-z000-0", "noise-z000-1", "noise-z000-2", "noise-z000-3", "noise-z000-4"],
        ["noise-z001-0", "noise-z001-1", "noise-z001-2", "noise-z001-3", "noise-z001-4"],
    ]


def test_a_written_comparison_reads_back_equal(tmp_path: Path) -> None:
    doc = document()
    path = tmp_path / "comparison.json"
    atomic_write_text(path, dump_json(doc.model_dump(mode="json")))
    assert read_comparison(path) == ComparisonDocument.model_validate(
        json.loads(path.read_text(encoding="utf-8"))
    )
    assert read_comparison(path).model_dump(mode="json") == json.loads(
        dump_json(doc.model_dump(mode="json"))
    )


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda d: d.update(verdict="great"), "verdict"),
        (lambda d: d.update(extra="x"), "extra"),
        (lambda d: d["gate"].update(regressions="none"), "gate.regressions"),
        (lambda d: d.update(schema_version=1), "schema_version"),
        (lambda d: d.pop("baseline"), "baseline"),
    ],
)
def test_a_tampered_comparison_is_refused_naming_the_field(
    tmp_path: Path, tamper: object, message: str
) -> None:
    data = document().model_dump(mode="json")
    assert callable(tamper)
    tamper(data)
    path = tmp_path / "comparison.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(InputError, match=message) as raised:
        read_comparison(path)
    assert "--comparison-json" in raised.value.fix


def test_a_file_that_is_not_a_comparison_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"schema_version": 1, "k": 5}', encoding="utf-8")
    with pytest.raises(InputError, match="not a recall-gate comparison"):
        read_comparison(path)


@pytest.mark.parametrize(
    ("max_regression", "tolerances"),
    [
        (0.05, {"hit": 0.05, "recall": 0.05, "ndcg": 0.05, "mrr": 0.05, "precision": 0.05}),
        (None, {}),
    ],
)
def test_a_version_4_comparison_still_reads_its_one_tolerance_as_every_metrics(
    tmp_path: Path, max_regression: float | None, tolerances: dict[str, float]
) -> None:
    payload = document().model_dump(mode="json")
    gate = {key: value for key, value in payload["gate"].items() if key != "tolerances"}
    old = {**payload, "schema_version": 4, "gate": {**gate, "max_regression": max_regression}}
    path = tmp_path / "comparison.json"
    atomic_write_text(path, dump_json(old))
    read = read_comparison(path)
    assert read.schema_version == 5
    assert read.gate.tolerances == tolerances


def test_the_document_carries_the_citation_outcomes_with_a_baseline_too() -> None:
    doc = document()
    assert doc.baseline.status == "ok"
    assert doc.run.citation is None  # no case's citations were captured
    cases = [case(f"c{i:03d}", 1 if i % 2 else None) for i in range(6)]
    cited = [
        c.model_copy(
            update={"citation_outcome": "retrieval_miss" if c.metrics["retrieval_hit_at_k"] == 0
                    else ("ok" if i % 3 else "citation_miss")}
        )
        for i, c in enumerate(cases)
    ]  # fmt: skip
    comparison = compare_to_baseline(
        current=results(cited), baseline=baseline_of(cases), baseline_path="b.json"
    )
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=Tolerances())
    payload = comparison_document(comparison, verdict, profile="default").model_dump(mode="json")
    assert payload["baseline"]["status"] == "ok"
    assert payload["run"]["citation"] == {"ok": 2, "retrieval_miss": 3, "citation_miss": 1}


def test_a_document_without_labels_gets_them_from_its_k() -> None:
    payload = document().model_dump(mode="json")
    del payload["labels"]
    assert ComparisonDocument.model_validate(payload).label("retrieval_hit_at_k") == "hit@5"
