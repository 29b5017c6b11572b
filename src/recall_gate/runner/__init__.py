"""The built-in runner: chunk a KB, embed it into Chroma, retrieve every case.

``recall-gate run`` calls :func:`run_pipeline` and scores its artifacts through the
same path as ``recall-gate score``. Importing this package is cheap: torch,
sentence-transformers and chromadb load only when a capture needs them.

Modules, one concept each: ``chunking`` (cards → chunks), ``model_source``
(model name → folder and identity), ``cache`` (embedding cache), ``embedder``
(lazy sentence-transformers model), ``store`` (Chroma and its reuse policy),
``tokenizer`` and ``bm25`` (lexical search), ``fusion`` (weighted RRF),
``rerank`` (cross-encoder), ``expansion`` (chunks → cards), ``retrieval``
(the modes composed), ``timing`` and ``pipeline`` (the run).
"""

from __future__ import annotations

import importlib.util

from recall_gate.errors import InputError

# `pip install recall-gate` (core) scores captures without these; say so in
# one line rather than with an ImportError traceback from deep inside.
_EXTRA = ("numpy", "chromadb", "sentence_transformers", "bm25s", "Stemmer", "tqdm")
_missing = [name for name in _EXTRA if importlib.util.find_spec(name) is None]
if _missing:
    raise InputError(
        f"the built-in runner needs {', '.join(_missing)}, which are not installed",
        fix="install the runner's extra: pip install 'recall-gate[retrieval]'",
    )

from recall_gate.runner.chunking import chunk_card, chunk_cards  # noqa: E402
from recall_gate.runner.embedder import Embedder  # noqa: E402
from recall_gate.runner.model_source import bundled_model_path  # noqa: E402
from recall_gate.runner.pipeline import STAGES, IngestReport, PipelineRun, run_pipeline  # noqa: E402

__all__ = [
    "STAGES",
    "Embedder",
    "IngestReport",
    "PipelineRun",
    "bundled_model_path",
    "chunk_card",
    "chunk_cards",
    "run_pipeline",
]
