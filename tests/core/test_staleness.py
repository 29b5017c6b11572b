"""Staleness in words: recorded settings are diffed, never shown as hashes."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.staleness import SettingValue, diff_settings, flatten_settings


def test_settings_are_flattened_to_section_dot_key() -> None:
    payload = {"k": 5, "chunking": {"max_chars": 500, "title": "every"}, "tags": ["a", "b"]}
    assert flatten_settings(payload) == {
        "k": 5,
        "chunking.max_chars": 500,
        "chunking.title": "every",
        "tags": "a, b",
    }


def test_a_settings_diff_names_each_setting_in_words_in_a_fixed_order() -> None:
    old: dict[str, SettingValue] = {
        "chunking.max_chars": 500,
        "retrieval.same_language": False,
        "zeta": 1,
    }
    new: dict[str, SettingValue] = {
        "chunking.max_chars": 120,
        "retrieval.same_language": True,
        "embedder.query_prefix": "",
    }
    assert [(c.label, c.baseline, c.current) for c in diff_settings(old, new)] == [
        ("query prefix", None, "(empty)"),
        ("chunk size (characters)", "500", "120"),
        ("same-language search", "off", "on"),
        ("zeta", "1", None),
    ]


def test_a_stale_config_lists_the_changed_settings_minus_those_named_elsewhere() -> None:
    cases = [case("a", 1)]
    then = {"k": 5, "retrieval.mode": "dense", "chunking.max_chars": 500, "kb.cards": 38}
    now = {"k": 5, "retrieval.mode": "hybrid", "chunking.max_chars": 120, "kb.cards": 38}
    comparison = compare_to_baseline(
        current=results(
            cases, config_fingerprint="sha256:2", retrieval_mode="hybrid", settings=now
        ),
        baseline=baseline_of(
            cases, config_fingerprint="sha256:1", retrieval_mode="dense", settings=then
        ),
        baseline_path="b.json",
    )
    by_what = {s.what: s for s in comparison.stale}
    assert set(by_what) == {"config", "retrieval_mode"}
    assert [(c.setting, c.baseline, c.current) for c in by_what["config"].changes] == [
        ("chunking.max_chars", "500", "120")
    ]
