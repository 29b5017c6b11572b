"""recall-gate: a retrieval-quality gate for RAG (ADR-0023).

Score retrieval with ``retrieval_hit_at_k``, ``retrieval_recall_at_k`` and
``retrieval_ndcg_at_k`` over gold-labelled cases, compare against a committed
baseline, and gate a pull request on it.
"""

from __future__ import annotations

from recall_gate.core.metrics import HIT, METRIC_KEYS, NDCG, RECALL, score_ranking

__all__ = ["HIT", "METRIC_KEYS", "NDCG", "RECALL", "__version__", "score_ranking"]

__version__ = "0.1.0"
