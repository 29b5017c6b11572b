"""Write an artifacts file, and watch what a capture says about itself (adapter: file I/O).

The file is the JSONL that ``score`` reads, one case per line (see
:mod:`recall_gate.adapters.dataset`). The retriever that made the capture is recorded
once, on the first line (``"retriever": {...}``), rather than on every line; a
line that carries one must agree with the others.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from recall_gate.adapters.files import atomic_write_text
from recall_gate.adapters.results_store import dump_jsonl
from recall_gate.core.integrity import (
    Problem,
    looks_like_file_path,
    missing_gold,
    unresolved_gold,
)
from recall_gate.core.latency import summarize_latency
from recall_gate.core.records import Artifact, Coverage, Latency, Retriever
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
    ) -> None:
        self.source = source
        self.card_ids = card_ids
        self.self_labelled = self_labelled
        # With no KB to map them, retrieved ids that are file paths match no gold id:
        # every case would score 0. Watched unless the gold ids are file paths too.
        self.unmapped_paths = unmapped_paths
        self._gold_paths = any(looks_like_file_path(g) for g in gold_ids)
        self._path_examples: list[str] = []
        self.retriever: Retriever | None = None
        self.problems: list[Problem] = []
        self._retriever_line = 0
        # (language, case type, ms) of each line that carries its latency
        self.timed: list[tuple[str | None, str | None, float]] = []
        # the cases the retriever could not answer (`capture --max-failures`)
        self.failed: list[str] = []

    def latency(self) -> Latency | None:
        """p50 / p95 / max of the lines' latencies, overall and per group."""
        return summarize_latency(self.timed)

    def watch(self, artifacts: Iterable[tuple[int, Artifact]]) -> Iterator[tuple[int, Artifact]]:
        card_ids = self.card_ids
        self_labelled = self.self_labelled
        for number, artifact in artifacts:
            if artifact.coverage is not None:
                raise refuse_partial(self.source, number, artifact.coverage)
            if artifact.retriever is not None:
                self._see_retriever(number, artifact.retriever)
            if artifact.latency_ms is not None:
                self.timed.append((artifact.language, artifact.case_type, artifact.latency_ms))
            if artifact.error is not None:
                self.failed.append(artifact.case_id)
            if self.unmapped_paths and not self._gold_paths:
                self._see_paths(artifact)
            if self_labelled and artifact.case_type is not None:
                self.problems += missing_gold(
                    f"{self.source}:{number}",
                    artifact.case_id,
                    case_type=artifact.case_type,
                    must_cite_one_of=artifact.must_cite_one_of,
                )
            if card_ids is not None:
                self.problems += unresolved_gold(
                    f"{self.source}:{number}",
                    artifact.case_id,
                    must_cite_one_of=artifact.must_cite_one_of,
                    relevant_ids=artifact.relevant_ids,
                    card_ids=card_ids,
                )
            yield number, artifact

    def _see_paths(self, artifact: Artifact) -> None:
        for gold in (*(artifact.must_cite_one_of or ()), *(artifact.relevant_ids or ())):
            if looks_like_file_path(gold):
                self._gold_paths = True
                return
        if len(self._path_examples) < 3:
            for ident in artifact.ranked_card_ids():
                if looks_like_file_path(ident) and ident not in self._path_examples:
                    self._path_examples.append(ident)
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

    def _see_retriever(self, number: int, retriever: Retriever) -> None:
        if self.retriever is None:
            self.retriever, self._retriever_line = retriever, number
        elif retriever != self.retriever:
            first, second = self.retriever.differences(retriever)
            raise InputError(
                f"{self.source}:{number}: the capture mixes retrievers "
                f"(line {self._retriever_line}: {first}; line {number}: {second})",
                fix="score one retriever's capture at a time (re-capture with one retriever)",
            )
