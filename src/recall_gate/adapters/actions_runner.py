"""The GitHub Actions runner's files and workflow commands (adapter: I/O).

What a step can hand back to the runner, and nothing else:

- step outputs, appended to the file named by ``GITHUB_OUTPUT``
  (``name<<DELIMITER`` blocks, so a value may span lines);
- the job summary, appended to the file named by ``GITHUB_STEP_SUMMARY``
  (GitHub refuses a step's summary above 1 MiB, so it is cut below that);
- annotations on stdout: ``::warning::``, ``::error::``, ``::notice::``;

and what a step can learn from it: the event that triggered the run
(`load_event`, from the file named by ``GITHUB_EVENT_PATH``). What a
comparison becomes there — outputs and annotations — is decided by the pure
`recall_gate.report.actions`.

It receives the two paths and the stream; the CLI reads them from the
environment. Outside Actions (no paths, ``commands=False``) outputs and the
summary are dropped and annotations become plain ``warning: ...`` lines, so
the same code path serves a laptop.

The token is masked by the action itself (``::add-mask::`` in its first step,
before any tool runs), not here: a command whose stdout is redirected to a
file would write the secret into that file instead of to the runner.

Escaping follows the runner's own rules (actions/toolkit ``command.ts``): in
a command's message ``%``, CR and LF are percent-encoded; in its properties
``:`` and ``,`` too. A message therefore cannot end the command early nor
smuggle in a second one, whatever a case id or a GitHub error says.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from recall_gate.adapters.files import describe_validation_error, read_text, too_deep, write_fix
from recall_gate.adapters.log_lines import write_workflow_command
from recall_gate.core.annotations import AnnotationLevel
from recall_gate.core.github_limits import SUMMARY_MAX_BYTES
from recall_gate.errors import InputError

__all__ = [
    "SUMMARY_MAX_BYTES",
    "ActionsRunner",
    "AnnotationLevel",
    "EventContext",
    "escape_data",
    "escape_property",
    "load_event",
]

_SUMMARY_CUT_NOTE: Final = (
    "\n\n> [!NOTE]\n> The report was cut to fit GitHub's 1 MiB job-summary limit; "
    "the whole report is in the `report-markdown` file.\n"
)
_OUTPUT_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


def escape_data(text: str) -> str:
    """A workflow command's message, made unable to end or start a command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value (``title=...``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


@dataclass(frozen=True, kw_only=True)
class ActionsRunner:
    """Where a step's outputs, summary and workflow commands go.

    ``output_path`` / ``summary_path`` are ``GITHUB_OUTPUT`` /
    ``GITHUB_STEP_SUMMARY`` (None outside Actions); ``commands`` says whether
    ``stream`` is read by the runner (``GITHUB_ACTIONS=true``).
    """

    output_path: Path | None
    summary_path: Path | None
    stream: TextIO
    commands: bool

    @classmethod
    def from_environ(cls, environ: Mapping[str, str], *, stream: TextIO) -> ActionsRunner:
        def path(name: str) -> Path | None:
            value = environ.get(name, "")
            return Path(value) if value else None

        return cls(
            output_path=path("GITHUB_OUTPUT"),
            summary_path=path("GITHUB_STEP_SUMMARY"),
            stream=stream,
            commands=environ.get("GITHUB_ACTIONS") == "true",
        )

    # -- outputs and summary ---------------------------------------------------

    def set_outputs(self, outputs: Mapping[str, str]) -> None:
        """Append step outputs; multi-line values use a random heredoc delimiter."""
        if self.output_path is None or not outputs:
            return
        blocks = []
        for name, value in outputs.items():
            if not _OUTPUT_NAME.fullmatch(name):
                raise ValueError(f"invalid step output name: {name!r}")
            delimiter = f"recall_gate_{secrets.token_hex(8)}"
            while delimiter in value:  # pragma: no cover - 64 random bits
                delimiter = f"recall_gate_{secrets.token_hex(8)}"
            blocks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        self._append(self.output_path, "".join(blocks), what="GITHUB_OUTPUT")

    def append_summary(self, markdown: str) -> None:
        """Append Markdown to the job summary, cut to GitHub's size limit."""
        if self.summary_path is None or not markdown:
            return
        text = markdown if markdown.endswith("\n") else markdown + "\n"
        used = self.summary_path.stat().st_size if self.summary_path.exists() else 0
        budget = SUMMARY_MAX_BYTES - used
        if len(text.encode("utf-8")) > budget:
            room = max(budget - len(_SUMMARY_CUT_NOTE.encode("utf-8")), 0)
            cut = text.encode("utf-8")[:room].decode("utf-8", errors="ignore")
            # Cut at a line break so that a table row or a fence is not left half-open.
            text = cut[: cut.rfind("\n") + 1] + _SUMMARY_CUT_NOTE if room else ""
        if text:
            self._append(self.summary_path, text, what="GITHUB_STEP_SUMMARY")

    # -- workflow commands -----------------------------------------------------

    def annotate(self, level: AnnotationLevel, message: str, *, title: str | None = None) -> None:
        """An annotation on the run (or a ``level: message`` line outside Actions)."""
        if not self.commands:
            prefix = f"{level}: {title}: " if title else f"{level}: "
            self.stream.write(prefix + message + "\n")
            return
        props = f" title={escape_property(title)}" if title else ""
        write_workflow_command(self.stream, f"::{level}{props}::{escape_data(message)}")

    # -- internals ---------------------------------------------------------------

    @staticmethod
    def _append(path: Path, text: str, *, what: str) -> None:
        """Append whole or not at all: a write that fails part-way (a full disk) is
        cut back, so the runner never reads half an output or summary."""
        data = text.encode("utf-8")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        except OSError as exc:
            raise _append_error(path, exc, what=what, cut_back=True) from None
        try:
            start = os.fstat(fd).st_size
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            except OSError as exc:
                try:
                    os.ftruncate(fd, start)
                    cut_back = True
                except OSError:
                    cut_back = not stat.S_ISREG(os.fstat(fd).st_mode)  # a device keeps nothing
                raise _append_error(path, exc, what=what, cut_back=cut_back) from None
        finally:
            os.close(fd)


def _append_error(path: Path, exc: OSError, *, what: str, cut_back: bool) -> InputError:
    reason = exc.strerror or os.strerror(exc.errno or 0)
    left = "nothing of this entry was left in it" if cut_back else "part of this entry remains"
    return InputError(
        f"{path}: cannot append to the runner's {what} file: {reason} ({left})",
        fix=write_fix(exc, otherwise=f"run inside GitHub Actions, or unset {what}"),
    )


# -- the triggering event ----------------------------------------------------


class _EventRecord(BaseModel):
    # Webhook payloads carry hundreds of fields and gain more; read only these.
    model_config = ConfigDict(frozen=True, extra="ignore")


class _Owner(_EventRecord):
    login: str


class _Repository(_EventRecord):
    full_name: str
    owner: _Owner | None = None


class _PullHead(_EventRecord):
    sha: str
    label: str | None = None


class _PullBase(_EventRecord):
    sha: str


class _PullRequest(_EventRecord):
    number: int
    head: _PullHead
    base: _PullBase | None = None


class _RunPull(_EventRecord):
    # An entry of workflow_run.pull_requests (empty for a fork's pull request).
    base: _PullBase | None = None


class _WorkflowRun(_EventRecord):
    head_sha: str
    head_branch: str | None = None
    head_repository: _Repository | None = None
    pull_requests: tuple[_RunPull, ...] = ()


class _MergeGroup(_EventRecord):
    # A merge queue's group: base_sha is the commit the queued changes merge onto.
    base_sha: str


class _Event(_EventRecord):
    pull_request: _PullRequest | None = None
    workflow_run: _WorkflowRun | None = None
    merge_group: _MergeGroup | None = None
    repository: _Repository | None = None


@dataclass(frozen=True, kw_only=True)
class EventContext:
    """What recall-gate needs from a webhook payload; each field may be absent.

    ``pr_number`` is set only by events about a pull request (``pull_request``,
    ``pull_request_target``), never read from anything a PR author controls.
    For ``workflow_run`` the run's ``head_sha`` and ``head_label``
    (``owner:branch``) are given, and the PR has to be found from them.
    For ``merge_group`` (a merge queue) the group's ``base_sha`` judges.
    """

    repository: str | None = None
    pr_number: int | None = None
    head_sha: str | None = None
    head_label: str | None = None
    # The pull request's base commit: the revision that judges it.
    base_sha: str | None = None


def load_event(path: Path) -> EventContext:
    """Read the webhook payload the runner saved at ``GITHUB_EVENT_PATH``."""
    source = str(path)
    try:
        data = json.loads(read_text(path, what="event payload"))
    except RecursionError:
        raise too_deep(source) from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}: the event payload is not JSON: {exc.msg} (line {exc.lineno})",
            fix="GITHUB_EVENT_PATH must name the runner's event file, or pass --pr/--head-sha",
        ) from None
    try:
        event = _Event.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: {describe_validation_error(exc)}",
            fix="GITHUB_EVENT_PATH must name the runner's event file, or pass --pr/--head-sha",
        ) from None
    repository = event.repository.full_name if event.repository else None
    if event.pull_request is not None:
        pull = event.pull_request
        return EventContext(
            repository=repository,
            pr_number=pull.number,
            head_sha=pull.head.sha,
            head_label=pull.head.label,
            base_sha=pull.base.sha if pull.base is not None else None,
        )
    if event.workflow_run is not None:
        run = event.workflow_run
        head_repo = run.head_repository
        label = None
        if head_repo is not None and head_repo.owner is not None and run.head_branch:
            label = f"{head_repo.owner.login}:{run.head_branch}"
        base = run.pull_requests[0].base if run.pull_requests else None
        return EventContext(
            repository=repository,
            head_sha=run.head_sha,
            head_label=label,
            base_sha=base.sha if base is not None else None,
        )
    if event.merge_group is not None:
        group = event.merge_group
        # No head: a merge group's commit is no pull request's head to comment on.
        return EventContext(repository=repository, base_sha=group.base_sha)
    return EventContext(repository=repository)
