"""Write an artifacts file, and watch what a capture says about itself (adapter: file I/O).

The file is the JSONL that ``score`` reads, one case per line (see
:mod:`recall_gate.adapters.dataset`). The retriever that made the capture is recorded
once, on the first line (``"retriever": {...}``), rather than on every line; a
line that carries one must agree with the others.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from operator import attrgetter
from pathlib import Path
from typing import TypeGuard

from recall_gate.adapters.files import atomic_write_text
from recall_gate.adapters.results_store import dump_jsonl
from recall_gate.core.capture_line import as_retriever, with_fields
from recall_gate.core.card_language import (
    Placement,
    address_language,
    place_in_language,
    told_language,
    translated_ids,
)
from recall_gate.core.integrity import (
    GOLD_REQUIRED,
    Problem,
    card_of_path,
    looks_like_file_path,
    missing_gold,
    unresolved_gold,
)
from recall_gate.core.latency import summarize_latency
from recall_gate.core.outside_share import MAX_OUTSIDE_SHARE, OutsideTally
from recall_gate.core.records import (
    Artifact,
    Coverage,
    Latency,
    OutsideKb,
    RetrievedItem,
    Retriever,
)
from recall_gate.core.site_urls import nearest_card
from recall_gate.errors import InputError

__all__ = ["CaptureWatch", "dump_artifacts", "refuse_partial", "write_artifacts"]


def dump_artifacts(
    artifacts: Sequence[Artifact],
    *,
    retriever: Retriever | None = None,
    coverage: Coverage | None = None,
) -> str:
    """The JSONL text of a capture, the retriever (and, for a shard, its coverage)
    on its first line."""
    if (retriever is not None or coverage is not None) and artifacts:
        first = artifacts[0].model_copy(update={"retriever": retriever, "coverage": coverage})
        artifacts = [first, *artifacts[1:]]
    return dump_jsonl(artifacts)


def write_artifacts(
    path: Path,
    artifacts: Sequence[Artifact],
    *,
    retriever: Retriever | None = None,
    coverage: Coverage | None = None,
) -> None:
    """Write a capture atomically: a failure leaves no partial file behind."""
    atomic_write_text(path, dump_artifacts(artifacts, retriever=retriever, coverage=coverage))


def refuse_partial(source: str, number: int, coverage: Coverage) -> InputError:
    """The error for scoring a file that holds only part of its case set."""
    return InputError(
        f"{source}:{number}: holds only {coverage.describe()} of a case set of "
        f"{coverage.cases} cases: scoring it would report part of the cases as all of them",
        fix="capture every shard and merge them first (`recall-gate merge shard-*.jsonl "
        "--out capture.jsonl`), then score the merged file",
    )


def _all_ids(items: Sequence[RetrievedItem | str]) -> TypeGuard[Sequence[str]]:
    """Whether every item is a bare id (``str.join`` refuses anything else, at C speed)."""
    try:
        "".join(items)  # type: ignore[arg-type]
    except TypeError:
        return False
    return True


_OUTSIDE_KB = attrgetter("outside_kb")


_PARENT_ID = attrgetter("parent_id")


def _ranked_items(artifact: Artifact) -> list[str]:
    """``artifact.ranked_card_ids()`` of a line that holds items: their parent ids read
    at C speed when every item has one (a chunk capture), no type test per item."""
    retrieved = artifact.retrieved
    try:
        parents: list[str | None] = list(map(_PARENT_ID, retrieved))
    except AttributeError:  # bare ids among them
        return artifact.ranked_card_ids()
    if None in parents or "" in parents:
        return [item.parent_id or item.id for item in retrieved]  # type: ignore[union-attr]
    return parents  # type: ignore[return-value]  # no None among them


def _may_be_paths(ids: Sequence[str]) -> bool:
    """Whether an id holds a mark every file path holds (see ``looks_like_file_path``):
    ids without any (``card-0042``, ``faq#3``) need no closer look. Five substring
    searches in C take a tenth of one pattern search's time."""
    text = "\n".join(ids)
    return "/" in text or "." in text or ":" in text or "\\" in text or "~" in text


class CaptureWatch:
    """What a capture says about itself, gathered as its artifacts stream to the scorer:
    the retriever its lines record; for a ``self_labelled`` capture (no cases
    file) every golden or adversarial line without gold, and (given the KB's
    ``card_ids``) every gold or relevant id that resolves to no card."""

    def __init__(
        self,
        source: str,
        *,
        card_ids: frozenset[str] | None = None,
        self_labelled: bool = False,
        unmapped_paths: bool = False,
        gold_ids: frozenset[str] = frozenset(),
        kb_ids: frozenset[str] | None = None,
        groups: Mapping[str, tuple[str, str]] | None = None,
    ) -> None:
        self.source = source
        # case id → (language, case type), from the cases file; else each line's own.
        self.groups = groups or {}
        self.tally = OutsideTally()
        self.card_ids = card_ids
        self.self_labelled = self_labelled
        # With no KB to map them, retrieved ids that are file paths match no gold id:
        # every case would score 0. Watched unless the gold ids are file paths too.
        self.unmapped_paths = unmapped_paths
        self._gold_paths = any(looks_like_file_path(g) for g in gold_ids)
        self._path_examples: list[str] = []
        # Documents outside the KB: flagged by the capture, or (with the KB's
        # ids) any retrieved id that is no card.
        self.kb_ids = kb_ids
        self.retrieved_entries = 0
        self.outside_entries = 0
        self.outside_cases = 0
        self.outside_examples: list[str] = []
        self.retriever: Retriever | None = None
        self.problems: list[Problem] = []
        self._retriever_line = 0
        # (language, case type, ms) of each line that carries its latency
        self.timed: list[tuple[str | None, str | None, float]] = []
        # the cases the retriever could not answer (`capture --max-failures`)
        self.failed: list[str] = []
        # A KB holding some id in two or more languages: each line is read in its
        # case's language (core.card_language); None for a KB whose ids are unambiguous.
        translated = translated_ids(kb_ids) if kb_ids is not None else frozenset()
        self._written: Mapping[str, frozenset[str]] | None = (
            getattr(kb_ids, "languages", None) if translated else None
        )
        self._placement: Placement | None = None  # of the line last seen
        # Retrieved documents of a translated id whose language could not be told:
        # (case id, card id, its languages) of the first few, and how many in all.
        self.untold: list[tuple[str, str, tuple[str, ...]]] = []
        self.untold_entries = 0
        self.untold_cases = 0
        # Per case language: scored cases whose gold was met by another language's card only.
        self.from_other_language: Counter[str] = Counter()

    def latency(self) -> Latency | None:
        """p50 / p95 / max of the lines' latencies, overall and per group."""
        return summarize_latency(self.timed)

    def watch(self, artifacts: Iterable[tuple[int, Artifact]]) -> Iterator[tuple[int, Artifact]]:
        see = self.see
        for number, line in artifacts:
            yield number, see(number, line)[0]

    def see(self, number: int, line: Artifact) -> tuple[Artifact, Sequence[str]]:
        """Watch the line numbered ``number``: the artifact to score (file paths under
        the KB read as their card ids) and its ranked card ids (duplicates kept)."""
        if line.coverage is not None:
            raise refuse_partial(self.source, number, line.coverage)
        kb_ids = self.kb_ids
        # File paths under the KB read as their card ids, as capture maps them.
        artifact = line if kb_ids is None else self._mapped(line, kb_ids)
        retrieved = artifact.retrieved
        # Bare ids only (the usual capture): str.join refuses any item, in C.
        plain = _all_ids(retrieved)
        ranked: Sequence[str] = retrieved if plain else _ranked_items(artifact)  # type: ignore[assignment]
        if artifact.retriever is not None:
            self._see_retriever(number, artifact.retriever)
        if kb_ids is None and plain:
            self.retrieved_entries += len(retrieved)  # no bare id is flagged outside the KB
        else:
            self._see_outside(artifact, ranked)
        if artifact.latency_ms is not None:
            self.timed.append((artifact.language, artifact.case_type, artifact.latency_ms))
        if artifact.error is not None:
            self.failed.append(artifact.case_id)
        if self.unmapped_paths and not self._gold_paths:
            self._see_paths(artifact, ranked)
        if self._written is not None:
            ranked = self._in_language(artifact, ranked)
        if (
            self.self_labelled
            and artifact.case_type in GOLD_REQUIRED
            and not artifact.must_cite_one_of
        ):
            self.problems += missing_gold(
                f"{self.source}:{number}",
                artifact.case_id,
                case_type=artifact.case_type,
                must_cite_one_of=artifact.must_cite_one_of,
            )
        if self.card_ids is not None:
            self.problems += unresolved_gold(
                f"{self.source}:{number}",
                artifact.case_id,
                must_cite_one_of=artifact.must_cite_one_of,
                relevant_ids=artifact.relevant_ids,
                card_ids=self.card_ids,
            )
        return artifact, ranked

    def _mapped(self, artifact: Artifact, kb_ids: frozenset[str]) -> Artifact:
        """Retrieved ids that are file paths or page URLs under the KB read as their
        card ids (as ``capture`` maps them), keeping the language they tell of a
        translated card; the rest are left as they are."""
        items: list[RetrievedItem | str] = []
        changed = False
        for item in artifact.retrieved:
            ident = item if isinstance(item, str) else item.card_id
            if ident in kb_ids or (not isinstance(item, str) and item.outside_kb):
                items.append(item)
                continue
            card = card_of_path(ident, kb_ids)
            if card is None:
                items.append(item)
                continue
            changed = True
            language = None
            if self._written is not None and told_language(item) is None:
                language = address_language(ident, card, kb_ids)
            if isinstance(item, str):
                items.append(
                    card
                    if language is None
                    else RetrievedItem(id=item, parent_id=card, language=language)
                )
            elif language is None:
                items.append(with_fields(item, parent_id=card))
            else:
                items.append(with_fields(item, parent_id=card, language=language))
        return with_fields(artifact, retrieved=tuple(items)) if changed else artifact

    def _in_language(self, artifact: Artifact, ranked: Sequence[str]) -> Sequence[str]:
        """The line's ranked card ids read in its case's language (core.card_language);
        a translated id whose language the document does not tell is noted."""
        written = self._written
        assert written is not None
        reader = self.groups.get(artifact.case_id, (artifact.language, None))[0]
        if reader is None:
            self._placement = None
            return ranked
        placement = place_in_language(
            ranked,
            [told_language(item) for item in artifact.retrieved],
            reader=reader,
            written=written,
        )
        self._placement = placement
        if placement.untold:
            self.untold_entries += len(placement.untold)
            self.untold_cases += 1
            if len(self.untold) < 3:
                ident = placement.untold[0]
                self.untold.append((artifact.case_id, ident, tuple(sorted(written[ident]))))
        return placement.ranked

    def reader_language(self, gold: Iterable[str], top: Sequence[str], hit: float) -> float | None:
        """For the case of the line last seen (scored, with ``gold`` and its ``top``
        k): the aggregates' "answered in the reader's language" value, None when
        no gold page is in its top k in any language; a hit met by another
        language's card only is counted as "answered from another language"."""
        placement = self._placement
        if placement is None:
            return None
        value, other = placement.judge(gold, top)
        if other and hit:
            self.from_other_language[placement.reader] += 1
        return value

    @property
    def reads_languages(self) -> bool:
        """Whether lines are read in their case's language (a translated KB)."""
        return self._written is not None

    def refuse_untold_languages(self) -> None:
        """Exit 2 when documents of a translated KB's ids do not tell their language:
        which language's page they are cannot be guessed."""
        if not self.untold_entries:
            return
        shown = "; ".join(
            f"{ident!r} in case {case_id!r} (the KB holds it in {', '.join(languages)})"
            for case_id, ident, languages in self.untold
        )
        raise InputError(
            f"{self.source}: {self.untold_entries} retrieved document(s) in "
            f"{self.untold_cases} case(s) name a card the KB holds in more than one "
            f"language without telling which, e.g. {shown}: a translation is not the "
            "page a reader of the other language asked for, and it is not guessed",
            fix="return each document's file path or page URL (the KB maps it to its card "
            'and its language), or put its language on the item (`"language": "zh"`) '
            "or in its metadata (`language`, `lang` or `locale`)",
        )

    def _see_outside(self, artifact: Artifact, ranked: Sequence[str]) -> None:
        kb_ids = self.kb_ids
        retrieved = artifact.retrieved
        self.retrieved_entries += len(retrieved)
        if kb_ids is None:
            # Only a flagged item is outside: none among bare ids (the usual line).
            try:  # items only (a chunk capture): flags read at C speed
                flagged = any(map(_OUTSIDE_KB, retrieved))
            except AttributeError:  # bare ids among them
                flagged = True
            if not flagged:
                return
            outside = [
                item.card_id for item in retrieved if not isinstance(item, str) and item.outside_kb
            ]
        else:
            outside = [
                ident
                for ident, item in zip(ranked, retrieved, strict=True)
                if (not isinstance(item, str) and item.outside_kb) or ident not in kb_ids
            ]
            language, case_type = self.groups.get(
                artifact.case_id, (artifact.language, artifact.case_type)
            )
            self.tally.add(
                language=language,
                case_type=case_type,
                retrieved=len(retrieved),
                outside=outside,
            )
        if outside:
            self.outside_entries += len(outside)
            self.outside_cases += 1
            for ident in outside:
                if len(self.outside_examples) >= 3:
                    break
                if ident not in self.outside_examples:
                    self.outside_examples.append(ident)

    def outside_kb(self) -> OutsideKb | None:
        """The pages outside the KB the capture holds (None: none)."""
        if not self.outside_entries:
            return None
        return OutsideKb(
            entries=self.outside_entries,
            cases=self.outside_cases,
            examples=tuple(self.outside_examples),
            share_by_language=self.tally.shares("language"),
            share_by_case_type=self.tally.shares("case type"),
        )

    def refuse_outside(self, *, strict: bool) -> None:
        """Exit 2 when every retrieved document is outside the KB (the ids are
        not card ids: a mapping problem), or when ``--strict`` refuses any."""
        if not self.outside_entries:
            return
        shown = ", ".join(repr(e) for e in self.outside_examples)
        if self.outside_entries == self.retrieved_entries:
            raise InputError(
                f"{self.source}: no retrieved id is a KB card ({self.outside_entries} "
                f"documents, e.g. {shown})",
                fix="capture with the KB set (`kb:` in recall-gate.yaml, or --kb) so file "
                "paths map to card ids, or check that `kb:` is the KB the retriever indexed",
            )
        self._refuse_unmapped_group()
        if strict:
            raise InputError(
                f"--strict: {self.outside_entries} retrieved document(s) in "
                f"{self.outside_cases} case(s) map to no KB card (e.g. {shown})",
                fix="leave those pages out of the retriever's index, or add them to the KB "
                "(`kb_include` / `kb_exclude`), or score without --strict: they then count "
                "as non-relevant results",
            )

    def _refuse_unmapped_group(self) -> None:
        """Exit 2 when, in one language or case type, no retrieved document maps to a
        card, or more than ``MAX_OUTSIDE_SHARE`` map to none (core.outside_share)."""
        found = self.tally.first_unusable()
        if found is None or self.kb_ids is None:
            return
        kind, name, tally = found
        kb_ids = self.kb_ids
        # A language's examples are its cases': the nearest card in that language first.
        language = name if kind == "language" else None
        examples = "; ".join(
            f"{e!r} (nearest card: {near!r})"
            if (near := nearest_card(e, kb_ids, language=language)) is not None
            else f"{e!r} (no card near it)"
            for e in tally.examples
        )
        raise InputError(
            f"{self.source}: {kind} {name}: {tally.outside} of {tally.retrieved} retrieved "
            f"documents ({tally.share:.0%}) map to no KB card (more than "
            f"{MAX_OUTSIDE_SHARE:.0%} may not), e.g. {examples}: scoring it would report a "
            "mapping problem as a retrieval failure",
            fix="pass --id-from FIELD naming the field that holds the card id, file path or "
            "page URL (`recall-gate cards` lists the URLs each card is found by), or point "
            "`kb:` at the docs the retriever indexed",
        )

    def _see_paths(self, artifact: Artifact, ranked: Sequence[str]) -> None:
        gold_ids = artifact.must_cite_one_of or ()
        if artifact.relevant_ids:
            gold_ids = (*gold_ids, *artifact.relevant_ids)
        examples = self._path_examples
        # One pattern search over the line's ids (gold, and ranked while examples are
        # wanted): most lines hold no path mark at all.
        if len(examples) < 3:
            if not _may_be_paths((*gold_ids, *ranked)):
                return
        elif not gold_ids or not _may_be_paths(gold_ids):
            return
        for gold in gold_ids:
            if looks_like_file_path(gold):
                self._gold_paths = True
                return
        if len(examples) < 3:
            for ident in ranked:
                if looks_like_file_path(ident) and ident not in examples:
                    examples.append(ident)
                    break

    def refuse_unmapped_paths(self) -> None:
        """Exit 2 when the capture's ids are file paths that no KB maps to card ids."""
        if self._path_examples and not self._gold_paths:
            shown = ", ".join(repr(e) for e in self._path_examples)
            raise InputError(
                f"{self.source}: the retrieved ids look like file paths ({shown}) and no "
                "`kb:` is set to map them to card ids: every case would score 0",
                fix="set `kb:` in recall-gate.yaml (or pass --kb PATH) to the folder of your "
                "docs, so each path maps to its card id (the path under that folder, "
                "without extension)",
            )

    def _see_retriever(self, number: int, line_retriever: Retriever) -> None:
        retriever = as_retriever(line_retriever)
        if self.retriever is None:
            self.retriever, self._retriever_line = retriever, number
        elif retriever != self.retriever:
            first, second = self.retriever.differences(retriever)
            raise InputError(
                f"{self.source}:{number}: the capture mixes retrievers "
                f"(line {self._retriever_line}: {first}; line {number}: {second})",
                fix="score one retriever's capture at a time (re-capture with one retriever)",
            )
