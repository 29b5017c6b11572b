"""An unknown config key gets "did you mean …": the closest key the config knows
at that place, named with the file, through the command line (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import run_cli


@pytest.mark.parametrize(
    ("text", "field", "suggestion"),
    [
        ("kk: 5\n", "kk", "k"),
        ("gate:\n  flors: {hit: 0.8}\n", "gate.flors", "gate.floors"),
        (
            "retrieval:\n  hybrid:\n    rrf_kk: 60\n",
            "retrieval.hybrid.rrf_kk",
            "retrieval.hybrid.rrf_k",
        ),
        ("capture:\n  retriver: app:build\n", "capture.retriver", "capture.retriever"),
        # Near an old spelling: the key it now means, not the deprecated one.
        ("gate:\n  min_hits: 0.8\n", "gate.min_hits", "gate.floors.hit"),
        ("gate:\n  min_ndgc: 0.6\n", "gate.min_ndgc", "gate.floors.ndcg"),
    ],
)
def test_an_unknown_config_key_suggests_the_closest_known_key(
    tmp_path: Path, text: str, field: str, suggestion: str
) -> None:
    (tmp_path / "recall-gate.yaml").write_text(text, encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 2
    assert "Traceback" not in done.err
    assert f"recall-gate.yaml: field `{field}`: unknown field; did you mean `{suggestion}`?" in (
        done.err
    )


def test_an_unknown_config_key_like_no_known_key_gets_no_guess(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("zzzzzz: 1\n", encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 2
    assert "field `zzzzzz`: unknown field (check its spelling)" in done.err
    assert "did you mean" not in done.err


def test_a_set_override_with_a_typo_gets_the_same_suggestion(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("k: 5\n", encoding="utf-8")

    done = run_cli(["check", "--set", "retrieval.mdoe=hybrid"], cwd=tmp_path)

    assert done.code == 2
    assert "field `retrieval.mdoe`: unknown field; did you mean `retrieval.mode`?" in done.err


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("gate:\n  floors: {htt: 0.8}\n", "gate.floors"),
        ("gate:\n  max_regression: {htt: 0.05}\n", "gate.max_regression"),
        ("metrics: [htt]\n", "metrics"),
    ],
)
def test_an_unknown_metric_name_in_the_config_suggests_the_closest_metric(
    tmp_path: Path, text: str, field: str
) -> None:
    (tmp_path / "recall-gate.yaml").write_text(text, encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 2
    assert (
        f"field `{field}`: unknown metric 'htt' (known: hit, recall, ndcg, mrr, precision); "
        in (done.err)
    )
    assert "did you mean 'hit'?" in done.err
