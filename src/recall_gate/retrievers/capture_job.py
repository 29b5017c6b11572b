"""A capture as ``recall-gate capture`` runs it: written atomically with a
journal beside it (an interrupted capture keeps its answers, and ``--resume``
asks only the cases not yet answered), the logged queries' snapshot and a TREC
run beside it when asked, and ``--repeat N`` captures against the first (A/A:
the retriever's own noise)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from recall_gate.adapters.journal import CaptureJournal
from recall_gate.adapters.query_snapshot import QuerySnapshot, write_with_snapshot
from recall_gate.adapters.trec import write_trec_run
from recall_gate.console import Console, display_path
from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.records import MAX_ITEM_METADATA_BYTES, Artifact, Case, RetrievedItem
from recall_gate.core.self_agreement import SelfAgreement, measure_self_agreement
from recall_gate.core.shards import Shard
from recall_gate.report.noise_floor import describe_self_agreement
from recall_gate.retrievers.capture import Capture, Progress, capture
from recall_gate.retrievers.factory import load_retriever

__all__ = ["CaptureJob", "ProgressSink", "capture_journaled", "repeat_for_agreement"]


class ProgressSink(Protocol):
    """Where a capture's progress goes (a line on stderr), ended when it stops."""

    def __call__(self, progress: Progress) -> None: ...

    def end(self) -> None: ...


@dataclass(frozen=True, kw_only=True)
class CaptureJob:
    """What every capture of one command shares: the retriever, the cases and
    logged queries asked, how deep, the KB that maps documents to cards, the
    shard, and the pacing."""

    retriever_spec: str
    id_from: str | None
    label: str | None
    cases: Sequence[Case]
    queries: Sequence[LoggedQuery]
    k: int
    card_ids: frozenset[str] | None
    kb_root: Path | None
    config_folder: Path | None
    shard: Shard | None
    pacing: dict[str, Any]

    def retriever(self, console: Console) -> Any:
        return load_retriever(
            self.retriever_spec, cwd=console.cwd, config_folder=self.config_folder
        )

    def capture(self, retriever: Any, **journal: Any) -> Capture:
        return capture(
            retriever,
            self.cases,
            k=self.k,
            id_from=self.id_from,
            label=self.label,
            kb=self.card_ids,
            kb_root=self.kb_root,
            shard=self.shard,
            queries=self.queries,
            **journal,
            **self.pacing,
        )


def _rankings(captured: Capture) -> dict[str, tuple[str, ...]]:
    return {
        a.case_id: tuple(i.card_id if isinstance(i, RetrievedItem) else i for i in a.retrieved)
        for a in captured.artifacts
        if a.error is None
    }


def repeat_for_agreement(
    console: Console, first: Capture, *, job: CaptureJob, repeat: int
) -> SelfAgreement:
    """``--repeat N``: N - 1 more captures, unchanged, against the first (A/A)."""
    retriever = job.retriever(console)
    pairs, logged = [], []
    for _ in range(repeat - 1):
        again = job.capture(retriever)
        pairs.append((_rankings(first), _rankings(again)))
        logged.append((first.logged, again.logged))
    agreement = measure_self_agreement(pairs, queries=job.queries, logged=logged, k=job.k)
    console.stderr.write(f"recall-gate: {describe_self_agreement(agreement)}\n")
    return agreement


def _answered(journal: CaptureJournal) -> dict[str, Artifact]:
    """The journal's lines that are still valid artifacts (a resumed capture's answers)."""
    answered = {}
    for case_id, line in journal.answered.items():
        try:
            answered[case_id] = Artifact.model_validate(line)
        except ValidationError:
            continue  # asked again
    return answered


def _say_captured(captured: Capture, *, out: Path, console: Console, k: int, resumed: int) -> None:
    """What was captured, where, how much came from the journal, and what failed."""
    console.stderr.write(
        f"recall-gate: captured {len(captured.artifacts)} cases at k = {k} with "
        f"{captured.retriever.name} ({captured.retriever.adapter}) → "
        f"{display_path(out, console)}"
        + (f" ({resumed} from the journal)" if resumed else "")
        + "\n"
    )
    deeper = [a.depth for a in captured.artifacts if a.depth is not None and a.depth > k]
    if deeper:
        console.stderr.write(
            f"recall-gate: {len(deeper)} case(s) held fewer than {k} distinct cards in the "
            f"first {k} documents and were asked deeper (up to {max(deeper)} documents)\n"
        )
    if captured.metadata_dropped:
        console.stderr.write(
            f"recall-gate: note: the metadata of {captured.metadata_dropped} retrieved "
            f"document(s) is not in the capture: over {MAX_ITEM_METADATA_BYTES:,} bytes of "
            "JSON, or not JSON (each item keeps at most that much)\n"
        )
    if captured.failed:
        console.stderr.write(
            f"recall-gate: warning: {len(captured.failed)} case(s) the retriever could not "
            "answer are recorded as failures and score as misses (--max-failures): "
            + ", ".join(repr(a.case_id) for a in captured.failed[:10])
            + (" …" if len(captured.failed) > 10 else "")
            + "\n"
        )


def capture_journaled(
    console: Console,
    *,
    job: CaptureJob,
    identity: dict[str, Any],
    out: Path,
    trec_out: Path | None,
    resume: bool,
    progress: ProgressSink | None,
) -> Capture:
    """The capture, written to ``out`` with its journal, and said on stderr (with
    how many of its answers came from the journal of an interrupted one)."""
    # Kept until the file is written: a failed capture leaves it, so `score` refuses
    # the earlier file rather than reporting its numbers as this capture's, and
    # `--resume` asks only the cases it does not hold.
    opened = CaptureJournal.resume if resume else CaptureJournal.start
    with opened(out, identity) as journal:
        answered = _answered(journal)
        resumed = sum(1 for a in answered.values() if a.error is None)
        retriever = job.retriever(console)
        try:
            captured = job.capture(
                retriever,
                answered=answered,
                on_artifact=lambda a: journal.record(a.model_dump(mode="json", exclude_none=True)),
                on_progress=progress,
            )
        except KeyboardInterrupt:
            if progress is not None:
                progress.end()
            console.stderr.write(
                f"recall-gate: capture interrupted: the answers so far are kept in "
                f"{display_path(journal.path, console)}; the same command with --resume asks "
                "only the cases not yet answered\n"
            )
            raise
        except BaseException:
            if progress is not None:
                progress.end()
            raise
        if not job.queries:
            captured.write(out)
        else:  # the capture and its snapshot land together: both new or both old
            snapshot = QuerySnapshot(k=job.k, rankings=captured.logged)
            written = write_with_snapshot(out, captured.to_jsonl(), snapshot)
            console.stderr.write(
                f"recall-gate: {len(captured.logged)} of {len(job.queries)} logged queries → "
                f"{display_path(written, console)}\n"
            )
        if trec_out is not None:
            write_trec_run(trec_out, captured.artifacts, source=str(out), tag="recall-gate")
        journal.finish()
    _say_captured(captured, out=out, console=console, k=job.k, resumed=resumed)
    return captured
