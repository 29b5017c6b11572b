"""Optional cross-encoder rerank of the first stage's top chunks.

A bi-encoder scores query and chunk independently; a cross-encoder reads them
together and orders a short list better, at a cost per pair. So only the top
``reranker.candidates`` chunks are re-scored and re-ordered; the chunks below
that window keep their first-stage order after it, with no score (their
first-stage scores are not comparable with the cross-encoder's).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from recall_gate.adapters.config import RerankerSettings
from recall_gate.errors import InputError
from recall_gate.runner.embedder import load_model_error, quiet_model_loading
from recall_gate.runner.expansion import ScoredChunk
from recall_gate.runner.model_source import resolve_model

__all__ = ["Reranker"]


class Reranker:
    """A sentence-transformers ``CrossEncoder`` by name or path, loaded on first use."""

    def __init__(self, settings: RerankerSettings, *, device: str) -> None:
        if not settings.model:
            raise InputError(
                "reranker.enabled is true but reranker.model is not set",
                fix="set reranker.model to a CrossEncoder name or path, or disable the reranker",
            )
        self.settings = settings
        self.source = resolve_model(settings.model, kind="reranker")
        self._device = device
        self._model: Any = None
        self.load_seconds = 0.0

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def load(self, *, progress: bool = False) -> None:
        """Load the cross-encoder now (a no-op when it is already loaded)."""
        if self._model is not None:
            return
        start = time.perf_counter()
        try:
            from sentence_transformers import CrossEncoder
        except ImportError:
            raise InputError(
                "the reranker needs sentence-transformers, which is not installed",
                fix="install the runner's extra: pip install 'recall-gate[retrieval]'",
            ) from None
        where = str(self.source.path) if self.source.path is not None else self.source.name
        try:
            with quiet_model_loading(progress=progress):
                self._model = CrossEncoder(where, device=self._device)
        except Exception as exc:  # missing files, offline hub: one clear message
            raise load_model_error("reranker", self.source.name, exc) from None
        self.load_seconds = time.perf_counter() - start

    def rerank(
        self, query: str, ranking: Sequence[ScoredChunk], texts: Mapping[str, str]
    ) -> list[ScoredChunk]:
        """``ranking`` with its top window re-ordered by cross-encoder score.

        Ties keep first-stage order (a stable sort), so the result is
        deterministic for a deterministic model.
        """
        self.load()
        window = list(ranking[: self.settings.candidates])
        if not window:
            return []
        scores = self._model.predict(
            [(query, texts[item.chunk_id]) for item in window],
            batch_size=self.settings.batch_size,
            show_progress_bar=False,
        )
        rescored = [
            ScoredChunk(item.chunk_id, item.parent_id, float(score))
            for item, score in zip(window, scores, strict=True)
        ]
        order = sorted(range(len(rescored)), key=lambda i: -(rescored[i].score or 0.0))
        tail = [
            ScoredChunk(item.chunk_id, item.parent_id, None)
            for item in ranking[self.settings.candidates :]
        ]
        return [rescored[i] for i in order] + tail
