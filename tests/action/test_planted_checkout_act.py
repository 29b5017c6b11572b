"""The two-job PR check under act, against a pull request that carries every file a tool
of the judge could discover (tests/planted_checkout.py): ``uv.toml`` and ``[tool.uv]``
naming the pull request's own "managed" Python (issue 40: uv ran it in the judge job),
``pip.conf``, ``.python-version``, ``sitecustomize.py`` and a ``.pth`` file at the root,
``python3`` / ``uv`` / ``git`` in a folder of the tree that is on PATH (as a relative
entry and as an absolute one), and a ``.gitattributes`` naming filter and diff drivers
the runner's git configuration defines.

``examples/workflows/pr-check.yml`` (the README's workflow) runs as it is, with the
judge installed by uv (on the PATH, as setup-uv puts it) and by pip (no uv): none of
the planted programs runs in a step of the judge job, the judge still fails the
pull request (it lost the German docs) in one sticky comment that names the lost cases,
and no record holds the token. The capture job runs the pull request's code by design:
what it ran there is not the judge's.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from test_untrusted_capture_act import MARKER, _job_results, _shop

from act_harness import REPO, ActRun, git, pr_event, run_act
from fake_github import BOT_LOGIN, FakeGitHub
from planted_checkout import git_drivers, judge_markers, plant

pytestmark = [pytest.mark.act, pytest.mark.timeout(1800)]

REAL_UV = shutil.which("uv") or str(Path(sys.executable).parent / "uv")


def _lose_the_german_docs(app: Path) -> None:
    """The pull request's change: an honest regression (the German docs leave the index)."""
    rag = app / "app" / "rag.py"
    rag.write_text(
        rag.read_text(encoding="utf-8").replace(
            'for path in sorted(DOCS.rglob("*.md"))\n    ]',
            'for path in sorted(DOCS.rglob("*.md"))\n'
            '        if not path.relative_to(DOCS).as_posix().startswith("de/")\n    ]',
        ),
        encoding="utf-8",
    )


def _put_a_folder_of_the_checkout_on_the_path(app: Path) -> None:
    """The README's workflow, with one step before the judge's action that puts a folder
    of the checkout on the PATH, as a workflow may (``node_modules/.bin``, say): act runs
    each job in a copy of the checkout at a path only the job knows (its workspace)."""
    workflow = app / ".github" / "workflows" / "retrieval-eval.yml"
    text = workflow.read_text(encoding="utf-8")
    anchor = "      - uses: actions/download-artifact@"
    assert text.count(anchor) == 1
    workflow.write_text(
        text.replace(
            anchor,
            "      - name: A folder of the checkout on the PATH\n"
            '        run: echo "$GITHUB_WORKSPACE/evil-bin" >> "$GITHUB_PATH"\n' + anchor,
        ),
        encoding="utf-8",
    )


def _run(
    pr: _PlantedPullRequest,
    fake_github: FakeGitHub,
    action_release: Path,
    *,
    scratch: Path,
    path_prefix: list[Path],
    token: str,
) -> tuple[ActRun, int]:
    """The README's workflow under act on the planted pull request (a new PR number)."""
    (scratch / "artifacts").mkdir(parents=True)
    number = fake_github.add_pull(REPO, head_sha=pr.head_sha)
    home = pr.home
    uv_cache = home.parent / "uv-cache"  # the capture's installs, kept between the runs
    run = run_act(
        pr.app,
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, pr.head_sha, base_sha=pr.base_sha),
        scratch=scratch,
        api_url=fake_github.url,
        token=token,
        env={
            "RECALL_GATE_VENV": "",  # the capture's environment is made by the action
            "HOME": str(home),
            "ACT_STUB_ARTIFACTS": str(scratch / "artifacts"),
            "HF_HUB_OFFLINE": "1",
            "UV_CACHE_DIR": str(uv_cache),
            "UV_SYSTEM_CERTS": "1",  # this machine's TLS roots: an environment variable
        },
        extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
        path_prefix=path_prefix,
        secret_file=True,
    )
    return run, number


def _files_holding(root: Path, token: str) -> list[str]:
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            try:
                if not path.is_symlink() and token.encode() in path.read_bytes():
                    found.append(str(path))
            except OSError:
                pass
    return found


@dataclass(frozen=True)
class _PlantedPullRequest:
    app: Path
    base_sha: str
    head_sha: str
    markers: Path
    home: Path  # the runner's HOME: its git configuration defines the planted drivers
    tools: Path  # uv, where setup-uv would put it


def _planted_pull_request(tmp_path: Path) -> _PlantedPullRequest:
    app = _shop(tmp_path)
    # The base holds every drop beyond its tolerance to it, within noise or not: the
    # two lost German hits of 8 cases fail whatever the noise test makes of them.
    config = app / "recall-gate.yaml"
    text = config.read_text(encoding="utf-8")
    if "require_significance: false" not in text:
        assert text.count("  min_group_n: 5\n") == 1
        config.write_text(
            text.replace("  min_group_n: 5\n", "  min_group_n: 5\n  require_significance: false\n"),
            encoding="utf-8",
        )
        git(app, "commit", "-q", "-am", "gate: every drop beyond the tolerance fails")
    base_sha = git(app, "rev-parse", "HEAD")
    markers = tmp_path / "markers"
    _lose_the_german_docs(app)
    plant(app, markers)
    _put_a_folder_of_the_checkout_on_the_path(app)
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "A smaller index, and a few files of our own")
    head_sha = git(app, "rev-parse", "HEAD")
    home = tmp_path / "home"
    home.mkdir()
    # The runner's git configuration defines the drivers the planted .gitattributes names.
    (home / ".gitconfig").write_text(git_drivers(markers, tmp_path / "drivers"))
    tools = tmp_path / "tools"  # uv on the PATH, where setup-uv would put it
    tools.mkdir()
    (tools / "uv").symlink_to(REAL_UV)
    return _PlantedPullRequest(
        app=app, base_sha=base_sha, head_sha=head_sha, markers=markers, home=home, tools=tools
    )


# A relative entry: a folder of whichever folder a step runs in.
PLANTED_PATH = [Path("evil-bin")]


def test_no_planted_file_of_the_pull_request_runs_in_the_judge_job_installed_by_uv_or_pip(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    pr = _planted_pull_request(tmp_path)
    markers = pr.markers
    for installer, path_prefix in (("uv", [*PLANTED_PATH, pr.tools]), ("pip", PLANTED_PATH)):
        token = f"ghs_planted-{installer}-{secrets.token_hex(8)}"
        fake_github.add_actions_token(token)
        scratch = tmp_path / f"scratch-{installer}"
        run, number = _run(
            pr, fake_github, action_release, scratch=scratch, path_prefix=path_prefix, token=token
        )

        # The planted files are live: the capture job (the pull request's code) ran them.
        assert judge_markers(markers, job="capture"), (installer, run.text[-6000:])
        # None ran in a step of the judge job.
        assert judge_markers(markers, job="judge") == [], (installer, run.text[-6000:])
        assert f"hash-locked requirements/judge.txt, {installer})" in run.text, installer
        assert _job_results(run.events) == {"capture": "success", "judge": "failure"}, (
            installer,
            run.text[-8000:],
        )
        comments = [c for c in fake_github.comments(REPO, number) if c.body.startswith(MARKER)]
        assert len(comments) == 1, installer
        [comment] = comments
        assert comment.login == BOT_LOGIN
        assert "**fail**" in comment.body
        assert "de-returns" in comment.body
        assert "de-shipping" in comment.body
        # No record holds the token: the job logs (but the runner's own note of what to
        # mask, which GitHub's log shows as ***), the requests the fake GitHub logged, the
        # comment, the markers, any other file of the run.
        logged = [e for e in run.events if e.get("command") != "add-mask"]
        assert token not in json.dumps(logged), installer
        assert token not in run.step_output
        assert not [r for r in fake_github.requests if token in r.path]
        assert token not in comment.body
        transcripts = set(scratch.glob("act-*.log"))  # act's JSON lines: `logged` above
        assert [f for f in _files_holding(tmp_path, token) if Path(f) not in transcripts] == []
        assert not (scratch / "secrets.env").exists()


def _the_install_started_in_the_checkout(action: Path) -> None:
    """The defect of issue 40 planted in a copy of the action: the judge's install step
    without its own working folder, the judge environment and uv's switches, as it was."""
    text = (action / "action.yml").read_text(encoding="utf-8")
    start = text.index("    - name: Install the judge\n")
    end = text.index("    - name: Evaluate and compare with the baseline\n")
    step = text[start:end]
    for old, new in (
        ("      working-directory: ${{ runner.temp }}\n", ""),
        ('        . "${GITHUB_ACTION_PATH%/}/action/judge-environment.sh"\n', ""),
        (
            "--no-config --no-project --python-preference only-system \\\n"
            '            --no-python-downloads --python "$RG_PYTHON"',
            "--python python3",
        ),
    ):
        assert step.count(old) == 1, old
        step = step.replace(old, new)
    (action / "action.yml").write_text(text[:start] + step + text[end:], encoding="utf-8")


def test_the_planted_files_run_in_the_judge_job_when_its_install_starts_in_the_checkout(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    """The test above can fail: with the judge's install as it was before issue 40's fix,
    the same pull request runs its own uv and its uv.toml's interpreter in the judge job."""
    pr = _planted_pull_request(tmp_path)
    defective = shutil.copytree(action_release, tmp_path / "defective" / "recall-gate")
    _the_install_started_in_the_checkout(defective)
    token = f"ghs_planted-defect-{secrets.token_hex(8)}"
    fake_github.add_actions_token(token)

    run, _ = _run(
        pr,
        fake_github,
        defective,
        scratch=tmp_path / "scratch",
        path_prefix=[*PLANTED_PATH, pr.tools],
        token=token,
    )

    ran = {line.split()[0] for line in judge_markers(pr.markers, job="judge")}
    assert {"bin-uv", "uv-toml-python"} <= ran, run.text[-6000:]


def test_a_capture_past_the_judges_line_cap_is_refused_never_judged(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    """The same planted pull request, whose retriever answers one case with a 2 MB id: the
    capture job writes and uploads it; the judge refuses the line past its cap (exit 2,
    naming the file and the cap: docs/security.md, "Caps on what the capture hands
    over"), comments error, and runs no planted file. (A deeply nested line cannot come
    out of `recall-gate capture`: it keeps no retrieved metadata past 2,048 bytes.)"""
    pr = _planted_pull_request(tmp_path)
    rag = pr.app / "app" / "rag.py"
    rag.write_text(
        rag.read_text(encoding="utf-8").replace(
            "        return [card for card, _ in ranked[:k]]",
            '        if "zurücksenden" in query:\n'
            '            return ["x" * 2_000_000]  # one huge id\n'
            "        return [card for card, _ in ranked[:k]]",
        ),
        encoding="utf-8",
    )
    git(pr.app, "commit", "-q", "-am", "One answer, at length")
    huge = _PlantedPullRequest(**{**vars(pr), "head_sha": git(pr.app, "rev-parse", "HEAD")})
    token = f"ghs_planted-huge-{secrets.token_hex(8)}"
    fake_github.add_actions_token(token)

    run, number = _run(
        huge,
        fake_github,
        action_release,
        scratch=tmp_path / "scratch",
        path_prefix=[*PLANTED_PATH, pr.tools],
        token=token,
    )

    assert _job_results(run.events) == {"capture": "success", "judge": "failure"}, run.text[-8000:]
    [comment] = [c for c in fake_github.comments(REPO, number) if c.body.startswith(MARKER)]
    assert "**error**" in comment.body
    assert "1,048,576" in comment.body, comment.body
    assert judge_markers(pr.markers, job="judge") == []
    assert token not in comment.body
