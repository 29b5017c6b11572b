"""The embedding cache: vectors keyed by (model namespace, sha256 of the text).

Embedding is the runner's dominant cost, and loading the model (importing
torch and sentence-transformers) costs seconds by itself. With this cache an
unchanged KB or case set is not re-embedded, and a run whose texts are all
cached never loads the model at all.

Format: one SQLite file, ``<cache.path>/embeddings.sqlite3`` (standard
library, atomic commits, one file to keep between CI runs)::

    embeddings(namespace, text_sha256, dim, vector)   -- float32 little-endian
    file_digests(path, size, mtime_ns, sha256)         -- model file digests
    meta(key, value)                                   -- schema version

* ``namespace`` is :func:`cache_namespace`: the embedder identity (which
  hashes the model's files) plus the normalisation flag, the two things that
  change a vector for the same text. The text hashed is the exact string
  encoded, instruction prefix included.
* ``file_digests`` memoises the sha256 of model files by (path, size, mtime),
  so computing a model's identity does not re-read its weights every run.

The cache is disposable: a different schema version is dropped and rebuilt.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing as npt

from recall_gate.errors import InputError
from recall_gate.runner.model_source import sha256_file

__all__ = ["CACHE_FILE", "EmbeddingCache", "cache_namespace", "text_key"]

CACHE_FILE = "embeddings.sqlite3"
_SCHEMA_VERSION = "1"
# SQLite's historical limit on bound parameters per statement is 999.
_LOOKUP_BATCH = 900

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS embeddings (
    namespace TEXT NOT NULL,
    text_sha256 TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (namespace, text_sha256)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS file_digests (
    path TEXT PRIMARY KEY,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    sha256 TEXT NOT NULL
);
"""


def text_key(text: str) -> str:
    """The cache key of one text: hex sha256 of its UTF-8 bytes."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_namespace(embedder_id: str, *, normalize: bool) -> str:
    """What, besides the text, decides a vector: the model and normalisation."""
    return f"{embedder_id}|normalize={int(normalize)}"


class EmbeddingCache:
    """Vectors by (namespace, text key) in one SQLite file (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        self.path = directory / CACHE_FILE
        try:
            directory.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
            if row is None or row[0] != _SCHEMA_VERSION:
                with self._db:
                    self._db.execute("DELETE FROM embeddings")
                    self._db.execute("DELETE FROM file_digests")
                    self._db.execute(
                        "INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (_SCHEMA_VERSION,)
                    )
        except (OSError, sqlite3.Error) as exc:
            raise InputError(
                f"cannot open the embedding cache {self.path}: {exc}",
                fix=f"check that {directory} is writable, or delete it (it is only a cache); "
                "`cache: {path: null}` disables the cache",
            ) from None

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def get_many(self, namespace: str, keys: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
        """The cached vectors among ``keys`` (missing keys are simply absent)."""
        found: dict[str, npt.NDArray[np.float32]] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), _LOOKUP_BATCH):
            batch = unique[start : start + _LOOKUP_BATCH]
            marks = ",".join("?" * len(batch))
            # Only "?" placeholders are formatted in; the values are bound.
            sql = f"SELECT text_sha256, dim, vector FROM embeddings WHERE namespace = ? AND text_sha256 IN ({marks})"  # noqa: S608, E501
            rows = self._db.execute(sql, (namespace, *batch))
            for key, dim, blob in rows:
                vector = np.frombuffer(blob, dtype="<f4")
                if vector.shape == (dim,):
                    found[key] = vector.astype(np.float32, copy=False)
        return found

    def put_many(
        self, namespace: str, items: Iterable[tuple[str, npt.NDArray[np.float32]]]
    ) -> None:
        """Store vectors (float32) under their text keys, in one transaction."""
        rows = [
            (namespace, key, int(vec.shape[0]), np.asarray(vec, dtype="<f4").tobytes())
            for key, vec in items
        ]
        with self._db:
            self._db.executemany("INSERT OR REPLACE INTO embeddings VALUES (?, ?, ?, ?)", rows)

    def file_digest(self, path: Path) -> str:
        """sha256 of a file, memoised by (resolved path, size, mtime)."""
        resolved = path.resolve()
        stat = resolved.stat()
        row = self._db.execute(
            "SELECT sha256 FROM file_digests WHERE path = ? AND size = ? AND mtime_ns = ?",
            (str(resolved), stat.st_size, stat.st_mtime_ns),
        ).fetchone()
        if row is not None:
            return str(row[0])
        digest = sha256_file(resolved)
        with self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO file_digests VALUES (?, ?, ?, ?)",
                (str(resolved), stat.st_size, stat.st_mtime_ns, digest),
            )
        return digest
