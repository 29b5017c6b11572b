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


@needs_git
def test_files_at_a_revision_are_their_bytes_whatever_filter_or_textconv_gitattributes_name(
    tmp_path: Path,
) -> None:
    """The judge reads the pull request's files from git objects: `.gitattributes` may
    name filter and diff drivers (a runner configures some: git-lfs), and no read of
    recall-gate's runs one, even when the repository's own config defines them."""
    from planted_checkout import git_drivers
    from recall_gate.adapters.git import changed_files, read_files_at

    repo, markers = tmp_path / "repo", tmp_path / "markers"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitattributes").write_text("* filter=rgplant diff=rgplant\n", encoding="utf-8")
    (repo / "kb").mkdir()
    (repo / "kb" / "a.md").write_text("# A\n", encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "base")
    base = git(repo, "rev-parse", "HEAD")
    (repo / "kb" / "a.md").write_text("# A, renamed\n", encoding="utf-8")
    git(repo, "mv", "kb/a.md", "kb/b.md")
    git(repo, "commit", "-q", "-am", "the pull request")
    with (repo / ".git" / "config").open("a", encoding="utf-8") as config:
        config.write(git_drivers(markers, tmp_path / "drivers"))

    tree = BaseTree(base, cwd=repo)
    assert tree.read("kb/a.md") == b"# A\n"
    assert tree.folder("kb") == ["a.md"]
    assert read_files_at(repo, [("main", "kb/b.md")], needed_by="t", fix="t") == {
        ("main", "kb/b.md"): b"# A, renamed\n"
    }
    changes = changed_files(repo, base, "main", "kb", needed_by="t", fix="t")
    assert changes == [("R", "kb/a.md", "kb/b.md")] or set(changes) == {
        ("D", "kb/a.md", None),
        ("A", None, "kb/b.md"),
    }
    assert sorted(p.name for p in markers.iterdir()) == []
    # The control: the drivers are live for a read that applies them (a checkout would).
    git(repo, "cat-file", "--filters", "main:kb/b.md")
    assert sorted(p.name for p in markers.iterdir()) == ["git-smudge"]
