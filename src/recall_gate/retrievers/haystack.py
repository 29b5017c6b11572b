"""Haystack 2+: a retriever component whose ``run(query=..., top_k=...)`` returns
``{"documents": [...]}``, recognised by its module, never imported."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from recall_gate.core.records import ParamValue
from recall_gate.retrievers.adapter import class_name, readable_params
from recall_gate.retrievers.documents import Hit, clean_score

__all__ = [
    "HaystackRetriever",
    "detect",
    "document_hit",
]


def document_hit(document: Any) -> Hit:
    meta = dict(getattr(document, "meta", None) or {})
    ident = getattr(document, "id", None)
    return Hit(
        # Haystack calls it `meta`; `metadata` too, so the default id fields apply.
        fields={"id": ident, "meta": meta, "metadata": meta},
        score=clean_score(getattr(document, "score", None)),
        chunk_id=str(ident) if ident else None,
    )


class HaystackRetriever:
    """``component.run(query=query, top_k=k)["documents"]``."""

    kind = "haystack"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, component: Any) -> None:
        self.component = component
        self.name = class_name(component)
        # Haystack components that can run async define `run_async` themselves.
        self.asearch = self._asearch if callable(getattr(component, "run_async", None)) else None

    def _hits(self, output: Any, k: int, method: str) -> list[Hit]:
        documents = output.get("documents") if isinstance(output, dict) else None
        if documents is None:
            raise TypeError(f"{self.name}.{method}() returned no 'documents'")
        return [document_hit(d) for d in list(documents)[:k]]

    def search(self, query: str, k: int) -> list[Hit]:
        return self._hits(self.component.run(query=query, top_k=k), k, "run")

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        output = await self.component.run_async(query=query, top_k=k)
        return self._hits(output, k, "run_async")

    def params(self) -> dict[str, ParamValue]:
        to_dict = getattr(self.component, "to_dict", None)
        try:
            init = to_dict()["init_parameters"] if callable(to_dict) else {}
        except Exception:
            init = {}
        store = getattr(self.component, "document_store", None)
        scalars = {k: v for k, v in init.items() if isinstance(v, str | int | float | bool)}
        return readable_params(
            {**scalars, "document_store": class_name(store) if store is not None else None}
        )


def detect(obj: Any) -> HaystackRetriever | None:
    run = getattr(obj, "run", None)
    if not callable(run) or not type(obj).__module__.startswith("haystack"):
        return None
    try:
        names = inspect.signature(run).parameters
    except (TypeError, ValueError):
        return None
    return HaystackRetriever(obj) if "query" in names and "top_k" in names else None
