"""The noise rule and the named cases end to end: `score` → `baseline update` →
`compare`, in process, files under tmp_path (synthetic cases)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from cli_runner import CliRun, run_cli


def cli(argv: Sequence[str], cwd: Path) -> CliRun:
    return run_cli(argv, cwd=cwd)


def capture(path: Path, ranks: Mapping[str, tuple[str, int | None]]) -> Path:
    """One self-contained line per case: id → (language, rank of its gold card)."""
    lines = []
    for case_id, (language, rank) in ranks.items():
        retrieved = [f"other-{case_id}-{j}" for j in range(5)]
        if rank is not None:
            retrieved[rank - 1] = f"card-{case_id}"
        lines.append(
            {
                "case_id": case_id,
                "query": f"synthetic question about {case_id} | with a `pipe`",
                "retrieved": retrieved,
                "language": language,
                "case_type": "golden",
                "must_cite_one_of": [f"card-{case_id}"],
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def scored(tmp_path: Path, name: str, ranks: Mapping[str, tuple[str, int | None]]) -> Path:
    out = tmp_path / f"{name}.json"
    run = cli(["score", "--artifacts", str(capture(tmp_path / f"{name}.jsonl", ranks)),
               "--json", str(out)], tmp_path)  # fmt: skip
    assert run.code == 0, run.err
    return out


def make_baseline(tmp_path: Path, ranks: Mapping[str, tuple[str, int | None]]) -> None:
    results = scored(tmp_path, "base", ranks)
    run = cli(["baseline", "update", "--results", str(results), "--created-at",
               "2026-05-01T00:00:00Z", "--git-sha", "0" * 40], tmp_path)  # fmt: skip
    assert run.code == 0, run.err


def compare(tmp_path: Path, current: Path, *extra: str) -> tuple[CliRun, str, dict[str, object]]:
    run = cli(["compare", "--current", str(current), "--markdown", "comment.md",
               "--json", "comparison.json", *extra], tmp_path)  # fmt: skip
    comment = (tmp_path / "comment.md").read_text(encoding="utf-8") if run.code < 2 else ""
    payload = json.loads((tmp_path / "comparison.json").read_text()) if run.code < 2 else {}
    return run, comment, payload


def test_a_small_group_drop_while_overall_improves_is_exempt_and_names_its_case(
    tmp_path: Path,
) -> None:
    base = {f"en-{i:02d}": ("en", 1 if i < 17 else None) for i in range(20)}
    base |= {"es-a": ("es-419", 1), "es-b": ("es-419", 1)}
    make_baseline(tmp_path, base)
    cur = {f"en-{i:02d}": ("en", 1) for i in range(20)}  # three misses recovered
    cur |= {"es-a": ("es-419", 3), "es-b": ("es-419", 1)}  # nDCG 1.0 → 0.75
    run, comment, payload = compare(tmp_path, scored(tmp_path, "cur", cur), "--max-regression",
                                    "0.05")  # fmt: skip
    assert run.code == 0, run.out + run.err
    assert (
        "➖ language es-419: nDCG@5 1.000 → 0.750 (−0.250, n < 10, not tested) — n = 2, "
        "beyond the 0.050 tolerance (max-regression), exempt: n = 2 is below min-group-n 10, "
        "too few cases to gate; 1 case behind it"
    ) in comment
    assert (
        "| es-a | synthetic question about es-a \\| with a \\`pipe\\` | es-419 | golden "
        "| card-es-a | 1 → 3 | nDCG@5 1.000 → 0.500 |"
    ) in comment
    assert "Passed: no drop beyond the 0.050 tolerance fails the gate" in run.out
    gate = payload["gate"]
    assert isinstance(gate, dict)
    (row,) = gate["exempt"]
    assert row["status"] == "exempt_small_n"
    assert [(c["case_id"], c["rank_before"], c["rank_after"]) for c in row["cases"]] == [
        ("es-a", 1, 3)
    ]


def test_overall_losing_fifteen_percent_of_its_hits_within_noise_is_exempt_and_named(
    tmp_path: Path,
) -> None:
    # 3 of 20 lost: one-sided p = 1/8, within noise; overall needs its significance too.
    base = {f"c-{i:02d}": ("en", 2) for i in range(20)}
    make_baseline(tmp_path, base)
    lost = ("c-03", "c-07", "c-11")
    cur = {case_id: ("en", None if case_id in lost else 2) for case_id in base}
    run, _, payload = compare(tmp_path, scored(tmp_path, "cur", cur), "--max-regression", "0.05")
    assert run.code == 0, run.out
    gate = payload["gate"]
    assert isinstance(gate, dict)
    hit = next(
        r for r in gate["exempt"] if (r["metric"], r["group"]) == ("retrieval_hit_at_k", "overall")
    )
    assert hit["status"] == "exempt_not_significant"
    assert [c["case_id"] for c in hit["cases"]] == list(lost)


def test_overall_held_within_noise_fails_and_names_every_lost_case(tmp_path: Path) -> None:
    base = {f"c-{i:02d}": ("en", 2) for i in range(20)}
    make_baseline(tmp_path, base)
    lost = ("c-03", "c-07", "c-11")
    cur = {case_id: ("en", None if case_id in lost else 2) for case_id in base}
    run, comment, payload = compare(tmp_path, scored(tmp_path, "cur", cur), "--max-regression",
                                    "0.05", "--require-significance", "false")  # fmt: skip
    assert run.code == 1
    assert "hit@5 1.000 → 0.850 (−0.150, within noise)" in run.out
    for case_id in lost:
        row = (
            f"| {case_id} | synthetic question about {case_id} \\| with a \\`pipe\\` | en | "
            f"golden | card-{case_id} | 2 → out of top 5 | hit@5 1 → 0 |"
        )
        assert row in comment
        assert f"{case_id}  synthetic question about {case_id}" in run.out.replace("|", " ")
    gate = payload["gate"]
    assert isinstance(gate, dict)
    hit = next(r for r in gate["regressions"] if r["metric"] == "retrieval_hit_at_k")
    assert [c["case_id"] for c in hit["cases"]] == list(lost)
    assert {c["direction"] for c in hit["cases"]} == {"lost"}


def test_require_significance_false_fails_a_subgroup_drop_within_noise(tmp_path: Path) -> None:
    base = {f"en-{i:02d}": ("en", 1) for i in range(30)}
    base |= {f"pt-{i:02d}": ("pt-BR", 1) for i in range(12)}
    make_baseline(tmp_path, base)
    cur = base | {"pt-00": ("pt-BR", None)}
    current = scored(tmp_path, "cur", cur)
    lenient, _, _ = compare(tmp_path, current, "--max-regression", "0.05")
    strict, comment, _ = compare(tmp_path, current, "--max-regression", "0.05",
                                 "--require-significance", "false")  # fmt: skip
    assert lenient.code == 0
    assert strict.code == 1
    assert "❌ language pt-BR: hit@5 1.000 → 0.917" in comment


def test_min_group_n_comes_from_the_config_and_the_flag_wins(tmp_path: Path) -> None:
    base = {f"en-{i:02d}": ("en", 1) for i in range(7)}
    make_baseline(tmp_path, base)
    # 6 of 7 lost, none gained: report-level p = 2^-6, likely real once tested.
    current = scored(tmp_path, "cur", base | {f"en-0{i}": ("en", None) for i in range(6)})
    (tmp_path / "recall-gate.yaml").write_text("gate:\n  min_group_n: 5\n", encoding="utf-8")
    from_config, _, _ = compare(tmp_path, current, "--max-regression", "0.05")
    from_flag, _, _ = compare(tmp_path, current, "--max-regression", "0.05", "--min-group-n", "8")
    assert from_config.code == 1  # overall n = 7 ≥ 5
    assert from_flag.code == 0  # 7 < 8: exempt


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--min-group-n", "0"],
            "recall-gate: error: recall-gate compare: argument --min-group-n: "
            "must be a positive integer, got 0",
        ),
        (
            ["--require-significance", "maybe"],
            "recall-gate: error: recall-gate compare: argument --require-significance: "
            "expected true or false, got 'maybe'",
        ),
    ],
)
def test_bad_noise_settings_on_the_command_line_exit_2(
    tmp_path: Path, flags: list[str], message: str
) -> None:
    base = {f"en-{i:02d}": ("en", 1) for i in range(3)}
    make_baseline(tmp_path, base)
    current = scored(tmp_path, "cur", base)
    run = cli(["compare", "--current", str(current), *flags], tmp_path)
    assert run.code == 2
    assert run.err.splitlines()[0] == message


@pytest.mark.parametrize(
    ("setting", "field"),
    [
        ("min_group_n: 0", "gate.min_group_n"),
        ("require_significance: maybe", "gate.require_significance"),
    ],
)
def test_bad_noise_settings_in_the_config_exit_2(tmp_path: Path, setting: str, field: str) -> None:
    base = {f"en-{i:02d}": ("en", 1) for i in range(3)}
    make_baseline(tmp_path, base)
    current = scored(tmp_path, "cur", base)
    (tmp_path / "recall-gate.yaml").write_text(f"gate:\n  {setting}\n", encoding="utf-8")
    run = cli(["compare", "--current", str(current)], tmp_path)
    assert run.code == 2
    assert field in run.err
    assert "Traceback" not in run.err


def test_the_first_report_without_a_baseline_lists_the_missed_cases(tmp_path: Path) -> None:
    ranks = {"en-00": ("en", 1), "en-01": ("en", None), "pt-00": ("pt-BR", None)}
    current = scored(tmp_path, "cur", ranks)
    run, comment, payload = compare(tmp_path, current)
    assert run.code == 0
    assert "<details><summary>Missed cases (hit@5 = 0): 2</summary>" in comment
    assert (
        "| pt-00 | synthetic question about pt-00 \\| with a \\`pipe\\` | pt-BR | golden "
        "| card-pt-00 | out of top 5 |"
    ) in comment
    assert [m["case_id"] for m in payload["missed"]] == ["en-01", "pt-00"]  # type: ignore[attr-defined]
    local = cli(["score", "--artifacts", str(tmp_path / "cur.jsonl"), "--cases",
                 str(cases_file(tmp_path, ranks))], tmp_path)  # fmt: skip
    assert local.code == 0, local.err
    assert "Missed cases (hit@5 = 0): 2" in local.out
    assert "en-01  synthetic question about en-01" in local.out.replace("|", " ")


def cases_file(tmp_path: Path, ranks: Mapping[str, tuple[str, int | None]]) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text(
        "".join(
            json.dumps(
                {
                    "id": case_id,
                    "language": language,
                    "case_type": "golden",
                    "query": f"synthetic question about {case_id} | with a `pipe`",
                    "must_cite_one_of": [f"card-{case_id}"],
                }
            )
            + "\n"
            for case_id, (language, _) in ranks.items()
        ),
        encoding="utf-8",
    )
    return path


def test_the_noise_settings_come_from_the_action_environment_and_are_checked(
    tmp_path: Path,
) -> None:
    base = {f"en-{i:02d}": ("en", 1) for i in range(7)}
    make_baseline(tmp_path, base)
    current = scored(tmp_path, "cur", base | {f"en-0{i}": ("en", None) for i in range(6)})

    def run_with(environ: dict[str, str]) -> CliRun:
        argv = ["compare", "--current", str(current), "--max-regression", "0.05"]
        return run_cli(argv, cwd=tmp_path, environ=environ)

    assert run_with({"RECALL_GATE_MIN_GROUP_N": "5"}).code == 1  # overall n = 7 ≥ 5
    assert run_with({"RECALL_GATE_MIN_GROUP_N": ""}).code == 0  # empty input: default 10
    bad = run_with({"RECALL_GATE_REQUIRE_SIGNIFICANCE": "perhaps"})
    assert bad.code == 2
    assert bad.err.startswith(
        "recall-gate: error: RECALL_GATE_REQUIRE_SIGNIFICANCE='perhaps' "
        "(the action input `require-significance`): expected true or false, got 'perhaps'"
    )
    zero = run_with({"RECALL_GATE_MIN_GROUP_N": "0"})
    assert zero.code == 2
    assert "RECALL_GATE_MIN_GROUP_N='0' (the action input `min-group-n`)" in zero.err
