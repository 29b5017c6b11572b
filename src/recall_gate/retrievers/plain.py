"""A plain callable ``(query, k) -> list``: the ``search`` return contract.

Each item of the list may be a card id or a file path (``str`` or a
``pathlib`` path), a ``dict`` with an id field (``id``, ``metadata.source`` …)
and optionally ``score`` and ``chunk_id``, a ``(document, score)`` pair, or a
LangChain ``Document``, a LlamaIndex node (``NodeWithScore``, ``TextNode``) or
a Haystack ``Document`` — read as the framework adapters read them. Anything
else is refused naming the item and this contract.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from recall_gate.core.records import ParamValue
from recall_gate.errors import InputError
from recall_gate.retrievers import haystack, langchain, llamaindex
from recall_gate.retrievers.case_context import case_keywords, wanted_keywords
from recall_gate.retrievers.documents import Hit, clean_score

__all__ = ["RETURN_CONTRACT", "PlainCallable", "detect", "takes_query_and_k"]

RETURN_CONTRACT = (
    "return a list of card ids or file paths, dicts with an id field (id, metadata.source, …), "
    "(document, score) pairs, or LangChain, LlamaIndex or Haystack documents"
)


def _framework_hit(item: Any) -> Hit | None:
    """A framework document read by its adapter (recognised by shape, never imported)."""
    module = type(item).__module__
    if module.startswith("haystack") and hasattr(item, "meta"):
        return haystack.document_hit(item)
    if module.startswith("llama_index") and (
        hasattr(item, "node") or hasattr(item, "node_id") or hasattr(item, "id_")
    ):
        return llamaindex.node_hit(item)
    if hasattr(item, "page_content") and hasattr(item, "metadata"):
        return langchain.document_hit(item)
    return None


def _hit(item: Any, *, where: str) -> Hit:
    if isinstance(item, str):
        return Hit(fields={"id": item})
    if isinstance(item, os.PathLike):
        return Hit(fields={"id": os.fspath(item)})
    if isinstance(item, Mapping):
        # The retriever's own id: `chunk_id`, else `id` (kept when the card comes
        # from another field, or is what that id maps to).
        chunk = item.get("chunk_id") or item.get("id")
        return Hit(
            fields=dict(item),
            score=clean_score(item.get("score")),
            chunk_id=str(chunk) if chunk else None,
        )
    if (
        isinstance(item, tuple)
        and len(item) == 2
        and clean_score(item[1]) is not None
        and not isinstance(item[0], tuple)
    ):
        inner = _hit(item[0], where=where)
        return Hit(fields=inner.fields, score=clean_score(item[1]), chunk_id=inner.chunk_id)
    hit = _framework_hit(item)
    if hit is None:
        raise InputError(
            f"{where} is a {type(item).__module__}.{type(item).__qualname__}, which is no "
            "retrieved document recall-gate can read",
            fix=RETURN_CONTRACT,
        )
    return hit


def _is_async(function: Any) -> bool:
    """``async def``, also as a callable object's ``__call__``."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(type(function), "__call__", None)  # noqa: B004 - its method, not callable()
    )


class PlainCallable:
    """``function(query, k)``, awaited when it is ``async def``; with ``language=`` and
    ``case=`` when its signature takes them (:mod:`recall_gate.retrievers.case_context`)."""

    kind = "callable"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, function: Callable[[str, int], Any]) -> None:
        self.function = function
        module = getattr(function, "__module__", None) or type(function).__module__
        qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
        self.name = f"{module}.{qualname}"
        self.asearch = self._asearch if _is_async(function) else None
        # `language=` / `case=` are passed when the signature takes them.
        self.wanted = wanted_keywords(function)

    def search(self, query: str, k: int) -> list[Hit]:
        return self._hits(self.function(query, k, **case_keywords(self.wanted)), k)

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        return self._hits(await self.function(query, k, **case_keywords(self.wanted)), k)

    def _hits(self, items: Any, k: int) -> list[Hit]:
        if isinstance(items, Mapping) and isinstance(items.get("documents"), list):
            items = items["documents"]  # a Haystack pipeline's or component's output
        if isinstance(items, str | bytes | Mapping) or not hasattr(items, "__iter__"):
            raise InputError(
                f"{self.name}() returned a {type(items).__name__}, not a list",
                fix=RETURN_CONTRACT,
            )
        return [
            _hit(item, where=f"{self.name}() item {i}")
            for i, item in enumerate(list(items)[:k], start=1)
        ]

    def params(self) -> dict[str, ParamValue]:
        return {}


def takes_query_and_k(obj: Any) -> bool:
    """Whether ``obj`` can be called as ``obj(query, k)``."""
    if not callable(obj):
        return False
    try:
        inspect.signature(obj).bind("query", 1)
    except (TypeError, ValueError):
        return False
    return True


def detect(obj: Any) -> PlainCallable | None:
    return PlainCallable(obj) if takes_query_and_k(obj) else None
