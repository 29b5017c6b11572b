"""What every retriever adapter offers, and the helpers they share (no framework imports)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from recall_gate.core.records import ParamValue
from recall_gate.retrievers.documents import Hit

__all__ = [
    "Adapter",
    "class_name",
    "embedder_name",
    "has_base",
    "overrides",
    "readable",
    "readable_params",
]

_MAX_PARAM = 200


class Adapter(Protocol):
    """A retriever driven one way: ``search`` returns the top ``k`` hits of a query;
    ``asearch`` does the same natively async (awaited, no thread), or is None when
    the retriever has no async path of its own (its framework's default async
    method would only run the sync one in a thread)."""

    kind: str  # "langchain-retriever", "llamaindex", …
    name: str  # the retriever's class, "module.Class"
    asearch: Callable[[str, int], Awaitable[list[Hit]]] | None

    def search(self, query: str, k: int) -> list[Hit]: ...

    def params(self) -> dict[str, ParamValue]: ...


def class_name(obj: object) -> str:
    kind = type(obj)
    return f"{kind.__module__}.{kind.__qualname__}"


def has_base(obj: object, module_prefix: str, *names: str) -> bool:
    """Whether a class in ``obj``'s MRO is called one of ``names`` and comes from
    ``module_prefix`` (how a framework is recognised without importing it)."""
    return any(
        cls.__name__ in names and cls.__module__.startswith(module_prefix)
        for cls in type(obj).__mro__
    )


def overrides(obj: object, method: str, module_prefix: str, *base_names: str) -> bool:
    """Whether ``obj``'s ``method`` is its own, not the default a framework base class
    (named ``base_names``, from ``module_prefix``) provides or injects."""
    for cls in type(obj).__mro__:
        function = cls.__dict__.get(method)
        if function is None:
            continue
        inherited = cls.__name__ in base_names and cls.__module__.startswith(module_prefix)
        injected = "<locals>" in getattr(function, "__qualname__", "") and getattr(
            function, "__module__", ""
        ).startswith(module_prefix)
        return not (inherited or injected)
    return False


def readable(value: Any) -> ParamValue:
    """A parameter as short JSON-able text (secrets are never read: only named fields are)."""
    if value is None or isinstance(value, bool | int | float | str):
        text = value
    elif isinstance(value, Mapping | list | tuple):
        try:
            text = json.dumps(value, sort_keys=True, default=class_name)
        except (TypeError, ValueError):
            text = repr(value)
    else:
        text = class_name(value)
    if isinstance(text, str) and len(text) > _MAX_PARAM:
        text = text[: _MAX_PARAM - 1] + "…"
    return text


def readable_params(pairs: Mapping[str, Any]) -> dict[str, ParamValue]:
    """The pairs that are set, made readable."""
    return {key: readable(value) for key, value in pairs.items() if value is not None}


def embedder_name(embedder: Any) -> str | None:
    """``Class(model)`` of an embeddings object, from the attributes frameworks use."""
    if embedder is None:
        return None
    for attr in ("model_name", "model", "model_id", "deployment"):
        model = getattr(embedder, attr, None)
        if isinstance(model, str) and model:
            return f"{class_name(embedder)}({model})"
    return class_name(embedder)
