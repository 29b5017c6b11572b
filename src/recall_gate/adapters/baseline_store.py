"""Read and write baseline files (adapter: file I/O and ``git``).

* Files are written atomically (temp file + rename, via
  :func:`recall_gate.adapters.results_store.atomic_write_text`) with deterministic bytes
  (:func:`recall_gate.adapters.results_store.dump_json`: sorted keys, floats rounded to 6
  digits, trailing newline), so a baseline diff is reviewable.
* A baseline can be read as it is at a git revision (``git cat-file`` of
  ``REF:path``), so a pull request that edits ``baselines/`` is still compared
  against its base branch's baseline.
* Every problem is one :class:`~recall_gate.errors.InputError` naming the file
  and the fix: corrupted JSON, a results file passed as a baseline, a newer
  schema, records that disagree with their aggregates. A file that is not a
  valid baseline is never overwritten.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from recall_gate.adapters.files import (
    atomic_write_text,
    describe_validation_error,
    dump_json,
    read_text,
    too_deep,
)
from recall_gate.adapters.git import BaseTree
from recall_gate.adapters.results_store import read_results
from recall_gate.core.baseline import (
    BASELINE_KIND,
    BASELINE_SCHEMA_VERSION,
    Baseline,
    find_inconsistency,
)
from recall_gate.core.profile import baseline_relpath
from recall_gate.core.records import Results
from recall_gate.errors import InputError

__all__ = [
    "StoredBaseline",
    "default_baseline_path",
    "dump_baseline",
    "git_head_sha",
    "parse_baseline",
    "read_baseline",
    "read_baseline_at_ref",
    "read_baseline_in",
    "read_current_results",
    "write_baseline",
]

_RESTORE = (
    "restore it with `git checkout -- {path}`, or re-create it with `recall-gate baseline update`"
)


@dataclass(frozen=True, kw_only=True)
class StoredBaseline:
    """A baseline with the exact text it was read from and where."""

    baseline: Baseline
    text: str
    source: str


def default_baseline_path(profile: str) -> Path:
    """``baselines/<profile>.json`` (relative: resolved by the caller)."""
    return Path(baseline_relpath(profile))


def dump_baseline(baseline: Baseline) -> str:
    """The deterministic bytes of a baseline file."""
    return dump_json(baseline.model_dump(mode="json"))


def parse_baseline(text: str, *, source: str, path_hint: str | None = None) -> Baseline:
    """Validate baseline JSON text; ``source`` names it in every message."""
    restore = _RESTORE.format(path=path_hint or source)
    try:
        data: Any = json.loads(text)
    except RecursionError:
        raise too_deep(source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: corrupted baseline: invalid JSON ({exc.msg}, line {exc.lineno})",
            fix=restore,
        ) from None
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: not a recall-gate baseline (expected a JSON object)",
            fix=f"pass a file written by `recall-gate baseline update`, or {restore}",
        )
    if data.get("kind") != BASELINE_KIND:
        if "schema_version" in data and "cases" in data and "kind" not in data:
            raise InputError(
                f"{source}: is a results file, not a baseline",
                fix=f"make it a baseline: `recall-gate baseline update --results {source} "
                "--out baselines/<profile>.json --reason TEXT`",
            )
        raise InputError(
            f'{source}: not a recall-gate baseline (no "kind": "{BASELINE_KIND}")',
            fix=f"pass a file written by `recall-gate baseline update`, or {restore}",
        )
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InputError(
            f"{source}: corrupted baseline: schema_version is {version!r}", fix=restore
        )
    if version > BASELINE_SCHEMA_VERSION:
        raise InputError(
            f"{source}: baseline schema_version {version} is newer than this recall-gate "
            f"reads ({BASELINE_SCHEMA_VERSION})",
            fix="upgrade recall-gate (`pip install -U recall-gate`), "
            "or pin the action to the version that wrote the baseline",
        )
    try:
        baseline = Baseline.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: corrupted baseline: {describe_validation_error(exc)}", fix=restore
        ) from None
    problem = find_inconsistency(baseline)
    if problem is not None:
        raise InputError(f"{source}: corrupted baseline: {problem} (edited by hand?)", fix=restore)
    return baseline


def read_baseline(path: Path, *, display: str | None = None) -> StoredBaseline | None:
    """The baseline at ``path``; ``None`` when no file is there (no baseline yet)."""
    source = display or str(path)
    if not path.exists() and not path.is_symlink():
        return None
    text = read_text(path, what="baseline file")
    baseline = parse_baseline(text, source=source)
    return StoredBaseline(baseline=baseline, text=text, source=source)


def write_baseline(path: Path, baseline: Baseline) -> str:
    """Write ``baseline`` atomically; returns the bytes written (as text)."""
    text = dump_baseline(baseline)
    atomic_write_text(path, text)
    return text


def read_current_results(path: Path) -> Results:
    """A results file, or a baseline file read as the results it embeds."""
    try:
        data = json.loads(read_text(path, what="results file"))
    except (json.JSONDecodeError, RecursionError):
        data = None  # read_results reports it with the results-file wording
    if isinstance(data, dict) and data.get("kind") == BASELINE_KIND:
        stored = read_baseline(path)
        assert stored is not None
        return stored.baseline
    return read_results(path)


def read_baseline_at_ref(path: Path, *, ref: str, cwd: Path) -> StoredBaseline | None:
    """The baseline at ``path`` (against ``cwd``) as it is at git revision
    ``ref``; ``None`` when the file does not exist there (no baseline yet)."""
    return read_baseline_in(BaseTree(ref, cwd=cwd), cwd / path)


def read_baseline_in(tree: BaseTree, path: Path) -> StoredBaseline | None:
    """The baseline at ``path`` as it is at the revision of ``tree``; ``None``
    when the file does not exist there (no baseline there yet)."""
    relative = tree.relative(path)
    if relative is None:
        raise InputError(
            f"{path}: the baseline is outside the git work tree {tree.root}",
            fix="pass a baseline path inside the repository",
        )
    data = tree.read(relative)
    if data is None:
        return None
    spec = tree.source(relative)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(
            f"{spec}: corrupted baseline: not UTF-8 text", fix="restore the file on that branch"
        ) from None
    baseline = parse_baseline(text, source=spec, path_hint=relative)
    return StoredBaseline(baseline=baseline, text=text, source=spec)


def git_head_sha(cwd: Path) -> str | None:
    """The commit checked out at ``cwd``; ``None`` outside a git work tree."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=cwd,
            capture_output=True,
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = done.stdout.decode("ascii", "replace").strip()
    return sha if done.returncode == 0 and sha else None
