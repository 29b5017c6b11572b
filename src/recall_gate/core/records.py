"""Domain records: cards, chunks, cases, captured artifacts and results.

Frozen pydantic models with ``extra="forbid"``: a typo in a field name is an
error, not a silently ignored key. Field names are the contract docs/reference/formats.md
states.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from recall_gate.core.language import REFERENCE_LANGUAGES, LanguageTag

__all__ = [
    "CASE_TYPES",
    "FLOAT_DIGITS",
    "LANGUAGES",
    "MAX_ITEM_METADATA_BYTES",
    "SCHEMA_VERSION",
    "Aggregates",
    "Artifact",
    "Card",
    "Case",
    "CaseLabel",
    "CaseResult",
    "CaseType",
    "Chunk",
    "CitationOutcome",
    "Coverage",
    "CoverageCount",
    "KbCoverageCounts",
    "Language",
    "Latency",
    "LatencyStats",
    "MetricSummary",
    "OutsideKb",
    "Provenance",
    "Results",
    "RetrievedDetail",
    "RetrievedItem",
    "Retriever",
    "Unwinnable",
    "UnwinnableCase",
    "without_none",
]

SCHEMA_VERSION = 1

# Digits kept for floats in results and baseline files; comparisons happen at
# this precision, so a stored baseline equals the run it was made from.
FLOAT_DIGITS = 6

# Any well-formed BCP-47 tag, stored in canonical case (see core/language.py).
Language = LanguageTag
CaseType = Literal["golden", "adversarial", "capability", "no_match"]
CitationOutcome = Literal["ok", "retrieval_miss", "citation_miss"]
# The reference data's languages: groups list these first, then others by name.
LANGUAGES: tuple[str, ...] = REFERENCE_LANGUAGES
CASE_TYPES: tuple[str, ...] = ("golden", "adversarial", "capability", "no_match")


def without_none(data: Any, key: str) -> Any:
    """A serialized record without an optional field that is None: a field added
    later is written only when it says something, so older documents keep their
    bytes (used by the records' wrap serializers)."""
    if isinstance(data, dict) and key in data and data[key] is None:
        del data[key]
    return data


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Card(_Record):
    """A parent card of the knowledge base.

    ``metadata`` holds every other front-matter key of a docs page as it was
    written (MkDocs ``hide:``, Docusaurus ``sidebar_position:`` …), JSON-safe.
    It describes the page and takes no part in retrieval or in the KB
    fingerprint.
    """

    id: str = Field(min_length=1)
    language: Language
    title: str = Field(min_length=1)
    body: str = Field(min_length=1)
    tags: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)


class Chunk(_Record):
    """A piece of a card; ``parent_id`` is the card's id."""

    id: str = Field(min_length=1)
    parent_id: str = Field(min_length=1)
    text: str = Field(min_length=1)


class CaseLabel(_Record):
    """What scoring needs of a case: its groups and its gold.

    ``must_cite_one_of`` is disjunctive: citing any one card satisfies the
    citation contract; hit@k is computed on it. ``relevant_ids``, when present,
    is the relevance set for recall@k and nDCG@k (relevance apart from citation sufficiency).
    """

    id: str = Field(min_length=1)
    language: Language
    case_type: CaseType
    must_cite_one_of: tuple[str, ...] = ()
    relevant_ids: tuple[str, ...] | None = None

    @model_validator(mode="after")
    def _relevant_needs_gold(self) -> CaseLabel:
        if self.relevant_ids is not None:
            if not self.relevant_ids:
                raise ValueError(
                    "relevant_ids is empty: omit the field, or list the relevant card ids"
                )
            if not self.must_cite_one_of:
                raise ValueError(
                    "relevant_ids is set but must_cite_one_of is empty: "
                    "a case is scored only when it carries gold in must_cite_one_of"
                )
        return self

    @property
    def gold_labelled(self) -> bool:
        return bool(self.must_cite_one_of)


class Case(CaseLabel):
    """An evaluation case as written in a cases file: a label plus its query."""

    query: str = Field(min_length=1)

    def label(self) -> CaseLabel:
        """The case without its query: what scoring and labelling compare."""
        return CaseLabel(
            id=self.id,
            language=self.language,
            case_type=self.case_type,
            must_cite_one_of=self.must_cite_one_of,
            relevant_ids=self.relevant_ids,
        )


ParamValue = str | int | float | bool | None


class Retriever(_Record):
    """What produced a capture: a baseline made by another retriever is stale.

    ``adapter`` is how it was driven (``langchain-retriever``,
    ``langchain-vectorstore``, ``llamaindex``, ``haystack``, ``callable``,
    ``builtin``), ``name`` its class (``module.Class``), ``label`` the user's
    own name for it (``--label``), ``params`` what could be read of its
    settings (search kwargs, embedder, k), as short text.
    """

    adapter: str = Field(min_length=1)
    name: str = Field(min_length=1)
    label: str | None = None
    params: dict[str, ParamValue] = Field(default_factory=dict)

    def differences(self, other: Retriever) -> tuple[str, str]:
        """The fields that differ, as (``self``'s, ``other``'s) ``field=value`` text."""
        mine = self._flat()
        theirs = other._flat()
        keys = sorted(k for k in mine.keys() | theirs.keys() if mine.get(k) != theirs.get(k))
        return (
            ", ".join(f"{k}={mine.get(k, '(none)')}" for k in keys),
            ", ".join(f"{k}={theirs.get(k, '(none)')}" for k in keys),
        )

    def _flat(self) -> dict[str, str]:
        flat = {"adapter": self.adapter, "class": self.name}
        if self.label is not None:
            flat["label"] = self.label
        flat.update({f"params.{k}": str(v) for k, v in self.params.items()})
        return flat


class Coverage(_Record):
    """The part of a case set an artifacts file holds, when it is not all of it:
    ``shards`` (1-based) of ``of`` shards (``capture --shard``, or a merge that
    lacks some). ``cases`` and ``cases_fingerprint`` are the whole set's, so
    shards of different case sets are never merged. A file that holds every
    case carries no coverage; ``score`` refuses one that does."""

    shards: tuple[int, ...] = Field(min_length=1)
    of: int = Field(ge=1)
    cases: int = Field(ge=0)
    cases_fingerprint: str = Field(min_length=1)

    @model_validator(mode="after")
    def _shards_exist(self) -> Coverage:
        if list(self.shards) != sorted(set(self.shards)) or not all(
            1 <= s <= self.of for s in self.shards
        ):
            raise ValueError(f"shards must be distinct, sorted and in 1..{self.of}")
        return self

    def describe(self) -> str:
        """``shard 2 of 3`` / ``shards 1, 2 of 3``."""
        listed = ", ".join(map(str, self.shards))
        return f"shard{'s' if len(self.shards) > 1 else ''} {listed} of {self.of}"


# The most JSON (UTF-8 bytes) a retrieved item's metadata may take in a capture:
# larger metadata is left out of the line (capture says how many were).
MAX_ITEM_METADATA_BYTES = 2048


class RetrievedItem(_Record):
    """One retrieved item; card identity is ``parent_id`` if set, else ``id``.

    ``outside_kb``: a document that maps to no card (a page the index holds but
    the KB does not, e.g. release notes); ``id`` is the document's own
    reference. It keeps its rank and is never relevant.

    ``metadata``: the retriever's own metadata of the document, as ``capture``
    found it, when its JSON takes at most 2,048 bytes (larger is left out);
    no part of any fingerprint, nor of scoring but for its language (below).

    ``language``: which language's card it is, where the KB holds the id in more
    than one language (``capture`` writes it from the document's URL, file path
    or metadata; the metadata's ``language`` / ``lang`` / ``locale`` are read too).
    """

    # A capture is untrusted: NaN and ±Infinity (which Python's json reads) are
    # refused where they are read, naming the line, not where a report meets them.
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    id: str = Field(min_length=1)
    parent_id: str | None = None
    score: float | None = None
    outside_kb: bool | None = None  # True, or absent
    metadata: dict[str, Any] | None = None
    # The language of the card it is (a translation shares its id: a card is
    # (language, id)); see core/card_language.py for when it must be told.
    language: Language | None = None

    @property
    def card_id(self) -> str:
        return self.parent_id if self.parent_id else self.id


class Artifact(_Record):
    """What a runner captured for one case (one JSONL line).

    A line may carry its case's fields so that a capture is self-contained.
    ``timings_ms`` and ``query`` are informational (the built-in runner writes them).
    Every number is finite (see :class:`RetrievedItem`).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)

    case_id: str = Field(min_length=1)
    # A string is an id, an object an item: tried in that order, so a bare id is
    # taken at once instead of first failing as an item (what a "smart" union does).
    retrieved: tuple[Annotated[str | RetrievedItem, Field(union_mode="left_to_right")], ...]
    cited: tuple[str, ...] | None = None
    must_cite_one_of: tuple[str, ...] | None = None
    relevant_ids: tuple[str, ...] | None = None
    language: Language | None = None
    case_type: CaseType | None = None
    query: str | None = None
    timings_ms: dict[str, float] | None = None
    # How many documents the retriever was asked for (capture asks deeper than k
    # when a case holds fewer than k distinct cards).
    depth: int | None = Field(default=None, gt=0)
    # The query's wall time as ``capture`` measured it (informational, report-only).
    latency_ms: float | None = Field(default=None, ge=0)
    # Why the retriever gave no answer (``capture --max-failures``): scored as a miss.
    error: str | None = None
    # What captured this line (``recall-gate capture`` and ``run`` write it).
    retriever: Retriever | None = None
    # On the first line of a shard (or an incomplete merge): the part of the cases it holds.
    coverage: Coverage | None = None

    @field_validator("retrieved")
    @classmethod
    def _no_empty_ids(
        cls, items: tuple[str | RetrievedItem, ...]
    ) -> tuple[str | RetrievedItem, ...]:
        for i, item in enumerate(items):
            if isinstance(item, str) and not item:
                raise ValueError(f"retrieved[{i}] is an empty id")
        return items

    def ranked_card_ids(self) -> list[str]:
        """Card ids in rank order (duplicates kept; the metrics de-duplicate)."""
        retrieved = self.retrieved
        try:  # bare ids only (the usual capture): str.join refuses any item, in C
            "".join(retrieved)  # type: ignore[arg-type]
        except TypeError:
            return [
                item if isinstance(item, str) else (item.parent_id or item.id) for item in retrieved
            ]
        return list(retrieved)  # type: ignore[arg-type]


class MetricSummary(_Record):
    """A mean over the cases that carry the metric key, and their count."""

    mean: float
    n: int = Field(ge=0)


class Aggregates(_Record):
    """Means with n: overall, per case type and per language."""

    overall: dict[str, MetricSummary]
    by_case_type: dict[str, dict[str, MetricSummary]]
    by_language: dict[str, dict[str, MetricSummary]]


class RetrievedDetail(_Record):
    """What the retriever said of a card it returned (its first document):
    its own chunk id when it differs from the card id, and a short summary of
    its metadata (:mod:`recall_gate.core.retrieved_detail`). Informational."""

    chunk_id: str | None = None
    metadata: str | None = None

    @model_serializer(mode="wrap")
    def _omit_none(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return {k: v for k, v in data.items() if v is not None} if isinstance(data, dict) else data


class CaseResult(_Record):
    """Per-case record: metrics (``{}`` for empty gold) and the ranked card ids.

    ``query`` (when the cases or the capture carry it) lets a report name the
    case in words; it does not take part in scoring or comparison.
    """

    case_id: str
    language: Language
    case_type: CaseType
    query: str | None = None
    metrics: dict[str, float]
    ranked_ids: tuple[str, ...]
    must_cite_one_of: tuple[str, ...] = ()
    relevant_ids: tuple[str, ...] | None = None
    cited: tuple[str, ...] | None = None
    citation_outcome: CitationOutcome | None = None
    # A missed case's top k cards: what the retriever said of each (card id →
    # chunk id, metadata summary); absent when it said nothing but the id.
    retrieved_detail: dict[str, RetrievedDetail] | None = None
    # On a KB holding some id in several languages (core/card_language.py): whether
    # the gold page its top k holds is in the case's language; absent when its top
    # k holds none in any language, or the KB holds each id in one language.
    in_reader_language: bool | None = None

    @model_serializer(mode="wrap")
    def _omit_no_detail(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Written only when there is some, so results without it keep their bytes."""
        return without_none(without_none(handler(self), "retrieved_detail"), "in_reader_language")


class LatencyStats(_Record):
    """Nearest-rank p50 / p95 and the max of ``n`` queries' wall times, in ms."""

    p50_ms: float = Field(ge=0)
    p95_ms: float = Field(ge=0)
    max_ms: float = Field(ge=0)
    n: int = Field(ge=1)


class Latency(_Record):
    """A capture's query latency, overall and per group (report-only)."""

    overall: LatencyStats
    by_case_type: dict[str, LatencyStats] = Field(default_factory=dict)
    by_language: dict[str, LatencyStats] = Field(default_factory=dict)


class Provenance(_Record):
    """Where a result came from: fingerprints let a stale baseline be detected.

    ``run`` and ``score`` fill the same fields the same way: the dataset
    fingerprint covers the case labels (id, groups, gold), the queries
    fingerprint the queries when they are known (a cases file, or a capture
    that carries them), the KB fingerprint the cards when a KB is known. A
    field unknown on one side is not compared.
    """

    tool_version: str
    dataset_fingerprint: str
    queries_fingerprint: str | None = None
    kb_fingerprint: str | None = None
    config_fingerprint: str | None = None
    embedder: str | None = None
    retrieval_mode: str | None = None
    # The retrieval settings behind config_fingerprint, flat and readable
    # (``chunking.max_chars: 500``), so a stale baseline says what changed.
    settings: dict[str, str | int | float | bool | None] | None = None
    retriever: Retriever | None = None


class OutsideKb(_Record):
    """Retrieved documents that map to no KB card (pages the index holds but the
    KB does not): kept at their rank as non-relevant, counted here with examples."""

    entries: int = Field(ge=0)
    cases: int = Field(ge=0)
    examples: tuple[str, ...] = ()
    # The share of each group's retrieved documents outside the KB (0 to 1).
    share_by_language: dict[str, float] = Field(default_factory=dict)
    share_by_case_type: dict[str, float] = Field(default_factory=dict)


class CoverageCount(_Record):
    """Cards some labelled case cites, of a language's (or the KB's) cards."""

    covered: int = Field(ge=0)
    cards: int = Field(ge=0)

    @property
    def share(self) -> float | None:
        """``covered / cards``; ``None`` for no cards (nothing to cover)."""
        return self.covered / self.cards if self.cards else None


class KbCoverageCounts(_Record):
    """KB coverage (see core/coverage.py): overall and per card language.
    ``logged_queries``: of the cards retrieved, how many logged queries' top k
    counted too (None: the labelled cases' alone)."""

    overall: CoverageCount
    by_language: dict[str, CoverageCount] = Field(default_factory=dict)
    logged_queries: int | None = Field(default=None, ge=0)

    @model_serializer(mode="wrap")
    def _omit_no_queries(self, handler: SerializerFunctionWrapHandler) -> Any:
        return without_none(handler(self), "logged_queries")


class UnwinnableCase(_Record):
    """A missed case none of whose labelled cards is in the ``depth`` distinct
    cards its capture holds (see core/unwinnable.py)."""

    case_id: str
    depth: int = Field(gt=0)


class Unwinnable(_Record):
    """The missed cases no depth the capture recorded could make a hit: ``total``
    of the ``checked`` missed cases captured deeper than k (the first of them
    listed in ``cases``; their depths span ``depths``); ``shallow`` missed cases
    were captured no deeper than k, so it cannot be told for them."""

    cases: tuple[UnwinnableCase, ...] = ()
    total: int = Field(default=0, ge=0)
    depths: tuple[int, int] | None = None  # the least and the greatest depth
    checked: int = Field(ge=0)
    shallow: int = Field(default=0, ge=0)


class Results(_Record):
    """The ``--json`` output of ``score`` and ``run``."""

    schema_version: int = SCHEMA_VERSION
    k: int = Field(gt=0)
    provenance: Provenance
    cases: tuple[CaseResult, ...]
    aggregates: Aggregates
    # Scored cases whose capture holds fewer than k distinct cards: their
    # metrics are computed on a shorter list than k.
    cases_short_of_k: int = Field(default=0, ge=0)
    # Retrieved documents outside the KB (None: none, or no KB to tell).
    outside_kb: OutsideKb | None = None
    # The capture's query latency, when its lines carry `latency_ms` (report-only).
    latency: Latency | None = None
    # Cases the retriever could not answer (`capture --max-failures`): scored as misses.
    failed_cases: tuple[str, ...] = ()
    # Queries of a run (`score --run --qrels`) that the qrels do not judge: left
    # out of every mean and n, as trec_eval leaves them out.
    unjudged_queries: int = Field(default=0, ge=0)
    # The share of the KB's cards the labelled cases cite (None: no KB or no cases).
    kb_coverage: KbCoverageCounts | None = None
    # The KB's cards some case's top k holds; the rest were never retrieved.
    kb_retrieved: KbCoverageCounts | None = None
    # Missed cases whose labelled cards are nowhere in a capture deeper than k
    # (None: no missed case was captured deeper than k).
    unwinnable: Unwinnable | None = None
    # Per case language: scored cases whose gold was met only by another language's
    # card, where theirs has none of that id (core/card_language.py; a translated KB).
    answered_from_other_language: dict[str, int] = Field(default_factory=dict)

    @model_serializer(mode="wrap")
    def _omit_unset_capture_facts(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Latency, failures and unjudged queries are written only when there are
        some, so results (and baselines) of captures without them keep their bytes."""
        data = handler(self)
        if isinstance(data, dict):
            if data.get("latency", 0) is None:
                del data["latency"]
            if data.get("outside_kb", 0) is None:
                del data["outside_kb"]
            if data.get("failed_cases", 0) in ((), []):
                del data["failed_cases"]
            if data.get("unjudged_queries") == 0:
                del data["unjudged_queries"]
            if data.get("answered_from_other_language", 0) == {}:
                del data["answered_from_other_language"]
            if data.get("kb_coverage", 0) is None:
                del data["kb_coverage"]
            if data.get("kb_retrieved", 0) is None:
                del data["kb_retrieved"]
            if data.get("unwinnable", 0) is None:
                del data["unwinnable"]
        return data
