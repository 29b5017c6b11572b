"""The KB diff of a pull request: its cost on a 700-page KB (target ≤ 0.5 s).

Synthetic data: a git repository of N invented Markdown pages (default 700,
front matter on every third, in en/ and de/ folders), committed as the base;
the pull request's commit edits 3 pages (one only in its front matter), adds
2, deletes 1 and renames 1 with ``git mv``; a second, larger one edits a tenth
of the pages. Each row times, R times (min / median / max):

* ``git diff -M`` — git alone listing the changed files: the floor;
* ``kb diff`` — :func:`recall_gate.adapters.kb_revision.read_kb_diff`: the
  listing, both sides of each changed file read in one git call each, parsed
  by the KB reader, classified;
* ``check`` and ``check --baseline-ref`` — the whole command, in process,
  without and with the diff (base config, base cases, diff, integrity);
* ``label rot`` — :func:`recall_gate.adapters.kb_revision.read_label_history`
  and :func:`recall_gate.core.label_rot.rotten_labels`: the cases file's last
  commit, the card files changed since (both sides read), each compared word
  by word; on the small pull request, then on the large one.

The run fails when ``kb diff`` on the small pull request has a median above
the target, or when it does not list exactly the 7 changes made.

Usage: ``python -m benchmarks kb-diff [--pages N] [--repeat R]``.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from recall_gate.adapters.case_files import load_cases
from recall_gate.adapters.dataset import KbFiles
from recall_gate.adapters.git import BaseTree
from recall_gate.adapters.kb_revision import read_kb_diff, read_label_history
from recall_gate.cli import main as cli_main
from recall_gate.core.label_rot import rotten_labels

__all__ = ["main"]

TARGET_SECONDS = 0.5
_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", *args],
        cwd=root,
        env=_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def page(i: int, edit: str = "") -> str:
    front = f"---\ntags: [t{i % 7}]\n---\n" if i % 3 == 0 else ""
    words = " ".join(f"word{(i * 31 + j) % 997}" for j in range(120))
    return f"{front}# Page {i}\n\n{words}{edit}\n"


def path(i: int) -> str:
    return f"docs/{'en' if i % 2 else 'de'}/section-{i % 20}/page-{i:04d}.md"


def build(root: Path, pages: int) -> None:
    """The base commit (``main``), the small pull request (``pr``), the larger one (``pr-big``)."""
    git(root, "init", "-q", "-b", "main")
    for i in range(pages):
        target = root / path(i)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page(i), encoding="utf-8")
    (root / "recall-gate.yaml").write_text("kb: docs\ncases: cases.yaml\n", encoding="utf-8")
    cases = "".join(
        f"- {{id: q{i}, language: {'en' if i % 2 else 'de'}, case_type: golden, "
        f"query: question {i}, must_cite_one_of: [{path(i)[5:-3]}]}}\n"
        for i in range(1, pages, 5)
    )
    (root / "cases.yaml").write_text(cases, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "checkout", "-q", "-b", "pr")
    for i in (1, 2):
        (root / path(i)).write_text(page(i, " edited"), encoding="utf-8")
    (root / path(3)).write_text(page(3).replace("[t3]", "[t3, extra]"), encoding="utf-8")
    for name in ("new-a", "new-b"):
        (root / f"docs/en/{name}.md").write_text(f"# {name}\n\nNew.\n", encoding="utf-8")
    (root / path(4)).unlink()  # page 4 is no case's gold (cases cite 1, 6, 11, …)
    git(root, "mv", path(8), "docs/de/moved-page-0008.md")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pr")
    git(root, "checkout", "-q", "-b", "pr-big", "main")
    for i in range(0, pages, 10):
        (root / path(i)).write_text(page(i, " edited"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "pr-big")
    git(root, "checkout", "-q", "pr")


def timed(run: Callable[[], object], repeat: int) -> tuple[float, float, float]:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times), statistics.median(times), max(times)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks kb-diff")
    parser.add_argument("--pages", type=int, default=700)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-kb-diff.") as scratch:
        root = Path(scratch)
        build(root, args.pages)
        tree = BaseTree("main", cwd=root)
        kb = root / "docs"

        def diff(head: str = "HEAD") -> object:
            return read_kb_diff(tree, kb, KbFiles(), head=head)

        def check(*extra: str) -> object:
            out, err = io.StringIO(), io.StringIO()
            code = cli_main(["check", *extra], {}, stdout=out, stderr=err, cwd=root)
            if code != 0:
                raise SystemExit(f"check {' '.join(extra)} exited {code}: {err.getvalue()}")
            return code

        def rot() -> object:
            cases_file = root / "cases.yaml"
            history = read_label_history(kb, KbFiles(), [cases_file])
            assert history is not None
            cases = [c for _, c in load_cases([cases_file])]
            return [rotten_labels(cases, one.changes, since=one.since) for one in history.files]

        found = read_kb_diff(tree, kb, KbFiles())
        assert found is not None
        listed = sorted((c.kind, c.card_id) for c in found.changes)
        if len(listed) != 7:
            print(f"FAIL: the small pull request lists {listed}, not its 7 changes")
            return 1
        rows = [
            (
                "git diff -M (small PR)",
                timed(
                    lambda: git(root, "diff", "-M", "--name-status", "main", "HEAD", "--", "docs"),
                    args.repeat,
                ),
            ),
            ("kb diff (small PR: 7 cards)", timed(diff, args.repeat)),
            (
                f"kb diff (large PR: {len(range(0, args.pages, 10))} cards)",
                timed(lambda: diff("pr-big"), args.repeat),
            ),
            ("check", timed(check, args.repeat)),
            (
                "check --baseline-ref main",
                timed(lambda: check("--baseline-ref", "main"), args.repeat),
            ),
            ("label rot (small PR: 7 cards)", timed(rot, args.repeat)),
        ]
        git(root, "checkout", "-q", "pr-big")
        rows.append(
            (
                f"label rot (large PR: {len(range(0, args.pages, 10))} cards)",
                timed(rot, args.repeat),
            )
        )
    print(
        f"KB diff on {args.pages} pages, {args.repeat} runs each "
        f"(Python {platform.python_version()}, {platform.machine()})"
    )
    print(f"{'row':<34} {'min':>8} {'median':>8} {'max':>8}")
    for name, (low, mid, high) in rows:
        print(f"{name:<34} {low:>7.3f}s {mid:>7.3f}s {high:>7.3f}s")
    median = rows[1][1][1]
    verdict = "ok" if median <= TARGET_SECONDS else "FAIL"
    print(f"{verdict}: kb diff median {median:.3f} s (target ≤ {TARGET_SECONDS} s)")
    return 0 if median <= TARGET_SECONDS else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
