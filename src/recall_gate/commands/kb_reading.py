"""The KB as every command reads it, with what a user must hear about it: each
``kb_include`` / ``kb_exclude`` pattern that matched no file, and how many pages
are no card (drafts, link-only pages, pages without text)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from recall_gate.adapters.dataset import Kb, KbFiles, read_kb
from recall_gate.commands.context import Console

__all__ = ["read_kb_noted", "warn_unread"]


def warn_unread(read: Kb, console: Console) -> None:
    """A warning per pattern that matched no file (a typo must not pass in silence),
    and the count of pages skipped, by reason."""
    for pattern in read.unmatched:
        console.stderr.write(
            f"recall-gate: warning: `{pattern}` matches no file of the KB "
            "(check the pattern's spelling and that it is relative to the KB folder)\n"
        )
    if read.skipped:
        reasons = Counter(s.reason for s in read.skipped)
        listed = ", ".join(f"{n} {reason}" for reason, n in sorted(reasons.items()))
        console.stderr.write(
            f"recall-gate: {len(read.skipped)} page(s) of the KB are no card ({listed}); "
            "list them with `recall-gate cards --skipped`\n"
        )


def read_kb_noted(path: Path, files: KbFiles, console: Console) -> Kb:
    """:func:`read_kb`, its warnings written to stderr."""
    read = read_kb(path, files)
    warn_unread(read, console)
    return read
