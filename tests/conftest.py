"""Shared fixtures. Keep each one small, documented and free of side effects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fake_github import TOKEN, FakeGitHub


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The work tree's root: where `recall-gate.yaml` and the reference data live."""
    return Path(__file__).resolve().parent.parent


@pytest.fixture
def fake_github() -> Iterator[FakeGitHub]:
    """The fake GitHub API (tests/fake_github.py) running on loopback in its github.com
    mode, with the repository ``octo/app`` and the Actions workflow token `TOKEN`."""
    with FakeGitHub() as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo("octo/app")
        yield fake


@pytest.fixture(scope="session")
def action_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action as `uses: recall-gate/recall-gate@v0` finds it under act (a copy)."""
    from act_harness import copy_action

    return copy_action(tmp_path_factory.mktemp("action") / "recall-gate")
