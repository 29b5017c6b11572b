"""GitHub Actions commands: ``comment`` (the sticky PR comment) and
``actions-report`` (step outputs, job summary and annotations of a comparison).

Only these commands talk to GitHub; requests and the client load when one runs.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import Parser
from recall_gate.commands.context import Console, Handler
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.core.profile import DEFAULT_PROFILE
from recall_gate.errors import InputError
from recall_gate.settings.values import positive_int

if TYPE_CHECKING:
    from recall_gate.adapters.actions_runner import ActionsRunner


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    _add_comment(sub)
    _add_actions_report(sub)
    return {
        "comment": _cmd_comment,
        "actions-report": _cmd_actions_report,
    }


# -- comment ---------------------------------------------------------------------

DEFAULT_API_URL = "https://api.github.com"
_COMMENT_ENV = """environment:
  GITHUB_TOKEN         token allowed to write PR comments (required)
  GITHUB_API_URL       REST API root (default https://api.github.com; GHES: https://HOST/api/v3)
  GITHUB_REPOSITORY    default for --repo
  GITHUB_EVENT_PATH    webhook payload: the PR number and head SHA of a pull_request
                       event; for workflow_run, the PR is found from the run's head SHA
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS   set by the Actions runner

exit codes: 0 posted, updated, unchanged, skipped, or refused for lack of permission
(a warning: a comment never changes the verdict); 2 anything else."""


def _add_comment(sub: argparse._SubParsersAction[Parser]) -> None:
    comment = sub.add_parser(
        "comment",
        help="upsert the sticky PR comment from a rendered report",
        description="Create or update the ONE recall-gate comment of a profile on a pull "
        "request (found by its hidden marker, across all pages); skipped when unchanged or "
        "when the PR has moved on to a newer commit.",
        epilog=_COMMENT_ENV,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    comment.add_argument(
        "--body", type=Path, required=True, metavar="PATH", help="the comment's Markdown"
    )
    comment.add_argument(
        "--profile", default=DEFAULT_PROFILE, metavar="NAME", help="one comment per profile"
    )
    comment.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    comment.add_argument(
        "--pr",
        type=positive_int,
        metavar="N",
        help="default: the event's pull request, else the open PR whose head is --head-sha",
    )
    comment.add_argument(
        "--head-sha", metavar="SHA", help="the commit reported on (default: the event's PR head)"
    )
    comment.add_argument(
        "--comment-author",
        metavar="LOGIN",
        help="the account that posts with this token, e.g. my-app[bot] for a GitHub App "
        "token. Only a comment by it whose body starts with the marker is ever edited or "
        "deleted. Default: the token's login from GET /user, else github-actions[bot] "
        "(the workflow token)",
    )


def _cmd_comment(args: argparse.Namespace, console: Console) -> int:
    # Imported here: only this command talks to GitHub.
    import requests

    from recall_gate.adapters.actions_runner import ActionsRunner, EventContext, load_event
    from recall_gate.adapters.files import read_text
    from recall_gate.adapters.github_client import GitHubClient, GitHubPermissionError
    from recall_gate.adapters.github_comment import upsert_comment
    from recall_gate.adapters.github_pulls import find_pr_for_head_sha
    from recall_gate.core.profile import comment_marker
    from recall_gate.report.error import without_runner_paths

    runner = ActionsRunner.from_environ(console.environ, stream=console.stdout)
    token = console.environ.get("GITHUB_TOKEN", "")
    marker = comment_marker(args.profile)
    body = without_runner_paths(
        read_text(args.body, what="comment body"), console.environ, markdown=True
    )
    event_path = console.environ.get("GITHUB_EVENT_PATH", "")
    event = load_event(Path(event_path)) if event_path else EventContext()
    head_sha = args.head_sha or event.head_sha
    if head_sha is None:
        if event_path and args.pr is None:
            runner.annotate(
                "notice",
                "the triggering event is not about a pull request; no comment posted",
                title="recall-gate",
            )
            return 0
        raise InputError(
            "no head commit to report on",
            fix="pass --head-sha SHA (the pull request's head commit)",
        )
    repo = args.repo or console.environ.get("GITHUB_REPOSITORY") or event.repository
    if not repo:
        raise InputError(
            "no repository to comment on",
            fix="pass --repo OWNER/NAME (GITHUB_REPOSITORY inside GitHub Actions)",
        )
    if not token:
        raise InputError(
            "no GitHub token: GITHUB_TOKEN is not set",
            fix="set GITHUB_TOKEN to a token allowed to write PR comments "
            "(the action passes its `github-token` input)",
        )
    base_url = console.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    with requests.Session() as session:
        client = GitHubClient(session, base_url=base_url, token=token, origin="GITHUB_TOKEN")
        try:
            pr = args.pr or event.pr_number
            if pr is None:
                pr = find_pr_for_head_sha(
                    client, repo=repo, head_sha=head_sha, head_label=event.head_label
                )
            if pr is None:
                runner.annotate(
                    "notice",
                    f"no open pull request of {repo} has head {head_sha}; no comment posted",
                    title="recall-gate",
                )
                return 0
            outcome = upsert_comment(
                client,
                repo=repo,
                pr_number=pr,
                marker=marker,
                body=body,
                head_sha=head_sha,
                comment_author=args.comment_author or None,
            )
        except GitHubPermissionError as exc:
            runner.annotate("warning", str(exc), title="recall-gate: PR comment not posted")
            runner.append_summary(
                f"> [!WARNING]\n> The recall-gate PR comment was not posted: {exc.message}\n"
                f">\n> Fix: {exc.fix}\n"
            )
            return 0
    where = f"{repo}#{pr}"
    if outcome.status == "skipped_stale":
        console.stdout.write(
            f"recall-gate: {where} has moved on to {outcome.pr_head_sha}; "
            f"its comment was left to that commit's run\n"
        )
    else:
        console.stdout.write(f"recall-gate: PR comment {outcome.status}: {outcome.html_url}\n")
    for duplicate in outcome.deleted_duplicates:
        console.stdout.write(f"recall-gate: deleted duplicate comment {duplicate}\n")
    if outcome.posted_as is not None and outcome.author is not None:
        runner.annotate(
            "warning",
            f"the comment was posted as {outcome.posted_as}, but recall-gate recognises its "
            f"comment by {outcome.author.login} ({outcome.author.source}), so the next run "
            f"will post another one; set the `comment-author` input (--comment-author) to "
            f"{outcome.posted_as}",
            title="recall-gate: comment author",
        )
    runner.set_outputs(
        {"comment-status": str(outcome.status), "comment-url": outcome.html_url or ""}
    )
    return 0


# -- actions-report ------------------------------------------------------------


def _add_actions_report(sub: argparse._SubParsersAction[Parser]) -> None:
    report = sub.add_parser(
        "actions-report",
        help="GitHub Actions: step outputs, job summary and annotations of a comparison",
        description="Turn a comparison JSON (`--comparison-json`) into the action's step "
        "outputs (verdict, "
        + "".join(f"{m.name}, " for m in GATED_METRICS)
        + "n, regressions), append a report to the job summary, and annotate "
        "failed floors, regressions and a stale or missing baseline. Outside GitHub Actions "
        "the annotations are printed as plain lines.",
    )
    report.add_argument(
        "--comparison",
        type=Path,
        metavar="PATH",
        help="the `--comparison-json` of compare, score or run",
    )
    report.add_argument(
        "--error-log",
        type=Path,
        metavar="PATH",
        help="instead of a comparison: the log of an evaluation that failed; the verdict "
        "is `error`, the summary and --comment-markdown say why (exit 0: the action "
        "enforces it last)",
    )
    report.add_argument(
        "--what",
        default="the evaluation",
        metavar="TEXT",
        help="with --error-log: what failed, e.g. 'the capture'",
    )
    report.add_argument(
        "--comment-markdown",
        type=Path,
        metavar="PATH",
        help="with --error-log: write the error's PR comment here",
    )
    report.add_argument("--profile", metavar="NAME", help="with --error-log: the comment's profile")
    report.add_argument(
        "--failed-gate",
        action="store_true",
        help="with --error-log: the evaluation exited 1, a gate failed before a comparison "
        "could be written (dataset integrity): the verdict is `fail`, not `error`",
    )
    report.add_argument(
        "--summary", type=Path, metavar="PATH", help="Markdown to append to the job summary"
    )


def _cmd_actions_report(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.actions_runner import ActionsRunner
    from recall_gate.adapters.files import read_text
    from recall_gate.adapters.results_store import read_comparison
    from recall_gate.core.comparison_json import judged
    from recall_gate.report.actions import comparison_annotations, comparison_outputs
    from recall_gate.report.error import without_runner_paths

    runner = ActionsRunner.from_environ(console.environ, stream=console.stdout)
    if args.error_log is not None:
        return _report_error(args, console, runner)
    if args.comparison is None:
        raise InputError(
            "actions-report needs --comparison (or --error-log)",
            fix="pass the `--comparison-json` output as --comparison PATH",
        )
    # The verdict comes from the comparison's own figures, judged again by the one
    # gate list (core/gate_list.py), never from its `verdict` or `gates` fields.
    comparison, edited = judged(read_comparison(args.comparison))
    if edited:
        runner.annotate(
            "warning",
            f"{args.comparison}: its verdict / regressions / gates fields disagree with its "
            f"own figures; every gate judged again from those: {comparison.verdict}",
            title="recall-gate: comparison edited",
        )
    outputs = comparison_outputs(comparison)
    runner.set_outputs(outputs)
    if args.summary is not None:
        report = read_text(args.summary, what="report")
        runner.append_summary(without_runner_paths(report, console.environ, markdown=True))
    for note in comparison_annotations(comparison):
        runner.annotate(note.level, note.message, title=note.title)
    console.stdout.write(
        "recall-gate: "
        + ", ".join(f"{key}={value or '—'}" for key, value in outputs.items())
        + "\n"
    )
    return 0


def _report_error(args: argparse.Namespace, console: Console, runner: ActionsRunner) -> int:
    """An evaluation that could not run: verdict `error` (never a pass), one
    annotation with the message and its fix, the summary and the comment."""
    from recall_gate.adapters.files import atomic_write_text, read_text
    from recall_gate.report.error import parse_error_log, render_error_comment, without_runner_paths

    try:
        log = read_text(args.error_log, what="error log")
    except InputError:
        log = ""  # an empty log: the error is still reported, by its last lines (none)
    error = parse_error_log(without_runner_paths(log, console.environ), what=args.what)
    profile = args.profile or console.environ.get("RECALL_GATE_PROFILE", "").strip()
    profile = profile or DEFAULT_PROFILE
    failed = bool(args.failed_gate)
    verdict = "fail" if failed else "error"
    markdown = render_error_comment(error, profile=profile, what=args.what, failed_gate=failed)
    runner.set_outputs(
        {
            "verdict": verdict,
            "hit": "",
            "recall": "",
            "ndcg": "",
            "n": "",
            "regressions": "",
            "profile": profile,
        }
    )
    runner.append_summary(markdown)
    said = "a gate" if failed else args.what
    runner.annotate("error", f"{said} failed: {error.one_line}", title="recall-gate")
    if args.comment_markdown is not None:
        atomic_write_text(args.comment_markdown, markdown)
    console.stdout.write(f"recall-gate: verdict={verdict} ({said} failed)\n")
    return 0
