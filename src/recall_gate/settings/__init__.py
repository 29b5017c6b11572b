"""The settings room: what a command acts on, resolved once from one table of
(name, flag, environment variable, config key, parser, default) rows.

``table`` holds the rows (the gated metrics' generated from the registry),
``values`` the parsers a row's text goes through, ``resolution`` the one loop
and the resolved :class:`~recall_gate.settings.resolution.Settings`, which
says where each value came from. It sits below the judge
(:mod:`recall_gate.judging`) and the command handlers, and imports neither.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from recall_gate.settings.resolution import (
        ConfigFile,
        Resolved,
        Settings,
        load_config_file,
        resolve_from,
        resolve_settings,
        write_settings_header,
    )
    from recall_gate.settings.table import ENVIRONMENT, ROWS, Row, Source

__all__ = [
    "ENVIRONMENT",
    "ROWS",
    "ConfigFile",
    "Resolved",
    "Row",
    "Settings",
    "Source",
    "load_config_file",
    "resolve_from",
    "resolve_settings",
    "write_settings_header",
]

_TABLE_NAMES = frozenset({"ENVIRONMENT", "ROWS", "Row", "Source"})


def __getattr__(name: str) -> Any:
    """The room's names load on first use: a flag parser (``values``) imports this
    package, and must not pull in the config reader (pydantic, ruamel.yaml) with it."""
    if name not in __all__:
        raise AttributeError(f"module 'recall_gate.settings' has no attribute {name!r}")
    module = "table" if name in _TABLE_NAMES else "resolution"
    return getattr(importlib.import_module(f"recall_gate.settings.{module}"), name)
