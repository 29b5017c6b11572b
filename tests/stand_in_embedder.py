"""The stand-in embedder of the runner's tests: words hashed into a vector, so
the pipeline (chunking, cache, store, dense and hybrid retrieval, parent
expansion) runs in well under a second with no model."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from recall_gate.adapters.config import EmbedderSettings
from recall_gate.runner import Embedder
from recall_gate.runner.tokenizer import tokenize

DIM = 64


class HashingEmbedder(Embedder):
    """Bag of words hashed into 64 dimensions: no model, deterministic, counts loads."""

    def __init__(self, settings: EmbedderSettings | None = None) -> None:
        super().__init__(settings or EmbedderSettings())
        self.loads = 0

    @property
    def loaded(self) -> bool:
        return self.loads > 0

    def identity(self, **_: object) -> str:
        return "hashing-words@v1"

    def load(self, *, progress: bool = False) -> None:
        self.loads += 1

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> npt.NDArray[np.float32]:
        if not self.loaded:
            self.load()
        out = np.zeros((len(texts), DIM), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                out[row, hashlib.sha256(token.encode()).digest()[0] % DIM] += 1.0
            out[row] /= max(float(np.linalg.norm(out[row])), 1e-9)
        return out
