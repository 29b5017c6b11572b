"""Score a capture in one streamed pass: ``score --artifacts F`` without ``--cases``/``--json``.

The equivalent of ``load_artifacts`` → ``label_artifacts`` → ``score_case`` →
``aggregate`` that keeps no model per line: only the aggregate columns (8 bytes
a value) and the case ids seen (for the duplicate check). A million-case
capture scores in seconds and well under 1 GB.

Same numbers and same first error as that chain, in its order: the file
cannot be read (missing, binary, not UTF-8, empty); the first bad line (JSON or
schema); the first duplicate case; the first line whose case fields are missing
or inconsistent. Each message comes from the code that the chain runs.

Per line, the fast path parses with ``orjson`` when it is installed (else the
standard ``json``) and checks exact types (``type(x) is str`` …) of the fields
the schema allows. A line the checks do not vouch for — anything unusual, not
only errors — goes through the chain's own per-line path (``json`` + the
pydantic :class:`~recall_gate.core.records.Artifact`), which accepts it as usual or
raises the usual message.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import Any

from recall_gate.core.aggregate import CITATION_COVERAGE, MetricAccumulator
from recall_gate.core.evaluate import classify_citation
from recall_gate.core.labels import _label_from_artifact, second_artifact_error
from recall_gate.core.language import is_canonical_language
from recall_gate.core.metrics import HIT, NDCG, RECALL, score_ranking
from recall_gate.core.records import CASE_TYPES, Aggregates, Artifact
from recall_gate.errors import InputError
from recall_gate.io.dataset import ensure_readable, iter_jsonl_lines, parse_artifact_line

__all__ = ["ARTIFACTS_WHAT", "StreamedScores", "score_artifacts_file"]

ARTIFACTS_WHAT = "artifacts file"

# The Artifact fields the fast path checks (a field added to the model later
# takes the slow path until it is checked here too).
_ARTIFACT_KEYS = frozenset(
    (
        "case_id",
        "retrieved",
        "cited",
        "must_cite_one_of",
        "relevant_ids",
        "language",
        "case_type",
        "query",
        "timings_ms",
    )
)
_ITEM_KEYS = frozenset(("id", "parent_id", "score"))
_ITEM_FIELDS = itemgetter("id", "parent_id", "score")
_CASE_TYPES = frozenset(CASE_TYPES)
_COLUMNS = (HIT, RECALL, NDCG, CITATION_COVERAGE)
# case_id, retrieved, must_cite_one_of, language, case_type (and cited): past
# these a line has query / timings_ms / relevant_ids, checked apart.
_COMMON_KEYS = 5
# json.loads turns "\ud800" into a lone surrogate, which pydantic may refuse:
# such a line takes the slow path (orjson refuses it outright).
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")

# case_id, card ids, cited, must_cite_one_of, relevant_ids, language, case_type
_Fields = tuple[
    str, list[str], list[str] | None, list[str] | None, list[str] | None, str | None, str | None
]


def _find_orjson() -> Callable[[str], Any] | None:
    """orjson's ``loads`` if installed: an optional accelerator that returns what
    ``json.loads`` returns for every line it accepts (it refuses NaN, numbers out
    of range and lone surrogates, which then take the slow path)."""
    try:
        from orjson import loads
    except ImportError:
        return None
    return loads


_ORJSON_LOADS = _find_orjson()


@dataclass(frozen=True)
class StreamedScores:
    """What the report needs of a scored capture."""

    aggregates: Aggregates
    total: int  # artifacts (cases) read
    scored: int  # of which carry gold and were scored
    outcomes: Counter[str]  # citation outcomes, when the capture has `cited`


def _loads(line: str) -> Any:
    """Parse with orjson, or json if orjson is absent; ``None`` for the slow path."""
    if _ORJSON_LOADS is not None:
        try:
            return _ORJSON_LOADS(line)
        except ValueError:
            return None  # maybe valid for json (NaN, huge numbers, lone surrogates)
    if "\\u" in line and _SURROGATE_ESCAPE.search(line):
        return None
    try:
        return json.loads(line)
    except ValueError:
        return None


def _is_str_list(value: object) -> bool:
    if type(value) is not list:
        return False
    try:
        "".join(value)  # TypeError unless every element is a str
    except TypeError:
        return False
    return True


def _card_of(item: object) -> str | None:
    """A retrieved item's card id if the schema surely accepts the item, else None."""
    if type(item) is str:
        return item or None
    if type(item) is not dict or not item.keys() <= _ITEM_KEYS:
        return None
    ident = item.get("id")
    parent = item.get("parent_id")
    score = item.get("score")
    if type(ident) is not str or not ident:
        return None
    if parent is not None and type(parent) is not str:
        return None
    if score is not None and type(score) is not float:
        return None
    return parent or ident


def _cards(items: list[Any]) -> list[str] | None:
    """Card ids of ``retrieved`` if the schema surely accepts every item, else None."""
    try:
        "".join(items)
    except TypeError:
        pass
    else:  # all bare ids
        return None if "" in items else items
    cards: list[str] = []
    append = cards.append
    for item in items:
        # The shape a runner writes: {"id": str, "parent_id": str, "score": float}.
        if type(item) is dict and len(item) == 3:
            try:
                ident, parent, score = _ITEM_FIELDS(item)
            except KeyError:
                return None
            if (
                type(ident) is str
                and type(parent) is str
                and ident
                and parent
                and (type(score) is float or score is None)
            ):
                append(parent)
                continue
        card = _card_of(item)
        if card is None:
            return None
        append(card)
    return cards


def _rare_fields_ok(obj: dict[str, Any]) -> bool:
    """``relevant_ids`` absent; ``query`` and ``timings_ms`` exactly as the schema takes them."""
    query = obj.get("query")
    timings = obj.get("timings_ms")
    return (
        obj.get("relevant_ids") is None
        and (query is None or type(query) is str)
        and (
            timings is None
            or (type(timings) is dict and all(type(v) is float for v in timings.values()))
        )
    )


def _optional_ok(obj: dict[str, Any]) -> bool:
    """The optional fields other than ``retrieved``, exactly as the schema takes them."""
    for key in ("cited", "must_cite_one_of", "relevant_ids"):
        ids = obj.get(key)
        if ids is not None and not _is_str_list(ids):
            return False
    language = obj.get("language")
    case_type = obj.get("case_type")
    query = obj.get("query")
    timings = obj.get("timings_ms")
    return (
        (language is None or (type(language) is str and is_canonical_language(language)))
        and (case_type is None or (type(case_type) is str and case_type in _CASE_TYPES))
        and (query is None or type(query) is str)
        and (
            timings is None
            or (type(timings) is dict and all(type(v) is float for v in timings.values()))
        )
    )


def _fast_fields(obj: Any) -> _Fields | None:
    """The fields of a line the Artifact schema surely accepts as is, else None."""
    if type(obj) is not dict or not obj.keys() <= _ARTIFACT_KEYS:
        return None
    case_id = obj.get("case_id")
    items = obj.get("retrieved")
    if type(case_id) is not str or not case_id or type(items) is not list:
        return None
    cards = _cards(items)
    if cards is None or not _optional_ok(obj):
        return None
    return (
        case_id,
        cards,
        obj.get("cited"),
        obj.get("must_cite_one_of"),
        obj.get("relevant_ids"),
        obj.get("language"),
        obj.get("case_type"),
    )


def _ids(value: tuple[str, ...] | None) -> list[str] | None:
    return None if value is None else list(value)


def _fields_of(artifact: Artifact) -> _Fields:
    return (
        artifact.case_id,
        artifact.ranked_card_ids(),
        _ids(artifact.cited),
        _ids(artifact.must_cite_one_of),
        _ids(artifact.relevant_ids),
        artifact.language,
        artifact.case_type,
    )


class _Scorer:
    """The per-case work after parsing: labels, duplicate check, metrics, columns."""

    def __init__(self, path: Path, *, k: int) -> None:
        self.path = path
        self.source = str(path)
        self.k = k
        self.acc = MetricAccumulator()
        self.cells: dict[tuple[str, str], tuple[Callable[[float], None], ...]] = {}
        self.first_line: dict[str, int] = {}
        self.outcomes: Counter[str] = Counter()
        self.total = 0
        self.scored = 0
        # The chain raises every duplicate before any labelling error: hold both.
        self.duplicate: InputError | None = None
        self.unlabelled: InputError | None = None

    def parse(self, line: str, number: int) -> _Fields:
        obj = _loads(line)
        fields = None if obj is None else _fast_fields(obj)
        if fields is None:
            fields = _fields_of(self.artifact(line, number))
        return fields

    def artifact(self, line: str, number: int) -> Artifact:
        """The line through the chain's own path (its acceptance, its message)."""
        try:
            return parse_artifact_line(line, number=number, source=self.source)
        except InputError:
            ensure_readable(self.path, what=ARTIFACTS_WHAT)
            raise

    def add(self, line: str, number: int) -> bool:
        """One line, any line; whether no error is due yet."""
        self._add(line, number)
        return self.duplicate is None and self.unlabelled is None

    def _add(self, line: str, number: int) -> None:
        case_id, cards, cited, gold, relevant, language, case_type = self.parse(line, number)
        self.total += 1
        first = self.first_line.setdefault(case_id, number)
        if first != number:
            if self.duplicate is None:
                self.duplicate = second_artifact_error(self.source, number, case_id, first)
            return
        if self.duplicate is not None or self.unlabelled is not None:
            return  # an error is due: only the remaining lines' own errors matter now
        if (
            language is None
            or case_type is None
            or gold is None
            or (relevant is not None and not (relevant and gold))
        ):
            # Let the labelling code decide, and word the error.
            try:
                label = _label_from_artifact(
                    self.artifact(line, number), where=f"{self.source}:{number}"
                )
            except InputError as exc:
                self.unlabelled = exc
                return
            language, case_type = label.language, label.case_type
            gold, relevant = list(label.must_cite_one_of), _ids(label.relevant_ids)
        cell = self.cells.get((case_type, language))
        if cell is None:
            cell = self.cell(case_type, language)
        if gold:  # else no keys and no n (ADR-0023 (B))
            self.score(cell, cards, cited, gold, relevant)

    def cell(self, case_type: str, language: str) -> tuple[Callable[[float], None], ...]:
        """The appenders of a group's columns (registers the group)."""
        cell = self.cells[(case_type, language)] = self.acc.appenders(case_type, language, _COLUMNS)
        return cell

    def score(
        self,
        cell: tuple[Callable[[float], None], ...],
        cards: list[str],
        cited: list[str] | None,
        gold: list[str],
        relevant: list[str] | None,
    ) -> None:
        gold_set = frozenset(gold)
        rel = None if relevant is None else frozenset(relevant)
        metrics = score_ranking(cards, gold=gold_set, relevant=rel, k=self.k)
        hit = metrics[HIT]
        self.scored += 1
        cell[0](hit)
        cell[1](metrics[RECALL])
        cell[2](metrics[NDCG])
        if cited is not None:
            outcome = classify_citation(hit=hit, gold=gold_set, cited=cited)
            self.outcomes[outcome] += 1
            cell[3](1.0 if outcome == "ok" else 0.0)

    def result(self, *, total: int, scored: int) -> StreamedScores:
        """The scores, with the counts of the fast path added; or the error due."""
        if self.duplicate is not None:
            raise self.duplicate
        if self.unlabelled is not None:
            raise self.unlabelled
        return StreamedScores(
            aggregates=self.acc.result(),
            total=self.total + total,
            scored=self.scored + scored,
            outcomes=self.outcomes,
        )


def score_artifacts_file(path: Path, *, k: int) -> StreamedScores:
    """Score a self-contained capture (every line carries its case's fields) at ``k``."""
    scorer = _Scorer(path, k=k)
    first_line = scorer.first_line
    cells = scorer.cells
    outcomes = scorer.outcomes
    total = scored = 0
    clean = True  # no error due yet
    for number, line in iter_jsonl_lines(path, what=ARTIFACTS_WHAT):
        # Fast path, inlined: a well-formed, labelled, first line of its case with no
        # separate relevance set. Anything else goes to scorer.add (same result, slower).
        obj = _loads(line)
        if type(obj) is not dict:
            clean = scorer.add(line, number)
            continue
        case_id = obj.get("case_id")
        items = obj.get("retrieved")
        gold = obj.get("must_cite_one_of")
        cited = obj.get("cited")
        language = obj.get("language")
        case_type = obj.get("case_type")
        if not (
            type(case_id) is str
            and case_id
            and type(items) is list
            and type(gold) is list
            and type(language) is str
            and is_canonical_language(language)
            and type(case_type) is str
            and case_type in _CASE_TYPES
            and _is_str_list(gold)
            and (cited is None or _is_str_list(cited))
            # The five keys above (and cited) and no other, or only known others.
            and (
                len(obj) == _COMMON_KEYS + ("cited" in obj)
                or (obj.keys() <= _ARTIFACT_KEYS and _rare_fields_ok(obj))
            )
            and clean
        ):
            clean = scorer.add(line, number)
            continue
        cards = _cards(items)
        if cards is None or first_line.setdefault(case_id, number) != number:
            clean = scorer.add(line, number)
            continue
        total += 1
        cell = cells.get((case_type, language))
        if cell is None:
            cell = scorer.cell(case_type, language)
        if not gold:
            continue  # no gold: no keys, no n (ADR-0023 (B))
        gold_set = frozenset(gold)
        metrics = score_ranking(cards, gold=gold_set, k=k)
        hit = metrics[HIT]
        scored += 1
        cell[0](hit)
        cell[1](metrics[RECALL])
        cell[2](metrics[NDCG])
        if cited is not None:
            outcome = classify_citation(hit=hit, gold=gold_set, cited=cited)
            outcomes[outcome] += 1
            cell[3](1.0 if outcome == "ok" else 0.0)
    return scorer.result(total=total, scored=scored)
