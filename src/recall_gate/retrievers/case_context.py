"""The case a query belongs to, for a retriever that wants more than the query.

A locale-routed retriever must otherwise guess a query's language. A plain
callable whose signature has a ``language`` (or ``case``) parameter, or
``**kwargs``, is called ``search(query, k, language="es")`` (``case=`` gets the
case's id, language, case type and query as a mapping); one without them is
called ``search(query, k)`` as before. The case travels in a context variable set
around each question (:func:`asking`), so the adapters' ``search(query, k)``
interface stays what it is.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import Any

from recall_gate.core.records import Case

__all__ = ["asking", "case_keywords", "wanted_keywords"]

_ASKED: ContextVar[Case | None] = ContextVar("recall_gate_asked_case", default=None)


@contextlib.contextmanager
def asking(case: Case) -> Iterator[None]:
    """The case being asked, for the duration of its question."""
    token = _ASKED.set(case)
    try:
        yield
    finally:
        _ASKED.reset(token)


def wanted_keywords(function: Callable[..., Any]) -> frozenset[str]:
    """Which of ``language`` and ``case`` the function accepts by keyword."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return frozenset({"language", "case"})
    return frozenset(
        p.name
        for p in parameters
        if p.name in ("language", "case")
        and p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    )


def case_keywords(wanted: frozenset[str]) -> dict[str, Any]:
    """The keywords to pass for the case being asked (none outside a question)."""
    case = _ASKED.get()
    if case is None or not wanted:
        return {}
    out: dict[str, Any] = {}
    if "language" in wanted:
        out["language"] = case.language
    if "case" in wanted:
        out["case"] = {
            "id": case.id,
            "language": case.language,
            "case_type": case.case_type,
            "query": case.query,
        }
    return out
