"""A plain callable ``(query, k) -> list[str | dict]``: ids, or dicts with an id
field (``id``, ``metadata.source`` …) and optionally ``score`` and ``chunk_id``."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from recall_gate.core.records import ParamValue
from recall_gate.retrievers.documents import Hit, clean_score

__all__ = ["PlainCallable", "detect", "takes_query_and_k"]


def _hit(item: Any) -> Hit:
    if isinstance(item, str):
        return Hit(fields={"id": item})
    if isinstance(item, Mapping):
        chunk = item.get("chunk_id")
        return Hit(
            fields=dict(item),
            score=clean_score(item.get("score")),
            chunk_id=str(chunk) if chunk else None,
        )
    raise TypeError(f"returned a {type(item).__name__}, expected a str id or a dict")


def _hits(items: Any, k: int) -> list[Hit]:
    if isinstance(items, str | bytes | Mapping) or not hasattr(items, "__iter__"):
        raise TypeError(f"returned a {type(items).__name__}, expected a list")
    return [_hit(item) for item in list(items)[:k]]


def _is_async(function: Any) -> bool:
    """``async def``, also as a callable object's ``__call__``."""
    return inspect.iscoroutinefunction(function) or inspect.iscoroutinefunction(
        getattr(type(function), "__call__", None)  # noqa: B004 - its method, not callable()
    )


class PlainCallable:
    """``function(query, k)``, awaited when it is ``async def``."""

    kind = "callable"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def __init__(self, function: Callable[[str, int], Any]) -> None:
        self.function = function
        module = getattr(function, "__module__", None) or type(function).__module__
        qualname = getattr(function, "__qualname__", None) or type(function).__qualname__
        self.name = f"{module}.{qualname}"
        self.asearch = self._asearch if _is_async(function) else None

    def search(self, query: str, k: int) -> list[Hit]:
        return _hits(self.function(query, k), k)

    async def _asearch(self, query: str, k: int) -> list[Hit]:
        return _hits(await self.function(query, k), k)

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
