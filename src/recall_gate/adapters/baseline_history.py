"""Every committed version of a baseline file, from git (adapter: runs git).

``git log`` lists the commits that touched the file (oldest first), and
``git cat-file`` reads each version; a commit that deleted the file has no
version and is left out. A version that is not a valid baseline (broken by
hand, or written by a recall-gate that read another schema) is skipped and
listed with its commit and the reason, so one bad commit does not hide the
rest of the trend, nor leave a silent gap in it; when no version is readable,
the error names the newest one's commit and problem.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from recall_gate.adapters.baseline_store import parse_baseline
from recall_gate.adapters.git import first_error_line, is_safe_ref, run_git
from recall_gate.core.baseline import Baseline
from recall_gate.core.trend import SkippedVersion
from recall_gate.errors import InputError

__all__ = ["BaselineHistory", "CommittedBaseline", "read_baseline_history"]


@dataclass(frozen=True, kw_only=True)
class CommittedBaseline:
    """One committed version: the commit that wrote it, when, and its content."""

    commit: str
    committed_at: str  # ISO 8601, the committer date
    subject: str
    baseline: Baseline


@dataclass(frozen=True, kw_only=True)
class BaselineHistory:
    """The readable versions, oldest first, and those skipped as unreadable."""

    versions: tuple[CommittedBaseline, ...]
    skipped: tuple[SkippedVersion, ...] = ()


def _git(args: list[str], *, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return run_git(args, cwd=cwd, needed_by="history", fix="install git and run it in a clone")


def _repository(path: Path, *, cwd: Path, shown: str) -> tuple[Path, str]:
    """The work tree that holds ``path`` (git runs where the baseline lives,
    wherever the command runs from) and the path inside it."""
    folder = (cwd / path).parent
    while not folder.is_dir() and folder != folder.parent:
        folder = folder.parent
    top = _git(["rev-parse", "--show-toplevel"], cwd=folder)
    if top.returncode != 0:
        raise InputError(
            f"{folder} is not inside a git work tree, so {shown} has no history",
            fix="run `recall-gate history` on a clone of the repository that commits the "
            "baseline (--config or --baseline point at it)",
        )
    root = Path(top.stdout.decode("utf-8", "replace").strip()).resolve()
    try:
        return root, (cwd / path).resolve().relative_to(root).as_posix()
    except ValueError:
        raise InputError(
            f"{shown}: the baseline is outside the git work tree {root}",
            fix="pass a baseline inside the repository (--profile or --config)",
        ) from None


_FORMAT = "--format=%H%x09%cI%x09%s"


def _commits(root: Path, relative: str, since: str | None) -> list[list[str]]:
    """(sha, date, subject) of each commit that touched the file, oldest first;
    with ``since``, the last one at that revision first."""
    revisions = ["HEAD"]
    if since is not None:
        known = (
            is_safe_ref(since)
            and not _git(
                ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{since}^{{commit}}"],
                cwd=root,
            ).returncode
        )
        if not known:
            raise InputError(
                f"--since {since!r}: unknown git revision",
                fix="pass a branch, tag or commit (fetch it first in a shallow clone)",
            )
        revisions = [f"{since}..HEAD"]
    log = _git(
        ["log", "--reverse", _FORMAT, "--end-of-options", *revisions, "--", relative], cwd=root
    )
    if log.returncode != 0:
        raise InputError(
            f"git log of {relative}: {first_error_line(log)}", fix="check the repository"
        )
    lines = log.stdout.decode("utf-8", "replace").splitlines()
    if since is not None:
        start = _git(["log", "-1", _FORMAT, "--end-of-options", since, "--", relative], cwd=root)
        if start.returncode == 0:
            lines = start.stdout.decode("utf-8", "replace").splitlines()[:1] + lines
    return [line.split("\t", 2) for line in lines if line.count("\t") >= 2]


def _version(root: Path, sha: str, relative: str) -> Baseline | str | None:
    """The baseline as committed in ``sha``; ``None`` if that commit deleted it;
    the problem, in words, if what it holds is not a readable baseline."""
    spec = f"{sha}:{relative}"
    if _git(["cat-file", "-e", "--end-of-options", spec], cwd=root).returncode:
        return None
    blob = _git(["cat-file", "blob", "--end-of-options", spec], cwd=root)
    if blob.returncode:
        raise InputError(f"{spec}: git cannot read it ({first_error_line(blob)})", fix="check git")
    try:
        text = blob.stdout.decode("utf-8-sig")
    except UnicodeDecodeError:
        return "not UTF-8 text"
    source = f"{sha[:12]}:{relative}"
    try:
        return parse_baseline(text, source=source, path_hint=relative)
    except InputError as exc:
        return exc.message.removeprefix(f"{source}: ")


def read_baseline_history(
    path: Path, *, cwd: Path, since: str | None = None, display: str | None = None
) -> BaselineHistory:
    """Every committed version of the baseline at ``path``, oldest first.

    ``since``: only versions committed after that revision, plus the version
    the file had at it (the starting point of the trend). Raises InputError
    outside a git work tree, for an unknown revision, when no commit holds
    the file, or when none of the versions is a readable baseline.
    """
    root, relative = _repository(path, cwd=cwd, shown=display or str(path))
    out, skipped = [], []
    for sha, date, subject in _commits(root, relative, since):
        version = _version(root, sha, relative)
        if isinstance(version, str):
            skipped.append(SkippedVersion(commit=sha, committed_at=date, problem=version))
        elif version is not None:
            out.append(
                CommittedBaseline(commit=sha, committed_at=date, subject=subject, baseline=version)
            )
    where = f" since {since}" if since else ""
    if not out and skipped:
        last = skipped[-1]
        raise InputError(
            f"{last.commit[:12]}:{relative}: {last.problem}; none of the "
            f"{len(skipped)} committed version{'s' if len(skipped) != 1 else ''}{where} is a "
            "readable baseline, so there is no trend to show",
            fix="commit a baseline written by `recall-gate baseline update` "
            "(`git log -p -- " + relative + "` shows what the commits hold)",
        )
    if not out:
        raise InputError(
            f"{relative}: no committed version{where}, so there is no trend to show",
            fix="commit a baseline first (`recall-gate baseline update`, then git commit), "
            "or check --profile",
        )
    return BaselineHistory(versions=tuple(out), skipped=tuple(skipped))
