"""The baseline record and its store: deterministic bytes, atomic writes,
clear refusals, and reading a baseline as it is at a git revision."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import pytest

from git_repo import git, needs_git
from recall_gate.adapters.baseline_store import (
    dump_baseline,
    parse_baseline,
    read_baseline,
    read_baseline_at_ref,
    read_current_results,
    write_baseline,
)
from recall_gate.adapters.results_store import write_results
from recall_gate.core.aggregate import aggregate
from recall_gate.core.baseline import Baseline, make_baseline, normalise_timestamp
from recall_gate.core.evaluate import score_case
from recall_gate.core.records import CaseLabel, Provenance, Results
from recall_gate.errors import InputError

SHA = "0123456789abcdef0123456789abcdef01234567"
RESTORE = (
    "restore it with `git checkout -- {p}`, or re-create it with `recall-gate baseline update`"
)


def _results() -> Results:
    labels = [
        CaseLabel(id="a", language="en", case_type="golden", must_cite_one_of=("x",)),
        CaseLabel(id="b", language="pt-BR", case_type="adversarial", must_cite_one_of=("y", "z")),
        CaseLabel(id="c", language="es-419", case_type="capability"),
    ]
    rankings = [["n", "x"], ["z", "n", "n2"], ["q"]]
    cases = [score_case(label, r, k=3) for label, r in zip(labels, rankings, strict=True)]
    return Results(
        k=3,
        provenance=Provenance(tool_version="0.1.0", dataset_fingerprint="sha256:ds"),
        cases=tuple(cases),
        aggregates=aggregate(cases),
    )


def _baseline(**overrides: str) -> Baseline:
    fields = {"created_at": "2026-05-01T12:00:00Z", "git_sha": SHA, "reason": "first", **overrides}
    return make_baseline(
        _results(),
        created_at=fields["created_at"],
        git_sha=fields["git_sha"],
        reason=fields["reason"],
    )


def _message(exc: pytest.ExceptionInfo[InputError]) -> tuple[str, str]:
    return exc.value.message, exc.value.fix


# --- the record ------------------------------------------------------------------


def test_a_baseline_is_results_plus_kind_created_at_sha_and_reason() -> None:
    baseline = _baseline(reason="new  KB\nrelease")
    assert isinstance(baseline, Results)
    assert baseline.kind == "recall-gate-baseline"
    assert baseline.reason == "new KB release"  # one line
    assert baseline.cases == _results().cases


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("2026-05-01T12:00:00Z", "2026-05-01T12:00:00Z"),
        ("2026-05-01T14:00:00.123+02:00", "2026-05-01T12:00:00Z"),
        ("2026-05-01 12:00:00+00:00", "2026-05-01T12:00:00Z"),
    ],
)
def test_created_at_is_stored_as_utc_seconds(given: str, stored: str) -> None:
    assert normalise_timestamp(given) == stored


def test_a_timestamp_without_timezone_is_refused() -> None:
    with pytest.raises(ValueError, match="has no timezone"):
        normalise_timestamp("2026-05-01T12:00:00")


def test_git_sha_must_be_hexadecimal() -> None:
    with pytest.raises(ValueError, match="hexadecimal git commit SHA"):
        _baseline(git_sha="main")
    assert _baseline(git_sha=SHA.upper()).git_sha == SHA


# --- bytes -----------------------------------------------------------------------


def test_dump_is_deterministic_sorted_rounded_with_a_trailing_newline() -> None:
    text = dump_baseline(_baseline())
    assert text == dump_baseline(_baseline())
    assert text.endswith("}\n")
    data = json.loads(text)
    assert list(data) == sorted(data)
    # nDCG of "x" at rank 2 = 1/log2(3) = 0.6309297535714574 → 6 digits.
    assert data["cases"][0]["metrics"]["retrieval_ndcg_at_k"] == 0.63093


def test_write_then_read_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "baselines" / "default.json"
    written = write_baseline(path, _baseline())
    stored = read_baseline(path)
    assert stored is not None
    assert stored.text == written
    assert dump_baseline(stored.baseline) == written
    assert sorted(p.name for p in path.parent.iterdir()) == ["default.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "default.json"
    old = write_baseline(path, _baseline())

    def crash(src: str, dst: str) -> None:
        raise KeyboardInterrupt  # a kill between write and rename

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write_baseline(path, _baseline(reason="second"))
    assert path.read_text(encoding="utf-8") == old
    assert [p.name for p in tmp_path.iterdir()] == ["default.json"]


def test_no_file_means_no_baseline_yet(tmp_path: Path) -> None:
    assert read_baseline(tmp_path / "missing.json") is None


# --- refusals ---------------------------------------------------------------------


def test_corrupted_json_names_the_file_and_the_fix() -> None:
    with pytest.raises(InputError) as exc:
        parse_baseline('{"kind": ', source="baselines/default.json")
    assert _message(exc) == (
        "baselines/default.json: corrupted baseline: invalid JSON (Expecting value, line 1)",
        RESTORE.format(p="baselines/default.json"),
    )


def test_a_results_file_is_not_a_baseline() -> None:
    text = _results().model_dump_json()
    with pytest.raises(InputError) as exc:
        parse_baseline(text, source="results.json")
    assert _message(exc) == (
        "results.json: is a results file, not a baseline",
        "make it a baseline: `recall-gate baseline update --results results.json "
        "--out baselines/<profile>.json --reason TEXT`",
    )


def test_any_other_json_is_not_a_baseline() -> None:
    with pytest.raises(InputError) as exc:
        parse_baseline('{"name": "package.json"}', source="b.json")
    assert (
        exc.value.message
        == 'b.json: not a recall-gate baseline (no "kind": "recall-gate-baseline")'
    )


def test_a_newer_schema_asks_for_an_upgrade() -> None:
    data = json.loads(dump_baseline(_baseline()))
    data["schema_version"] = 99
    with pytest.raises(InputError) as exc:
        parse_baseline(json.dumps(data), source="b.json")
    assert _message(exc) == (
        "b.json: baseline schema_version 99 is newer than this recall-gate reads (1)",
        "upgrade recall-gate (`pip install -U recall-gate`), "
        "or pin the action to the version that wrote the baseline",
    )


def test_a_missing_field_is_named() -> None:
    data = json.loads(dump_baseline(_baseline()))
    del data["created_at"]
    with pytest.raises(InputError) as exc:
        parse_baseline(json.dumps(data), source="b.json")
    assert exc.value.message == (
        "b.json: corrupted baseline: field `created_at`: required field is missing"
    )


def test_aggregates_edited_by_hand_are_refused() -> None:
    data = json.loads(dump_baseline(_baseline()))
    data["aggregates"]["overall"]["retrieval_hit_at_k"]["mean"] = 0.99
    with pytest.raises(InputError) as exc:
        parse_baseline(json.dumps(data), source="b.json")
    assert exc.value.message == (
        "b.json: corrupted baseline: aggregates.overall.retrieval_hit_at_k says mean "
        "0.990000 (n=2) but its cases give 1.000000 (n=2) (edited by hand?)"
    )


def test_a_duplicated_case_is_refused() -> None:
    data = json.loads(dump_baseline(_baseline()))
    data["cases"].append(data["cases"][0])
    with pytest.raises(InputError, match="case 'a' appears twice"):
        parse_baseline(json.dumps(data), source="b.json")


def test_current_results_may_be_a_results_file_or_a_baseline(tmp_path: Path) -> None:
    write_results(tmp_path / "r.json", _results())
    write_baseline(tmp_path / "b.json", _baseline())
    ids = [c.case_id for c in _results().cases]
    assert [c.case_id for c in read_current_results(tmp_path / "r.json").cases] == ids
    as_results = read_current_results(tmp_path / "b.json")
    assert isinstance(as_results, Baseline)
    assert [c.case_id for c in as_results.cases] == ids


# --- at a git revision ---------------------------------------------------------------


def _repo_with(tmp_path: Path, files: Sequence[tuple[str, str]]) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for name, text in files:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", "base")
    return repo


@needs_git
def test_reads_the_baseline_as_it_is_at_a_revision(tmp_path: Path) -> None:
    text = dump_baseline(_baseline())
    repo = _repo_with(tmp_path, [("baselines/default.json", text)])
    write_baseline(repo / "baselines/default.json", _baseline(reason="edited in the PR"))
    stored = read_baseline_at_ref(Path("baselines/default.json"), ref="main", cwd=repo)
    assert stored is not None
    assert stored.text == text
    assert stored.source == "main:baselines/default.json"
    assert stored.baseline.reason == "first"


@needs_git
def test_a_path_missing_at_the_revision_is_no_baseline_yet(tmp_path: Path) -> None:
    repo = _repo_with(tmp_path, [("README", "x")])
    assert read_baseline_at_ref(Path("baselines/default.json"), ref="main", cwd=repo) is None


@needs_git
def test_an_unknown_revision_says_to_fetch_it(tmp_path: Path) -> None:
    repo = _repo_with(tmp_path, [("README", "x")])
    with pytest.raises(InputError) as exc:
        read_baseline_at_ref(Path("baselines/default.json"), ref="origin/main", cwd=repo)
    assert _message(exc) == (
        "--baseline-ref origin/main: unknown git revision (not fetched?)",
        "fetch it first: `actions/checkout` with `fetch-depth: 0`, "
        "or `git fetch origin origin/main`",
    )


@needs_git
def test_a_corrupted_baseline_at_the_revision_names_ref_and_path(tmp_path: Path) -> None:
    repo = _repo_with(tmp_path, [("baselines/default.json", "{oops")])
    with pytest.raises(InputError) as exc:
        read_baseline_at_ref(Path("baselines/default.json"), ref="main", cwd=repo)
    assert exc.value.message.startswith("main:baselines/default.json: corrupted baseline")
    assert exc.value.fix == RESTORE.format(p="baselines/default.json")


@pytest.mark.parametrize("ref", ["--output=x", "main branch", ""])
def test_an_option_like_or_blank_ref_is_refused_before_git_runs(tmp_path: Path, ref: str) -> None:
    with pytest.raises(InputError, match="not a commit SHA or a git ref name"):
        read_baseline_at_ref(Path("b.json"), ref=ref, cwd=tmp_path)


@needs_git
def test_outside_a_work_tree_the_ref_cannot_be_read(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not inside a git work tree"):
        read_baseline_at_ref(Path("b.json"), ref="main", cwd=tmp_path)


def test_atomic_write_gives_a_new_file_shareable_permissions_and_keeps_existing_ones(
    tmp_path: Path,
) -> None:
    from recall_gate.adapters.files import atomic_write_text

    fresh = tmp_path / "fresh.json"
    atomic_write_text(fresh, "{}\n")
    assert fresh.stat().st_mode & 0o077 != 0  # readable by others (umask permitting), not 0600
    kept = tmp_path / "kept.json"
    kept.write_text("old\n")
    kept.chmod(0o640)
    atomic_write_text(kept, "new\n")
    assert kept.stat().st_mode & 0o777 == 0o640
    assert kept.read_text() == "new\n"
