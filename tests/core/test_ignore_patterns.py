"""gitignore-style patterns, as MkDocs reads `exclude_docs` and `draft_docs`
(core.ignore_patterns), checked against pathspec's GitIgnoreSpec, the matcher
MkDocs itself builds from them."""

from __future__ import annotations

import pathspec.gitignore
import pytest

from recall_gate.core.ignore_patterns import ignored, pattern_lines

PATHS = [
    "index.md",
    "drafts/a.md",
    "guide/drafts/b.md",
    "templates/x.md",
    "guide/templates/y.md",
    "api/internal.md",
    "guide/api/internal.md",
    "notes_score.md",
    "ch01/intro_score.md",
    "ch01/intro_v2.md",
    "superpowers/plans/sneak.md",
    ".hidden.md",
    "guide/.draft.md",
    "a/b/c/d.md",
    "keep/important.md",
    "keep/other.md",
]

PATTERN_SETS = {
    "a folder at any depth": ["drafts/"],
    "an anchored folder": ["/templates/"],
    "an anchored file": ["api/internal.md"],
    "a name at any depth": ["*_score.md"],
    "a character class": ["*_v[0-9]*.md"],
    "a deep anchored folder": ["/superpowers/plans/"],
    "dot files": [".*"],
    "double star": ["a/**/d.md", "**/internal.md"],
    "negation: the last match decides": ["keep/", "!keep/important.md"],
    "negating a file inside an excluded folder's contents": ["keep/*", "!keep/important.md"],
    "a question mark": ["index.m?"],
    "everything under": ["a/**"],
    "MkDocs' defaults": [".*", "/templates/"],
    "re-including a folder's file after its folder": ["guide/", "!guide/api/internal.md"],
}


@pytest.mark.parametrize("patterns", PATTERN_SETS.values(), ids=PATTERN_SETS.keys())
def test_every_path_is_left_out_as_mkdocs_pathspec_leaves_it_out(patterns: list[str]) -> None:
    spec = pathspec.gitignore.GitIgnoreSpec.from_lines(patterns)
    for path in PATHS:
        assert ignored(path, patterns) == spec.match_file(path), (patterns, path)


def test_comments_and_blank_lines_are_no_patterns() -> None:
    assert pattern_lines("# drafts\n\n  drafts/\n*.tmp.md   \n") == ("  drafts/", "*.tmp.md")
