"""Shared fixtures. Keep each one small, documented and free of side effects."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from fake_github import TOKEN, FakeGitHub


def pytest_collection_finish(session: pytest.Session) -> None:
    """Import the model stack once, in this process's main thread, before any test
    runs when a collected test loads the model (integration).

    torch's first import registers its operators across modules that import each
    other; a first import racing another thread of the same process (tests leave
    retriever threads behind on purpose, e.g. timed-out ones) can see a partly
    made module and fail ("'_OpNamespace' 'prims' object has no attribute 'sum'"),
    and every later import in that process fails the same way. Imported here, it
    is made whole once, while no test thread exists.
    """
    if not any(item.get_closest_marker("integration") for item in session.items):
        return
    try:
        import sentence_transformers  # noqa: F401
        import transformers.modeling_utils  # noqa: F401
    except ImportError:
        return  # the tests that need it say so themselves, by their own error


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
