"""BM25 over chunk texts: the lexical half of hybrid retrieval.

Dense retrieval with an English-centred model misses exact terms (a form
number, "ext. 4410", a word in Spanish or Portuguese it tokenizes poorly);
BM25 catches them. The index is ``bm25s``'s: BM25 (Lucene's variant, k1 1.5,
b 0.75) precomputed into a sparse token × chunk matrix, so a query costs a few
sparse rows instead of a pass over the corpus in Python. Each chunk is
analysed in its card's language and each query in its case's
(:func:`~recall_gate.runner.tokenizer.analyze`).

The index is built from the chunks of this run, so it always matches the KB
being evaluated. With a cache folder (``cache.path``, beside the embedding
cache) it is saved under ``bm25/<key>``, the key a hash of every chunk's id,
text and language, the analyzer version and the BM25 parameters: an unchanged
KB loads its index instead of re-tokenising it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from recall_gate.core.records import Chunk
from recall_gate.errors import InputError
from recall_gate.runner.expansion import ScoredChunk
from recall_gate.runner.tokenizer import ANALYZER_VERSION, analyze

__all__ = ["BM25_DIR", "Bm25Index", "index_key"]

BM25_DIR = "bm25"
_PARAMS = {"method": "lucene", "k1": 1.5, "b": 0.75}


def index_key(chunks: Sequence[Chunk], languages: Mapping[str, str]) -> str:
    """What the index depends on: chunks (id, text, language), analyzer and parameters."""
    digest = hashlib.sha256(
        json.dumps({"analyzer": ANALYZER_VERSION, "bm25": _PARAMS}, sort_keys=True).encode()
    )
    for chunk in chunks:
        for part in (chunk.id, chunk.text, languages[chunk.parent_id]):
            data = part.encode("utf-8", errors="surrogatepass")
            digest.update(len(data).to_bytes(8, "little"))
            digest.update(data)
    return digest.hexdigest()[:24]


def _bm25s() -> Any:
    try:
        import bm25s
    except ImportError:
        raise InputError(
            "hybrid retrieval needs bm25s and PyStemmer, which are not installed",
            fix="install the runner's extra: pip install 'recall-gate[retrieval]'",
        ) from None
    return bm25s


class Bm25Index:
    """BM25 over chunks; :meth:`search` returns chunks with a positive score.

    ``cache_dir``: where indexes are kept between runs (None: built every run).
    ``loaded`` tells whether this one came from there.
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        languages: Mapping[str, str],
        *,
        cache_dir: Path | None = None,
    ) -> None:
        bm25s = _bm25s()
        self._chunks = list(chunks)
        chunk_languages = [languages[c.parent_id] for c in self._chunks]
        self._masks = {
            lang: np.array([lang == other for other in chunk_languages], dtype=bool)
            for lang in set(chunk_languages)
        }
        self.loaded = False
        self._bm25: Any = None
        if not self._chunks:
            return
        where = None if cache_dir is None else cache_dir / BM25_DIR / index_key(chunks, languages)
        if where is not None and where.is_dir():
            try:
                self._bm25 = bm25s.BM25.load(str(where))
                self.loaded = True
            except (OSError, ValueError, KeyError, EOFError):
                shutil.rmtree(where, ignore_errors=True)  # unreadable: rebuilt and saved anew
        if self._bm25 is None:
            corpus = [analyze(c.text, languages[c.parent_id]) for c in self._chunks]
            self._bm25 = bm25s.BM25(**_PARAMS)
            self._bm25.index(corpus, show_progress=False)
            if where is not None:
                _save(self._bm25, where)

    def scores(self, query: str, *, language: str | None = None) -> npt.NDArray[np.float64]:
        """The BM25 score of every chunk, in chunk order, for a query in ``language``."""
        if self._bm25 is None:
            return np.zeros(len(self._chunks))
        ids = self._bm25.get_tokens_ids(analyze(query, language))
        if not ids:
            return np.zeros(len(self._chunks))
        return np.asarray(self._bm25.get_scores_from_ids(ids), dtype=np.float64)

    def search(
        self,
        query: str,
        *,
        n: int,
        language: str | None = None,
        query_language: str | None = None,
    ) -> list[ScoredChunk]:
        """Top ``n`` chunks by BM25 score (ties: KB order), optionally in ``language`` only.

        The query is analysed in ``query_language`` (default: ``language``).
        Chunks sharing no term with the query (score 0) are not returned.
        """
        scores = self.scores(query, language=query_language or language)
        if language is not None:
            mask = self._masks.get(language)
            scores = scores * mask if mask is not None else np.zeros_like(scores)
        found = np.flatnonzero(scores > 0)
        if len(found) > n:  # the n best in linear time (ties: the first in KB order)
            values = scores[found]
            threshold = -np.partition(-values, n - 1)[n - 1]
            above = found[values > threshold]
            found = np.concatenate((above, found[values == threshold][: n - len(above)]))
        # Best first; ties in KB order (as a stable sort of every chunk would give).
        order = found[np.lexsort((found, -scores[found]))]
        chunks = self._chunks
        return [
            ScoredChunk(chunks[i].id, chunks[i].parent_id, score)
            for i, score in zip(order.tolist(), scores[order].tolist(), strict=True)
        ]


def _save(bm25: Any, where: Path) -> None:
    """Save the index atomically (a temp folder renamed into place). The index is a
    cache: a failure to save it is no error."""
    try:
        where.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=where.parent, prefix=f".{where.name}."))
    except OSError:
        return
    try:
        bm25.save(str(tmp))
        os.replace(tmp, where)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)  # e.g. another run saved it first
