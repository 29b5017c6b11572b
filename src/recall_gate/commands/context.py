"""What a command handler receives from ``cli.main``: the parsed flags and the
:class:`~recall_gate.console.Console` (streams, environment, working directory)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TypeAlias

from recall_gate.console import DEFAULT_CONFIG, Console, display_path, warn

__all__ = ["DEFAULT_CONFIG", "Console", "Handler", "display_path", "warn"]

Handler: TypeAlias = Callable[[argparse.Namespace, Console], int]
