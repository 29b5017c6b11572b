"""The verdict: the run compared with the baseline (the base's, at its ref,
when a base revision judges), judged by the resolved floors and tolerances,
written where asked and printed from one document, whose verdict (decided
from its list of gates) is the exit code."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from recall_gate.adapters.baseline_store import read_baseline, read_baseline_in
from recall_gate.adapters.files import atomic_write_text, dump_json
from recall_gate.console import Console, display_path
from recall_gate.core.base_judging import CasePlan, PullRequestChanges
from recall_gate.core.compare import BaselineEdit, Comparison, compare_to_baseline
from recall_gate.core.comparison_json import RunTotals, comparison_document, judged
from recall_gate.core.gate import ComparisonVerdict, judge_comparison
from recall_gate.core.github_limits import COMMENT_BUDGET
from recall_gate.core.kb_diff import follow_renames_in_results, kb_changes
from recall_gate.core.records import Results
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.traffic_record import TrafficRecord, UnansweredLog
from recall_gate.judging.kb_judging import (
    baseline_kb_turnover,
    judge_label_rot,
    pull_request_kb,
)
from recall_gate.judging.revision import JudgedSettings
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.settings import write_settings_header


def pull_request_changes(
    settings: JudgedSettings, console: Console, *, plan: CasePlan | None = None, **found: Any
) -> PullRequestChanges | None:
    """What the report says of a run judged at the base revision (``None``
    when no base judges): the gate settings the working tree changes and, with
    a case plan, the cases it adds, removes and relabels."""
    base = settings.base
    if base is None:
        return None
    cases: dict[str, Any] = {}
    if plan is not None:
        cases = {"removed": plan.removed, "relabelled": plan.relabelled}
    diff = pull_request_kb(settings)
    if diff is not None:
        cases["kb"] = kb_changes(diff, plan.evaluated if plan is not None else None)
    return PullRequestChanges(
        ref=base.ref,
        config=base.config_shown,
        config_at_base=base.config_source is not None,
        config_after_merge=base.config_after_merge,
        gate=base.gate_changes,
        **cases,
        **found,
    )


def judge_against_baseline(
    current: Results,
    *,
    settings: JudgedSettings,
    console: Console,
    pull_request: PullRequestChanges | None = None,
    self_agreement: SelfAgreement | None = None,
) -> tuple[Comparison, ComparisonVerdict]:
    """Compare ``current`` with the settings' baseline (at its ref when given)
    and apply the floors and the tolerance (with the retriever's A/A noise
    floor when ``self_agreement`` measured one)."""
    if pull_request is None:
        pull_request = pull_request_changes(settings, console)
    path, base = settings.baseline, settings.base
    shown = display_path(path, console)
    edit = None
    if base is not None:
        stored = read_baseline_in(base.tree, path)
        working = read_baseline(path, display=shown)
        old = stored.baseline if stored else None
        new = working.baseline if working else None
        if old != new:
            edit = BaselineEdit(old=old, new=new)
        if stored is not None and pull_request is not None and pull_request.kb is not None:
            # The baseline seen through the pull request's renames: its cases compare
            # with this run's, which follow them.
            followed = follow_renames_in_results(stored.baseline, pull_request.kb.renames)
            stored = replace(stored, baseline=followed)
    else:
        stored = read_baseline(path, display=shown)
    comparison = compare_to_baseline(
        current=current,
        baseline=stored.baseline if stored else None,
        baseline_path=shown,
        baseline_ref=base.ref if base is not None else None,
        pull_request=pull_request,
        edit=edit,
        min_group_n=settings.min_group_n,
        family=settings.tolerances.values,
        kb_turnover=baseline_kb_turnover(
            settings,
            git_sha=stored.baseline.git_sha if stored else None,
            cards_now=current.kb_coverage.overall.cards if current.kb_coverage else None,
        ),
    )
    verdict = judge_comparison(
        comparison,
        floors=settings.floors,
        tolerances=settings.tolerances,
        require_significance=settings.require_significance,
        self_agreement=self_agreement,
        min_new_card_coverage=settings.value("min_new_card_coverage"),
        max_unanswered_share=settings.value("max_unanswered_share"),
        min_reader_language_share=settings.value("min_reader_language_share"),
    )
    return comparison, verdict


def report_comparison(
    current: Results,
    *,
    settings: JudgedSettings,
    console: Console,
    comparison_json: Path | None,
    comment_markdown: Path | None,
    full_markdown: Path | None,
    pull_request: PullRequestChanges | None = None,
    traffic: TrafficRecord | UnansweredLog | None = None,
    self_agreement: SelfAgreement | None = None,
    totals: RunTotals | None = None,
) -> int:
    """The one comparison of a command: judged, written where asked (comparison
    JSON, the PR comment within GitHub's limit, the full report) and printed.
    ``traffic``: the query log's diff, in the document (or why there is none: the
    capture holds no answers to the log, a note); when its gate fails the
    verdict is a fail."""
    comparison, verdict = judge_against_baseline(
        current,
        settings=settings,
        console=console,
        pull_request=pull_request,
        self_agreement=self_agreement,
    )
    # One document: the JSON, the comment, the full report and stdout are rendered from it.
    doc = comparison_document(comparison, verdict, profile=settings.profile, totals=totals)
    unanswered = traffic if isinstance(traffic, UnansweredLog) else None
    traffic = traffic if isinstance(traffic, TrafficRecord) else None
    label_rot = judge_label_rot(settings)
    if any(part is not None for part in (traffic, unanswered, self_agreement, label_rot)):
        update: dict[str, Any] = {
            "traffic": traffic,
            "traffic_unanswered": unanswered,
            "self_agreement": self_agreement,
            "label_rot": label_rot,
        }
        doc = doc.model_copy(update=update)
    # The verdict of every gate the document records, as actions-report reads it.
    doc, _ = judged(doc)
    if comparison_json is not None:
        atomic_write_text(comparison_json, dump_json(doc.model_dump(mode="json")))
    if comment_markdown is not None:
        atomic_write_text(comment_markdown, render_comment(doc, max_chars=COMMENT_BUDGET))
    if full_markdown is not None:
        atomic_write_text(full_markdown, render_comment(doc))
    write_settings_header(settings, console)
    console.stdout.write(render_comparison_text(doc))
    return 1 if doc.verdict == "fail" else 0
