"""Pair each captured artifact with its case label.

A capture may be self-contained (each line carries ``language``,
``case_type`` and ``must_cite_one_of``), or be scored against a cases file.
When both are present the cases file is the source of truth and any
disagreement is an error: silently preferring one would score the wrong gold.

:class:`Labeller` labels a capture one artifact at a time (the scorer streams
it); its errors are those of a whole-capture check, in the same order: the
first second line of a case, then the first line for an unknown case, then the
cases with no line, then the first case (in the cases file's order, or the
capture's when it labels itself) whose fields are missing or contradict the
cases file. :meth:`Labeller.finish` raises the one that is due.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from pydantic import ValidationError

from recall_gate.core.records import Artifact, CaseLabel, CaseType, Language
from recall_gate.errors import InputError

__all__ = ["Label", "Labeller", "label_artifacts", "second_artifact_error"]

_LABEL_FIELDS = ("language", "case_type", "must_cite_one_of", "relevant_ids")

# What scoring needs of a label: language, case type, gold, relevant ids.
Label = tuple[Language, CaseType, tuple[str, ...], tuple[str, ...] | None]


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
    """The error for a second capture line of one case."""
    return InputError(
        f"{source}:{number}: second artifact for case {case_id!r} (first on line {first})",
        fix="keep one line per case",
    )


def _label_of(case: CaseLabel) -> Label:
    return (case.language, case.case_type, case.must_cite_one_of, case.relevant_ids)


class Labeller:
    """Label a capture one artifact at a time; errors are held until :meth:`finish`.

    ``cases`` is the cases file's labels (the source of truth), or None for a
    self-contained capture. :meth:`label` returns the label of a line, or None
    when the line cannot be scored (a second line of a case, an unknown case,
    missing or contradicting fields): its error is then due at :meth:`finish`.
    """

    def __init__(
        self,
        cases: Sequence[CaseLabel] | None,
        *,
        artifacts_source: str,
        cases_source: str = "the cases file",
        keep_lines: bool = True,
    ) -> None:
        if cases is not None and not keep_lines:
            raise ValueError("a labeller of a cases file keeps each case's line")
        # keep_lines=False: the caller finds a case's second line itself (a capture
        # too large to hold each case id: the scorer indexes them on disk).
        self._keep_lines = keep_lines
        self.source = artifacts_source
        self.cases_source = cases_source
        self._cases = cases
        self._by_id = None if cases is None else {c.id: i for i, c in enumerate(cases)}
        self._labels = None if cases is None else [_label_of(c) for c in cases]
        self.first_line: dict[str, int] = {}
        self._duplicate: InputError | None = None
        self._unknown: InputError | None = None
        # (position, error): the first in the cases file's order, or the capture's.
        self._unlabelled: tuple[int, InputError] | None = None

    def label(self, number: int, artifact: Artifact) -> Label | None:
        """The label of the artifact on line ``number`` (lines come in file order)."""
        case_id = artifact.case_id
        if self._keep_lines:
            first = self.first_line.setdefault(case_id, number)
            if first != number:
                if self._duplicate is None:
                    self._duplicate = second_artifact_error(self.source, number, case_id, first)
                return None
        if self._by_id is None:
            return self._self_label(number, artifact)
        index = self._by_id.get(case_id)
        if index is None:
            if self._unknown is None:
                self._unknown = InputError(
                    f"{self.source}:{number}: artifact for unknown case {case_id!r}",
                    fix=f"add the case to {self.cases_source}, or drop the line from the capture",
                )
            return None
        assert self._cases is not None
        assert self._labels is not None
        case = self._cases[index]
        for field in _LABEL_FIELDS:
            captured = getattr(artifact, field)
            if captured is not None and not _same(field, getattr(case, field), captured):
                self._hold(
                    index,
                    InputError(
                        f"{self.source}:{number}: case {case.id!r} field `{field}` is "
                        f"{_shown(captured)} in the capture but {_shown(getattr(case, field))} "
                        f"in {self.cases_source}",
                        fix="re-capture against the current case set "
                        "(the cases file is the source of truth)",
                    ),
                )
                return None
        return self._labels[index]

    def _self_label(self, number: int, artifact: Artifact) -> Label | None:
        language, case_type = artifact.language, artifact.case_type
        gold, relevant = artifact.must_cite_one_of, artifact.relevant_ids
        if language is not None and case_type is not None and gold is not None and relevant is None:
            # CaseLabel's fields have the Artifact's types (a test holds them equal) and
            # its one rule across fields is about relevant_ids: this label passes it as is.
            return (language, case_type, gold, None)
        try:
            label = _label_from_artifact(artifact, where=f"{self.source}:{number}")
        except InputError as exc:
            self._hold(number, exc)
            return None
        return _label_of(label)

    def _hold(self, position: int, error: InputError) -> None:
        if self._unlabelled is None or position < self._unlabelled[0]:
            self._unlabelled = (position, error)

    def finish(self) -> None:
        """Raise the error that is due, if any (in the order of the module docstring)."""
        if self._duplicate is not None:
            raise self._duplicate
        if self._unknown is not None:
            raise self._unknown
        if self._cases is not None:
            missing = [case.id for case in self._cases if case.id not in self.first_line]
            if missing:
                shown = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
                raise InputError(
                    f"{self.source}: {len(missing)} case(s) of {self.cases_source} "
                    f"have no artifact: {shown}",
                    fix="re-run the capture over the whole case set, or remove those cases",
                )
        if self._unlabelled is not None:
            raise self._unlabelled[1]


def label_artifacts(
    artifacts: Sequence[tuple[int, Artifact]],
    cases: Sequence[CaseLabel] | None = None,
    *,
    artifacts_source: str,
    cases_source: str = "the cases file",
) -> list[tuple[CaseLabel, Artifact]]:
    """Each artifact with its label, in the order of the cases (or the capture).

    Errors: two lines for one case; a line for an unknown case; a case with no
    line; a line whose case fields contradict the cases file (:class:`Labeller`).
    """
    labeller = Labeller(cases, artifacts_source=artifacts_source, cases_source=cases_source)
    labelled: dict[str, tuple[Label, Artifact]] = {}
    for number, artifact in artifacts:
        fields = labeller.label(number, artifact)
        if fields is not None:
            labelled[artifact.case_id] = (fields, artifact)
    labeller.finish()
    order = [c.id for c in cases] if cases is not None else list(labelled)
    out = []
    for case_id in order:
        (language, case_type, gold, relevant), artifact = labelled[case_id]
        out.append(
            (
                CaseLabel(
                    id=case_id,
                    language=language,
                    case_type=case_type,
                    must_cite_one_of=gold,
                    relevant_ids=relevant,
                ),
                artifact,
            )
        )
    return out
