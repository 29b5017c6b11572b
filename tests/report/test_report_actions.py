"""What a comparison becomes in GitHub Actions: step outputs and annotations,
read from the validated comparison document. One named test per rule."""

from __future__ import annotations

from typing import Any

from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.report.actions import comparison_annotations, comparison_outputs

HIT = "retrieval_hit_at_k"
RECALL = "retrieval_recall_at_k"


def comparison(**overrides: Any) -> ComparisonDocument:
    """A valid comparison document; ``overrides`` replace whole top-level keys and
    the ``gate`` / ``baseline`` / ``would_fail_detail`` parts merge key by key."""
    payload: dict[str, Any] = {
        "kind": "recall-gate-comparison",
        "schema_version": 5,
        "profile": "default",
        "k": 5,
        "verdict": "pass",
        "regressions": 0,
        "would_fail": 0,
        "n": 16,
        "n_cases": 18,
        "metrics": {"hit": 0.8125, "recall": 0.75, "ndcg": 1.0},
        "delta": {"hit": 0.0, "recall": 0.0, "ndcg": 0.0},
        "baseline": {
            "status": "ok",
            "source": "baselines/default.json",
            "path": "baselines/default.json",
            "ref": None,
            "created_at": "2026-05-29T12:00:00Z",
            "git_sha": None,
            "reason": "test",
            "k": 5,
            "stale": [],
            "edited_in_pr": False,
            "edit": None,
            "overall": {},
            "latency": None,
        },
        "gate": {
            "tolerances": {},
            "min_group_n": 10,
            "require_significance": True,
            "floors": {},
            "failed_floors": [],
            "regressions": [],
            "exempt": [],
        },
        "would_fail_detail": {
            "tolerance": 0.05,
            "failed_floors": [],
            "regressions": [],
            "exempt": [],
        },
        "suggested_floors": {},
        "suggested_detail": [],
        "deltas": [],
        "flips": {"hit_to_miss": [], "miss_to_hit": [], "rank_moves": []},
        "missed": [],
        "cases": {"compared": 16, "added": [], "removed": [], "relabelled": []},
        "run": {
            "scored": 16,
            "unscored": 2,
            "short_of_k": 0,
            "gold_checked": True,
            "edited_queries": 0,
            "groups": [],
            "failed_cases": [],
            "latency": None,
        },
        "pull_request": None,
    }
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(payload.get(key), dict):
            payload[key] = {**payload[key], **value}
        else:
            payload[key] = value
    return ComparisonDocument.model_validate(payload)


def test_outputs_map_one_to_one_and_an_absent_mean_is_empty() -> None:
    assert comparison_outputs(
        comparison(metrics={"hit": 0.8125, "recall": 0.75, "ndcg": None})
    ) == {
        "verdict": "pass",
        "hit": "0.8125",
        "recall": "0.75",
        "ndcg": "",
        "n": "16",
        "regressions": "0",
        "profile": "default",
    }


def test_a_pass_with_an_ok_baseline_annotates_nothing() -> None:
    assert comparison_annotations(comparison()) == []


def test_failed_floors_and_regressions_are_errors() -> None:
    notes = comparison_annotations(
        comparison(
            verdict="fail",
            gate={
                "failed_floors": [{"metric": HIT, "floor": 0.9, "observed": 0.8125, "n": 16}],
                "regressions": [
                    {
                        "metric": RECALL,
                        "group": "language:en",
                        "baseline": 0.9,
                        "current": 0.8,
                        "delta": -0.1,
                        "n": 8,
                        "tolerance": 0.05,
                        "status": "failed",
                        "significant": True,
                        "cases": [],
                    }
                ],
            },
        )
    )
    # The report's own phrases: the floor line and the group's drop line.
    assert [(n.level, n.message) for n in notes] == [
        ("error", "hit@5 0.812 (n = 16) is below the floor 0.900 (min-hit)"),
        (
            "error",
            "language en: recall@5 0.900 → 0.800 (−0.100, likely real) — n = 8, "
            "beyond the 0.050 tolerance (max-regression), fails: likely real",
        ),
    ]


def drops(count: int) -> list[dict[str, Any]]:
    """``count`` regression records of hit@k, 1.0 → 0.5 in groups g0, g1, …"""
    return [
        {
            "metric": HIT,
            "group": f"g{i}",
            "baseline": 1.0,
            "current": 0.5,
            "delta": -0.5,
            "n": 4,
            "tolerance": 0.05,
            "status": "failed",
            "significant": True,
            "cases": [],
        }
        for i in range(count)
    ]


def test_report_only_gives_one_warning_with_what_would_fail() -> None:
    would = drops(5)
    notes = comparison_annotations(
        comparison(
            verdict="report-only",
            would_fail_detail={"regressions": would},
        )
    )
    [note] = notes
    assert note.level == "warning"
    assert note.message.startswith("5 check(s) would fail")
    assert "g0: hit@5 1.000 → 0.500" in note.message
    assert "g3:" not in note.message
    assert "and 2 more" in note.message


def test_a_missing_baseline_is_a_notice_and_a_stale_one_a_warning() -> None:
    [missing] = comparison_annotations(
        comparison(baseline={"status": "missing", "source": "baselines/x.json", "stale": []})
    )
    assert missing.level == "notice"
    assert missing.message.startswith(
        "No baseline yet for profile default: baselines/default.json does not exist"
    )
    [stale] = comparison_annotations(
        comparison(
            baseline={
                "status": "stale",
                "source": "b.json",
                "stale": [
                    {"what": "kb", "baseline": "sha256:1", "current": "sha256:2", "changes": []},
                    {
                        "what": "config",
                        "baseline": "sha256:3",
                        "current": "sha256:4",
                        "changes": [
                            {
                                "setting": "chunking.max_chars",
                                "label": "chunk size (characters)",
                                "baseline": "500",
                                "current": "120",
                            }
                        ],
                    },
                    {
                        "what": "embedder",
                        "baseline": "a@sha256:1",
                        "current": "b@sha256:2",
                        "changes": [],
                    },
                ],
            }
        )
    )
    assert stale.level == "warning"
    assert stale.message == (
        "Stale baseline: 3 changes since it was made (b.json): the knowledge base's card "
        "texts changed; chunk size (characters) 500 → 120; embedder a → b. The deltas include "
        "the effect of these changes. If they are intended, refresh the baseline (recall-gate "
        "baseline update, or the update-baseline workflow)."
    )


def test_more_than_ten_annotations_of_a_level_are_summarised() -> None:
    regressions = drops(14)
    notes = comparison_annotations(
        comparison(
            verdict="fail",
            gate={"regressions": regressions},
        )
    )
    assert len(notes) == 10
    assert notes[-1].message == "… and 5 more: see the job summary"


def test_a_regression_annotation_names_its_cases_and_an_exempt_row_is_a_notice() -> None:
    from factories import baseline_of, case, results
    from recall_gate.core.compare import compare_to_baseline
    from recall_gate.core.comparison_json import comparison_document
    from recall_gate.core.gate import Floors, Tolerances, judge_comparison

    base = [case(f"en-{i:02d}", 2) for i in range(20)]
    base += [case("es-a", 1, language="es-419"), case("es-b", 1, language="es-419")]
    cur = [case(f"en-{i:02d}", None if i < 3 else 2) for i in range(20)]
    cur += [case("es-a", 3, language="es-419"), case("es-b", 1, language="es-419")]
    compared = compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )
    # 3 of 22 lost is within noise: the team holds it to the tolerance anyway.
    verdict = judge_comparison(
        compared, floors=Floors(), tolerances=Tolerances.every(0.05), require_significance=False
    )
    notes = comparison_annotations(comparison_document(compared, verdict, profile="default"))
    # One annotation per failing group, all its metrics in one line, then its cases;
    # a group whose cases were named already refers to them instead of repeating them.
    overall, golden, english = [n for n in notes if n.level == "error"]
    assert english.message.startswith("language en: hit@5 1.000 → 0.850 (−0.150, within noise)")
    assert overall.message.startswith("overall: hit@5 1.000 → 0.864 (−0.136, within noise), ")
    assert overall.message.endswith(
        "; 4 cases behind it: en-00 (en, golden) rank 2 → out of top 5; "
        "en-01 (en, golden) rank 2 → out of top 5; en-02 (en, golden) rank 2 → out of top 5; "
        "es-a (es-419, golden) rank 1 → 3"
    )
    assert golden.message.startswith("type golden: hit@5 1.000 → 0.864")
    assert golden.message.endswith("; 4 cases behind it: the same cases as overall")
    exempt = [n for n in notes if n.level == "notice"]
    assert any(
        n.message.startswith("language es-419: nDCG@5 1.000 → 0.750")
        and "exempt: n = 2 is below min-group-n 10, too few cases to gate" in n.message
        and n.message.endswith(": es-a (es-419, golden) rank 1 → 3")
        for n in exempt
    )
