"""Replacing a profile's baseline file, as ``baseline update`` does: under the
folder's lock, a file that is no valid baseline is never overwritten, and one
whose content would not change (the same cases, aggregates, fingerprints and
settings) is left as it is, so two updates on one commit write the same bytes.
An interrupt says whether the new file was written. Files that belong with the
baseline (its query snapshot) are written with it as one set
(:mod:`~recall_gate.adapters.file_set`): after any failure or kill, a reader
finds both old or both new."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from recall_gate.adapters.baseline_store import (
    StoredBaseline,
    baseline_update_lock,
    dump_baseline,
    holds_text,
    read_baseline,
    write_baseline,
)
from recall_gate.adapters.file_set import settle_file_set, write_file_set
from recall_gate.adapters.files import describe_validation_error
from recall_gate.console import Console, display_path
from recall_gate.core.baseline import Baseline, make_baseline, normalise_timestamp, same_content
from recall_gate.core.records import Results
from recall_gate.errors import InputError, Interrupted

__all__ = ["BaselineUpdate", "created_at", "update_baseline"]


@dataclass(frozen=True, kw_only=True)
class BaselineUpdate:
    """What a new baseline is made of, besides the results."""

    git_sha: str | None
    reason: str
    with_latency: bool
    created_at: str | None  # --created-at, as given
    environ: Mapping[str, str]  # for SOURCE_DATE_EPOCH
    # Files written with the baseline as one set (its query snapshot), and files
    # that set removes (the snapshot's other variant).
    together: Sequence[tuple[Path, bytes]] = ()
    remove: Sequence[Path] = ()


def created_at(update: BaselineUpdate, *, unchanged_since: str | None) -> str:
    """--created-at, else $SOURCE_DATE_EPOCH, else ``unchanged_since``, else now."""
    if update.created_at:
        try:
            return normalise_timestamp(update.created_at)
        except ValueError as exc:
            raise InputError(f"--created-at: {exc}", fix="pass e.g. 2026-05-29T12:00:00Z") from None
    epoch = update.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch:
        try:
            moment = datetime.fromtimestamp(int(epoch), tz=UTC)
        except (ValueError, OverflowError, OSError):
            raise InputError(
                f"SOURCE_DATE_EPOCH={epoch!r} is not a Unix timestamp",
                fix="set it to whole seconds since 1970 (`git log -1 --format=%ct`) or unset it",
            ) from None
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if unchanged_since is not None:
        return unchanged_since
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _make(results: Results, update: BaselineUpdate, *, created: str) -> Baseline:
    try:
        return make_baseline(
            results,
            created_at=created,
            git_sha=update.git_sha,
            reason=update.reason,
            with_latency=update.with_latency,
        )
    except ValidationError as exc:
        raise InputError(
            f"cannot make a baseline: {describe_validation_error(exc)}",
            fix="check --git-sha (or $GITHUB_SHA) and --created-at",
        ) from None


def _replace(
    results: Results,
    update: BaselineUpdate,
    *,
    out: Path,
    shown: str,
    attempt: list[str],
    console: Console,
) -> tuple[StoredBaseline | None, Baseline]:
    """Under the lock: read the current baseline, write the new one; both returned."""
    try:
        existing = read_baseline(out, display=shown)
    except InputError as exc:
        raise InputError(
            f"refusing to overwrite {shown}: {exc.message}",
            fix="move that file away or pass another --out: only a valid baseline is replaced",
        ) from None
    unchanged_since = None
    if existing is not None:
        candidate = _make(results, update, created=existing.baseline.created_at)
        if candidate == existing.baseline:
            unchanged_since = existing.baseline.created_at
    baseline = _make(results, update, created=created_at(update, unchanged_since=unchanged_since))
    text = dump_baseline(baseline)
    if existing is not None and existing.text == text:
        console.stdout.write(
            f"recall-gate: {shown} is up to date (identical bytes, not rewritten)\n"
        )
        _write_beside(update)
        return existing, baseline
    if existing is not None and same_content(existing.baseline, results):
        console.stdout.write(
            f"recall-gate: {shown} is up to date: the same cases, aggregates, fingerprints and "
            "settings (only created_at, git_sha and reason would change); not rewritten\n"
        )
        _write_beside(update)
        return existing, existing.baseline
    attempt.append(text)
    write_baseline(out, baseline, together=update.together, remove=update.remove)
    console.stdout.write(f"recall-gate: wrote {shown}\n")
    return existing, baseline


def _write_beside(update: BaselineUpdate) -> None:
    """The files that belong with a baseline left as it is: a set of their own."""
    if update.together or update.remove:
        write_file_set(update.together, remove=update.remove)


def update_baseline(
    results: Results,
    update: BaselineUpdate,
    *,
    out: Path,
    console: Console,
    wait: float,
    under_lock: Callable[[], None],
    report: Callable[[StoredBaseline | None, Baseline], None],
) -> None:
    """Replace the baseline at ``out`` under its folder's lock (``under_lock`` runs
    there too, after it), then ``report`` the old and the new baseline."""
    shown = display_path(out, console)
    attempt: list[str] = []
    try:
        with baseline_update_lock(out.parent, wait=wait, display=display_path(out.parent, console)):
            existing, baseline = _replace(
                results, update, out=out, shown=shown, attempt=attempt, console=console
            )
            under_lock()
        report(existing, baseline)
    except KeyboardInterrupt:
        # Ctrl-C may land anywhere, even right after the rename: the file says which
        # (a set that committed lands first, as the next reader would find it).
        with contextlib.suppress(InputError):
            settle_file_set(out.parent)
        if attempt and holds_text(out, attempt[0]):
            raise Interrupted(
                f"{shown} WAS written and holds the new baseline (its report may be cut short)"
            ) from None
        raise Interrupted(f"{shown} was NOT written (any previous baseline is intact)") from None
