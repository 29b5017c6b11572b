"""The git adapter: a base ref is a SHA or a ref name, and every git call that
takes one ends git's options before it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from git_repo import git, needs_git
from recall_gate.adapters.git import BaseTree, check_ref, is_ref_name_or_sha
from recall_gate.errors import InputError


@pytest.mark.parametrize(
    "ref",
    [
        "main",
        "origin/main",
        "refs/heads/release-1.2",
        "v0.2.0",
        "0123456789abcdef0123456789abcdef01234567",
        "abc1234",
        "feature/x_y",
    ],
)
def test_shas_and_ref_names_are_refs(ref: str) -> None:
    assert is_ref_name_or_sha(ref)


@pytest.mark.parametrize(
    "ref",
    [
        "",
        "-x",
        "--upload-pack=touch /tmp/p",
        "--end-of-options",
        "main..HEAD",
        "HEAD~1",
        "HEAD^",
        "@{-1}",
        "a b",
        "a\tb",
        "main:secret",
        "x.lock",
        "a//b",
        "a/.hidden",
        "/abs",
        "trailing/",
        "star*",
        "é",
    ],
)
def test_anything_else_is_refused_naming_the_ref_and_where_it_was_given(ref: str) -> None:
    assert not is_ref_name_or_sha(ref)
    with pytest.raises(InputError) as exc:
        check_ref(ref, given_as="the input `baseline-ref`")
    assert exc.value.message == (
        f"the input `baseline-ref` {ref!r}: not a commit SHA or a git ref name"
    )


@needs_git
def test_every_git_call_with_the_ref_ends_options_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.yaml").write_text("[]\n", encoding="utf-8")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    calls: list[list[str]] = []
    real = subprocess.run

    def recording(argv: list[str], **kwargs: Any) -> Any:
        calls.append(list(argv))
        return real(argv, **kwargs)

    monkeypatch.setattr(subprocess, "run", recording)
    tree = BaseTree("main", cwd=tmp_path)
    assert tree.read("d/a.yaml") == b"[]\n"
    assert tree.read("missing.yaml") is None
    assert tree.folder("d") == ["a.yaml"]
    with_ref = [argv for argv in calls if any(a.startswith("main") for a in argv)]
    assert len(with_ref) >= 5
    for argv in with_ref:
        at = next(i for i, a in enumerate(argv) if a.startswith("main"))
        assert argv[at - 1] == "--end-of-options", argv
