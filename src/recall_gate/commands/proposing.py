"""``propose-baseline``: the maintainer's baseline pull request, one per profile.

Through the REST API only (no git credentials, nothing pushed to the default
branch). The branch is ``recall-gate/baseline-<profile>``; a dispatch with an
open PR on it replaces that PR's commit and rewrites its body (the list of
updates kept); a PR closed without merging is never reopened (a fresh one says
why); a baseline whose content the default branch already holds opens
nothing. ``--check-access`` asks GitHub whether the token may do all that,
before any evaluation. Failures are ``::error`` annotations too, naming the
permission and the repository setting.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Final

from recall_gate.adapters.baseline_proposal import BRANCH_PREFIX
from recall_gate.commands.arguments import Parser
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.core.profile import PROFILE_RULE, is_profile_name
from recall_gate.errors import InputError, RecallGateError

if TYPE_CHECKING:
    from recall_gate.adapters.actions_runner import ActionsRunner
    from recall_gate.adapters.baseline_proposal import BodyRenderer
    from recall_gate.core.baseline import Baseline
    from recall_gate.report.baseline_pull_body import Update

DEFAULT_API_URL: Final = "https://api.github.com"
_ENV: Final = """environment:
  GITHUB_TOKEN        contents: write and pull-requests: write (required)
  GITHUB_API_URL      REST API root (default https://api.github.com; GHES: https://HOST/api/v3)
  GITHUB_REPOSITORY   default for --repo
  GITHUB_SERVER_URL, GITHUB_RUN_ID   link the workflow run from the PR
  GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_ACTIONS   set by the Actions runner

outputs: status (opened | updated | unchanged | up-to-date | access-ok), pull-request-url,
branch, baseline-sha256 (of the proposed file).
exit codes: 0 done (or nothing to do); 2 refused, with the permission or the repository
setting that is missing."""


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    propose = sub.add_parser(
        "propose-baseline",
        help="open or update the ONE baseline pull request of a profile (REST API)",
        description="Propose a baseline file in the pull request of its profile, from branch "
        f"{BRANCH_PREFIX}<profile>: opened when there is none, updated in place when one is "
        "open, nothing when the default branch's baseline has the same content (cases, "
        "aggregates, fingerprints, settings; stamps aside). With --check-access, only ask "
        "GitHub whether the token may read the repository, push the branch and open the PR.",
        epilog=_ENV,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    propose.add_argument(
        "--file",
        metavar="PATH",  # a str: it is the path inside the repository too
        help="the baseline file, relative to the repository root (the working directory)",
    )
    propose.add_argument("--base", required=True, metavar="BRANCH", help="the default branch")
    propose.add_argument("--profile", metavar="NAME", help="the baseline's profile (required)")
    propose.add_argument("--reason", metavar="TEXT", help="why the baseline moves (required)")
    propose.add_argument(
        "--body",
        type=Path,
        metavar="PATH",
        help="the old → new report (baseline update --markdown)",
    )
    propose.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    propose.add_argument(
        "--check-access",
        action="store_true",
        help="only check the token's access, and --profile and --reason when given (before "
        "an evaluation); needs no --file",
    )
    return {"propose-baseline": _cmd_propose_baseline}


def _cmd_propose_baseline(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.actions_runner import ActionsRunner

    runner = ActionsRunner.from_environ(console.environ, stream=console.stdout)
    with _annotated(runner):
        return _propose(args, console, runner)


@contextmanager
def _annotated(runner: ActionsRunner) -> Iterator[None]:
    """Every refusal is also an ``::error`` annotation: the message and its fix."""
    from recall_gate.adapters.baseline_pull import AccessDenied

    try:
        yield
    except RecallGateError as exc:
        title = "recall-gate: baseline pull request"
        if isinstance(exc, AccessDenied):
            title = f"recall-gate: needs {exc.permission}"
            if exc.setting:
                title = "recall-gate: needs a repository setting"
        fix = f" Fix: {exc.fix}" if exc.fix else ""
        runner.annotate("error", f"{exc.message}.{fix}", title=title)
        raise


def _profile(args: argparse.Namespace) -> str:
    profile = (args.profile or "").strip()
    if not profile or not is_profile_name(profile):
        shown = repr(args.profile) if args.profile else "empty"
        raise InputError(
            f"profile {shown} is not a valid profile name",
            fix=f"give the workflow's `profile` input a name of {PROFILE_RULE}, e.g. default",
        )
    return profile


def _reason(args: argparse.Namespace) -> str:
    reason = " ".join((args.reason or "").split())
    if not reason:
        raise InputError(
            "the reason is empty: a baseline pull request says why the baseline moves",
            fix="give the workflow's `reason` input a sentence, e.g. 're-chunked the KB'",
        )
    return reason


def _propose(args: argparse.Namespace, console: Console, runner: ActionsRunner) -> int:
    import requests

    from recall_gate.adapters.baseline_proposal import BaselineProposal
    from recall_gate.adapters.baseline_pull import check_access
    from recall_gate.adapters.github_client import GitHubClient
    from recall_gate.report.baseline_pull_body import Update, pull_title

    repo = args.repo or console.environ.get("GITHUB_REPOSITORY", "")
    if not repo:
        raise InputError("no repository", fix="pass --repo OWNER/NAME")
    token = console.environ.get("GITHUB_TOKEN", "")
    if not token:
        raise InputError(
            "no GitHub token: GITHUB_TOKEN is not set",
            fix="set GITHUB_TOKEN to a token with contents: write and pull-requests: write",
        )
    base_url = console.environ.get("GITHUB_API_URL") or DEFAULT_API_URL
    with requests.Session() as session:
        client = GitHubClient(session, base_url=base_url, token=token, origin="GITHUB_TOKEN")
        if args.check_access:
            # The inputs too, when given: a workflow learns of a bad one before evaluating.
            if args.profile is not None:
                _profile(args)
            if args.reason is not None:
                _reason(args)
            check_access(client, repo=repo, base=args.base)
            console.stdout.write(
                f"recall-gate: the token may read {repo}, push a branch and open a pull request\n"
            )
            runner.set_outputs({"status": "access-ok"})
            return 0
        profile, reason = _profile(args), _reason(args)
        relative, baseline, content = _read_proposal(args, console, profile)
        digest = hashlib.sha256(content).hexdigest()
        # The bytes proposed, named in the log: two runs on one commit show one digest.
        console.stdout.write(f"recall-gate: {relative.as_posix()} has sha256 {digest}\n")
        base_sha = check_access(client, repo=repo, base=args.base)
        proposal = BaselineProposal(
            client=client,
            repo=repo,
            base=args.base,
            base_sha=base_sha,
            profile=profile,
            reason=reason,
            path=relative.as_posix(),
            baseline=baseline,
            content=content,
            title=pull_title(profile, reason),
            render_body=_body_renderer(
                path=relative.as_posix(),
                base=args.base,
                report=_report(args, reason),
                latest=Update(
                    created_at=baseline.created_at,
                    git_sha=baseline.git_sha,
                    reason=reason,
                    run_url=_run_url(console, repo),
                ),
            ),
        )
        status, url, said = proposal.submit()
    console.stdout.write(f"recall-gate: {said}\n")
    runner.append_summary(f"### recall-gate baseline ({profile})\n\n{said}\n")
    runner.set_outputs(
        {
            "status": status,
            "pull-request-url": url,
            "branch": proposal.branch,
            "baseline-sha256": digest,
        }
    )
    return 0


def _profile_file(args: argparse.Namespace, console: Console, profile: str) -> Path:
    """The profile's baseline (core.profile: one profile, one baseline file), as
    ``baseline update --profile`` resolves it: the config's ``baseline:``, else
    ``baselines/<profile>.json`` beside the config (here: the repository root)."""
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(argparse.Namespace(profile=profile), console)
    return settings.baseline


def _read_proposal(
    args: argparse.Namespace, console: Console, profile: str
) -> tuple[Path, Baseline, bytes]:
    from recall_gate.adapters.baseline_store import parse_baseline
    from recall_gate.adapters.files import read_text

    if not args.file:
        raise InputError("no baseline file", fix=f"pass --file baselines/{profile}.json")
    relative = Path(args.file)
    if relative.is_absolute() or ".." in relative.parts:
        raise InputError(
            f"{relative}: the baseline must be given relative to the repository root",
            fix="run from the repository root and pass e.g. baselines/default.json",
        )
    expected = _profile_file(args, console, profile)
    if console.cwd / relative != expected:
        shown = display_path(expected, console)
        raise InputError(
            f"{relative.as_posix()} is not the baseline of profile {profile!r} ({shown}): "
            f"its pull request would carry another profile's file",
            fix=f"pass --file {shown}, or the --profile whose baseline {relative.as_posix()} is",
        )
    text = read_text(console.cwd / relative, what="baseline file")
    baseline = parse_baseline(text, source=relative.as_posix())
    return relative, baseline, text.encode("utf-8")


def _report(args: argparse.Namespace, reason: str) -> str:
    from recall_gate.adapters.files import read_text
    from recall_gate.report.markup import escape_markdown

    if args.body is not None:  # `baseline update --markdown`: reason, then old → new
        return read_text(args.body, what="PR body")
    return f"Reason: {escape_markdown(reason)}"


def _run_url(console: Console, repo: str) -> str | None:
    run_id = console.environ.get("GITHUB_RUN_ID")
    if not run_id:
        return None
    server = console.environ.get("GITHUB_SERVER_URL", "https://github.com")
    return f"{server}/{repo}/actions/runs/{run_id}"


def _body_renderer(*, path: str, base: str, report: str, latest: Update) -> BodyRenderer:
    """The pull request's body: the report, the updates the open one lists, this one."""
    from recall_gate.report.baseline_pull_body import pull_body, updates_in

    def render(previous: str | None, reopened_after: int | None) -> str:
        return pull_body(
            path=path,
            base=base,
            report=report,
            updates=updates_in(previous) if previous is not None else [],
            latest=latest,
            reopened_after=reopened_after,
        )

    return render
