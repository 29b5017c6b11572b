"""The IR tools' run and judgment files: TREC runs, TREC qrels, BEIR qrels (adapter: file I/O).

What pytrec_eval, ranx, ir_measures and trec_eval read, read and written the
way trec_eval reads them:

* **TREC run**: one line per retrieved document, ``qid Q0 docid rank score
  tag``, separated by spaces or tabs. A query's ranking is its documents
  sorted by ``score`` descending, ties broken by ``docid`` descending (byte
  order) — trec_eval's rule; the ``rank`` column and the line order are
  ignored. A document twice for one query is an error (trec_eval refuses it
  too), as are a line without six columns and a score that is not a finite
  number.
* **TREC qrels**: ``qid iteration docid grade`` (the iteration column is
  ignored); ``grade`` an integer. A document is relevant when its grade is
  above 0 (trec_eval's default relevance level, 1).
* **BEIR qrels** (``qrels/<split>.tsv``): a header ``query-id	corpus-id
  score``, then ``qid<TAB>docid<TAB>grade`` lines; the same grades.

Every error names the file, the line and the fix (exit 2).

Writing: :func:`format_trec_run` gives each document the score ``n - rank
+ 1`` (the rank order, so trec_eval's re-sort keeps it; a retriever's own
scores may tie or be absent), :func:`format_qrels` one line per relevant
document with grade 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from recall_gate.adapters.files import atomic_write_text, ensure_readable, iter_jsonl_lines
from recall_gate.core.capture_line import with_fields
from recall_gate.core.records import Artifact, CaseLabel
from recall_gate.errors import InputError

__all__ = [
    "BEIR_QRELS_HEADER",
    "UNDETERMINED_LANGUAGE",
    "JudgedRun",
    "Judgments",
    "QrelsFormat",
    "RunFormat",
    "TrecRun",
    "check_id",
    "detect_qrels_format",
    "detect_run_format",
    "format_qrels",
    "format_trec_run",
    "judgment_labels",
    "read_qrels",
    "read_trec_run",
    "run_artifacts",
    "trec_run_text",
    "write_trec_run",
]

RunFormat = Literal["trec", "jsonl"]
QrelsFormat = Literal["trec", "beir", "jsonl"]

BEIR_QRELS_HEADER = ("query-id", "corpus-id", "score")
# BCP-47 "undetermined": the language of a query when neither its file nor the
# config's `default_language` gives one.
UNDETERMINED_LANGUAGE = "und"
RUN_WHAT = "TREC run"
QRELS_WHAT = "qrels file"
_RUN_FIX = "write one `qid Q0 docid rank score tag` line per retrieved document"
_TREC_QRELS_FIX = "write one `qid 0 docid grade` line per judged document (grade an integer)"
_BEIR_QRELS_FIX = (
    "write the header `query-id<TAB>corpus-id<TAB>score`, then one "
    "`qid<TAB>docid<TAB>grade` line per judged document (grade an integer)"
)


@dataclass(frozen=True)
class TrecRun:
    """A run's rankings: per query (in order of first appearance), its documents
    best first with their scores, as trec_eval ranks them."""

    source: str
    rankings: dict[str, list[tuple[str, float]]]
    tag: str | None = None

    def ranked_ids(self, qid: str) -> list[str]:
        return [doc for doc, _ in self.rankings.get(qid, ())]


@dataclass(frozen=True)
class Judgments:
    """Qrels: per query (in order of first appearance), each judged document's grade."""

    source: str
    grades: dict[str, dict[str, int]]
    graded: bool = field(default=False)  # some grade is above 1: the gains differ

    def relevant(self, qid: str) -> tuple[str, ...]:
        """The query's relevant documents (grade > 0), in file order."""
        return tuple(doc for doc, grade in self.grades.get(qid, {}).items() if grade > 0)


def _first_line(path: Path, *, what: str) -> tuple[int, str]:
    for number, line in iter_jsonl_lines(path, what=what):
        return number, line
    raise AssertionError("iter_jsonl_lines raises on an empty file")  # pragma: no cover


def detect_run_format(path: Path) -> RunFormat:
    """``jsonl`` when the first line is a JSON object (recall-gate artifacts), else ``trec``."""
    _, line = _first_line(path, what="run file")
    return "jsonl" if line.lstrip().startswith("{") else "trec"


def detect_qrels_format(path: Path) -> QrelsFormat:
    """``jsonl`` (recall-gate cases, JSONL or YAML) for a folder, a ``.yaml`` /
    ``.yml`` file, a JSON first line or a first line ``cases:``; ``beir`` for a
    ``.tsv`` file or a first line of three tab-separated columns; else ``trec``."""
    if path.is_dir() or path.suffix.lower() in (".yaml", ".yml"):
        return "jsonl"
    _, line = _first_line(path, what=QRELS_WHAT)
    if line.lstrip().startswith("{") or line.strip() == "cases:":
        return "jsonl"
    if path.suffix == ".tsv" or len(line.rstrip("\r").split("\t")) == 3:
        return "beir"
    return "trec"


def _lines(path: Path, *, what: str) -> Iterator[tuple[int, str]]:
    """Non-blank lines; a binary or non-UTF-8 file is reported as such, whatever comes first."""
    ensure_readable(path, what=what)
    yield from iter_jsonl_lines(path, what=what)


def _score(text: str, *, where: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(
            f"{where}: the score {text!r} is not a finite number",
            fix="write the retriever's score (a number; higher ranks first) in column 5",
        )
    return value


def read_trec_run(path: Path) -> TrecRun:
    """A TREC run, each query ranked as trec_eval ranks it (see the module docstring)."""
    source = str(path)
    found: dict[str, dict[str, tuple[float, int]]] = {}
    tags: set[str] = set()
    for number, line in _lines(path, what=RUN_WHAT):
        columns = line.split()
        where = f"{source}:{number}"
        if len(columns) != 6:
            raise InputError(
                f"{where}: a TREC run line has 6 columns (qid Q0 docid rank score tag), "
                f"this one has {len(columns)}",
                fix=_RUN_FIX,
            )
        qid, _, doc, _, score_text, tag = columns
        score = _score(score_text, where=where)
        docs = found.setdefault(qid, {})
        first = docs.get(doc)
        if first is not None:
            raise InputError(
                f"{where}: document {doc!r} appears twice for query {qid!r} "
                f"(first on line {first[1]})",
                fix="keep one line per document and query (trec_eval refuses duplicates too)",
            )
        docs[doc] = (score, number)
        tags.add(tag)
    rankings = {
        qid: [
            (doc, score)
            # trec_eval: score descending, then docid descending.
            for score, doc in sorted(((s, d) for d, (s, _) in docs.items()), reverse=True)
        ]
        for qid, docs in found.items()
    }
    return TrecRun(source=source, rankings=rankings, tag=tags.pop() if len(tags) == 1 else None)


def _grade(text: str, *, where: str, fix: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError(
            f"{where}: the relevance grade {text!r} is not an integer", fix=fix
        ) from None


def read_qrels(path: Path, fmt: Literal["trec", "beir"]) -> Judgments:
    """TREC or BEIR qrels (see the module docstring)."""
    source = str(path)
    grades: dict[str, dict[str, int]] = {}
    lines: dict[tuple[str, str], int] = {}
    fix = _TREC_QRELS_FIX if fmt == "trec" else _BEIR_QRELS_FIX
    header_seen = fmt == "trec"
    for number, line in _lines(path, what=QRELS_WHAT):
        where = f"{source}:{number}"
        if fmt == "trec":
            columns = line.split()
            if len(columns) != 4:
                raise InputError(
                    f"{where}: a TREC qrels line has 4 columns (qid iteration docid grade), "
                    f"this one has {len(columns)}",
                    fix=_TREC_QRELS_FIX,
                )
            qid, _, doc, grade_text = columns
        else:
            columns = [c.strip() for c in line.rstrip("\r").split("\t")]
            if not header_seen:
                header_seen = True
                if tuple(c.lower() for c in columns) == BEIR_QRELS_HEADER:
                    continue
                raise InputError(
                    f"{where}: a BEIR qrels file starts with the header "
                    f"`query-id<TAB>corpus-id<TAB>score`, this one starts with {line.strip()!r}",
                    fix="add the header line `query-id<TAB>corpus-id<TAB>score` at the top "
                    "(or pass --qrels-format trec for a `qid 0 docid grade` file)",
                )
            if len(columns) != 3:
                raise InputError(
                    f"{where}: a BEIR qrels line has 3 tab-separated columns "
                    f"(query-id, corpus-id, score), this one has {len(columns)}",
                    fix=_BEIR_QRELS_FIX,
                )
            qid, doc, grade_text = columns
        grade = _grade(grade_text, where=where, fix=fix)
        first = lines.setdefault((qid, doc), number)
        if first != number:
            raise InputError(
                f"{where}: document {doc!r} is judged twice for query {qid!r} "
                f"(first on line {first})",
                fix="keep one judgment per document and query",
            )
        grades.setdefault(qid, {})[doc] = grade
    if not header_seen or not grades:
        raise InputError(
            f"{source}: the qrels file holds no judgment",
            fix=fix,
        )
    graded = any(g > 1 for judged in grades.values() for g in judged.values())
    return Judgments(source=source, grades=grades, graded=graded)


def format_trec_run(rankings: Iterable[tuple[str, Sequence[str]]], *, tag: str) -> Iterator[str]:
    """TREC run lines of ranked ids (duplicates after the first dropped): the score
    column is ``n - rank + 1``, so trec_eval's sort by score keeps the order."""
    for qid, ids in rankings:
        ranked = list(dict.fromkeys(ids))
        n = len(ranked)
        for rank, doc in enumerate(ranked, start=1):
            yield f"{qid} Q0 {doc} {rank} {n - rank + 1} {tag}\n"


def trec_run_text(artifacts: Iterable[Artifact], *, source: str, tag: str) -> str:
    """A capture as a TREC run (card ids as docids); an id holding whitespace is an error."""
    check_id(tag, what="run tag", where=source)
    rankings = []
    for artifact in artifacts:
        ranked = artifact.ranked_card_ids()
        check_id(artifact.case_id, what="case id", where=source)
        for card in ranked:
            check_id(card, what=f"document id of case {artifact.case_id!r}", where=source)
        rankings.append((artifact.case_id, ranked))
    return "".join(format_trec_run(rankings, tag=tag))


def write_trec_run(path: Path, artifacts: Iterable[Artifact], *, source: str, tag: str) -> None:
    """:func:`trec_run_text`, written atomically."""
    atomic_write_text(path, trec_run_text(artifacts, source=source, tag=tag))


def format_qrels(
    judged: Iterable[tuple[str, Sequence[str]]], *, fmt: Literal["trec", "beir"]
) -> Iterator[str]:
    """Qrels lines, grade 1 per relevant document; BEIR's header first."""
    if fmt == "beir":
        yield "\t".join(BEIR_QRELS_HEADER) + "\n"
    for qid, docs in judged:
        for doc in dict.fromkeys(docs):
            yield f"{qid} 0 {doc} 1\n" if fmt == "trec" else f"{qid}\t{doc}\t1\n"


def check_id(value: str, *, what: str, where: str) -> str:
    """An id written to a TREC or BEIR file holds no whitespace (a column separator)."""
    if any(c.isspace() for c in value):
        raise InputError(
            f"{where}: the {what} {value!r} holds whitespace, which TREC and BEIR files "
            "use to separate columns",
            fix=f"give the {what} an id without spaces or tabs",
        )
    return value


def judgment_labels(judgments: Judgments, *, language: str) -> list[CaseLabel]:
    """One case per judged query: gold = its relevant documents; case type
    ``golden``, or ``no_match`` for a query judged without a relevant document
    (scored by no metric, as a case without gold)."""
    return [
        CaseLabel(
            id=qid,
            language=language,
            case_type="golden" if relevant else "no_match",
            must_cite_one_of=relevant,
        )
        for qid in judgments.grades
        for relevant in (judgments.relevant(qid),)
    ]


def run_artifacts(run: TrecRun) -> Iterator[tuple[int, Artifact]]:
    """A run's rankings as numbered artifacts, one per query."""
    for number, (qid, ranked) in enumerate(run.rankings.items(), start=1):
        yield number, Artifact(case_id=qid, retrieved=tuple(doc for doc, _ in ranked))


_LABEL_FIELDS = dict.fromkeys(("language", "case_type", "must_cite_one_of", "relevant_ids"))


class JudgedRun:
    """A run seen through qrels, as trec_eval sees it: a query the qrels do not
    judge is left out (and counted); a judged query the run does not hold is
    scored as an empty ranking (trec_eval's ``-c``: a query a retriever leaves
    unanswered counts against it, not out of the means). The qrels are the
    source of truth for every label: a JSONL run's own label fields are dropped.
    """

    def __init__(self, labels: Sequence[CaseLabel]) -> None:
        self._judged = {label.id for label in labels}
        self._order = [label.id for label in labels]
        self.unjudged: list[str] = []
        self.unretrieved: list[str] = []

    def filter(self, artifacts: Iterable[tuple[int, Artifact]]) -> Iterator[tuple[int, Artifact]]:
        judged = self._judged
        seen: set[str] = set()
        last = 0
        for number, artifact in artifacts:
            last = number
            if artifact.case_id not in judged:
                self.unjudged.append(artifact.case_id)
                continue
            seen.add(artifact.case_id)
            yield number, with_fields(artifact, **_LABEL_FIELDS)
        for qid in self._order:
            if qid not in seen:
                self.unretrieved.append(qid)
                last += 1
                yield last, Artifact(case_id=qid, retrieved=())
