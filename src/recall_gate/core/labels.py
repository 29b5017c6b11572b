"""Pair each captured artifact with its case label.

A capture may be self-contained (each line carries ``language``,
``case_type`` and ``must_cite_one_of``), or be scored against a cases file.
When both are present the cases file is the source of truth and any
disagreement is an error: silently preferring one would score the wrong gold.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from recall_gate.core.records import Artifact, CaseLabel
from recall_gate.errors import InputError

__all__ = ["label_artifacts", "second_artifact_error"]

_LABEL_FIELDS = ("language", "case_type", "must_cite_one_of", "relevant_ids")


def _shown(value: object) -> str:
    """A field value as the user wrote it (JSON), not as a Python repr."""
    return json.dumps(list(value) if isinstance(value, tuple) else value, ensure_ascii=False)


def _same(field: str, case_value: object, artifact_value: object) -> bool:
    if field in ("must_cite_one_of", "relevant_ids") and isinstance(case_value, tuple):
        # Gold is a set: order in a capture carries no meaning.
        return isinstance(artifact_value, tuple) and set(case_value) == set(artifact_value)
    return case_value == artifact_value


def _label_from_artifact(artifact: Artifact, *, where: str) -> CaseLabel:
    required = ("language", "case_type", "must_cite_one_of")
    missing = [f for f in required if getattr(artifact, f) is None]
    if missing:
        raise InputError(
            f"{where}: no {', '.join(missing)} for case {artifact.case_id!r}",
            fix="pass --cases with the case set, or capture the case's fields on each line",
        )
    try:
        return CaseLabel(
            id=artifact.case_id,
            language=artifact.language,
            case_type=artifact.case_type,
            must_cite_one_of=artifact.must_cite_one_of or (),
            relevant_ids=artifact.relevant_ids,
        )
    except ValidationError as exc:
        # One line of our validators' own words, not pydantic's multi-line report.
        reasons = "; ".join(str(e["msg"]).removeprefix("Value error, ") for e in exc.errors())
        raise InputError(
            f"{where}: case {artifact.case_id!r}: {reasons}", fix="fix the case's gold fields"
        ) from None


def second_artifact_error(source: str, number: int, case_id: str, first: int) -> InputError:
    """The error for a second capture line of one case (also raised by the streaming scorer)."""
    return InputError(
        f"{source}:{number}: second artifact for case {case_id!r} (first on line {first})",
        fix="keep one line per case",
    )


def label_artifacts(
    artifacts: Sequence[tuple[int, Artifact]],
    cases: Sequence[CaseLabel] | None = None,
    *,
    artifacts_source: str,
    cases_source: str = "the cases file",
) -> list[tuple[CaseLabel, Artifact]]:
    """Each artifact with its label, in the order of the cases (or the capture).

    Errors: two lines for one case; a line for an unknown case; a case with no
    line; a line whose case fields contradict the cases file.
    """
    first_line: dict[str, int] = {}
    for number, artifact in artifacts:
        if artifact.case_id in first_line:
            raise second_artifact_error(
                artifacts_source, number, artifact.case_id, first_line[artifact.case_id]
            )
        first_line[artifact.case_id] = number
    if cases is None:
        return [(_label_from_artifact(a, where=f"{artifacts_source}:{n}"), a) for n, a in artifacts]
    by_id = {case.id: case for case in cases}
    for number, artifact in artifacts:
        if artifact.case_id not in by_id:
            raise InputError(
                f"{artifacts_source}:{number}: artifact for unknown case {artifact.case_id!r}",
                fix=f"add the case to {cases_source}, or drop the line from the capture",
            )
    missing = [case.id for case in cases if case.id not in first_line]
    if missing:
        shown = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise InputError(
            f"{artifacts_source}: {len(missing)} case(s) of {cases_source} "
            f"have no artifact: {shown}",
            fix="re-run the capture over the whole case set, or remove those cases",
        )
    by_line = {a.case_id: (n, a) for n, a in artifacts}
    out = []
    for case in cases:
        number, artifact = by_line[case.id]
        for field in _LABEL_FIELDS:
            captured = getattr(artifact, field)
            if captured is not None and not _same(field, getattr(case, field), captured):
                raise InputError(
                    f"{artifacts_source}:{number}: case {case.id!r} field `{field}` is "
                    f"{_shown(captured)} in the capture but {_shown(getattr(case, field))} "
                    f"in {cases_source}",
                    fix="re-capture against the current case set "
                    "(the cases file is the source of truth)",
                )
        label = CaseLabel(
            id=case.id,
            language=case.language,
            case_type=case.case_type,
            must_cite_one_of=case.must_cite_one_of,
            relevant_ids=case.relevant_ids,
        )
        out.append((label, artifact))
    return out
