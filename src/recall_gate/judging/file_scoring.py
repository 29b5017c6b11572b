"""A file judged: ``score --artifacts`` (a capture, labelled by the oracle) and
``score --run --qrels`` (a TREC run judged by qrels, which in a pull request are
the base's, like the cases), each scored once by
:mod:`recall_gate.judging.capture_scoring`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from recall_gate.adapters.base_revision import read_at
from recall_gate.adapters.dataset import iter_capture_lines, load_cases
from recall_gate.adapters.journal import refuse_unfinished_capture
from recall_gate.adapters.trec import (
    UNDETERMINED_LANGUAGE,
    JudgedRun,
    QrelsFormat,
    RunFormat,
    detect_qrels_format,
    detect_run_format,
    judgment_labels,
    read_qrels,
    read_trec_run,
    run_artifacts,
)
from recall_gate.console import Console, display_path
from recall_gate.core.base_judging import (
    PullRequestChanges,
)
from recall_gate.core.records import (
    Artifact,
    Case,
    CaseLabel,
)
from recall_gate.judging.capture_scoring import score_labelled
from recall_gate.judging.oracle import (
    base_record_oracle,
    judged_cases,
    new_case_results,
    split_by_records,
    split_for_plan,
    working_tree_cases,
)
from recall_gate.judging.outputs import Outputs
from recall_gate.judging.revision import JudgedSettings
from recall_gate.judging.verdict import pull_request_changes


def score_capture_file(
    capture: Path, *, outputs: Outputs, settings: JudgedSettings, console: Console
) -> int:
    """``score --artifacts``: a capture file judged by the oracle — the cases (the
    base's, in a pull request), else the base's baseline records, else the
    capture's own labels."""
    refuse_unfinished_capture(capture)
    case_paths = settings.cases
    located: list[tuple[str, Case]] | None = None
    plan = None
    if case_paths:
        located, plan = judged_cases(settings, working_tree_cases(settings))
    artifacts: Iterable[tuple[int, Artifact]] = iter_capture_lines(capture)
    added: list[Artifact] = []
    not_captured: list[str] = []
    relabelled: list[str] = []
    records = None if case_paths else base_record_oracle(settings)
    if plan is not None:
        artifacts = split_for_plan(artifacts, plan, added=added, not_captured=not_captured)
    elif records is not None:
        artifacts = split_by_records(
            artifacts, records[0], added=added, relabelled=relabelled, not_captured=not_captured
        )

    def pull_request() -> PullRequestChanges | None:
        if records is not None:
            return pull_request_changes(
                settings,
                console,
                added=new_case_results(added, None, k=settings.k),
                removed=tuple(not_captured),
                relabelled=tuple(relabelled),
                not_captured=tuple(not_captured),
                oracle=records[1],
            )
        if plan is None:
            return pull_request_changes(settings, console, cases_at_base=not case_paths)
        return pull_request_changes(
            settings,
            console,
            plan=plan,
            added=new_case_results(added, plan.added, k=settings.k),
            not_captured=tuple(not_captured),
        )

    return score_labelled(
        outputs,
        settings,
        console,
        artifacts=artifacts,
        artifacts_source=str(capture),
        located=located,
        judged=plan.judged if plan is not None else records[0] if records is not None else None,
        cases_source=", ".join(map(str, case_paths))
        if case_paths
        else records[1]
        if records is not None
        else "the cases file",
        pull_request=pull_request,
    )


def score_trec_run(
    run: Path,
    *,
    run_format: RunFormat | None,
    qrels: Path,
    qrels_format: QrelsFormat | None,
    outputs: Outputs,
    settings: JudgedSettings,
    console: Console,
) -> int:
    """``score --run --qrels``: a TREC run (or a capture) judged by qrels (or cases),
    the queries the qrels do not judge left out, as trec_eval does.
    ``run_format`` / ``qrels_format`` None: detected from the file."""
    config = settings.config
    language = (config.default_language if config else None) or UNDETERMINED_LANGUAGE

    def read_judgments(path: Path, shown: str) -> tuple[list[tuple[str, CaseLabel]], bool]:
        """The qrels' labels (with where each is defined), and whether any is graded."""
        fmt = qrels_format or detect_qrels_format(path)
        if fmt == "jsonl":
            return [(s.replace(str(path), shown), c) for s, c in load_cases([path])], False
        judgments = read_qrels(path, fmt)
        return [
            (f"{shown} (query {label.id})", label)
            for label in judgment_labels(judgments, language=language)
        ], judgments.graded

    located: list[tuple[str, CaseLabel]]
    qrels_source = str(qrels)
    base = settings.base
    # In a pull request the qrels are the oracle, like cases: the base's version judges.
    at_base = read_at(base.tree, qrels, read_judgments) if base is not None else None
    if base is not None and at_base is not None:
        located, graded = at_base
        mine, _ = read_judgments(qrels, qrels_source) if qrels.is_file() else ([], False)
        if {c.id: c for _, c in mine} != {c.id: c for _, c in located}:
            console.stderr.write(
                f"recall-gate: this pull request changes {display_path(qrels, console)}: "
                "it is judged by the "
                f"base's version at {base.ref}; the change applies after merge\n"
            )
    else:
        located, graded = read_judgments(qrels, qrels_source)
    if graded:
        console.stderr.write(
            f"recall-gate: note: {qrels} grades some documents above 1; every grade "
            "above 0 counts as relevant, and nDCG uses binary gains (trec_eval's ndcg_cut "
            "uses the grades as gains)\n"
        )
    run_format = run_format or detect_run_format(run)
    if run_format == "jsonl":
        refuse_unfinished_capture(run)
    artifacts = (
        iter_capture_lines(run) if run_format == "jsonl" else run_artifacts(read_trec_run(run))
    )
    judged = JudgedRun([label for _, label in located])
    code = score_labelled(
        outputs,
        settings,
        console,
        artifacts=judged.filter(artifacts),
        artifacts_source=str(run),
        located=located,
        cases_source=str(qrels),
        unjudged=judged.unjudged,
    )
    run_name, qrels_name = display_path(run, console), display_path(qrels, console)
    _note_queries(
        console,
        judged.unjudged,
        one=f"of {run_name} has no judgment in {qrels_name}: left out",
        many=f"of {run_name} have no judgment in {qrels_name}: left out",
    )
    _note_queries(
        console,
        judged.unretrieved,
        one=f"judged in {qrels_name} has no line in {run_name}: scored as an empty ranking",
        many=f"judged in {qrels_name} have no line in {run_name}: scored as empty rankings",
    )
    return code


def _note_queries(console: Console, ids: Sequence[str], *, one: str, many: str) -> None:
    if ids:
        shown = ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")
        what = f"1 query {one}" if len(ids) == 1 else f"{len(ids)} queries {many}"
        console.stderr.write(f"recall-gate: {what} ({shown})\n")
