"""Running git (adapter: a subprocess): the one place recall-gate calls it.

Used to read files as they are at a revision (``--baseline-ref``: the base
branch's baseline, config and cases) and every committed version of the
baseline (``history``). A missing git or a hung one is an InputError that says
what needed git.

A revision given by a user goes through :func:`check_ref` first, and every git
call that takes one ends git's options before it (``--end-of-options``), so a
ref shaped like an option is never read as one. Errors name the ref as the
user gave it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from recall_gate.errors import InputError

__all__ = [
    "GIT_TIMEOUT",
    "changed_files",
    "check_ref",
    "commit_exists",
    "fetch_commit",
    "first_error_line",
    "is_ref_name_or_sha",
    "is_safe_ref",
    "list_folder_at",
    "read_file_at",
    "read_files_at",
    "run_git",
    "work_tree_root",
]

GIT_TIMEOUT = 60

_SHA = re.compile(r"[0-9a-fA-F]{7,64}")
# git check-ref-format's rules, plus: no leading '-', printable ASCII only.
_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|/\.|\.lock(/|$)")


def run_git(
    args: list[str], *, cwd: Path, needed_by: str, fix: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``cwd`` (fed ``stdin``), its output captured; the caller
    reads the return code."""
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            check=False,
            timeout=GIT_TIMEOUT,
        )
    except FileNotFoundError:
        raise InputError(f"{needed_by} needs git, and git is not installed", fix=fix) from None
    except subprocess.TimeoutExpired:
        raise InputError(
            f"git {' '.join(args)} did not answer within {GIT_TIMEOUT} s",
            fix="check the repository",
        ) from None


def is_safe_ref(ref: str) -> bool:
    """A revision that may go on git's command line (``HEAD~1`` too): never
    option-shaped, no whitespace or control characters."""
    return (
        bool(ref)
        and not ref.startswith("-")
        and all(c.isprintable() and not c.isspace() for c in ref)
    )


def is_ref_name_or_sha(ref: str) -> bool:
    """A commit SHA or a well-formed ref name (``main``, ``origin/main``,
    ``refs/tags/v1``), by git check-ref-format's rules: no revision syntax
    (``~``, ``^``, ``..``, ``@{``), never option-shaped, no whitespace."""
    if not ref or ref.startswith(("-", "/", ".")) or ref.endswith(("/", ".")):
        return False
    if _SHA.fullmatch(ref):
        return True
    if not ref.isascii() or _FORBIDDEN.search(ref) or ref == "@":
        return False
    return all(part and not part.startswith(".") for part in ref.split("/"))


def check_ref(ref: str, *, given_as: str) -> str:
    """``ref`` when it is a SHA or a ref name, else the InputError naming it
    and where it was given (e.g. ``--baseline-ref``)."""
    if not is_ref_name_or_sha(ref):
        raise InputError(
            f"{given_as} {ref!r}: not a commit SHA or a git ref name",
            fix="pass a branch, tag or commit SHA, e.g. the pull request's base SHA",
        )
    return ref


def work_tree_root(cwd: Path, *, needed_by: str, fix: str) -> Path | None:
    """The top of the git work tree holding ``cwd``; ``None`` outside one."""
    done = run_git(["rev-parse", "--show-toplevel"], cwd=cwd, needed_by=needed_by, fix=fix)
    if done.returncode != 0:
        return None
    return Path(done.stdout.decode("utf-8", "replace").strip()).resolve()


def commit_exists(root: Path, ref: str, *, needed_by: str, fix: str) -> bool:
    done = run_git(
        ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        cwd=root,
        needed_by=needed_by,
        fix=fix,
    )
    return done.returncode == 0


def is_shallow(root: Path, *, needed_by: str, fix: str) -> bool:
    """Whether the clone is shallow (``actions/checkout``'s default): its
    history stops short, so "the last commit touching a file" cannot be told."""
    done = run_git(["rev-parse", "--is-shallow-repository"], cwd=root, needed_by=needed_by, fix=fix)
    return done.returncode == 0 and done.stdout.strip() == b"true"


def last_commit(root: Path, relative: str, *, needed_by: str, fix: str) -> str | None:
    """The SHA of the last commit (from ``HEAD``) that touched ``relative``;
    ``None`` for a file no commit has."""
    done = run_git(
        ["log", "-1", "--format=%H", "--end-of-options", "HEAD", "--", relative],
        cwd=root,
        needed_by=needed_by,
        fix=fix,
    )
    sha = done.stdout.decode("ascii", "replace").strip()
    return sha if done.returncode == 0 and sha else None


def fetch_commit(root: Path, ref: str, *, needed_by: str, fix: str) -> bool:
    """Fetch just ``ref`` from ``origin`` (a shallow checkout lacks the base
    commit); whether the commit is there afterwards. It is reached through
    FETCH_HEAD only when git cannot name it otherwise, never in a message."""
    run_git(
        # No submodule of the pull request's .gitmodules is fetched along.
        [
            "fetch",
            "--no-tags",
            "--no-recurse-submodules",
            "--depth=1",
            "origin",
            "--end-of-options",
            ref,
        ],
        cwd=root,
        needed_by=needed_by,
        fix=fix,
    )
    return commit_exists(root, ref, needed_by=needed_by, fix=fix)


def _object_type(root: Path, spec: str, *, needed_by: str, fix: str) -> bytes | None:
    """Git's type of the object ``spec`` names (``b"blob"``, ``b"tree"`` …); ``None``
    when there is none."""
    kind = run_git(
        ["cat-file", "-t", "--end-of-options", spec], cwd=root, needed_by=needed_by, fix=fix
    )
    return None if kind.returncode else kind.stdout.strip()


def read_file_at(root: Path, ref: str, relative: str, *, needed_by: str, fix: str) -> bytes | None:
    """The bytes of ``relative`` (a path under ``root``) at ``ref``; ``None``
    when no file is there at that revision."""
    spec = f"{ref}:{relative}"
    if _object_type(root, spec, needed_by=needed_by, fix=fix) != b"blob":
        return None
    blob = run_git(
        ["cat-file", "blob", "--end-of-options", spec], cwd=root, needed_by=needed_by, fix=fix
    )
    if blob.returncode:
        raise InputError(
            f"{spec}: git cannot read it ({first_error_line(blob)})",
            fix="check the revision and the path",
        )
    return blob.stdout


def list_folder_at(
    root: Path, ref: str, relative: str, *, needed_by: str, fix: str
) -> list[str] | None:
    """The names of the files directly in folder ``relative`` at ``ref``;
    ``None`` when that path is not a folder at that revision."""
    spec = f"{ref}:{relative}" if relative not in ("", ".") else f"{ref}:"
    if _object_type(root, spec, needed_by=needed_by, fix=fix) != b"tree":
        return None
    listed = run_git(
        ["ls-tree", "-z", "--end-of-options", spec], cwd=root, needed_by=needed_by, fix=fix
    )
    if listed.returncode:
        raise InputError(
            f"{spec}: git cannot list it ({first_error_line(listed)})",
            fix="check the revision and the path",
        )
    names = []
    for entry in listed.stdout.split(b"\0"):
        meta, _, name = entry.partition(b"\t")
        if name and meta.split(b" ")[1:2] == [b"blob"]:
            names.append(name.decode("utf-8", "surrogateescape"))
    return names


def changed_files(
    root: Path, base: str, head: str, folder: str, *, needed_by: str, fix: str
) -> list[tuple[str, str | None, str | None]]:
    """The files under ``folder`` that differ between commits ``base`` and
    ``head``, rename-aware (``git diff -M``): ``(status, base path, head path)``
    with ``A`` / ``D`` / ``M`` / ``R`` (a type change counts as ``M``), the
    side a file is absent from as ``None``."""
    done = run_git(
        [
            "diff",
            "--name-status",
            "--no-color",
            "-z",
            "-M",
            "--no-relative",
            "--no-ext-diff",
            "--no-textconv",
            "--end-of-options",
            base,
            head,
            "--",
            folder or ".",
        ],
        cwd=root,
        needed_by=needed_by,
        fix=fix,
    )
    if done.returncode:
        raise InputError(
            f"git diff {base} {head}: {first_error_line(done)}",
            fix="check that both revisions are fetched",
        )
    fields = [f.decode("utf-8", "surrogateescape") for f in done.stdout.split(b"\0")]
    changes: list[tuple[str, str | None, str | None]] = []
    at = 0
    while at < len(fields) and fields[at]:
        status = fields[at][0]
        if status in ("R", "C"):
            old, new = fields[at + 1], fields[at + 2]
            changes.append(("R", old, new) if status == "R" else ("A", None, new))
            at += 3
            continue
        path = fields[at + 1]
        if status == "A":
            changes.append(("A", None, path))
        elif status == "D":
            changes.append(("D", path, None))
        else:
            changes.append(("M", path, path))
        at += 2
    return changes


def read_files_at(
    root: Path, specs: list[tuple[str, str]], *, needed_by: str, fix: str
) -> dict[tuple[str, str], bytes]:
    """The bytes of each ``(ref, path)`` that is a file there, in one git call
    (``git cat-file --batch``); one that is not is left out."""
    # One name per line on git's stdin: a path holding a newline cannot be named.
    wanted = [spec for spec in specs if "\n" not in spec[1] and "\n" not in spec[0]]
    if not wanted:
        return {}
    names = "".join(f"{ref}:{path}\n" for ref, path in wanted).encode("utf-8", "surrogateescape")
    done = run_git(["cat-file", "--batch"], cwd=root, needed_by=needed_by, fix=fix, stdin=names)
    if done.returncode:
        raise InputError(
            f"git cat-file: {first_error_line(done)}", fix="check the revision and the paths"
        )
    out, at, found = done.stdout, 0, {}
    for spec in wanted:
        end = out.index(b"\n", at)
        line = out[at:end]
        at = end + 1
        if line.endswith((b" missing", b" ambiguous")):  # "<name> missing": no such file
            continue
        header = line.split(b" ")
        size = int(header[2])
        if header[1] == b"blob":
            found[spec] = out[at : at + size]
        at += size + 1
    return found


def first_error_line(done: subprocess.CompletedProcess[bytes]) -> str:
    """The first line git wrote to stderr (``error`` when it wrote none)."""
    lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return lines[0] if lines else "error"


class BaseTree:
    """Files as they are at one revision of the work tree holding ``cwd``.

    Opening it checks the ref (:func:`check_ref`), finds the work tree and the
    commit (fetched from ``origin`` first when ``fetch`` is set and the
    checkout lacks it, as a shallow CI checkout does); every error names the
    ref as given."""

    needed_by = "--baseline-ref"
    fix = "install git, or drop --baseline-ref"

    def __init__(
        self, ref: str, *, cwd: Path, given_as: str = "--baseline-ref", fetch: bool = False
    ):
        self.ref = check_ref(ref, given_as=given_as)
        self.given_as = given_as
        root = work_tree_root(cwd, needed_by=self.needed_by, fix=self.fix)
        if root is None:
            raise InputError(
                f"{given_as} {ref}: {cwd} is not inside a git work tree",
                fix="run from a clone of the repository, or drop --baseline-ref",
            )
        self.root = root
        if not commit_exists(root, ref, needed_by=self.needed_by, fix=self.fix) and not (
            fetch and fetch_commit(root, ref, needed_by=self.needed_by, fix=self.fix)
        ):
            raise InputError(
                f"{given_as} {ref}: unknown git revision (not fetched?)",
                fix="fetch it first: `actions/checkout` with `fetch-depth: 0`, "
                f"or `git fetch origin {ref}`",
            )

    def relative(self, path: Path) -> str | None:
        """``path`` inside the work tree, as git names it; ``None`` outside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def read(self, relative: str) -> bytes | None:
        return read_file_at(self.root, self.ref, relative, needed_by=self.needed_by, fix=self.fix)

    def folder(self, relative: str) -> list[str] | None:
        return list_folder_at(self.root, self.ref, relative, needed_by=self.needed_by, fix=self.fix)

    def source(self, relative: str) -> str:
        """How messages name a file at the revision: ``REF:path``."""
        return f"{self.ref}:{relative}"
