"""The KB diff read from git: real repositories built in the test, a base
commit and a pull request's commit on top of it."""

from __future__ import annotations

from pathlib import Path

import pytest

from git_repo import commit_all as commit
from git_repo import git, needs_git, pull_request_repo
from git_repo import write_files as write
from recall_gate.adapters.dataset import KbFiles
from recall_gate.adapters.git import BaseTree
from recall_gate.adapters.kb_revision import read_kb_diff
from recall_gate.errors import InputError

pytestmark = needs_git


def page(title: str, text: str = "Some text.", front: str = "") -> str:
    head = f"---\n{front}---\n" if front else ""
    return f"{head}# {title}\n\n{text}\n"


BASE = {
    "README.md": "# Not in the KB\n",
    "docs/en/install.md": page("Install", "Download the installer and run it twice."),
    "docs/en/usage.md": page("Usage", "Open the app and pick a project from the list."),
    "docs/en/billing.md": page("Billing", "Invoices are sent monthly by e-mail."),
    "docs/en/faq.md": page("FAQ", "Answers to the questions people ask most often."),
    "docs/en/old-page.md": page("Old", "A page about the retired feature."),
    "docs/en/setup.md": page("Setup", "Configure the proxy, the cache and the token. " * 5),
    "docs/en/drafts/wip.md": page("Draft", "Not published."),
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return pull_request_repo(tmp_path, BASE)


def test_a_pull_request_lists_exactly_its_added_edited_renamed_and_deleted_cards(
    repo: Path,
) -> None:
    write(
        repo,
        {
            "docs/en/install.md": page("Install", "Download the installer and run it once."),
            "docs/en/usage.md": page("Using the app", "Open the app and pick a project."),
            "docs/en/billing.md": page(
                "Billing", "Invoices are sent monthly by e-mail.", front="tags: [money]\n"
            ),
            "docs/en/new-a.md": page("New A"),
            "docs/en/new-b.md": page("New B"),
            "README.md": "# Still not in the KB, edited\n",
        },
    )
    (repo / "docs/en/old-page.md").unlink()
    (repo / "docs/en/guide").mkdir()
    git(repo, "mv", "docs/en/setup.md", "docs/en/guide/setup.md")
    commit(repo)
    diff = read_kb_diff(BaseTree("main", cwd=repo), repo / "docs", KbFiles())
    assert diff is not None
    assert [(c.card_id, c.what) for c in diff.changes] == [
        ("en/billing", "edited: front matter only"),
        ("en/guide/setup", "renamed from en/setup"),
        ("en/install", "edited"),
        ("en/new-a", "added"),
        ("en/new-b", "added"),
        ("en/old-page", "deleted"),
        ("en/usage", "edited"),
    ]
    assert diff.renames == {"en/setup": "en/guide/setup"}


def test_a_pull_request_that_touches_no_kb_file_has_no_card_change(repo: Path) -> None:
    write(repo, {"README.md": "# Edited\n"})
    commit(repo)
    diff = read_kb_diff(BaseTree("main", cwd=repo), repo / "docs", KbFiles())
    assert diff is not None
    assert diff.changes == ()


def test_files_the_kb_excludes_are_no_cards(repo: Path) -> None:
    write(repo, {"docs/en/drafts/wip.md": page("Draft", "Rewritten."), "docs/en/a.txt": "x"})
    commit(repo)
    files = KbFiles(exclude=("en/drafts/**",))
    diff = read_kb_diff(BaseTree("main", cwd=repo), repo / "docs", files)
    assert diff is not None
    assert diff.changes == ()


def test_a_card_the_base_cannot_parse_is_named_at_its_revision(repo: Path) -> None:
    git(repo, "checkout", "-q", "main")
    write(repo, {"docs/en/faq.md": "---\ntitle: [unclosed\n---\nText.\n"})
    commit(repo)
    git(repo, "checkout", "-q", "-b", "pr2")
    write(repo, {"docs/en/faq.md": page("FAQ", "Fixed.")})
    commit(repo)
    with pytest.raises(InputError) as exc:
        read_kb_diff(BaseTree("main", cwd=repo), repo / "docs", KbFiles())
    assert "main:docs/en/faq.md" in exc.value.message
    assert "recall-gate-kb." not in exc.value.message


def test_a_kb_file_is_not_diffed(repo: Path) -> None:
    write(repo, {"cards.yaml": "[]\n"})
    assert read_kb_diff(BaseTree("main", cwd=repo), repo / "cards.yaml", KbFiles()) is None


def test_the_users_git_config_does_not_change_the_listing(repo: Path) -> None:
    # Colour forced on, renames off, a relative diff: the listing is the same.
    git(repo, "config", "color.ui", "always")
    git(repo, "config", "diff.renames", "false")
    git(repo, "config", "diff.relative", "true")
    (repo / "docs/en/guide").mkdir()
    git(repo, "mv", "docs/en/setup.md", "docs/en/guide/setup.md")
    commit(repo)
    diff = read_kb_diff(BaseTree("main", cwd=repo / "docs" / "en"), repo / "docs", KbFiles())
    assert diff is not None
    assert diff.renames == {"en/setup": "en/guide/setup"}


def test_a_kb_at_the_repository_root_is_diffed(tmp_path: Path) -> None:
    pull_request_repo(tmp_path, {"en/a.md": page("A"), "en/b.md": page("B")})
    (tmp_path / "en" / "a.md").write_text(page("A", "New text."), encoding="utf-8")
    commit(tmp_path)
    diff = read_kb_diff(BaseTree("main", cwd=tmp_path), tmp_path, KbFiles())
    assert diff is not None
    assert [(c.kind, c.card_id, c.path) for c in diff.changes] == [("edited", "en/a", "en/a.md")]


def test_a_kb_outside_the_repository_is_not_diffed(
    repo: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (outside / "a.md").write_text(page("A"), encoding="utf-8")
    assert read_kb_diff(BaseTree("main", cwd=repo), outside, KbFiles()) is None
