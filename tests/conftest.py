"""Shared fixtures. Keep each one small, documented and free of side effects."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The work tree's root: where `recall-gate.yaml` and the reference data live."""
    return Path(__file__).resolve().parent.parent
