"""The body and title of the baseline pull request (pure).

One PR per profile: a dispatch that updates it rewrites the body with the new
old → new report and keeps the list of updates, which lives between hidden
markers so the next update can read it back.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from recall_gate.report.markup import escape_markdown

__all__ = ["Update", "pull_body", "pull_title", "updates_in"]

_START: Final = "<!-- recall-gate:baseline-updates -->"
_END: Final = "<!-- recall-gate:baseline-updates-end -->"
_SECTION: Final = re.compile(re.escape(_START) + r"\n(.*?)" + re.escape(_END), re.S)


@dataclass(frozen=True)
class Update:
    """One dispatch that wrote the proposal: when its baseline was made, from which
    commit, why, and the run that did it."""

    created_at: str
    git_sha: str | None
    reason: str
    run_url: str | None = None

    def line(self) -> str:
        sha = f"`{self.git_sha[:12]}`" if self.git_sha else "an unknown commit"
        run = f" ([workflow run]({self.run_url}))" if self.run_url else ""
        return f"- {self.created_at}, {sha}: “{escape_markdown(self.reason)}”{run}"


def pull_title(profile: str, reason: str) -> str:
    return f"Update the {profile} retrieval baseline: {' '.join(reason.split())}"


def updates_in(body: str) -> list[str]:
    """The update lines a previous body of this PR listed (oldest first)."""
    found = _SECTION.search(body)
    if found is None:
        return []
    return [line for line in found.group(1).splitlines() if line.startswith("- ")]


def pull_body(
    *,
    path: str,
    base: str,
    report: str,
    updates: list[str],
    latest: Update,
    reopened_after: int | None = None,
) -> str:
    """The PR body: what it changes, the old → new ``report``, then every update."""
    lines = [f"Updates `{path}` from an evaluation of `{base}`."]
    if reopened_after is not None:
        lines += [
            "",
            f"A previous proposal, #{reopened_after}, was closed without merging; this is a "
            "new pull request (a closed one is never reopened).",
        ]
    lines += ["", report.rstrip("\n"), "", "#### Updates of this pull request", ""]
    lines += [_START, *updates, latest.line(), _END]
    return "\n".join(lines) + "\n"
