"""The values a setting takes, parsed from text the same way whether a flag, an
environment variable (an action input) or a test gives it: each parser raises
:class:`argparse.ArgumentTypeError` with what it expected; the ``optional_``
ones (and those noted) read an empty string as unset, as the action passes an
input left empty."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from recall_gate.core.metric_registry import select_metrics
from recall_gate.core.profile import PROFILE_RULE, is_profile_name
from recall_gate.core.shards import Shard, parse_shard

__all__ = [
    "boolean",
    "fraction",
    "language_tag",
    "metric_selection",
    "non_negative_int",
    "non_negative_seconds",
    "optional_path",
    "optional_positive_int",
    "optional_text",
    "positive_int",
    "positive_rate",
    "positive_seconds",
    "profile_name",
    "shard_spec",
    "strict_boolean",
]


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 0 or a positive integer, got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text}")
    return value


def positive_rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected requests a second, got {text!r}") from None
    if not value > 0 or math.isinf(value):
        raise argparse.ArgumentTypeError(
            f"must be a positive number of requests a second, got {text}"
        )
    return value


def shard_spec(text: str) -> Shard:
    """``I/N``: shard I of N (see core.shards)."""
    try:
        return parse_shard(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fraction(text: str) -> float | None:
    """A float in [0, 1]; an empty string means unset (how the action passes it)."""
    if not text.strip():
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}") from None
    if not (0.0 <= value <= 1.0) or math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text}")
    return value


def profile_name(text: str) -> str | None:
    """A profile name; an empty string means unset (how the action passes it)."""
    if not text.strip():
        return None
    if not is_profile_name(text):
        raise argparse.ArgumentTypeError(f"use {PROFILE_RULE}, got {text!r}")
    return text


def optional_positive_int(text: str) -> int | None:
    """A positive integer; an empty string means unset (how the action passes it)."""
    return positive_int(text) if text.strip() else None


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


def strict_boolean(text: str) -> bool:
    """``true`` / ``false`` (also yes/no, on/off, 1/0)."""
    word = text.strip().lower()
    if word in _TRUE:
        return True
    if word in _FALSE:
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def boolean(text: str) -> bool | None:
    """:func:`strict_boolean`; an empty string means unset (how the action passes it)."""
    return strict_boolean(text) if text.strip() else None


def optional_text(text: str) -> str | None:
    return text.strip() or None


def optional_path(text: str) -> Path | None:
    return Path(text) if text.strip() else None


def metric_selection(text: str) -> tuple[str, ...] | None:
    """``hit,recall,mrr``: metric keys in the registry's order; empty = unset."""
    if not text.strip():
        return None
    try:
        return select_metrics(text.split(","))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def non_negative_seconds(text: str) -> float:
    """Seconds to wait: 0 or more, finite."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value >= 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number of seconds ≥ 0, got {text}")
    return value


def language_tag(text: str) -> str:
    """A BCP-47 tag, in canonical case."""
    # Imported here: the language module brings pydantic, which parsing flags never needs.
    from recall_gate.core.language import canonical_language

    try:
        return canonical_language(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
