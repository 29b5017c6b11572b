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
`comparison_outputs` and `comparison_annotations`.

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
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from pydantic import BaseModel, ConfigDict, ValidationError

from recall_gate.core.metric_registry import GATED_METRICS, metric_label
from recall_gate.core.staleness import describe_embedder
from recall_gate.errors import InputError
from recall_gate.io.dataset import describe_validation_error, read_text
from recall_gate.report.github_limits import MAX_ANNOTATIONS_PER_LEVEL, SUMMARY_MAX_BYTES

__all__ = [
    "SUMMARY_MAX_BYTES",
    "ActionsRunner",
    "Annotation",
    "AnnotationLevel",
    "EventContext",
    "comparison_annotations",
    "comparison_outputs",
    "escape_data",
    "escape_property",
    "load_event",
]

_SUMMARY_CUT_NOTE: Final = (
    "\n\n> [!NOTE]\n> The report was cut to fit GitHub's 1 MiB job-summary limit; "
    "the whole report is in the `report-markdown` file.\n"
)
_OUTPUT_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

AnnotationLevel = Literal["error", "warning", "notice"]


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
        self.stream.write(f"::{level}{props}::{escape_data(message)}\n")

    # -- internals ---------------------------------------------------------------

    @staticmethod
    def _append(path: Path, text: str, *, what: str) -> None:
        try:
            with path.open("a", encoding="utf-8", newline="\n") as handle:
                handle.write(text)
        except OSError as exc:
            raise InputError(
                f"{path}: cannot append to the runner's {what} file: {exc.strerror}",
                fix=f"run inside GitHub Actions, or unset {what}",
            ) from None


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


class _PullRequest(_EventRecord):
    number: int
    head: _PullHead


class _WorkflowRun(_EventRecord):
    head_sha: str
    head_branch: str | None = None
    head_repository: _Repository | None = None


class _Event(_EventRecord):
    pull_request: _PullRequest | None = None
    workflow_run: _WorkflowRun | None = None
    repository: _Repository | None = None


@dataclass(frozen=True, kw_only=True)
class EventContext:
    """What recall-gate needs from a webhook payload; each field may be absent.

    ``pr_number`` is set only by events about a pull request (``pull_request``,
    ``pull_request_target``), never read from anything a PR author controls.
    For ``workflow_run`` the run's ``head_sha`` and ``head_label``
    (``owner:branch``) are given, and the PR has to be found from them.
    """

    repository: str | None = None
    pr_number: int | None = None
    head_sha: str | None = None
    head_label: str | None = None


def load_event(path: Path) -> EventContext:
    """Read the webhook payload the runner saved at ``GITHUB_EVENT_PATH``."""
    source = str(path)
    try:
        data = json.loads(read_text(path, what="event payload"))
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
        )
    if event.workflow_run is not None:
        run = event.workflow_run
        head_repo = run.head_repository
        label = None
        if head_repo is not None and head_repo.owner is not None and run.head_branch:
            label = f"{head_repo.owner.login}:{run.head_branch}"
        return EventContext(repository=repository, head_sha=run.head_sha, head_label=label)
    return EventContext(repository=repository)


# -- what a comparison becomes in Actions (pure) -------------------------------


@dataclass(frozen=True, kw_only=True)
class Annotation:
    level: AnnotationLevel
    title: str
    message: str


def _number(value: Any) -> str:
    """An output value: a float to 6 decimals (as the results file), else as given."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{round(value, 6):.6g}" if value else "0"
    return str(value)


def comparison_outputs(comparison: Mapping[str, Any]) -> dict[str, str]:
    """The action's outputs from ``compare --json``: one key each, same names."""
    return {key: _number(comparison.get(key)) for key in _OUTPUT_KEYS}


_OUTPUT_KEYS: Final = ("verdict", "hit", "recall", "ndcg", "n", "regressions")


def _floor_flag_of(metric: str) -> str:
    flags = {m.key: m.floor_flag for m in GATED_METRICS}
    return flags.get(metric) or "min-*"


def _floor_text(item: Mapping[str, Any], k: int) -> str:
    observed = item.get("observed")
    seen = "nothing scored" if observed is None else f"{observed:.3f}"
    flag = _floor_flag_of(str(item.get("metric")))
    return (
        f"{metric_label(str(item.get('metric')), k)} is {seen} (n={item.get('n', 0)}), "
        f"below the floor {float(item.get('floor') or 0):.3f} ({flag})"
    )


# Cases named in one annotation; the job summary lists them all.
_CASES_SHOWN: Final = 5
_QUERY_CHARS: Final = 60
_EXEMPT_TEXT: Final = {
    "exempt_small_n": "exempt: too few compared cases (min-group-n)",
    "exempt_not_significant": "exempt: not likely real by the noise test (require-significance)",
}


def _rank_text(rank: Any, k: int) -> str:
    return f"out of top {k}" if rank is None else str(rank)


def _case_text(case: Mapping[str, Any], k: int) -> str:
    query = " ".join(str(case.get("query") or "").split())
    if len(query) > _QUERY_CHARS:
        query = query[: _QUERY_CHARS - 1].rstrip() + "…"
    said = f" “{query}”" if query else ""
    return (
        f"{case.get('case_id')}{said} ({case.get('language')}, {case.get('case_type')}) "
        f"rank {_rank_text(case.get('rank_before'), k)} → {_rank_text(case.get('rank_after'), k)}"
    )


def _cases_text(item: Mapping[str, Any], k: int) -> str:
    cases = [c for c in item.get("cases") or () if isinstance(c, Mapping)]
    if not cases:
        return ""
    shown = "; ".join(_case_text(c, k) for c in cases[:_CASES_SHOWN])
    more = f"; and {len(cases) - _CASES_SHOWN} more" if len(cases) > _CASES_SHOWN else ""
    return f"; cases: {shown}{more}"


def _regression_text(item: Mapping[str, Any], k: int) -> str:
    delta = float(item.get("delta") or 0.0)
    exempt = _EXEMPT_TEXT.get(str(item.get("status")))
    return (
        f"{metric_label(str(item.get('metric')), k)} ({item.get('group')}): "
        f"{float(item.get('baseline') or 0):.3f} → {float(item.get('current') or 0):.3f} "
        f"({delta:+.3f}, n={item.get('n', 0)}), beyond the tolerance "
        f"{float(item.get('tolerance') or 0):.3f}"
        + (f", {exempt}" if exempt else "")
        + _cases_text(item, k)
    )


_WOULD_FAIL_SHOWN: Final = 3


def _capped(items: Sequence[Annotation]) -> list[Annotation]:
    out: list[Annotation] = []
    for level in ("error", "warning", "notice"):
        same = [a for a in items if a.level == level]
        if len(same) > MAX_ANNOTATIONS_PER_LEVEL:
            rest = len(same) - (MAX_ANNOTATIONS_PER_LEVEL - 1)
            same = [
                *same[: MAX_ANNOTATIONS_PER_LEVEL - 1],
                Annotation(
                    level=same[0].level,
                    title="recall-gate",
                    message=f"… and {rest} more: see the job summary",
                ),
            ]
        out += same
    return out


_STALE_FALLBACK: Final = {
    "kb": "the knowledge base's card texts changed",
    "config": "the retrieval settings changed (not recorded in the baseline)",
    "dataset": "the cases changed",
    "queries": "the cases' queries changed",
}


def _stale_text(reason: Mapping[str, Any], cases: Mapping[str, Any]) -> str:
    """One stale reason in words (settings old → new), as the report says it."""
    what = str(reason.get("what"))
    changes = [c for c in reason.get("changes") or () if isinstance(c, Mapping)]
    if changes:
        return "; ".join(
            f"{c.get('label')} {c.get('baseline') or 'unset'} → {c.get('current') or 'unset'}"
            for c in changes
        )
    if what == "dataset" and any(cases.get(key) for key in ("added", "removed", "relabelled")):
        return (
            f"cases: {len(cases.get('added') or ())} added, "
            f"{len(cases.get('removed') or ())} removed, "
            f"{len(cases.get('relabelled') or ())} relabelled"
        )
    if what in _STALE_FALLBACK:
        return _STALE_FALLBACK[what]
    old, new = str(reason.get("baseline")), str(reason.get("current"))
    if what == "embedder":
        old, new = describe_embedder(old, new)
    return f"{what.replace('_', ' ')} {old} → {new}"


def comparison_annotations(comparison: Mapping[str, Any]) -> list[Annotation]:
    """Errors for what fails the gate; warnings for what would fail in
    report-only mode and for a stale baseline; a notice when there is none."""
    k = int(comparison.get("k") or 0)
    gate = comparison.get("gate") or {}
    out: list[Annotation] = []
    out += [
        Annotation(level="error", title="recall-gate: dataset integrity", message=str(p))
        for p in gate.get("integrity_problems") or ()
    ]
    out += [
        Annotation(level="error", title="recall-gate: floor", message=_floor_text(item, k))
        for item in gate.get("failed_floors") or ()
    ]
    out += [
        Annotation(
            level="error", title="recall-gate: regression", message=_regression_text(item, k)
        )
        for item in gate.get("regressions") or ()
    ]
    out += [
        Annotation(
            level="notice",
            title="recall-gate: drop beyond the tolerance, exempt",
            message=_regression_text(item, k),
        )
        for item in gate.get("exempt") or ()
    ]
    if comparison.get("verdict") == "report-only":
        would = comparison.get("would_fail_detail") or {}
        items = [_floor_text(i, k) for i in would.get("failed_floors") or ()]
        items += [_regression_text(i, k) for i in would.get("regressions") or ()]
        if items:
            shown = "; ".join(items[:_WOULD_FAIL_SHOWN])
            more = (
                f"; and {len(items) - _WOULD_FAIL_SHOWN} more"
                if len(items) > _WOULD_FAIL_SHOWN
                else ""
            )
            out.append(
                Annotation(
                    level="warning",
                    title="recall-gate (report-only): would fail if enforced",
                    message=f"{len(items)} check(s) would fail at the suggested floors and a "
                    f"{float(would.get('tolerance') or 0):.2f} tolerance: {shown}{more}. "
                    "Set min-hit / min-recall / min-ndcg or max-regression to enforce.",
                )
            )
    baseline = comparison.get("baseline") or {}
    status = baseline.get("status")
    source = baseline.get("source") or "the baseline"
    if status == "missing":
        out.append(
            Annotation(
                level="notice",
                title="recall-gate: no baseline yet",
                message=f"no baseline at {source}: nothing to compare with; run the "
                "update-baseline workflow (or `recall-gate baseline update`) to create it",
            )
        )
    elif status in ("stale", "not_comparable"):
        reasons = "; ".join(
            _stale_text(s, comparison.get("cases") or {})
            for s in baseline.get("stale") or ()
            if isinstance(s, Mapping)
        )
        what = "is stale" if status == "stale" else "is not comparable (another k)"
        out.append(
            Annotation(
                level="warning",
                title="recall-gate: baseline "
                + ("stale" if status == "stale" else "not comparable"),
                message=f"the baseline {source} {what}: {reasons}; refresh it with the "
                "update-baseline workflow",
            )
        )
    return _capped(out)
