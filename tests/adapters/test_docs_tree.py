"""A docs tree read as it is (MkDocs, Docusaurus, Hugo, Jekyll, MyST): front-matter
keys beyond the card's own are kept as metadata, titles are plain text, `.mdx`
is read, include/exclude globs choose the cards, and a card's language comes
from its front matter, the config's folder map, a language folder directly
under the KB root, or the default, never from a nested folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.dataset import KbCard, KbFiles, clean_title, kb_files, load_kb
from recall_gate.errors import InputError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def by_id(root: Path, files: KbFiles | None = None) -> dict[str, KbCard]:
    return {entry.card.id: entry for entry in load_kb(root, files)}


def test_mkdocs_front_matter_keys_are_kept_as_metadata(tmp_path: Path) -> None:
    write(
        tmp_path / "en" / "index.md",
        "---\ndescription: Overview.\nhide:\n  - navigation\n  - toc\n"
        "include_yaml:\n  - ../snippets/v.yml\nsearch:\n  boost: 2\n---\n\n# Welcome\n\nText.\n",
    )
    entry = load_kb(tmp_path)[0]
    assert entry.card.metadata == {
        "description": "Overview.",
        "hide": ["navigation", "toc"],
        "include_yaml": ["../snippets/v.yml"],
        "search": {"boost": 2},
    }
    assert (entry.card.id, entry.card.title, entry.card.language) == ("en/index", "Welcome", "en")


def test_docusaurus_object_tags_become_their_labels_and_other_keys_metadata(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "en" / "projects.md",
        "---\nsidebar_position: 2\nslug: /projects\ntags:\n  - label: Projects\n"
        "    permalink: /tags/projects\n  - basics\n---\n\n# Projects\n\nText.\n",
    )
    card = load_kb(tmp_path)[0].card
    assert card.tags == ("Projects", "basics")
    assert card.metadata == {"sidebar_position": 2, "slug": "/projects"}


def test_a_date_in_front_matter_is_kept_as_iso_text(tmp_path: Path) -> None:
    write(tmp_path / "en" / "post.md", "---\ndate: 2026-03-02\n---\n\n# Post\n\nText.\n")
    assert load_kb(tmp_path)[0].card.metadata == {"date": "2026-03-02"}


@pytest.mark.parametrize(
    ("heading", "title"),
    [
        ("Getting started { #getting-started }", "Getting started"),
        ("Install the `desktop` app {#install .lead}", "Install the desktop app"),
        ("Use **bold** and *emphasis* and _this_", "Use bold and emphasis and this"),
        ("See [the guide](guide.md) and ![logo](x.png)", "See the guide and logo"),
        ("Kramdown title {: #anchor}", "Kramdown title"),
        ("snake_case_name stays", "snake_case_name stays"),
        ("<span>HTML</span> heading", "HTML heading"),
        ("Braces {in the middle} stay", "Braces {in the middle} stay"),
    ],
)
def test_a_title_loses_its_attribute_list_and_markup(heading: str, title: str) -> None:
    assert clean_title(heading) == title


def test_a_front_matter_title_wins_over_the_heading(tmp_path: Path) -> None:
    write(tmp_path / "en" / "a.md", "---\ntitle: Plans and billing\n---\n\n# Billing {#b}\n\nx\n")
    assert load_kb(tmp_path)[0].card.title == "Plans and billing"


def test_a_heading_inside_a_code_fence_is_not_the_title(tmp_path: Path) -> None:
    write(tmp_path / "en" / "a.md", "```sh\n# a comment\n```\n\n# Real title\n\nx\n")
    assert load_kb(tmp_path)[0].card.title == "Real title"


def test_mdx_is_read_without_its_imports(tmp_path: Path) -> None:
    write(
        tmp_path / "en" / "due.mdx",
        "---\nsidebar_label: Due\n---\nimport Tabs from '@theme/Tabs';\n\n# Due dates\n\n"
        "<Tabs>Pick a date.</Tabs>\n",
    )
    card = load_kb(tmp_path)[0].card
    assert (card.id, card.title) == ("en/due", "Due dates")
    assert "import" not in card.body
    assert "Pick a date." in card.body


def test_a_nested_topic_folder_is_never_a_language(tmp_path: Path) -> None:
    # en/it/ is IT administration in English; en/ml/ machine learning.
    write(tmp_path / "en" / "it" / "sso.md", "# SSO\n\nx\n")
    write(tmp_path / "en" / "ml" / "sort.md", "# Sort\n\nx\n")
    write(tmp_path / "es" / "it" / "sso.md", "# SSO\n\nx\n")
    cards = by_id(tmp_path)
    assert {i: (e.card.language, e.language_source) for i, e in cards.items()} == {
        "en/it/sso": ("en", "folder en/"),
        "en/ml/sort": ("en", "folder en/"),
        "es/it/sso": ("es", "folder es/"),
    }


def test_a_nested_folder_without_a_language_folder_above_takes_the_default(
    tmp_path: Path,
) -> None:
    write(tmp_path / "guides" / "it" / "sso.md", "# SSO\n\nx\n")
    entry = load_kb(tmp_path, KbFiles(default_language="en"))[0]
    assert (entry.card.language, entry.language_source) == ("en", "default_language")


def test_the_config_folder_map_comes_before_the_folder_and_after_front_matter(
    tmp_path: Path,
) -> None:
    write(tmp_path / "pt" / "a.md", "# A\n\nx\n")
    write(tmp_path / "pt" / "b.md", "---\nlanguage: pt-PT\n---\n\n# B\n\nx\n")
    write(tmp_path / "es" / "c.md", "# C\n\nx\n")
    cards = by_id(tmp_path, KbFiles(languages={"pt": "pt-BR", "es/": "es-419"}))
    assert {i: (e.card.language, e.language_source) for i, e in cards.items()} == {
        "pt/a": ("pt-BR", "languages: pt/"),
        "pt/b": ("pt-PT", "front matter"),
        "es/c": ("es-419", "languages: es/"),
    }


def test_a_folder_map_of_the_kb_root_overrides_the_folder_rule(tmp_path: Path) -> None:
    # kb: docs/en — its it/ folder is a topic; "." maps the whole KB.
    write(tmp_path / "it" / "sso.md", "# SSO\n\nx\n")
    entry = load_kb(tmp_path, KbFiles(languages={".": "en"}))[0]
    assert (entry.card.language, entry.language_source) == ("en", "languages: .")


def test_include_and_exclude_globs_choose_the_cards(tmp_path: Path) -> None:
    for name in ("en/a.md", "en/release-notes.md", "blog/post.md", "en/it/b.mdx", "es/c.md"):
        write(tmp_path / name, "# T\n\nx\n")
    write(tmp_path / ".hidden" / "d.md", "# T\n\nx\n")

    def found(**globs: list[str]) -> list[str]:
        return [p.relative_to(tmp_path).as_posix() for p in kb_files(tmp_path, **globs)]

    assert found() == ["blog/post.md", "en/a.md", "en/it/b.mdx", "en/release-notes.md", "es/c.md"]
    assert found(exclude=["blog", "**/release-notes.md"]) == ["en/a.md", "en/it/b.mdx", "es/c.md"]
    assert found(include=["en/**"], exclude=["release-notes.md"]) == ["en/a.md", "en/it/b.mdx"]
    assert found(include=["*.mdx"]) == ["en/it/b.mdx"]


def test_every_unusable_page_is_reported_at_once_each_with_its_own_fix(tmp_path: Path) -> None:
    write(tmp_path / "en" / "ok.md", "---\nhide: [toc]\n---\n\n# OK\n\nx\n")
    write(tmp_path / "en" / "empty.md", "---\ntitle: Empty\n---\n")  # skipped, no error
    write(tmp_path / "en" / "lang.md", "---\nlanguage: english\n---\n\n# L\n\nx\n")
    write(tmp_path / "en" / "list.md", "---\n- a\n---\n\n# L\n\nx\n")
    with pytest.raises(InputError) as caught:
        load_kb(tmp_path)
    message = str(caught.value)
    assert message.startswith("2 of 4 KB card files are unusable:\n")
    assert "empty.md" not in message
    assert (
        "lang.md: front-matter `language: english` is not a BCP-47 tag\n"
        "    fix: write a tag such as en" in message
    )
    assert "list.md: front matter is a list, not a mapping of keys" in message


# --- strict front matter -------------------------------------------------------------

STRICT = KbFiles(strict_front_matter="`kb_strict_front_matter: true` in recall-gate.yaml")


def test_strict_front_matter_refuses_an_unknown_key_naming_the_file_and_the_key(
    tmp_path: Path,
) -> None:
    page = write(tmp_path / "en" / "index.md", "---\nhide: [toc]\n---\n\n# Welcome\n\nText.\n")
    with pytest.raises(InputError) as caught:
        load_kb(tmp_path, STRICT)
    assert caught.value.message == (
        f"{page}: front-matter key `hide` is not a card field (strict front matter: only id, "
        "language, title, tags are read)"
    )
    assert caught.value.fix == (
        "remove it from the page's front matter, or turn off `kb_strict_front_matter: true` in "
        "recall-gate.yaml: other keys are then kept as the card's metadata"
    )


def test_strict_front_matter_names_every_key_of_a_page_and_an_unreadable_title(
    tmp_path: Path,
) -> None:
    page = write(
        tmp_path / "en" / "a.md",
        "---\ndescription: x\nslug: /a\ntitle: {en: A}\n---\n\n# A\n\nText.\n",
    )
    with pytest.raises(InputError) as caught:
        load_kb(tmp_path, STRICT)
    assert caught.value.message == (
        f"{page}: front-matter keys `description`, `slug` are not card fields; front-matter "
        "`title` is not text (strict front matter: only id, language, title, tags are read)"
    )
    assert caught.value.fix.startswith("remove them from the page's front matter")


def test_strict_front_matter_lists_every_page_in_one_run(tmp_path: Path) -> None:
    write(tmp_path / "en" / "a.md", "---\nhide: [toc]\n---\n\n# A\n\nText.\n")
    write(tmp_path / "en" / "b.md", "---\nsidebar_position: 2\n---\n\n# B\n\nText.\n")
    write(tmp_path / "en" / "c.md", "---\nid: c\ntags: [x]\n---\n\n# C\n\nText.\n")
    with pytest.raises(InputError) as caught:
        load_kb(tmp_path, STRICT)
    assert caught.value.message.startswith("2 of 3 KB card files are unusable:\n")
    assert "a.md: front-matter key `hide` is not a card field" in caught.value.message
    assert "b.md: front-matter key `sidebar_position` is not a card field" in caught.value.message


def test_without_strict_front_matter_the_same_keys_are_metadata(tmp_path: Path) -> None:
    write(tmp_path / "en" / "a.md", "---\nhide: [toc]\n---\n\n# A\n\nText.\n")
    assert load_kb(tmp_path)[0].card.metadata == {"hide": ["toc"]}
