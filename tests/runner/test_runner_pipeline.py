"""``run_pipeline()`` end to end with real (in-memory) Chroma and a stand-in embedder.

The stand-in hashes words into a vector, so the pipeline (chunking, cache,
store, dense and hybrid retrieval, parent expansion, artifacts) runs in well
under a second with no model. The real model is exercised in tests/integration.
"""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from recall_gate.adapters.config import (
    CacheSettings,
    ChunkingSettings,
    Config,
    EmbedderSettings,
    RerankerSettings,
    RetrievalSettings,
    StoreSettings,
)
from recall_gate.adapters.dataset import load_artifacts
from recall_gate.adapters.results_store import dump_jsonl
from recall_gate.core.evaluate import score_case
from recall_gate.core.labels import label_artifacts
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.metrics import HIT
from recall_gate.core.records import Card, Case, RetrievedItem
from recall_gate.errors import InputError
from recall_gate.runner import STAGES, Embedder, PipelineRun, run_pipeline
from stand_in_embedder import HashingEmbedder

CARDS = [
    Card(
        id="en-parking",
        language="en",
        title="Parking",
        body="The garage on Elm Street is free for patients and their visitors.\n\n"
        "Validate the parking ticket at the front desk before you leave.",
    ),
    Card(
        id="en-refills",
        language="en",
        title="Prescription refills",
        body="Ask your pharmacy to send a refill request to the clinic for you.\n\n"
        "Refills take two business days once the doctor has approved them.",
    ),
    Card(
        id="es-estacionamiento",
        language="es-419",
        title="Estacionamiento",
        body="El garage de la calle Elm es gratis para pacientes.",
    ),
]
CASES = [
    Case(
        id="c-parking",
        language="en",
        case_type="golden",
        query="is the garage free for patients",
        must_cite_one_of=("en-parking",),
    ),
    Case(
        id="c-refill",
        language="en",
        case_type="adversarial",
        query="how many days does a refill take",
        must_cite_one_of=("en-refills",),
        relevant_ids=("en-refills", "en-parking"),
    ),
    Case(
        id="c-none",
        language="es-419",
        case_type="no_match",
        query="¿venden helados?",
        must_cite_one_of=(),
    ),
]


def config(tmp_path: Path, **update: object) -> Config:
    base = Config(
        k=2,
        chunking=ChunkingSettings(max_chars=100),  # each English card → 2 chunks
        store=StoreSettings(collection=f"t-{uuid.uuid4().hex[:12]}"),
        cache=CacheSettings(path=tmp_path / "cache"),
    )
    return base.model_copy(update=update)


def run(
    cfg: Config, embedder: Embedder | None = None, lines: list[str] | None = None
) -> PipelineRun:
    """``run_pipeline()`` of the reference cards and cases, quietly, log lines into ``lines``."""
    sink = lines if lines is not None else []
    return run_pipeline(
        cfg, CARDS, CASES, progress=False, log=sink.append, embedder=embedder or HashingEmbedder()
    )


def test_artifacts_carry_ranked_cards_and_the_case_fields(tmp_path: Path) -> None:
    captured = run(config(tmp_path))
    assert [a.case_id for a in captured.artifacts] == ["c-parking", "c-refill", "c-none"]
    first = captured.artifacts[0]
    assert first.ranked_card_ids()[0] == "en-parking"
    item = first.retrieved[0]
    assert isinstance(item, RetrievedItem)
    assert item.id.startswith("en-parking#")
    assert item.parent_id == "en-parking"
    assert item.score is not None
    assert -1.0 <= item.score <= 1.0
    # parent expansion: one item per card, all three cards found among the candidates
    assert sorted(first.ranked_card_ids()) == sorted(c.id for c in CARDS)
    second = captured.artifacts[1]
    assert (second.language, second.case_type, second.query) == (
        "en",
        "adversarial",
        "how many days does a refill take",
    )
    assert second.must_cite_one_of == ("en-refills",)
    assert second.relevant_ids == ("en-refills", "en-parking")
    assert set(second.timings_ms or {}) == {"embed_query", "retrieve"}
    assert captured.embedder_id == "hashing-words@v1"
    assert set(captured.timings_ms) == {*STAGES, "total"}


def test_the_capture_scores_through_the_same_path_as_score(tmp_path: Path) -> None:
    captured = run(config(tmp_path))
    path = tmp_path / "artifacts.jsonl"
    path.write_text(dump_jsonl(captured.artifacts))
    labelled = label_artifacts(load_artifacts(path), CASES, artifacts_source=str(path))
    results = [score_case(label, a.ranked_card_ids(), k=2) for label, a in labelled]
    assert [r.metrics.get(HIT) for r in results] == [1.0, 1.0, None]


def test_a_warm_run_loads_no_model(tmp_path: Path) -> None:
    cold_embedder = HashingEmbedder()
    cold = run(config(tmp_path), cold_embedder)
    assert cold.model_loaded
    assert cold.ingest.chunks_embedded == cold.ingest.chunks == 5
    assert cold.queries_embedded == 3
    warm_embedder = HashingEmbedder()
    lines: list[str] = []
    warm = run(config(tmp_path), warm_embedder, lines)
    assert warm_embedder.loads == 0
    assert not warm.model_loaded
    assert (warm.ingest.chunks_embedded, warm.ingest.chunks_from_cache) == (0, 5)
    assert (warm.queries_embedded, warm.queries_from_cache) == (0, 3)
    assert [a.retrieved for a in warm.artifacts] == [a.retrieved for a in cold.artifacts]
    assert any("5 chunks written (0 embedded by the model, 5 from cache)" in line for line in lines)


def test_without_progress_nothing_but_log_lines_is_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[str] = []
    run(config(tmp_path), lines=lines)
    assert capsys.readouterr() == ("", "")
    assert lines[0] == "chunked 3 cards into 5 chunks (max 100 chars, title on every chunk)"
    assert lines[-1].startswith("retrieved 3 cases (dense, 50 candidates); total ")


def test_hybrid_fuses_bm25_and_dense(tmp_path: Path) -> None:
    cfg = config(tmp_path, retrieval=RetrievalSettings(mode="hybrid"))
    captured = run(cfg)
    top = captured.artifacts[1].retrieved[0]
    assert isinstance(top, RetrievedItem)
    assert top.parent_id == "en-refills"
    # a fused score: at most (1 + 1) / (60 + 1) when first in both lists
    assert top.score is not None
    assert 0 < top.score <= 2 / 61 + 1e-6


def test_same_language_searches_only_the_cases_language(tmp_path: Path) -> None:
    for mode in ("dense", "hybrid"):
        cfg = config(tmp_path, retrieval=RetrievalSettings(mode=mode, same_language=True))
        captured = run(cfg)
        assert captured.artifacts[0].ranked_card_ids() == ["en-parking", "en-refills"]
        assert set(captured.artifacts[2].ranked_card_ids()) <= {"es-estacionamiento"}


def test_no_cache_means_every_text_is_encoded(tmp_path: Path) -> None:
    cfg = config(tmp_path, cache=CacheSettings(path=None))
    for _ in range(2):
        embedder = HashingEmbedder()
        captured = run(cfg, embedder)
        assert captured.queries_embedded == 3
        assert embedder.loads == 1
    assert not (tmp_path / "cache").exists()


def test_duplicate_card_ids_are_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="duplicate card id"):
        run_pipeline(
            config(tmp_path),
            [*CARDS, CARDS[0]],
            CASES,
            progress=False,
            log=lambda _: None,
            embedder=HashingEmbedder(),
        )


def test_translations_sharing_an_id_are_two_cards_each_found_in_its_language(
    tmp_path: Path,
) -> None:
    # Docusaurus keeps a translation's `id:`; Hugo's page.es.md shares page.md's id.
    shared = [
        Card(id="faq/parking", language="en", title="Parking", body="Park on level two."),
        Card(id="faq/parking", language="es-419", title="Estacionamiento",
             body="Estaciona en el segundo nivel."),
    ]  # fmt: skip
    cases = [
        Case(id="en", language="en", case_type="golden", query="where do I park",
             must_cite_one_of=("faq/parking",)),
        Case(id="es", language="es-419", case_type="golden", query="dónde estaciono",
             must_cite_one_of=("faq/parking",)),
    ]  # fmt: skip
    cfg = config(tmp_path, retrieval=RetrievalSettings(same_language=True))
    captured = run_pipeline(
        cfg, shared, cases, progress=False, log=lambda _: None, embedder=HashingEmbedder()
    )
    assert captured.ingest.cards == 2
    for artifact, language in zip(captured.artifacts, ("en", "es-419"), strict=True):
        assert artifact.ranked_card_ids() == ["faq/parking"]  # the card id, as the KB names it
        [item] = artifact.retrieved
        assert not isinstance(item, str)
        assert item.id == f"faq/parking@{language}#1"  # the translation of the case's language


def test_one_language_holding_an_id_twice_is_still_an_input_error(tmp_path: Path) -> None:
    twice = [CARDS[0], CARDS[0].model_copy(update={"title": "Another"})]
    with pytest.raises(InputError, match=r"duplicate card id\(s\) in the KB: en-parking \(en\)"):
        run_pipeline(
            config(tmp_path), twice, CASES, progress=False, log=lambda _: None,
            embedder=HashingEmbedder(),
        )  # fmt: skip


def test_a_missing_reranker_fails_before_any_work(tmp_path: Path) -> None:
    cfg = config(
        tmp_path, reranker=RerankerSettings(enabled=True, model=str(tmp_path / "no-such-model"))
    )
    embedder = HashingEmbedder()
    with pytest.raises(InputError, match="reranker model path"):
        run(cfg, embedder)
    assert embedder.loads == 0


def test_a_shared_embedder_must_match_the_config(tmp_path: Path) -> None:
    other = HashingEmbedder(EmbedderSettings(batch_size=8))
    with pytest.raises(ValueError, match="settings differ"):
        run(config(tmp_path), other)


def test_no_cases_and_no_cards_give_an_empty_capture(tmp_path: Path) -> None:
    captured = run_pipeline(
        config(tmp_path), [], [], progress=False, log=lambda _: None, embedder=HashingEmbedder()
    )
    assert captured.artifacts == []
    assert captured.ingest.chunks == 0


def test_progress_draws_bars_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = config(tmp_path, retrieval=RetrievalSettings(mode="hybrid"))
    run_pipeline(cfg, CARDS, CASES, progress=True, log=lambda _: None, embedder=HashingEmbedder())
    out, err = capsys.readouterr()
    assert out == ""
    assert "ingest" in err
    assert "search" in err
    assert "hybrid" in err


LOGGED = [
    LoggedQuery(id="q-garage", query="is the garage free for patients", language="en", weight=5),
    LoggedQuery(id="q-refill", query="how many days does a refill take"),
    LoggedQuery(id="q-es", query="garage gratis", language="es-419"),
]


def run_logged(cfg: Config) -> PipelineRun:
    lines: list[str] = []
    return run_pipeline(
        cfg,
        CARDS,
        CASES,
        progress=False,
        log=lines.append,
        embedder=HashingEmbedder(),
        queries=LOGGED,
    )


def test_logged_queries_are_answered_like_the_cases_with_the_same_store_and_settings(
    tmp_path: Path,
) -> None:
    for mode in ("dense", "hybrid"):
        captured = run_logged(config(tmp_path, retrieval=RetrievalSettings(mode=mode)))
        # Never artifacts: the cases alone are scored.
        assert [a.case_id for a in captured.artifacts] == ["c-parking", "c-refill", "c-none"]
        assert list(captured.logged) == ["q-garage", "q-refill", "q-es"]
        # A logged query asking what a case asks gets the case's cards, in its order.
        by_case = {a.case_id: tuple(a.ranked_card_ids()) for a in captured.artifacts}
        assert captured.logged["q-garage"] == by_case["c-parking"]
        assert captured.logged["q-refill"] == by_case["c-refill"]
        assert captured.logged["q-garage"][0] == "en-parking"


def test_asking_logged_queries_leaves_the_cases_answers_as_they_were(tmp_path: Path) -> None:
    plain = run(config(tmp_path))
    logged = run_logged(config(tmp_path))
    assert [a.retrieved for a in logged.artifacts] == [a.retrieved for a in plain.artifacts]
    assert plain.logged == {}
    assert logged.queries_embedded + logged.queries_from_cache == len(CASES) + len(LOGGED)


def test_same_language_restricts_a_logged_query_to_its_language_and_not_one_without(
    tmp_path: Path,
) -> None:
    captured = run_logged(config(tmp_path, retrieval=RetrievalSettings(same_language=True)))
    assert set(captured.logged["q-es"]) == {"es-estacionamiento"}
    assert set(captured.logged["q-garage"]) <= {"en-parking", "en-refills"}
    # q-refill names no language: every card may answer it.
    assert set(captured.logged["q-refill"]) == {c.id for c in CARDS}


def test_what_came_back_instead_of_a_run_s_missed_case_names_its_chunk(tmp_path: Path) -> None:
    captured = run(config(tmp_path))
    first = captured.artifacts[0]
    top = first.ranked_card_ids()[0]
    item = first.retrieved[0]
    assert isinstance(item, RetrievedItem)
    other = next(c.id for c in CARDS if c.id != top)
    missed = CASES[0].model_copy(update={"must_cite_one_of": (other,), "relevant_ids": None})
    result = score_case(missed, first.ranked_card_ids(), k=1, items=first.retrieved)
    assert result.metrics[HIT] == 0.0
    detail = result.retrieved_detail
    assert detail is not None
    assert detail[top].chunk_id == item.id
    assert item.id.startswith(f"{top}#")
