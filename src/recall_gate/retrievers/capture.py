"""Run a user's retriever over the cases and record what it returned (the artifacts).

One code path for ``recall-gate capture`` and ``recall_gate.capture(...)``:
each case's query goes through the adapter of the retriever's framework, each
returned document is mapped to its KB card id, and every artifact line
carries its case's fields, so the capture is self-contained for ``score``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recall_gate.adapters.artifacts import dump_artifacts, write_artifacts
from recall_gate.core.records import Artifact, Case, RetrievedItem, Retriever
from recall_gate.errors import InputError
from recall_gate.retrievers import haystack, langchain, llamaindex, plain
from recall_gate.retrievers.adapter import Adapter, class_name
from recall_gate.retrievers.documents import IdMapper
from recall_gate.retrievers.failures import EXIT_FIX, describe

__all__ = ["NOT_A_RETRIEVER_FIX", "Capture", "adapt", "capture"]

NOT_A_RETRIEVER_FIX = (
    "return a LangChain retriever or vector store, a LlamaIndex retriever or index, a "
    "Haystack retriever component (run(query, top_k)), or a function (query, k) -> list"
)


@dataclass(frozen=True)
class Capture:
    """What a retriever returned for every case, and which retriever it was."""

    artifacts: tuple[Artifact, ...]
    retriever: Retriever
    k: int

    def to_jsonl(self) -> str:
        """The artifacts file's text (the retriever recorded on its first line)."""
        return dump_artifacts(self.artifacts, retriever=self.retriever)

    def write(self, path: str | Path) -> None:
        """Write the artifacts file atomically (no partial file on failure)."""
        write_artifacts(Path(path), self.artifacts, retriever=self.retriever)


def adapt(retriever: Any) -> Adapter:
    """The adapter of ``retriever``'s framework (checked by shape, never imported)."""
    for detect in (langchain.detect, llamaindex.detect, haystack.detect, plain.detect):
        adapter: Adapter | None = detect(retriever)
        if adapter is not None:
            return adapter
    raise InputError(
        f"{class_name(retriever)} is no retriever recall-gate can drive",
        fix=NOT_A_RETRIEVER_FIX,
    )


def _cases_of(cases: str | Path | Iterable[Case | Mapping[str, Any]]) -> list[Case]:
    if isinstance(cases, str | Path):
        from recall_gate.adapters.dataset import load_cases

        return [case for _, case in load_cases([Path(cases)])]
    out = [c if isinstance(c, Case) else Case.model_validate(c) for c in cases]
    seen: set[str] = set()
    for case in out:
        if case.id in seen:
            raise InputError(f"case {case.id!r} is given twice", fix="give each case a unique id")
        seen.add(case.id)
    return out


def _card_ids(kb: str | Path | Iterable[str] | None) -> frozenset[str] | None:
    if kb is None:
        return None
    if isinstance(kb, str | Path):
        from recall_gate.adapters.dataset import load_cards

        return frozenset(card.id for _, card in load_cards(Path(kb)))
    return frozenset(kb)


def capture(
    retriever: Any,
    cases: str | Path | Iterable[Case | Mapping[str, Any]],
    *,
    k: int,
    id_from: str | None = None,
    label: str | None = None,
    kb: str | Path | Iterable[str] | None = None,
) -> Capture:
    """Run every case's query through ``retriever`` and capture the top ``k`` card ids.

    ``retriever``: a LangChain retriever or vector store, a LlamaIndex retriever
    or index, a Haystack retriever component, or a function ``(query, k)``
    returning ids or dicts. ``cases``: a cases file, or case records / mappings.
    ``id_from``: the dotted field holding the card id (default: the common
    fields, see :data:`~recall_gate.retrievers.documents.DEFAULT_ID_FIELDS`).
    ``kb``: the KB (a path, or its card ids) to map file paths to card ids and
    refuse documents that are no card. ``label``: your name for this retriever,
    recorded in the provenance. Raises :class:`~recall_gate.errors.InputError`
    naming the case and the fix when a query fails or a document maps to no id.
    """
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InputError(f"k must be a positive integer, got {k!r}", fix="pass k=5 or similar")
    adapter = adapt(retriever)
    all_cases = _cases_of(cases)
    gold = frozenset(g for c in all_cases for g in (*c.must_cite_one_of, *(c.relevant_ids or ())))
    mapper = IdMapper(id_from=id_from, card_ids=_card_ids(kb), gold_ids=gold)
    artifacts = []
    for case in all_cases:
        try:
            hits = adapter.search(case.query, k)
        except InputError:
            raise
        except Exception as exc:
            raise InputError(
                f"case {case.id!r}: the retriever {describe(exc)} (query {case.query!r})",
                fix="make the retriever answer this query (credentials, network, index "
                "built?) and capture again; nothing was written",
            ) from None
        except BaseException as exc:  # sys.exit() or KeyboardInterrupt in retriever code
            raise InputError(
                f"case {case.id!r}: the retriever {describe(exc)} (query {case.query!r})",
                fix=EXIT_FIX,
            ) from None
        items = []
        for rank, hit in enumerate(hits, start=1):
            card = mapper.card_id(hit, case_id=case.id, rank=rank)
            chunk = hit.chunk_id if hit.chunk_id and hit.chunk_id != card else None
            items.append(
                RetrievedItem(id=chunk or card, parent_id=card if chunk else None, score=hit.score)
            )
        artifacts.append(
            Artifact(
                case_id=case.id,
                retrieved=tuple(items),
                must_cite_one_of=case.must_cite_one_of,
                relevant_ids=case.relevant_ids,
                language=case.language,
                case_type=case.case_type,
                query=case.query,
            )
        )
    params = {"k": k, **adapter.params()}
    if id_from:
        params["id_from"] = id_from
    provenance = Retriever(
        adapter=adapter.kind,
        name=adapter.name,
        label=label,
        params=params,
    )
    return Capture(artifacts=tuple(artifacts), retriever=provenance, k=k)
