"""The report's banners (pure): the baseline edited by the pull request, what
the pull request changes of its own gate and cases, no baseline yet, a stale or
not comparable baseline, a changed case set, shortened lists."""

from __future__ import annotations

from recall_gate.core.comparison_json import ComparisonDocument
from recall_gate.report import phrases, stale_banner
from recall_gate.report.config_after_merge import config_after_merge_sentence
from recall_gate.report.style import JOB_SUMMARY_POINTER, Style

__all__ = [
    "banner_blocks",
]


def _pull_request_banners(doc: ComparisonDocument, style: Style) -> list[str]:
    """What a pull request judged at its base changes of its own gate and cases."""
    pr = doc.pull_request
    if pr is None:
        return []
    out = []
    ref = style.literal(pr.ref[:12] if len(pr.ref) == 40 else pr.ref)
    if pr.config_after_merge:
        judging = style.literal(pr.config) if pr.config and pr.config_at_base else None
        added = config_after_merge_sentence(
            added=style.literal(pr.config_after_merge), judging=judging, ref=ref
        )
        out.append(style.banner("IMPORTANT", [f"{style.bold('This pull request')} {added}"]))
    if pr.gate:
        changed = "; ".join(
            f"{style.user(c.label)} {style.user(c.baseline or 'unset')} → "
            f"{style.user(c.current or 'unset')}"
            for c in pr.gate
        )
        where = f" ({style.literal(pr.config)})" if pr.config else ""
        base = (
            "the base's settings"
            if pr.config_at_base
            else "the default settings (the base has no config)"
        )
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold('This pull request changes the gate')}{where}: {changed}. "
                    f"It is judged by {base} at {ref}; the change applies after merge."
                ],
            )
        )
    lines = []
    if pr.removed:
        lines.append(f"removed: {phrases.id_list(pr.removed, style)}")
    if pr.relabelled:
        lines.append(f"relabelled (query or labels): {phrases.id_list(pr.relabelled, style)}")
    if lines:
        oracle = f" ({style.user(pr.oracle)})" if pr.oracle else ""
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold('Cases removed / relabelled by this pull request')} "
                    f"(applies after merge): {'; '.join(lines)}. They are still judged as "
                    f"the base has them at {ref}{oracle}."
                ],
            )
        )
    if pr.not_captured:
        out.append(
            style.banner(
                "WARNING",
                [
                    style.bold(f"{len(pr.not_captured)} case(s) of the base are not in the capture")
                    + f" and score as misses: {phrases.id_list(pr.not_captured, style)}. "
                    "Capture every case "
                    "of the base branch (`recall-gate capture` does, in a pull request)."
                ],
            )
        )
    if pr.added:
        hits = [c.case_id for c in pr.added if c.hit]
        misses = [c.case_id for c in pr.added if c.hit is False]
        parts = []
        if hits:
            parts.append(f"hit: {phrases.id_list(hits, style)}")
        if misses:
            parts.append(f"missed: {phrases.id_list(misses, style)}")
        detail = f" — {'; '.join(parts)}" if parts else ""
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold(f'This pull request adds {len(pr.added)} case(s)')}, "
                    f"evaluated and reported, judged after merge{detail}."
                ],
            )
        )
    if not pr.cases_at_base:
        out.append(
            style.banner(
                "NOTE",
                [
                    f"The base ({ref}) has no cases file yet: this pull request's own cases "
                    "are evaluated."
                ],
            )
        )
    return out


def banner_blocks(doc: ComparisonDocument, style: Style, *, truncated: bool) -> list[str]:
    out = []
    baseline = doc.baseline
    path = baseline.path
    edit = baseline.edit
    k = doc.k
    if edit is not None:
        where = style.literal(path)
        if edit.action == "deleted":
            out.append(
                style.banner(
                    "IMPORTANT",
                    [
                        f"{style.bold('This pull request deletes the baseline')} {where}: "
                        "after merge, pull requests report “no baseline yet”."
                    ],
                )
            )
        else:
            reason = f"reason: “{style.user(edit.reason)}”" if edit.reason else "no reason given"
            verb = "adds the first baseline" if edit.action == "added" else "changes the baseline"
            lines = [
                f"{style.bold(f'This pull request {verb}')} {where} ({reason}). "
                + (
                    "This run is compared with the base branch's baseline; "
                    "the new one applies after merge."
                    if edit.action == "changed"
                    else "It applies after merge."
                )
            ]
            if edit.action == "changed":
                lines.append(
                    "Overall, old → new: "
                    + phrases.overall_change(edit.old_overall, edit.new_overall, edit.k or k)
                )
            out.append(style.banner("IMPORTANT", lines))
    snapshot_edit = doc.traffic.snapshot_edited_in_pr if doc.traffic is not None else None
    if snapshot_edit is not None:
        verb = "deletes" if snapshot_edit == "deleted" else "changes"
        out.append(
            style.banner(
                "IMPORTANT",
                [
                    f"{style.bold(f'This pull request {verb} the query snapshot')} beside "
                    f"{style.literal(path)}: the logged queries are compared with the base "
                    "branch's snapshot; the pull request's applies after merge."
                ],
            )
        )
    out += _pull_request_banners(doc, style)
    if baseline.status == "missing" and not (edit is not None and edit.action == "added"):
        command = (
            f"recall-gate baseline update --results results.json --out {path} "
            '--reason "first baseline"'
        )
        out.append(
            style.banner(
                "NOTE",
                [
                    phrases.missing_baseline_phrase(doc, style),
                    f"Create it from a run on the default branch: {style.literal(command)}, "
                    "then commit it (or run the update-baseline workflow).",
                ],
            )
        )
    if baseline.status == "not_comparable":
        lines = [phrases.not_comparable_phrase(doc, style)]
        others = stale_banner.stale_changes(doc, style, skip_k=True)
        if others:
            lines += ["", "Also changed since it was made:", *(f"- {c}" for c in others)]
        out.append(style.banner("WARNING", lines))
    elif baseline.status == "stale":
        changes = stale_banner.stale_changes(doc, style)
        out.append(
            style.banner(
                "WARNING",
                [
                    style.bold(stale_banner.stale_headline(len(changes))) + ":",
                    *(f"- {c}" for c in changes),
                    "",
                    stale_banner.stale_advice(style),
                ],
            )
        )
    changes_ = doc.cases
    if phrases.is_comparable(doc) and phrases.cases_changed(doc):
        out.append(
            style.banner(
                "NOTE",
                [
                    f"{style.bold('The case set changed')} since the baseline: "
                    f"{len(changes_.added)} added, {len(changes_.removed)} removed, "
                    f"{len(changes_.relabelled)} relabelled. Means and deltas are on the "
                    f"{changes_.compared} scored cases present in both with the same labels."
                ],
            )
        )
    if truncated:
        out.append(
            style.banner(
                "NOTE",
                [f"Case lists are shortened to fit a GitHub comment: {JOB_SUMMARY_POINTER}."],
            )
        )
    return out
