"""Write an artifacts file, and read what a capture says about itself (adapter: file I/O).

The file is the JSONL that ``score`` reads, one case per line (see
:mod:`recall_gate.io.dataset`). The retriever that made the capture is recorded
once, on the first line (``"retriever": {...}``), rather than on every line; a
line that carries one must agree with the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from recall_gate.core.records import Artifact, Retriever
from recall_gate.errors import InputError
from recall_gate.io.results_store import atomic_write_text, dump_jsonl

__all__ = ["capture_retriever", "dump_artifacts", "write_artifacts"]


def dump_artifacts(artifacts: Sequence[Artifact], *, retriever: Retriever | None = None) -> str:
    """The JSONL text of a capture, the retriever on its first line."""
    if retriever is not None and artifacts:
        artifacts = [artifacts[0].model_copy(update={"retriever": retriever}), *artifacts[1:]]
    return dump_jsonl(artifacts)


def write_artifacts(
    path: Path, artifacts: Sequence[Artifact], *, retriever: Retriever | None = None
) -> None:
    """Write a capture atomically: a failure leaves no partial file behind."""
    atomic_write_text(path, dump_artifacts(artifacts, retriever=retriever))


def capture_retriever(
    artifacts: Sequence[tuple[int, Artifact]], *, source: str
) -> Retriever | None:
    """The retriever the capture's lines record (None when none does)."""
    found: tuple[int, Retriever] | None = None
    for number, artifact in artifacts:
        if artifact.retriever is None:
            continue
        if found is None:
            found = (number, artifact.retriever)
        elif artifact.retriever != found[1]:
            first, second = found[1].differences(artifact.retriever)
            raise InputError(
                f"{source}:{number}: the capture mixes retrievers (line {found[0]}: {first}; "
                f"line {number}: {second})",
                fix="score one retriever's capture at a time (re-capture with one retriever)",
            )
    return None if found is None else found[1]
