"""The action's score-mode PR check under act, install included: uv against pip.

    python -m benchmarks pr-check prepare DIR
    python -m benchmarks pr-check run DIR --installer uv   # one PR check, fresh venv
    python -m benchmarks pr-check run DIR --installer pip

``prepare`` makes DIR/repo: this repository's files with a committed v1
baseline (the act tests' data, synthetic), as git. ``run`` starts the fake
GitHub API on loopback, runs ``tests/act/workflows/pr-check.yml`` on a pull
request event with act (self-hosted, no network but the fake and the package
index), into a venv created fresh for that run, and exits non-zero unless
the job passed. Time two ``run`` commands side by side from outside (e.g.
``--vs``), so both pay the same process start-up; caches of the installers
(pip's and uv's wheels) are warm after the warm-up run, as on a runner that
caches them.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from fake_github import TOKEN, FakeGitHub  # noqa: E402
from recall_gate.cli import main as recall_gate  # noqa: E402

REPO = "octo/app"
DATA = ROOT / "tests" / "act" / "data"


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def prepare(folder: Path) -> None:
    tree = folder / "repo"
    if tree.exists():
        shutil.rmtree(tree)
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            target = tree / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    results = folder / "v1.json"
    quiet = io.StringIO()
    args = ["score", "--artifacts", str(DATA / "capture-v1.jsonl"), "--json", str(results)]
    assert recall_gate([*args, "--config", str(DATA / "recall-gate.yaml")], {}, stdout=quiet) == 0
    out = tree / "baselines" / "default.json"
    assert recall_gate(["baseline", "update", "--results", str(results), "--out", str(out)], {},
                       stdout=quiet) == 0  # fmt: skip
    _git(tree, "init", "-q", "-b", "main")
    _git(tree, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    _git(tree, "add", "-A")
    _git(tree, "commit", "-q", "-m", "base")


def run(folder: Path, installer: str) -> int:
    tree = folder / "repo"
    venv = folder / f"venv-{installer}"
    if venv.exists():
        shutil.rmtree(venv)
    act = shutil.which("act") or str(Path(sys.executable).parent / "act")
    uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    tools = folder / "bin"
    tools.mkdir(exist_ok=True)
    if not (tools / "uv").exists():
        (tools / "uv").symlink_to(uv)
    base = _git(tree, "rev-parse", "HEAD")
    environ = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "ACTIONS_", "RUNNER_", "INPUT_", "RECALL_GATE_"))
    }
    environ["PATH"] = f"{tools}{os.pathsep}{environ.get('PATH', '')}"
    with FakeGitHub() as fake:
        fake.add_actions_token(TOKEN)
        fake.add_repo(REPO)
        number = fake.add_pull(REPO, head_sha="1" * 40)
        event = folder / "event.json"
        event.write_text(
            json.dumps(
                {
                    "number": number,
                    "pull_request": {
                        "number": number,
                        "head": {"sha": "1" * 40, "ref": "feature"},
                        "base": {"ref": "main", "sha": base},
                    },
                    "repository": {"full_name": REPO},
                }
            ),
            encoding="utf-8",
        )
        done = subprocess.run(
            [
                act, "pull_request", "-W", "tests/act/workflows/pr-check.yml", "-e", str(event),
                "-P", "ubuntu-latest=-self-hosted", "--no-cache-server", "--json",
                "--action-cache-path", str(folder / "act-cache"),
                "--env", f"GITHUB_API_URL={fake.url}", "--env", f"RECALL_GATE_VENV={venv}",
                "--env", f"ACT_OUTPUTS_FILE={folder / 'outputs.json'}",
                "--var", "ARTIFACTS=tests/act/data/capture-v1.jsonl",
                "--var", f"INSTALLER={installer}",
                "-s", f"GITHUB_TOKEN={TOKEN}",
                "--local-repository",
                "actions/setup-python@a26af69be951a213d495a4c3e4e4022e16d87065="
                f"{ROOT / 'tests' / 'act' / 'stubs' / 'setup-python'}",
            ],
            cwd=tree,
            env=environ,
            capture_output=True,
            text=True,
            check=False,
        )  # fmt: skip
    passed = '"jobResult":"success"' in done.stdout
    if not passed or not (venv / "bin" / "recall-gate").exists():
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-2000:])
        return 1
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks pr-check")
    sub = parser.add_subparsers(dest="what", required=True)
    sub.add_parser("prepare").add_argument("folder", type=Path)
    one = sub.add_parser("run")
    one.add_argument("folder", type=Path)
    one.add_argument("--installer", choices=("uv", "pip"), required=True)
    args = parser.parse_args(argv)
    if args.what == "prepare":
        prepare(args.folder)
        return 0
    return run(args.folder, args.installer)
