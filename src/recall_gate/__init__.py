"""recall-gate: a retrieval-quality gate for RAG (docs/decisions/retrieval-recall.md).

Score retrieval with ``retrieval_hit_at_k``, ``retrieval_recall_at_k`` and
``retrieval_ndcg_at_k`` over gold-labelled cases, compare against a committed
baseline, and gate a pull request on it. :func:`capture` runs your own
retriever (LangChain, LlamaIndex, Haystack, or a function) over the cases and
returns a :class:`Capture` to write as the artifacts file ``score`` reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from recall_gate.core.metric_registry import METRIC_KEYS
from recall_gate.core.metrics import HIT, NDCG, RECALL, score_ranking

if TYPE_CHECKING:
    from recall_gate.retrievers import Capture, capture

__all__ = [
    "HIT",
    "METRIC_KEYS",
    "NDCG",
    "RECALL",
    "Capture",
    "__version__",
    "capture",
    "score_ranking",
]

__version__ = "0.2.0"


def __getattr__(name: str) -> Any:
    """``capture`` and ``Capture`` load on first use: importing the package (as every
    module of the pure core does) must not pull in the file-reading capture code."""
    if name in ("capture", "Capture"):
        from recall_gate import retrievers

        return getattr(retrievers, name)
    raise AttributeError(f"module 'recall_gate' has no attribute {name!r}")
