"""A baseline profile: its name rule, its baseline file and its comment marker.

A profile names one line of comparison (``default``, ``nightly``): one
committed baseline ``baselines/<profile>.json`` and one sticky PR comment,
found by the hidden marker ``<!-- recall-gate:<profile> -->``.
"""

from __future__ import annotations

import re

from recall_gate.errors import InputError

__all__ = [
    "DEFAULT_PROFILE",
    "PROFILE_PATTERN",
    "PROFILE_RULE",
    "baseline_relpath",
    "check_profile",
    "comment_marker",
    "is_profile_name",
]

DEFAULT_PROFILE = "default"
# Safe in a file name, a branch name and inside an HTML comment.
PROFILE_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
PROFILE_RULE = "letters, digits, '.', '_' or '-', starting with a letter or digit"

_PROFILE = re.compile(PROFILE_PATTERN)


def is_profile_name(text: str) -> bool:
    return _PROFILE.fullmatch(text) is not None


def check_profile(name: str) -> str:
    """``name`` when it is a valid profile name, else an InputError."""
    if not is_profile_name(name):
        raise InputError(f"profile {name!r} is not a valid profile name", fix=f"use {PROFILE_RULE}")
    return name


def comment_marker(profile: str) -> str:
    """The hidden marker at the start of a profile's sticky comment."""
    return f"<!-- recall-gate:{check_profile(profile)} -->"


def baseline_relpath(profile: str) -> str:
    """``baselines/<profile>.json``, relative to the project (config) folder."""
    return f"baselines/{check_profile(profile)}.json"
