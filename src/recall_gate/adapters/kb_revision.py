"""The KB at the base revision against the pull request's (adapter: git, temp files).

Git lists the files under the KB folder that differ between the base commit and
the pull request's commit (``HEAD``), following renames (``git diff -M``); both
sides of each are read in one ``git cat-file --batch`` call each and parsed by
the KB reader with the KB's own settings (include / exclude globs, language
map), so a card is the same card here as everywhere else. What changed is
decided in :mod:`recall_gate.core.kb_diff`. Only changed files are read: the
cost grows with the pull request, not with the KB.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from recall_gate.adapters.dataset import KbFiles, kb_files, load_kb
from recall_gate.adapters.git import (
    BaseTree,
    changed_files,
    is_shallow,
    last_commit,
    read_files_at,
    work_tree_root,
)
from recall_gate.core.kb_diff import CardFile, FileChange, KbDiff, diff_kb
from recall_gate.errors import InputError

__all__ = [
    "HEAD",
    "CasesFileHistory",
    "LabelHistory",
    "read_card_files",
    "read_kb_diff",
    "read_label_history",
]

HEAD = "HEAD"


def read_kb_diff(tree: BaseTree, kb: Path, files: KbFiles, *, head: str = HEAD) -> KbDiff | None:
    """The card changes between ``tree``'s revision and ``head`` under the KB
    folder ``kb``; ``None`` when the KB is not a folder inside the work tree
    (a KB file, or one outside the repository: no pull request edits it)."""
    changed = read_card_files(tree, kb, files, head=head)
    return None if changed is None else diff_kb(changed)


def read_card_files(
    tree: BaseTree, kb: Path, files: KbFiles, *, head: str = HEAD
) -> list[FileChange] | None:
    """Each card file that differs between ``tree``'s revision and ``head``, both
    sides parsed (``None``: the KB is no folder inside the work tree)."""
    folder = tree.relative(kb) if kb.is_dir() else None
    if folder is None:
        return None
    listed = changed_files(
        tree.root, tree.ref, head, folder, needed_by=tree.needed_by, fix=tree.fix
    )
    if not listed:
        return []
    prefix = "" if folder in ("", ".") else folder + "/"
    base = _cards_at(tree, tree.ref, (old for _, old, _ in listed if old), prefix, files)
    mine = _cards_at(tree, head, (new for _, _, new in listed if new), prefix, files)
    return [
        FileChange(base=base.get(old) if old else None, head=mine.get(new) if new else None)
        for _, old, new in listed
    ]


@dataclass(frozen=True, kw_only=True)
class CasesFileHistory:
    """A cases file's last commit, and the card files changed since (both sides)."""

    path: Path
    since: str
    changes: tuple[FileChange, ...]


@dataclass(frozen=True, kw_only=True)
class LabelHistory:
    """The KB's history since each cases file was last committed; ``shallow``:
    the clone's history stops short, so nothing was read."""

    shallow: bool = False
    files: tuple[CasesFileHistory, ...] = ()


_NEEDED_BY = "the label-rot check"
_FIX = "install git, or run outside a git work tree"


def read_label_history(
    kb: Path, files: KbFiles, cases_files: Sequence[Path]
) -> LabelHistory | None:
    """For each cases file git has a commit of, the card files changed since that
    commit up to ``HEAD``; ``None`` when it cannot be told at all (no git work
    tree, the KB or no cases file in it)."""
    if not kb.is_dir():
        return None
    try:
        root = work_tree_root(kb, needed_by=_NEEDED_BY, fix=_FIX)
    except InputError:
        return None  # no git: nothing to tell, and nothing to fail for
    if root is None:
        return None
    if is_shallow(root, needed_by=_NEEDED_BY, fix=_FIX):
        return LabelHistory(shallow=True)
    found = []
    for path in cases_files:
        try:
            relative = path.resolve().relative_to(root).as_posix()
        except ValueError:
            continue
        since = last_commit(root, relative, needed_by=_NEEDED_BY, fix=_FIX)
        if since is None:
            continue
        tree = BaseTree(since, cwd=root, given_as=f"the last commit of {relative}")
        changes = read_card_files(tree, kb, files)
        if changes is None:
            return None
        found.append(CasesFileHistory(path=path, since=since, changes=tuple(changes)))
    return LabelHistory(files=tuple(found)) if found else None


def _cards_at(
    tree: BaseTree, ref: str, paths: Iterable[str], prefix: str, files: KbFiles
) -> dict[str, CardFile]:
    """The cards of ``paths`` (repository paths) at ``ref``, by repository path:
    the files are laid out as under the KB root in a scratch folder and read by
    the KB reader; a path that is no card file at ``ref`` is left out."""
    wanted = [(ref, p) for p in paths if p.startswith(prefix)]
    blobs = read_files_at(tree.root, wanted, needed_by=tree.needed_by, fix=tree.fix)
    if not blobs:
        return {}
    with tempfile.TemporaryDirectory(prefix="recall-gate-kb.") as scratch:
        root = Path(scratch)
        for (_, path), data in blobs.items():
            target = root / path[len(prefix) :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if not kb_files(root, include=files.include, exclude=files.exclude):
            return {}
        try:
            entries = load_kb(root, files)
        except InputError as exc:
            raise InputError(
                exc.message.replace(scratch + "/", f"{ref}:{prefix}"), fix=exc.fix
            ) from None
    return {
        prefix + entry.path: CardFile(card=entry.card, path=prefix + entry.path)
        for entry in entries
        if entry.path
    }
