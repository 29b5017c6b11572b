"""BM25 over chunks (bm25s): chunks analysed in their card's language, queries
in their case's; a score only for chunks sharing a term; the index cached
beside the embedding cache and rebuilt when a chunk changes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from recall_gate.core.records import Chunk
from recall_gate.runner.bm25 import BM25_DIR, Bm25Index

CHUNKS = [
    Chunk(id="es-recetas#0", parent_id="es-recetas", text="Renovación de recetas médicas"),
    Chunk(id="es-citas#0", parent_id="es-citas", text="Cómo agendar una cita"),
    Chunk(id="en-refills#0", parent_id="en-refills", text="Prescription refills, ext. 4410"),
    Chunk(id="pt-receitas#0", parent_id="pt-receitas", text="Renovação de receitas"),
]
LANGUAGES = {
    "es-recetas": "es-419",
    "es-citas": "es-419",
    "en-refills": "en",
    "pt-receitas": "pt-BR",
}


def test_a_query_finds_the_chunk_sharing_its_stemmed_terms() -> None:
    index = Bm25Index(CHUNKS, LANGUAGES)
    found = index.search("como renuevo mi receta", n=3, language="es-419")
    assert found[0].parent_id == "es-recetas"
    assert all(c.parent_id.startswith("es-") for c in found)
    assert all((c.score or 0) > 0 for c in found)


def test_exact_terms_such_as_an_extension_number_match() -> None:
    found = Bm25Index(CHUNKS, LANGUAGES).search("ext 4410", n=5, query_language="en")
    assert [c.parent_id for c in found] == ["en-refills"]


def test_a_query_sharing_no_term_finds_nothing() -> None:
    index = Bm25Index(CHUNKS, LANGUAGES)
    assert index.search("zzz qqq", n=5) == []
    assert index.search("", n=5) == []
    assert Bm25Index([], {}).search("receta", n=5) == []


def test_the_index_is_cached_and_loaded_while_the_chunks_are_unchanged(tmp_path: Path) -> None:
    first = Bm25Index(CHUNKS, LANGUAGES, cache_dir=tmp_path)
    second = Bm25Index(CHUNKS, LANGUAGES, cache_dir=tmp_path)
    assert (first.loaded, second.loaded) == (False, True)
    assert len(list((tmp_path / BM25_DIR).iterdir())) == 1
    query = "renovación de recetas"
    assert (first.scores(query, language="es") == second.scores(query, language="es")).all()

    edited = [*CHUNKS[:3], Chunk(id="pt-receitas#0", parent_id="pt-receitas", text="Outro")]
    assert not Bm25Index(edited, LANGUAGES, cache_dir=tmp_path).loaded
    assert len(list((tmp_path / BM25_DIR).iterdir())) == 2


def test_an_unreadable_cached_index_is_rebuilt(tmp_path: Path) -> None:
    Bm25Index(CHUNKS, LANGUAGES, cache_dir=tmp_path)
    [folder] = (tmp_path / BM25_DIR).iterdir()
    for file in folder.iterdir():
        file.write_bytes(b"garbage")
    again = Bm25Index(CHUNKS, LANGUAGES, cache_dir=tmp_path)
    assert not again.loaded
    assert again.search("recetas", n=1, language="es-419")[0].parent_id == "es-recetas"
    assert Bm25Index(CHUNKS, LANGUAGES, cache_dir=tmp_path).loaded  # saved anew


def test_ties_are_broken_in_kb_order_at_the_cut_too() -> None:
    same = [Chunk(id=f"c{i}#0", parent_id=f"c{i}", text="receta receta") for i in range(12)]
    other = [Chunk(id="d#0", parent_id="d", text="receta de algo más largo aún")]
    chunks = [*same[:5], *other, *same[5:]]
    index = Bm25Index(chunks, dict.fromkeys([c.parent_id for c in chunks], "es"))
    found = index.search("receta", n=4, language="es")
    assert [c.parent_id for c in found] == ["c0", "c1", "c2", "c3"]
    scores = index.scores("receta", language="es")
    expected = [chunks[i].id for i in np.argsort(-scores, kind="stable")[:7]]
    assert [c.chunk_id for c in index.search("receta", n=7, language="es")] == expected
