"""Cases as the base revision has them (adapter: git, temp files).

The labelled cases are the test oracle of a pull request: they are read at the
base revision (:class:`~recall_gate.adapters.git.BaseTree`), with the same
loader and the same errors as the working tree's, each file named
``REF:path``.
"""

from __future__ import annotations

import posixpath
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from recall_gate.adapters.dataset import load_cases
from recall_gate.adapters.git import BaseTree
from recall_gate.core.records import Case
from recall_gate.errors import InputError

__all__ = ["find_config_at", "load_cases_at", "read_at"]

_CASE_SUFFIXES = (".yaml", ".yml", ".jsonl")

T = TypeVar("T")


def read_at(tree: BaseTree, path: Path, read: Callable[[Path, str], T]) -> T | None:
    """``read(file, shown)`` of the revision's version of ``path`` (qrels, say),
    copied to a temporary file of the same name; ``shown`` (``REF:path``) is how
    messages name it, and an error names it so too. ``None`` when the revision
    has no such file. A path outside the work tree is read as it is."""
    relative = tree.relative(path)
    if relative is None:
        return read(path, str(path))
    data = tree.read(relative)
    if data is None:
        return None
    shown = tree.source(relative)
    with tempfile.TemporaryDirectory(prefix="recall-gate-base.") as scratch:
        copy = Path(scratch) / path.name
        copy.write_bytes(data)
        try:
            return read(copy, shown)
        except InputError as exc:
            raise InputError(exc.message.replace(str(copy), shown), fix=exc.fix) from None


def find_config_at(tree: BaseTree, start: Path, name: str) -> Path | None:
    """The nearest file called ``name`` at the revision, from ``start`` up to
    the work tree's root, as :func:`~recall_gate.adapters.config.find_config`
    finds it on disk; ``None`` when the revision has none on that path. A
    config a pull request adds nearer to ``start`` is not the base's, so it is
    never found here."""
    for folder in (start, *start.parents):
        relative = tree.relative(folder / name)
        if relative is None:
            return None  # above the work tree's root
        if tree.read(relative) is not None:
            return folder / name
    return None


def load_cases_at(tree: BaseTree, paths: Sequence[Path]) -> list[tuple[str, Case]] | None:
    """The cases of ``paths`` (files, or folders of ``*.yaml``/``*.jsonl``) at
    the revision; ``None`` when none of them exists there (a base without
    cases). A path outside the work tree is read as it is: no pull request
    edits it."""
    with tempfile.TemporaryDirectory(prefix="recall-gate-base.") as scratch:
        root = Path(scratch)
        found: list[Path] = []
        names: dict[str, str] = {}
        for path in paths:
            relative = tree.relative(path)
            if relative is None:
                found.append(path)
                continue
            data = tree.read(relative)
            if data is not None:
                files = {relative: data}
            else:
                listed = tree.folder(relative)
                if listed is None:
                    continue
                files = {}
                for name in sorted(listed):
                    if Path(name).suffix in _CASE_SUFFIXES:
                        member = f"{relative}/{name}" if relative not in ("", ".") else name
                        blob = tree.read(member)
                        if blob is not None:
                            files[member] = blob
            found += _copied(tree, files, root, names)
        if not found:
            return None
        try:
            located = load_cases(found)
        except InputError as exc:
            message = exc.message
            for temp, shown in names.items():
                message = message.replace(temp, shown)
            raise InputError(message, fix=exc.fix) from None
    return [(_renamed(source, names), case) for source, case in located]


def _copied(
    tree: BaseTree, files: dict[str, bytes], root: Path, names: dict[str, str]
) -> list[Path]:
    """The revision's ``files`` written under ``root``, each copy's ``REF:path`` in ``names``."""
    copies = []
    for member, blob in files.items():
        target = root / member
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
        names[str(target)] = tree.source(member)
        copies.append(target)
        if target.suffix == ".tsv":  # a BEIR split: its queries too, at the revision
            _copy_beir_queries(tree, member, root, names)
    return copies


def _copy_beir_queries(tree: BaseTree, qrels: str, root: Path, names: dict[str, str]) -> None:
    """The revision's ``queries.jsonl`` of a BEIR split (``DATASET/qrels/<split>.tsv``
    → ``DATASET/queries.jsonl``, as on disk) beside its copy under ``root``: a
    base's BEIR cases read their query texts from the base too. Named
    ``REF:path`` in any message, present or not."""
    member = posixpath.normpath(posixpath.join(posixpath.dirname(qrels), "..", "queries.jsonl"))
    target = root / member
    names[str(target)] = tree.source(member)
    if member.startswith("../"):
        return  # above the work tree: the loader says it is missing, named REF:path
    blob = tree.read(member)
    if blob is not None:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)


def _renamed(source: str, names: dict[str, str]) -> str:
    """A temp file's name in a location (``/tmp/x/cases.yaml:3``, ``/tmp/x/cases.yaml case #2
    (id q)``) as ``REF:cases.yaml:3``."""
    for temp, shown in names.items():
        if source == temp or source.startswith((temp + ":", temp + " ")):
            return shown + source[len(temp) :]
    return source
