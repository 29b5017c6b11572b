"""One baseline to propose through the REST API, and the decision: open the
profile's pull request, update the open one in place, or nothing (the default
branch already holds the same content). A pull request closed without merging is
never reopened: a fresh one says why."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from recall_gate.errors import InputError

if TYPE_CHECKING:
    from recall_gate.adapters.github_client import GitHubClient
    from recall_gate.core.baseline import Baseline

__all__ = ["BRANCH_PREFIX", "BaselineProposal", "BodyRenderer"]

BRANCH_PREFIX: Final = "recall-gate/baseline-"
# The pull request's body from the open one's body (None: a new pull request) and
# the number of a proposal closed without merging that this one follows.
BodyRenderer = Callable[[str | None, int | None], str]


class BaselineProposal:
    """One baseline to propose, and the decision: open, update, or nothing."""

    def __init__(
        self,
        *,
        client: GitHubClient,
        repo: str,
        base: str,
        base_sha: str,
        profile: str,
        reason: str,
        path: str,
        baseline: Baseline,
        content: bytes,
        title: str,
        render_body: BodyRenderer,
    ) -> None:
        self.client, self.repo, self.base, self.base_sha = client, repo, base, base_sha
        self.profile, self.reason, self.path = profile, reason, path
        self.baseline, self.content = baseline, content
        self.title, self.render_body = title, render_body
        self.branch = f"{BRANCH_PREFIX}{profile}"

    def submit(self) -> tuple[str, str, str]:
        """(status, PR URL, what happened, in a sentence)."""
        from recall_gate.adapters.baseline_pull import (
            edit_pull_body,
            find_baseline_pulls,
            open_pull,
        )

        current = self._baseline_on(self.base)
        pulls = find_baseline_pulls(self.client, repo=self.repo, branch=self.branch, base=self.base)
        if current is not None and _same(current, self.baseline):
            said = (
                f"{self.path} on {self.base} is up to date: the same cases, aggregates, "
                "fingerprints and settings (only its stamps would change); no pull request "
                "opened"
            )
            if pulls.open is not None:
                said += (
                    f". Pull request #{pulls.open.number} is still open and proposes other "
                    f"content: close it if it is no longer wanted ({pulls.open.url})"
                )
            return "up-to-date", "", said
        title = self.title
        if pulls.open is not None:
            proposed = self._baseline_on(self.branch)
            if (
                proposed is not None
                and _same(proposed, self.baseline)
                and proposed.reason == self.baseline.reason
            ):
                return (
                    "unchanged",
                    pulls.open.url,
                    f"pull request #{pulls.open.number} already proposes this baseline "
                    f"({pulls.open.url}); nothing changed",
                )
            self._push(exists=True)
            body = self.render_body(pulls.open.body, None)
            edit_pull_body(
                self.client, repo=self.repo, number=pulls.open.number, title=title, body=body
            )
            return (
                "updated",
                pulls.open.url,
                f"updated pull request #{pulls.open.number}: {pulls.open.url}",
            )
        # A branch left by a closed PR, or by a run stopped before it opened one.
        self._push(exists=self._branch_exists())
        closed = pulls.closed_unmerged
        body = self.render_body(None, closed.number if closed else None)
        opened = open_pull(
            self.client, repo=self.repo, branch=self.branch, base=self.base, title=title, body=body
        )
        said = f"opened pull request #{opened.number}: {opened.url}"
        if closed is not None:
            said += (
                f" (#{closed.number}, the previous proposal, was closed without merging: "
                "a closed pull request is never reopened)"
            )
        return "opened", opened.url, said

    def _baseline_on(self, branch: str) -> Baseline | None:
        from recall_gate.adapters.baseline_pull import read_file
        from recall_gate.adapters.baseline_store import parse_baseline

        raw = read_file(self.client, repo=self.repo, branch=branch, path=self.path)
        if raw is None:
            return None
        try:
            return parse_baseline(raw.decode("utf-8"), source=f"{self.path} on {branch}")
        except (InputError, UnicodeDecodeError):
            return None  # not a readable baseline: whatever it is, ours replaces it

    def _branch_exists(self) -> bool:
        from recall_gate.adapters.github_client import GitHubNotFound
        from recall_gate.adapters.github_pulls import get_branch_sha

        try:
            get_branch_sha(self.client, repo=self.repo, branch=self.branch)
        except GitHubNotFound:
            return False
        return True

    def _push(self, *, exists: bool) -> None:
        from recall_gate.adapters.baseline_pull import write_branch

        write_branch(
            self.client,
            repo=self.repo,
            branch=self.branch,
            base_sha=self.base_sha,
            path=self.path,
            content=self.content,
            message=f"Update the {self.profile} retrieval baseline: {self.reason}",
            exists=exists,
        )


def _same(old: Baseline, new: Baseline) -> bool:
    from recall_gate.core.baseline import same_content

    return same_content(old, new)
