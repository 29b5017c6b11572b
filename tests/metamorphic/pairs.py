"""Seeded base → pull-request pairs, and the action's jobs run over them.

A **world** is a small synthetic docs repository (all text invented): 3 languages
× 24 cards, 20 golden cases per language whose gold is the card of their topic in
their language, a query log of 30 logged queries, and a ``recall-gate.yaml``
whose every gate is set (a hit floor, ``max_regression``, ``min_group_n``,
``max_moved_share``, ``min_new_card_coverage``, ``min_reader_language_share``).
Its ``main`` commit holds a baseline (and the logged queries' snapshot) written
by ``recall-gate baseline update`` from the base's capture, as the
update-baseline workflow writes it. Two layouts of the KB:

- ``site``: a Docusaurus site, English in ``docs/``, Chinese and Spanish under
  ``i18n/<locale>/docusaurus-plugin-content-docs/current/``: a translation is the
  **same card id** in another language, every page has a URL, and three Chinese
  pages are untranslated (their cases are answered by the English page);
- ``folders``: plain Markdown in language folders (``docs/en/``, ``docs/zh/``,
  ``docs/es/``): the language is part of the id, and no page has a URL.

A **capture** is what the capture job hands the judge: a folder with JSONL lines
(case id and the retrieved documents, best first, each written as a card id, a
file path or a page URL, as chunks of their card or bare) and, beside them, the
snapshot of the logged queries' top k. A **pull request** is the base's
repository with a commit of its own on a branch, plus a capture of its own,
written here or made by :func:`capture_job` running the pull request's retriever.

:func:`judge` runs what the action's judge job runs, in process: ``score
--capture-dir … --comparison-json …`` from an empty folder, the checkout named by
``RECALL_GATE_WORKING_DIRECTORY`` and the base by the pull request event, then
``actions-report``, and exits as its "Enforce the verdict" step does, from the
``verdict`` output.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import random
import shutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from cli_runner import CliRun, run_cli
from git_repo import commit_all, git
from recall_gate.adapters.query_snapshot import QuerySnapshot, encode_snapshot
from recall_gate.cli import main

__all__ = [
    "CARDS_PER_LANGUAGE",
    "CASES_PER_LANGUAGE",
    "DEPTH",
    "HIT_FLOOR",
    "LANGUAGES",
    "READER_LANGUAGE_FLOOR",
    "SITE",
    "Capture",
    "Card",
    "Doc",
    "Form",
    "Judged",
    "K",
    "Layout",
    "World",
    "build_world",
    "capture_job",
    "judge",
    "open_pull_request",
    "write_capture",
    "write_cases",
]

LANGUAGES = ("en", "zh", "es")
CASES_PER_LANGUAGE = 20
CARDS_PER_LANGUAGE = 24  # 20 cited by a case, 4 cited by none
LOGGED_PER_LANGUAGE = 10
HEAVIEST_WEIGHT = 200  # q00's: 200 of the log's 635
K = 5
DEPTH = 10  # documents per case in a capture: ranks K+1..DEPTH lie below the cut
SITE = "https://docs.example.org"
# The site's Chinese pages left untranslated: cases zh-17..19 are answered by the
# English page of their id, which counts as "answered from another language".
UNTRANSLATED = frozenset(("zh", t) for t in (17, 18, 19))
# gate.min_reader_language_share of the base
READER_LANGUAGE_FLOOR = 0.9
# gate.floors.hit of the base: just below its overall hit@k
HIT_FLOOR = 0.8
SEED = 39

CONFIG = f"""\
# Synthetic evaluation data for the metamorphic tests.
k: {K}
kb: docs
cases: cases.jsonl
queries: queries.jsonl
gate:
  floors: {{hit: {HIT_FLOOR}}}
  max_regression: 0.02
  min_group_n: 10
  max_moved_share: 0.2
  min_new_card_coverage: 0.5
  min_reader_language_share: {READER_LANGUAGE_FLOOR}
"""

# How a card is written in a capture: its id, its file path, or its page's URL
# (absolute, relative to the site, with a query string and an anchor, or without
# its trailing slash).
Form = Literal["id", "path", "url", "site-relative-url", "url-with-query", "url-without-slash"]
# A card: (language, topic number).
Card = tuple[str, int]
# A retrieved document: a card, or a string written as it is (maps to no card).
Doc = Card | str

_TITLES = {"en": "Topic {n}", "zh": "主题 {n}", "es": "Tema {n}"}
_BODIES = {
    "en": "How to set up part {n} of the service, step by step.",
    "zh": "如何一步一步地设置服务的第 {n} 部分。",
    "es": "Cómo configurar la parte {n} del servicio, paso a paso.",
}
_QUERIES = {
    "en": "how do I set up part {n}?",
    "zh": "第 {n} 部分怎么设置？",
    "es": "¿cómo configuro la parte {n}?",
}


def _page(language: str, topic: int) -> str:
    title = _TITLES[language].format(n=topic)
    return f"---\ntitle: {title}\n---\n\n{_BODIES[language].format(n=topic)}\n"


@dataclass(frozen=True)
class Layout:
    """How a KB lays out its cards: their ids, file paths and URLs."""

    name: Literal["site", "folders"]

    def holds(self, card: Card) -> bool:
        """Whether the KB has this card: the site leaves a few Chinese pages
        untranslated (its readers get the English page of the id)."""
        return self.name == "folders" or card not in UNTRANSLATED

    def answering(self, card: Card) -> Card:
        """The card that answers for ``card``: itself, or the English page of an
        untranslated one."""
        return card if self.holds(card) else ("en", card[1])

    def cards(self, language: str) -> list[Card]:
        return [c for t in range(CARDS_PER_LANGUAGE) if self.holds(c := (language, t))]

    def card_id(self, card: Card) -> str:
        language, topic = card
        return f"topic-{topic:02d}" if self.name == "site" else f"{language}/topic-{topic:02d}"

    def path(self, card: Card) -> str:
        """The card's file, relative to the repository's root."""
        language, topic = card
        if self.name == "folders":
            return f"docs/{language}/topic-{topic:02d}.md"
        if language == "en":
            return f"docs/topic-{topic:02d}.md"
        return f"i18n/{language}/docusaurus-plugin-content-docs/current/topic-{topic:02d}.md"

    def url(self, card: Card) -> str:
        language, topic = card
        if self.name == "folders":
            raise ValueError("the folders layout publishes no URLs")
        prefix = "" if language == "en" else f"/{language}"
        return f"{SITE}{prefix}/docs/topic-{topic:02d}/"

    def written(self, card: Card, form: Form) -> str:
        if form == "id":
            return self.card_id(card)
        if form == "path":
            return self.path(card)
        url = self.url(card)
        if form == "site-relative-url":
            return url.removeprefix(SITE)
        if form == "url-without-slash":
            return url.rstrip("/")
        return f"{url}?utm_source=chat#setup" if form == "url-with-query" else url

    def files(self) -> dict[str, str]:
        files = {
            self.path(card): _page(*card) for language in LANGUAGES for card in self.cards(language)
        }
        if self.name == "site":
            files["docusaurus.config.js"] = (
                "module.exports = {\n"
                "  title: 'Synthetic docs',\n"
                f"  url: '{SITE}',\n"
                "  baseUrl: '/',\n"
                "  i18n: {defaultLocale: 'en', locales: ['en', 'zh', 'es']},\n"
                "  presets: [['classic', {docs: {sidebarPath: './sidebars.js'}}]],\n"
                "};\n"
            )
        return files


@dataclass(frozen=True)
class Capture:
    """What a capture job hands the judge, before it is written."""

    # case id → its retrieved documents, best first
    rankings: Mapping[str, tuple[Doc, ...]]
    # the case ids in the file's order
    order: tuple[str, ...]
    # how a card is written
    form: Form
    # items as chunks of their card ({"id": f"{chunks}{n}", "parent_id": …}); None: bare
    chunks: str | None = "chunk-"
    # logged query id → its top k; None: no snapshot beside the capture
    logged: Mapping[str, tuple[Card, ...]] | None = None
    # "header-only": the snapshot's header line and no query; "gzipped": whole, in
    # capture.queries.jsonl.gz (as a capture writes a large one)
    snapshot: Literal["whole", "header-only", "gzipped"] = "whole"
    # the snapshot's k (its rankings cut to it): the base's k unless set
    snapshot_k: int = K
    # case id → fields merged into its line (e.g. an error, or fields the line claims)
    extra: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # case ids written twice: (a ranking written before the case's own line)
    doubled: Mapping[str, tuple[Doc, ...]] = field(default_factory=dict)
    # case id → the score of each retrieved item, by position (chunks only)
    scores: Mapping[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class World:
    """The base: its layout, cases, query log, and the capture its baseline was made from."""

    layout: Layout
    repo: Path  # the repository, on ``main``
    cases: tuple[dict[str, Any], ...]
    logged: tuple[dict[str, Any], ...]
    capture: Capture

    def gold(self, case_id: str) -> Card:
        """The card that meets the case's gold (an untranslated page's English one)."""
        language, number = case_id.rsplit("-", 1)
        return self.layout.answering((language, int(number)))

    def hits(self, case_id: str) -> bool:
        """Whether the base capture holds the case's gold in its top k."""
        return self.gold(case_id) in self.capture.rankings[case_id][:K]


def _cases() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "id": f"{language}-{i:02d}",
            "language": language,
            "case_type": "golden",
            "query": _QUERIES[language].format(n=i),
            "must_cite_one_of": [],  # filled per layout
        }
        for language in LANGUAGES
        for i in range(CASES_PER_LANGUAGE)
    )


def _logged() -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "id": f"q{n:02d}",
            "query": f"logged question {n}",
            "language": LANGUAGES[n % len(LANGUAGES)],
            # Skewed like real traffic: the first query is asked most (a third of it).
            "weight": HEAVIEST_WEIGHT if n == 0 else 3 * LOGGED_PER_LANGUAGE - n,
        }
        for n in range(len(LANGUAGES) * LOGGED_PER_LANGUAGE)
    )


def _base_capture(rng: random.Random, layout: Layout, cases: Iterable[dict[str, Any]]) -> Capture:
    """Each case's gold in its top k 80 % of the time, below the cut 10 %, absent 10 %;
    the other documents cards of the case's language."""
    rankings: dict[str, tuple[Doc, ...]] = {}
    for case in cases:
        language, topic = case["language"], int(case["id"].rsplit("-", 1)[1])
        gold = layout.answering((language, topic))
        others = [c for c in layout.cards(language) if c[1] != topic]
        ranking: list[Doc] = list(rng.sample(others, DEPTH))
        draw = rng.random()
        if draw < 0.8:
            ranking[rng.randrange(K)] = gold
        elif draw < 0.9:
            ranking[rng.randrange(K, DEPTH)] = gold
        rankings[case["id"]] = tuple(ranking)
    logged = {q["id"]: tuple(rng.sample(layout.cards(q["language"]), K)) for q in _logged()}
    return Capture(
        rankings=rankings, order=tuple(rankings), form="path", logged=logged, chunks="chunk-"
    )


def write_cases(repo: Path, cases: Iterable[Mapping[str, Any]]) -> None:
    """The cases file, JSON Lines (YAML's parser would take most of a pair's time)."""
    (repo / "cases.jsonl").write_text(
        "".join(json.dumps(case, ensure_ascii=False) + "\n" for case in cases), encoding="utf-8"
    )


def _item(
    layout: Layout, doc: Doc, capture: Capture, n: int, score: float | None
) -> str | dict[str, Any]:
    written = doc if isinstance(doc, str) else layout.written(doc, capture.form)
    if capture.chunks is None:
        return written
    item: dict[str, Any] = {"id": f"{capture.chunks}{n}", "parent_id": written}
    if score is not None:
        item["score"] = score
    return item


def _line(layout: Layout, case_id: str, docs: Iterable[Doc], capture: Capture) -> str:
    scores = capture.scores.get(case_id)
    items = [
        _item(layout, doc, capture, n, None if scores is None else scores[n])
        for n, doc in enumerate(docs)
    ]
    line = {"case_id": case_id, "retrieved": items, **capture.extra.get(case_id, {})}
    return json.dumps(line, ensure_ascii=False) + "\n"


def write_capture(layout: Layout, capture: Capture, folder: Path) -> Path:
    """``folder/capture.jsonl`` and, with logged queries, ``folder/capture.queries.jsonl``."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for case_id in capture.order:
        if case_id in capture.doubled:
            lines.append(_line(layout, case_id, capture.doubled[case_id], capture))
        lines.append(_line(layout, case_id, capture.rankings[case_id], capture))
    path = folder / "capture.jsonl"
    path.write_text("".join(lines), encoding="utf-8")
    if capture.logged is not None:
        k = capture.snapshot_k
        rankings = {
            q: tuple(layout.card_id(c) for c in cards[:k]) for q, cards in capture.logged.items()
        }
        data, zipped = encode_snapshot(QuerySnapshot(k=k, rankings=rankings))
        assert not zipped, "a snapshot this small is plain JSON Lines"
        if capture.snapshot == "header-only":
            data = data.split(b"\n", 1)[0] + b"\n"
        if capture.snapshot == "gzipped":
            (folder / "capture.queries.jsonl.gz").write_bytes(gzip.compress(data, mtime=0))
        else:
            (folder / "capture.queries.jsonl").write_bytes(data)
    return path


def build_world(root: Path, layout: Layout) -> World:
    """The base repository under ``root`` on ``main``, its baseline written from its capture."""
    repo = root / "app"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    for name, text in layout.files().items():
        path = repo / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cases = tuple(
        {**case, "must_cite_one_of": [layout.card_id((case["language"], int(case["id"][-2:])))]}
        for case in _cases()
    )
    write_cases(repo, cases)
    logged = _logged()
    (repo / "queries.jsonl").write_text(
        "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in logged), encoding="utf-8"
    )
    (repo / "recall-gate.yaml").write_text(CONFIG, encoding="utf-8")
    commit_all(repo, "base: docs, cases, query log, gate")
    capture = _base_capture(random.Random(f"{SEED}-{layout.name}"), layout, cases)
    if layout.name == "folders":
        capture = replace(capture, form="id")
    # The update-baseline workflow: capture the default branch, then `baseline update`.
    captured = root / "base-capture"
    write_capture(layout, capture, captured)
    for argv in (
        ["score", "--artifacts", str(captured / "capture.jsonl"), "--json",
         str(captured / "results.json")],
        ["baseline", "update", "--results", str(captured / "results.json"), "--queries-snapshot",
         str(captured / "capture.queries.jsonl"), "--reason", "base", "--without-latency",
         "--created-at", "2026-01-01T00:00:00Z", "--git-sha", git(repo, "rev-parse", "HEAD")],
    ):  # fmt: skip
        made = run_cli(argv, cwd=repo)
        assert made.code == 0, made.out + made.err
    commit_all(repo, "baseline")
    return World(layout=layout, repo=repo, cases=cases, logged=logged, capture=capture)


def open_pull_request(world: World, root: Path, edit: Callable[[Path], None] | None) -> Path:
    """A copy of the world's repository under ``root``, on a branch ``pr`` whose one
    commit is what ``edit`` does to the files (none: an empty commit)."""
    repo = root / "app"
    shutil.copytree(world.repo, repo, symlinks=True)
    git(repo, "checkout", "-q", "-b", "pr")
    if edit is not None:
        edit(repo)
    if git(repo, "status", "--porcelain"):
        commit_all(repo, "pr")
    else:
        git(repo, "commit", "-q", "--allow-empty", "-m", "pr")
    return repo


@dataclass(frozen=True)
class Judged:
    """What the judge job did: its exit code and everything it left to read."""

    exit_code: int  # the job's: the "Enforce the verdict" step's
    score_code: int  # `recall-gate score`'s own
    verdict: str  # the `verdict` output ("" when none was written)
    comparison: dict[str, Any] | None
    log: str  # stdout and stderr of the commands, for the assertion messages
    comment: str = ""  # the PR comment the judge wrote ("" when none)

    def why(self) -> str:
        return f"verdict {self.verdict!r}, score exit {self.score_code}\n{self.log}"


_ENFORCED = {"fail": 1, "error": 2, "pass": 0, "report-only": 0}


def _outputs(path: Path) -> dict[str, str]:
    """The ``name<<DELIMITER`` blocks of a ``GITHUB_OUTPUT`` file."""
    outputs: dict[str, str] = {}
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    i = 0
    while i < len(lines):
        name, _, delimiter = lines[i].partition("<<")
        end = lines.index(delimiter, i + 1)
        outputs[name] = "\n".join(lines[i + 1 : end])
        i = end + 1
    return outputs


def _pull_request_environ(repo: Path, folder: Path) -> dict[str, str]:
    """What the runner sets for a step of a ``pull_request`` job whose base is ``main``."""
    event = folder / "event.json"
    event.write_text(
        json.dumps(
            {
                "pull_request": {
                    "number": 39,
                    "head": {"sha": git(repo, "rev-parse", "HEAD")},
                    "base": {"sha": git(repo, "rev-parse", "main")},
                }
            }
        ),
        encoding="utf-8",
    )
    return {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_OUTPUT": str(folder / "output"),
        "GITHUB_STEP_SUMMARY": str(folder / "summary.md"),
        "RUNNER_TEMP": str(folder),
    }


def capture_job(repo: Path, folder: Path) -> Path:
    """The action's capture job (``role: capture``) in the pull request's checkout:
    ``capture --out folder/capture.jsonl --no-score --error-json …`` with the config's
    retriever; ``folder`` is what it hands the judge (its ``capture-dir``)."""
    folder.mkdir(parents=True)
    runner = folder.with_name(f"{folder.name}-runner")
    runner.mkdir()
    done = run_cli(
        ["capture", "--out", str(folder / "capture.jsonl"), "--no-score",
         "--error-json", str(folder / "capture.error.json")],
        cwd=repo,
        environ=_pull_request_environ(repo, runner),
    )  # fmt: skip
    capture = folder / "capture.jsonl"
    if done.code != 0 or not capture.is_file() or not capture.stat().st_size:
        # A capture that did not complete hands over why it failed, alone.
        assert (folder / "capture.error.json").is_file(), done.out + done.err
        for leftover in folder.iterdir():
            if leftover.name != "capture.error.json":
                shutil.rmtree(leftover) if leftover.is_dir() else leftover.unlink()
    return capture


def _judge_step(argv: list[str], environ: Mapping[str, str], folder: Path) -> CliRun:
    """One judging step as the console script runs it: from ``folder``, new and empty,
    never the checkout (the action's judge-environment.sh), which the environment names
    (RECALL_GATE_WORKING_DIRECTORY)."""
    folder.mkdir()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.chdir(folder):
        code = main(argv, environ, stdout=out, stderr=err)
    return CliRun(code, out.getvalue(), err.getvalue())


def judge(repo: Path, artifacts: Path) -> Judged:
    """The action's judge job (``role: judge``) over ``artifacts`` (a capture job's
    ``capture.jsonl``, in the folder it handed over) for the pull request checked out
    at ``repo``, whose base is ``main``."""
    out = artifacts.parent.with_name(f"{artifacts.parent.name}-judge")
    out.mkdir()
    environ = {
        **_pull_request_environ(repo, out),
        "GITHUB_WORKSPACE": str(repo),
        "RECALL_GATE_WORKING_DIRECTORY": str(repo),
    }
    # "Evaluate and compare with the baseline"
    scored = _judge_step(
        ["score", "--capture-dir", str(artifacts.parent), "--json", str(out / "results.json"),
         "--comparison-json", str(out / "comparison.json"),
         "--comment-markdown", str(out / "comment.md"), "--markdown", str(out / "report.md")],
        environ,
        out / "evaluate",
    )  # fmt: skip
    log = f"$ score\n{scored.out}\n{scored.err}"
    comparison_path = out / "comparison.json"
    compared = comparison_path.exists() and comparison_path.stat().st_size > 0
    # "Report to GitHub Actions"
    if scored.code > 1 or not compared:
        (out / "stderr.log").write_text(scored.err, encoding="utf-8")
        argv = ["actions-report", "--error-log", str(out / "stderr.log"), "--what",
                "the capture", "--comment-markdown", str(out / "comment.md")]  # fmt: skip
        if scored.code == 1:
            argv.append("--failed-gate")  # a gate failed before a comparison (integrity)
        if scored.code == 1:  # a gate failed before a comparison (dataset integrity)
            argv.append("--failed-gate")
    else:
        argv = ["actions-report", "--comparison", str(comparison_path), "--summary",
                str(out / "report.md")]  # fmt: skip
    reported = _judge_step(argv, environ, out / "report")
    log += f"\n$ actions-report\n{reported.out}\n{reported.err}"
    verdict = _outputs(out / "output").get("verdict", "")
    # "Enforce the verdict": no verdict is an error, never a pass.
    comparison = json.loads(comparison_path.read_text(encoding="utf-8")) if compared else None
    return Judged(
        exit_code=_ENFORCED.get(verdict, 2) if reported.code == 0 else 2,
        score_code=scored.code,
        verdict=verdict,
        comparison=comparison,
        log=log,
        comment=comment.read_text(encoding="utf-8")
        if (comment := out / "comment.md").exists()
        else "",
    )
