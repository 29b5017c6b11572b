"""BM25 over chunk texts: the lexical half of hybrid retrieval.

Dense retrieval with an English-centred model misses exact terms (a form
number, "ext. 4410", a word in Spanish or Portuguese it tokenizes poorly);
BM25 catches them. The index is built in memory from the chunks of this run
(Okapi BM25 from ``rank_bm25``, over :func:`~recall_gate.runner.tokenizer.tokenize`
tokens), so it always matches the KB being evaluated, whatever the store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from recall_gate.core.records import Chunk
from recall_gate.errors import InputError
from recall_gate.runner.expansion import ScoredChunk
from recall_gate.runner.tokenizer import tokenize

__all__ = ["Bm25Index"]


class Bm25Index:
    """Okapi BM25 over chunks; :meth:`search` returns chunks with a positive score."""

    def __init__(self, chunks: Sequence[Chunk], languages: Mapping[str, str]) -> None:
        try:
            from rank_bm25 import BM25Okapi
        except ImportError:
            raise InputError(
                "hybrid retrieval needs rank-bm25, which is not installed",
                fix="install the runner's extra: pip install 'recall-gate[retrieval]'",
            ) from None
        self._chunks = list(chunks)
        self._language = np.array([languages[c.parent_id] for c in self._chunks], dtype=object)
        self._bm25: Any = BM25Okapi([tokenize(c.text) for c in self._chunks]) if chunks else None

    def scores(self, query: str) -> npt.NDArray[np.float64]:
        """The BM25 score of every chunk, in chunk order."""
        tokens = tokenize(query)
        if self._bm25 is None or not tokens:
            return np.zeros(len(self._chunks))
        return np.asarray(self._bm25.get_scores(tokens), dtype=np.float64)

    def search(self, query: str, *, n: int, language: str | None = None) -> list[ScoredChunk]:
        """Top ``n`` chunks by BM25 score (ties: KB order), optionally one language only.

        Chunks sharing no term with the query (score 0) are not returned.
        """
        scores = self.scores(query)
        if language is not None:
            scores = np.where(self._language == language, scores, 0.0)
        order = np.argsort(-scores, kind="stable")[:n]
        return [
            ScoredChunk(self._chunks[i].id, self._chunks[i].parent_id, float(scores[i]))
            for i in order
            if scores[i] > 0
        ]
