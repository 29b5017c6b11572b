"""Capture any retriever: LangChain, LlamaIndex, Haystack, or a plain callable.

Adapters recognise a framework by the shape of its objects, never by
importing it, so ``recall-gate capture`` and :func:`capture` need only the
core install. One module per family: :mod:`.langchain`, :mod:`.llamaindex`,
:mod:`.haystack`, :mod:`.plain`.
"""

from __future__ import annotations

from recall_gate.retrievers.capture import Capture, adapt, capture

__all__ = ["Capture", "adapt", "capture"]
