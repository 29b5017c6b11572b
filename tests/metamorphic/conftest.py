"""The bases the pairs start from, built once per test session."""

from __future__ import annotations

import pytest

from .changes import Change, judge_pair
from .pairs import Layout, World, build_world


@pytest.fixture(scope="session")
def worlds(tmp_path_factory: pytest.TempPathFactory) -> dict[str, World]:
    """One base per layout; each test opens its pull request on a copy.

    The control first: a pull request that changes nothing passes in each world.
    Without it a worse pull request refused for a reason of the base's own (a
    baseline the judge cannot read) would count as caught.
    """
    worlds = {
        name: build_world(tmp_path_factory.mktemp(f"base-{name}"), Layout(name))
        for name in ("site", "folders")
    }
    for name in worlds:
        unchanged = Change(lambda world: world.capture, layout=name)
        judged = judge_pair(worlds, unchanged, tmp_path_factory.mktemp(f"control-{name}"))
        assert (judged.exit_code, judged.verdict) == (0, "pass"), judged.why()
    return worlds
