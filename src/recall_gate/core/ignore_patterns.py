"""Which paths gitignore-style patterns leave out (pure), as MkDocs reads its
``exclude_docs`` and ``draft_docs`` (the gitwildmatch rules of ``.gitignore``).

One pattern per line; blank lines and lines starting with ``#`` are no patterns;
``!`` re-includes what an earlier pattern left out, and the last pattern that
matches a path decides. A pattern with a ``/`` before its end is anchored at the
docs folder (``/templates/``, ``api/internal.md``); one without matches a name at
any depth (``*.tmp.md``, ``drafts/``). A trailing ``/`` matches folders only, and
a folder left out leaves out everything in it. ``*`` and ``?`` stay within one
folder, ``**`` spans folders, ``[abc]`` is a character class.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

__all__ = ["glob_regex", "ignored", "pattern_lines"]


def pattern_lines(text: str) -> tuple[str, ...]:
    """The patterns of a block of gitignore-style lines (comments and blanks dropped)."""
    lines = (line.rstrip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def glob_regex(glob: str) -> str:
    """A glob as a regular expression over ``/``-separated paths: ``*`` and ``?``
    within one folder, ``**/`` any folders, a trailing ``/**`` all below,
    ``[abc]`` a class (``[!abc]`` its complement), ``\\x`` the character x."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif glob.startswith("/**", i) and i + 3 == len(glob):
            out.append("/.*")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        elif glob[i] == "[" and (end := glob.find("]", i + 2)) != -1:
            inner = glob[i + 1 : end].replace("\\", "\\\\")
            if inner.startswith("!"):
                inner = "^" + inner[1:]
            out.append("[" + inner + "]")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> tuple[bool, re.Pattern[str]]:
    negated = pattern.startswith("!")
    glob = pattern[1:] if negated else pattern
    folder_only = glob.endswith("/")
    glob = glob.rstrip("/")
    anchored = "/" in glob
    body = glob_regex(glob.lstrip("/"))
    head = "" if anchored else "(?:.*/)?"
    # A folder left out takes all it holds; a folder-only pattern matches nothing else.
    tail = "/.*" if folder_only else "(?:/.*)?"
    return negated, re.compile(f"{head}{body}{tail}")


def ignored(relative: str, patterns: Iterable[str]) -> bool:
    """Whether ``relative`` (a file's path under the docs folder, ``/``-separated)
    is left out by ``patterns``."""
    left_out = False
    for pattern in patterns:
        negated, regex = _compiled(pattern)
        if regex.fullmatch(relative):
            left_out = not negated
    return left_out
