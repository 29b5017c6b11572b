"""The report of an evaluation that could not run (pure): the job summary and
the PR comment say "error" — never "pass" — with the message and its fix.

A failed step's log holds recall-gate's own one-line error (``recall-gate:
error: …`` then ``  fix: …``); any other log (a crash, a dependency install
that failed) is shown by its last lines. All of it is user text: escaped. No
folder of the runner reaches it: its temp folder, the workspace and HOME are
named as the reviewer knows them (``capture/capture.jsonl``, a repository path,
``~``), never as the runner's absolute paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from recall_gate.report.markup import escape_markdown

__all__ = ["EvaluationError", "parse_error_log", "render_error_comment", "without_runner_paths"]

# The runner's folders (environment variable → what a path under it is shown as):
# the workspace's files by their repository path, the temp folder's by theirs.
_RUNNER_FOLDERS = (
    ("GITHUB_WORKSPACE", ""),
    ("RUNNER_TEMP", ""),
    ("RUNNER_TOOL_CACHE", ""),
    ("RUNNER_WORKSPACE", ""),
    ("HOME", "~/"),
)


def without_runner_paths(text: str, environ: Mapping[str, str], *, markdown: bool = False) -> str:
    """``text`` with each path under a runner folder of ``environ`` shown without
    the folder (the longest folder first: the workspace lies under HOME);
    ``markdown``: escaped as user text too (``/home/runner/work/\\_temp/``)."""
    folders = sorted(
        (
            (environ[name].rstrip("/") + "/", shown)
            for name, shown in _RUNNER_FOLDERS
            if environ.get(name, "").startswith("/") and len(environ[name].rstrip("/")) > 1
        ),
        key=lambda folder: len(folder[0]),
        reverse=True,
    )
    for folder, shown in folders:
        text = text.replace(folder, shown)
        if markdown:
            text = text.replace(escape_markdown(folder), escape_markdown(shown))
    return text


_PREFIX = "recall-gate: error: "
_TAIL_LINES = 12
_LINE_CHARS = 400


@dataclass(frozen=True, kw_only=True)
class EvaluationError:
    """What stopped the evaluation: the message, its fix, and which step."""

    message: str
    fix: str | None
    tail: tuple[str, ...] = ()  # the log's last lines, when it holds no recall-gate error
    # The indented lines just above the error line: what it found (e.g. the
    # integrity problems, one per case), at most _TAIL_LINES of them.
    details: tuple[str, ...] = ()

    @property
    def one_line(self) -> str:
        text = self.message + (f" — fix: {self.fix}" if self.fix else "")
        return text[: _LINE_CHARS * 2]


def parse_error_log(log: str, *, what: str) -> EvaluationError:
    """The error a step's log reports; ``what`` names the step's work
    (e.g. "the capture") for a log without recall-gate's own error line."""
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(_PREFIX):
            message = line[len(_PREFIX) :].strip()
            fix = None
            if i + 1 < len(lines) and lines[i + 1].startswith("  fix: "):
                fix = lines[i + 1][len("  fix: ") :].strip()
            above: list[str] = []
            for previous in reversed(lines[:i]):
                if not previous.startswith("  ") or not previous.strip():
                    break
                above.append(previous.strip()[:_LINE_CHARS])
            return EvaluationError(
                message=message[:_LINE_CHARS],
                fix=fix and fix[:_LINE_CHARS],
                details=tuple(reversed(above))[:_TAIL_LINES],
            )
    tail = tuple(line[:_LINE_CHARS] for line in lines if line.strip())[-_TAIL_LINES:]
    return EvaluationError(
        message=f"{what} failed; its log ends with the lines below",
        fix="see the step's log",
        tail=tail,
    )


def _quoted(lines: Sequence[str]) -> list[str]:
    return [f"> {escape_markdown(line)}" for line in lines]


def render_error_comment(
    error: EvaluationError, *, profile: str, what: str, failed_gate: bool = False
) -> str:
    """The PR comment (and job summary) of an evaluation that did not run, or
    (``failed_gate``) that stopped on a failed gate before it could compare."""
    if failed_gate:
        heading = f"### ❌ recall-gate `{escape_markdown(profile)}`: **fail**"
        said = (
            "A gate failed before this run could be compared (exit code 1): the "
            "pull request fails until it passes."
        )
    else:
        heading = f"### ⚠️ recall-gate `{escape_markdown(profile)}`: **error**"
        said = (
            f"{what[:1].upper()}{what[1:]} could not run, so nothing was judged: this pull "
            "request has no retrieval verdict, and the check fails until it runs."
        )
    body = [
        f"<!-- recall-gate:{profile} -->",
        "",
        heading,
        "",
        said,
        "",
        f"> **{escape_markdown(error.message)}**",
    ]
    if error.fix:
        body += [">", f"> Fix: {escape_markdown(error.fix)}"]
    if error.details:
        body += ["", *(f"- {escape_markdown(line)}" for line in error.details)]
    if error.tail:
        body += ["", "<details><summary>The end of the log</summary>", "", *_quoted(error.tail)]
        body += ["", "</details>"]
    return "\n".join(body) + "\n"
