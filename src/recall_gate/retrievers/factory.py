"""``MODULE:FACTORY``: import a user's retriever (adapter: imports the user's code).

``FACTORY`` names a retriever object, or a callable that takes no argument and
returns one. The current directory (and the config file's folder, when there
is one) is put first on ``sys.path`` for the import, so ``app.rag:build_retriever``
works from the project folder, or from anywhere with ``--config`` at its root.
"""

from __future__ import annotations

import importlib
import inspect
import sys
from pathlib import Path
from typing import Any

from recall_gate.errors import InputError, root_cause
from recall_gate.retrievers.failures import EXIT_FIX, describe
from recall_gate.retrievers.plain import takes_query_and_k

__all__ = ["load_retriever"]

_SPEC_FIX = "write --retriever MODULE:FACTORY, e.g. --retriever app.rag:build_retriever"


def _is_factory(obj: Any) -> bool:
    """A callable that can be called with no argument (and is not itself a retriever)."""
    if (
        not callable(obj)
        or takes_query_and_k(obj)
        or not (inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isclass(obj))
    ):
        return False
    try:
        inspect.signature(obj).bind()
    except (TypeError, ValueError):
        return False
    return True


def load_retriever(spec: str, *, cwd: Path, config_folder: Path | None = None) -> Any:
    """The retriever ``spec`` names (``module.path:attribute``), built if a factory."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise InputError(f"--retriever {spec!r}: expected MODULE:FACTORY", fix=_SPEC_FIX)
    folders = [str(f) for f in dict.fromkeys((cwd, config_folder)) if f is not None]
    added = [f for f in folders if f not in sys.path]
    sys.path[:0] = added
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        said, cause = f"{type(exc).__name__}: {exc}", root_cause(exc)
        if cause != said.strip().split("\n")[0]:
            said += f" (caused by {cause})"
        raise InputError(
            f"--retriever {spec}: cannot import {module_name!r}: {said}",
            fix="run from the project folder or pass --config at its root (both are put on "
            "the import path), or set PYTHONPATH; and install the packages the module needs",
        ) from None
    except BaseException as exc:  # sys.exit() or KeyboardInterrupt in the module's top level
        raise InputError(
            f"--retriever {spec}: importing {module_name!r} {describe(exc)}",
            fix=EXIT_FIX,
        ) from None
    finally:
        for folder in added:
            sys.path.remove(folder)
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise InputError(
                f"--retriever {spec}: module {module_name!r} has no attribute {attr!r}",
                fix=f"define {attr} in {module_name} (a retriever, or a function returning one)",
            )
        target = getattr(target, part)
    if not _is_factory(target):
        return target
    try:
        return target()
    except Exception as exc:
        raise InputError(
            f"--retriever {spec}: calling {attr}() raised {type(exc).__name__}: {exc}",
            fix="make the factory build the retriever (credentials, index path?), then re-run",
        ) from None
    except BaseException as exc:  # sys.exit() or KeyboardInterrupt in the factory
        raise InputError(
            f"--retriever {spec}: calling {attr}() {describe(exc)}", fix=EXIT_FIX
        ) from None
