"""The baseline record: a reference run's results plus why and when (pure).

A baseline is a :class:`~recall_gate.core.records.Results` (k, provenance with
fingerprints, per-case records, aggregates) with four more fields: ``kind``
(so a baseline is recognised as one, and nothing else is overwritten by
``baseline update``), ``created_at``, ``git_sha`` and ``reason``. Because it
*is* a ``Results``, everything that reads results reads a baseline.

Serialisation lives in :mod:`recall_gate.adapters.baseline_store`; this module only
defines the record and how it is made.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, Final, Literal

from pydantic import field_validator

from recall_gate.core.aggregate import aggregate
from recall_gate.core.records import Aggregates, Results

__all__ = [
    "BASELINE_KIND",
    "BASELINE_SCHEMA_VERSION",
    "Baseline",
    "find_inconsistency",
    "make_baseline",
    "normalise_timestamp",
    "same_content",
]

BASELINE_KIND: Final = "recall-gate-baseline"
# Bumped with the results schema: a baseline embeds a results record.
BASELINE_SCHEMA_VERSION = 1

_SHA = re.compile(r"^[0-9a-f]{7,64}$")
# Files round floats to 6 digits; means recomputed from rounded per-case
# values may differ from the recorded mean by that rounding.
_MEAN_SLACK = 1e-5


def normalise_timestamp(text: str) -> str:
    """An ISO 8601 timestamp with a timezone, as UTC to the second: ``YYYY-MM-DDTHH:MM:SSZ``.

    Raises ``ValueError`` naming the expected form.
    """
    try:
        moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"expected an ISO 8601 timestamp such as 2026-05-29T12:00:00Z, got {text!r}"
        ) from None
    if moment.tzinfo is None:
        raise ValueError(f"the timestamp {text!r} has no timezone: add Z (UTC) or an offset")
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Baseline(Results):
    """A committed reference run (``baselines/<profile>.json``)."""

    schema_version: int = BASELINE_SCHEMA_VERSION
    kind: Literal["recall-gate-baseline"] = BASELINE_KIND
    created_at: str
    git_sha: str | None = None
    reason: str = ""

    @field_validator("created_at")
    @classmethod
    def _utc_seconds(cls, value: str) -> str:
        return normalise_timestamp(value)

    @field_validator("git_sha")
    @classmethod
    def _hex_sha(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().lower()
        if not _SHA.fullmatch(value):
            raise ValueError(f"expected a hexadecimal git commit SHA, got {value!r}")
        return value

    @field_validator("reason")
    @classmethod
    def _one_line(cls, value: str) -> str:
        # One line, so the reason reads the same in a table, a log and a PR body.
        return " ".join(value.split())


# Report-only parts of a run's case records, left out of its baseline.
_REPORT_ONLY: Final[dict[str, Any]] = {"cases": {"__all__": {"retrieved_detail"}}}


def make_baseline(
    results: Results,
    *,
    created_at: str,
    git_sha: str | None,
    reason: str,
    with_latency: bool = True,
) -> Baseline:
    """The baseline of ``results``: the same records, plus provenance of the update.

    ``with_latency=False`` leaves the capture's wall-clock latency out, so that
    one commit evaluated twice gives one file (the update-baseline workflow).
    """
    # What the retriever said of a missed case's cards is this run's report, not
    # a measurement: a re-index that renames chunks must not rewrite the baseline.
    payload = results.model_dump(exclude=_REPORT_ONLY)
    payload["schema_version"] = BASELINE_SCHEMA_VERSION
    if not with_latency:
        payload.pop("latency", None)
    return Baseline.model_validate(
        {
            **payload,
            "kind": BASELINE_KIND,
            "created_at": created_at,
            "git_sha": git_sha,
            "reason": reason,
        }
    )


# Stamps of an update, not of what it measured: when and by what it was written, and why.
_STAMPS: Final = frozenset({"created_at", "git_sha", "reason"})


def same_content(old: Results, new: Results) -> bool:
    """Whether two runs measured the same thing the same way.

    Compared: k, every case record, the aggregates, the fingerprints and the
    retrieval settings. Not compared: the stamps (``created_at``, ``git_sha``,
    ``reason``), the recall-gate version that wrote them, and latency. A
    baseline whose content is the same needs no update, whatever its stamps.
    """
    return _content(old) == _content(new)


def _content(run: Results) -> dict[str, object]:
    data = run.model_dump(
        exclude={
            **dict.fromkeys((*_STAMPS, "latency", "kind", "schema_version"), True),
            **_REPORT_ONLY,
        }
    )
    data["provenance"] = {k: v for k, v in data["provenance"].items() if k != "tool_version"}
    return data


def _agg_differs(recorded: Aggregates, recomputed: Aggregates) -> str | None:
    sections = {
        "overall": ({"": recorded.overall}, {"": recomputed.overall}),
        "by_case_type": (recorded.by_case_type, recomputed.by_case_type),
        "by_language": (recorded.by_language, recomputed.by_language),
    }
    for section, (have, want) in sections.items():
        if set(have) != set(want):
            return f"aggregates.{section} lists other groups than its cases"
        for group, metrics in want.items():
            where = f"aggregates.{section}" + (f".{group}" if group else "")
            if set(have[group]) != set(metrics):
                return f"{where} lists other metrics than its cases"
            for key, summary in metrics.items():
                got = have[group][key]
                if got.n != summary.n or abs(got.mean - summary.mean) > _MEAN_SLACK:
                    return (
                        f"{where}.{key} says mean {got.mean:.6f} (n={got.n}) but its cases "
                        f"give {summary.mean:.6f} (n={summary.n})"
                    )
    return None


def find_inconsistency(baseline: Baseline) -> str | None:
    """Why the per-case records and the aggregates disagree (``None``: they agree).

    A baseline edited by hand would otherwise be compared on numbers nobody
    measured; the comparison recomputes means from the per-case records.
    """
    seen: set[str] = set()
    for case in baseline.cases:
        if case.case_id in seen:
            return f"case {case.case_id!r} appears twice"
        seen.add(case.case_id)
    return _agg_differs(baseline.aggregates, aggregate(baseline.cases))
