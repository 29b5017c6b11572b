"""Run git in a scratch repository under ``tmp_path``, isolated from the user's config."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str) -> str:
    """``git ARGS`` in ``repo`` with a fixed identity and no global/system config; its stdout."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def write_files(root: Path, files: dict[str, str]) -> None:
    """Write each ``path: text`` under ``root``, creating folders."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def commit_all(repo: Path, message: str = "pr") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def pull_request_repo(root: Path, base: dict[str, str]) -> Path:
    """A repository whose ``main`` commits ``base``, checked out on a new branch
    ``pr``: what a pull request then commits is compared with ``main``."""
    git(root, "init", "-q", "-b", "main")
    write_files(root, base)
    commit_all(root, "base")
    git(root, "checkout", "-q", "-b", "pr")
    return root
