"""The bases the pairs start from, built once per test session."""

from __future__ import annotations

import pytest

from .pairs import Layout, World, build_world


@pytest.fixture(scope="session")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, World]:
    """One base per layout; each test opens its pull request on a copy."""
    return {
        name: build_world(tmp_path_factory.mktemp(f"base-{name}"), Layout(name))
        for name in ("site", "folders")
    }
