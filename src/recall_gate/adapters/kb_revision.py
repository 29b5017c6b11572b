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
from dataclasses import dataclass, replace
from pathlib import Path

from recall_gate.adapters.dataset import KbFiles, kb_files, read_kb
from recall_gate.adapters.git import (
    BaseTree,
    changed_files,
    is_shallow,
    last_commit,
    read_file_at,
    read_files_at,
    work_tree_root,
)
from recall_gate.adapters.site_layout import Site, detect_site
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
    sides parsed (``None``: the KB is no folder inside the work tree). The files
    of a docs site's translation folders (Docusaurus ``i18n/<locale>/…``) are
    the KB's too, each the card of its locale."""
    folder = tree.relative(kb) if kb.is_dir() else None
    if folder is None:
        return None
    # The checkout's site config tells how a file is a card (its language, its
    # URL): read once, for both sides.
    site = detect_site(kb)
    roots = [_Root(folder=folder, locale=None)]
    for locale, path in site.locale_folders.items() if site is not None else ():
        translated = tree.relative(path)
        if translated is not None:
            roots.append(_Root(folder=translated, locale=locale))
    listed: list[tuple[str | None, str | None]] = []
    for root in roots:
        listed += [
            (old, new)
            for _, old, new in changed_files(
                tree.root, tree.ref, head, root.folder, needed_by=tree.needed_by, fix=tree.fix
            )
        ]
    # A locale the base's site config builds and the pull request's does not: its
    # pages are cards no more (each listed against the empty tree, as deleted).
    for locale, dropped in _locales_dropped(tree, kb, site, head=head).items():
        roots.append(_Root(folder=dropped, locale=locale))
        listed += [
            (old, None)
            for _, old, _ in changed_files(
                tree.root, tree.ref, _EMPTY_TREE, dropped, needed_by=tree.needed_by, fix=tree.fix
            )
            if old
        ]
    if not listed:
        return []
    olds = (old for old, _ in listed if old)
    base = _cards_at(tree, tree.ref, olds, roots=roots, files=files, site=site)
    news = (new for _, new in listed if new)
    mine = _cards_at(tree, head, news, roots=roots, files=files, site=site)
    return [
        FileChange(base=base.get(old) if old else None, head=mine.get(new) if new else None)
        for old, new in listed
    ]


# git's empty tree: a diff against it lists every file of a revision's folder.
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _locales_dropped(tree: BaseTree, kb: Path, site: Site | None, *, head: str) -> dict[str, str]:
    """The translation folders (as the repository names them) of the locales the
    base's site config builds and ``head``'s does not (Docusaurus ``locales``);
    read only when the pull request changes the config."""
    if site is None:
        return {}
    config = tree.relative(site.config)
    top = tree.relative(site.config.parent)
    if (
        config is None
        or top is None
        or not changed_files(
            tree.root, tree.ref, head, config, needed_by=tree.needed_by, fix=tree.fix
        )
    ):
        return {}
    text = read_file_at(tree.root, tree.ref, config, needed_by=tree.needed_by, fix=tree.fix)
    try:
        inside = kb.resolve().relative_to(site.config.parent.resolve())
    except ValueError:
        return {}
    if text is None:
        return {}
    with tempfile.TemporaryDirectory(prefix="recall-gate-site.") as scratch:
        copy = Path(scratch)
        (copy / site.config.name).write_bytes(text)
        (copy / inside).mkdir(parents=True, exist_ok=True)
        base = detect_site(copy / inside)
        if base is None:
            return {}
        prefix = "" if top in ("", ".") else top + "/"
        return {
            locale: prefix + folder.relative_to(copy).as_posix()
            for locale, folder in base.locale_folders.items()
            if locale not in site.locale_folders
        }


@dataclass(frozen=True)
class _Root:
    """A folder of the KB's files, as the repository names it: the KB folder
    (``locale`` None) or a docs site's translation folder of ``locale``."""

    folder: str

    locale: str | None

    @property
    def prefix(self) -> str:
        return "" if self.folder in ("", ".") else self.folder + "/"

    @property
    def scratch(self) -> str:
        """Its folder in the scratch copy: ``kb``, or ``i18n/<locale>``."""
        return "kb" if self.locale is None else f"i18n/{self.locale}"


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
    tree: BaseTree,
    ref: str,
    paths: Iterable[str],
    *,
    roots: Sequence[_Root],
    files: KbFiles,
    site: Site | None,
) -> dict[str, CardFile]:
    """The cards of ``paths`` (repository paths) at ``ref``, by repository path:
    the files are laid out as under the KB root (and its translation folders) in
    a scratch folder and read by the KB reader with the checkout's ``site``; a
    path that is no card file at ``ref`` is left out."""
    # Deepest folder first: a translation folder inside the KB folder is its own.
    ordered = sorted(roots, key=lambda r: len(r.prefix), reverse=True)
    placed: dict[str, tuple[_Root, str]] = {}
    for path in paths:
        for root in ordered:
            if path.startswith(root.prefix):
                placed[path] = (root, path[len(root.prefix) :])
                break
    blobs = read_files_at(
        tree.root, [(ref, p) for p in placed], needed_by=tree.needed_by, fix=tree.fix
    )
    if not blobs:
        return {}
    with tempfile.TemporaryDirectory(prefix="recall-gate-kb.") as scratch:
        top = Path(scratch)
        back: dict[str, str] = {}
        for (_, path), data in blobs.items():
            root, rest = placed[path]
            target = top / root.scratch / rest
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            back[str(target)] = path
        kb_root = top / "kb"
        kb_root.mkdir(exist_ok=True)
        translations = {
            r.locale: top / r.scratch
            for r in roots
            if r.locale is not None and (top / r.scratch).is_dir()
        }
        if not translations and not kb_files(kb_root, include=files.include, exclude=files.exclude):
            return {}
        scratch_site = None if site is None else replace(site, translations=translations)
        try:
            entries = read_kb(kb_root, files, site=scratch_site).cards
        except InputError as exc:
            message = exc.message
            for written, path in back.items():
                message = message.replace(written, f"{ref}:{path}")
            raise InputError(message, fix=exc.fix) from None
    return {
        back[entry.where]: CardFile(card=entry.card, path=back[entry.where])
        for entry in entries
        if entry.path and entry.where in back
    }
