"""Hugo and Docusaurus pages as they are written: front matter formats, translations,
drafts, link-only pages, shortcodes, globs (adapters.dataset, adapters.front_matter,
adapters.site_layout), one test per rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.dataset import KbFiles, read_kb
from recall_gate.adapters.front_matter import MAX_FRONT_MATTER_BYTES
from recall_gate.errors import InputError


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def hugo_site(root: Path, config: str = 'defaultContentLanguage = "en"\n') -> Path:
    """A Hugo site with its config, and its content folder (the KB) returned."""
    write(root / "hugo.toml", config + "[languages.en]\n[languages.es]\n[languages.zh]\n")
    (root / "content").mkdir(parents=True, exist_ok=True)
    return root / "content"


def test_toml_front_matter_is_read(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    write(kb / "a.md", '+++\ntitle = "Install"\ntags = ["setup"]\nweight = 3\n+++\n\nText.\n')
    card = read_kb(kb).cards[0].card
    assert (card.title, card.tags, card.metadata, card.body) == (
        "Install",
        ("setup",),
        {"weight": 3},
        "Text.",
    )


def test_json_front_matter_is_read(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    write(kb / "a.md", '{\n  "title": "Install",\n  "weight": 3\n}\n\nText.\n')
    card = read_kb(kb).cards[0].card
    assert (card.title, card.metadata, card.body) == ("Install", {"weight": 3}, "Text.")


def test_invalid_toml_front_matter_names_the_file(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    page = write(kb / "a.md", "+++\ntitle = \n+++\nText.\n")
    with pytest.raises(InputError, match=f"^{page}: invalid TOML front matter"):
        read_kb(kb)


def test_front_matter_over_the_size_cap_is_refused_naming_the_file(tmp_path: Path) -> None:
    page = write(tmp_path / "a.md", "---\n" + "k: v\n" * (MAX_FRONT_MATTER_BYTES // 5 + 1))
    with pytest.raises(InputError) as caught:
        read_kb(tmp_path, KbFiles(default_language="en"))
    assert str(caught.value).startswith(f"{page}: the front matter is 256 KB, over the 256 KB")


def test_a_hugo_translation_by_file_name_is_the_same_id_in_its_language(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    write(kb / "docs" / "page.md", "# Page\n\nText.\n")
    write(kb / "docs" / "page.es.md", "# Página\n\nTexto.\n")
    cards = {(e.card.id, e.card.language): (e.language_source, e.urls) for e in read_kb(kb).cards}
    assert cards == {
        ("docs/page", "en"): ("hugo.toml default language", ("/docs/page/",)),
        ("docs/page", "es"): ("file name .es", ("/es/docs/page/",)),
    }


def test_a_draft_is_no_card(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    write(kb / "a.md", "# A\n\nText.\n")
    write(kb / "draft.md", "---\ndraft: true\n---\n# Draft\n\nText.\n")
    read = read_kb(kb)
    assert [e.card.id for e in read.cards] == ["a"]
    assert [(s.path, s.reason) for s in read.skipped] == [("draft.md", "draft")]


@pytest.mark.parametrize(
    "front_matter",
    [
        "redirect: https://elsewhere.example/\n",
        "build:\n  render: link\n",
        "_build:\n  render: never\n",
        "cascade:\n  type: docs\n",  # an _index.md that only sets values for its section
    ],
)
def test_a_link_only_or_front_matter_only_page_is_skipped_not_an_error(
    tmp_path: Path, front_matter: str
) -> None:
    kb = hugo_site(tmp_path)
    write(kb / "a.md", "# A\n\nText.\n")
    write(kb / "b" / "_index.md", f"---\n{front_matter}---\n")
    read = read_kb(kb)
    assert [e.card.id for e in read.cards] == ["a"]
    assert len(read.skipped) == 1
    assert read.skipped[0].path == "b/_index.md"


def test_shortcodes_are_stripped_keeping_the_text_they_wrap(tmp_path: Path) -> None:
    kb = hugo_site(tmp_path)
    write(
        kb / "a.md",
        '# A\n\n{{% alert title="Note" %}}Keep this.{{% /alert %}}\n'
        '{{< figure src="x.png" >}}\n{{< tab >}}Tab text{{< /tab >}}\n',
    )
    assert read_kb(kb).cards[0].card.body == "# A\n\nKeep this.\n\nTab text"


def test_brace_globs_match_each_alternative(tmp_path: Path) -> None:
    for name in ("a", "b", "c"):
        write(tmp_path / name / "x.md", f"# {name}\n\nText.\n")
    read = read_kb(tmp_path, KbFiles(default_language="en", exclude=("{a,b}/**",)))
    assert [e.card.id for e in read.cards] == ["c/x"]


def test_a_glob_that_matches_nothing_is_named(tmp_path: Path) -> None:
    write(tmp_path / "a" / "x.md", "# A\n\nText.\n")
    files = KbFiles(default_language="en", include=("a/**", "docs/**"), exclude=("blgo/**",))
    assert read_kb(tmp_path, files).unmatched == ("kb_include: docs/**", "kb_exclude: blgo/**")


def test_docusaurus_translations_come_from_the_i18n_layout_without_a_map(tmp_path: Path) -> None:
    write(
        tmp_path / "docusaurus.config.js",
        "export default {\n  i18n: {defaultLocale: 'en', locales: ['en', 'fr']},\n};\n",
    )
    write(tmp_path / "docs" / "intro.md", "---\nid: intro\n---\n# Intro\n\nText.\n")
    write(tmp_path / "docs" / "_partial.mdx", "Shared text.\n")
    translated = tmp_path / "i18n" / "fr" / "docusaurus-plugin-content-docs" / "current"
    write(translated / "intro.md", "---\nid: intro\n---\n# Intro\n\nTexte.\n")
    read = read_kb(tmp_path / "docs")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards] == [
        ("intro", "en", ("/docs/intro/",)),
        ("intro", "fr", ("/fr/docs/intro/",)),
    ]
    assert [(s.path, s.reason) for s in read.skipped] == [("_partial.mdx", "partial")]


# The docs options and versions.json → where docs/ is published (Docusaurus'
# plugin-content-docs, versions/version.ts: the last version at the route, the
# current one at `next`, `versions.current.path` over both).
DOCUSAURUS_VERSIONS = {
    "unversioned": ("", None, ("/docs/intro/",)),
    "versions.json": ("", '["2.0", "1.0"]', ("/docs/next/intro/", "/docs/intro/")),
    "an empty versions.json": ("", "[]", ("/docs/intro/",)),
    "lastVersion current": ("lastVersion: 'current',", '["2.0"]', ("/docs/intro/",)),
    "lastVersion a release": (
        "lastVersion: '1.0',",
        '["2.0", "1.0"]',
        ("/docs/next/intro/", "/docs/intro/"),
    ),
    "only the current version built": (
        "onlyIncludeVersions: ['current'],",
        '["2.0"]',
        ("/docs/intro/",),
    ),
    "current's own path": (
        "versions: {'2.0': {label: 'Two'}, current: {label: 'Dev', path: 'dev'}},",
        '["2.0"]',
        ("/docs/dev/intro/", "/docs/intro/"),
    ),
    "a broken versions.json": ("", "[2.0,", ("/docs/intro/",)),
}


@pytest.mark.parametrize("case", DOCUSAURUS_VERSIONS, ids=list(DOCUSAURUS_VERSIONS))
def test_docusaurus_current_docs_are_published_where_the_versions_put_them(
    tmp_path: Path, case: str
) -> None:
    options, versions, expected = DOCUSAURUS_VERSIONS[case]
    write(
        tmp_path / "docusaurus.config.js",
        "export default {\n  presets: [['classic', {docs: {sidebarPath: './s.js', "
        f"{options}}}}}]],\n}};\n",
    )
    if versions is not None:
        write(tmp_path / "versions.json", versions)
    write(tmp_path / "docs" / "intro.md", "# Intro\n\nText.\n")
    assert read_kb(tmp_path / "docs").cards[0].urls == expected


def test_a_second_docs_plugin_instance_is_read_with_its_own_route_versions_and_translations(
    tmp_path: Path,
) -> None:
    # React Native's site keeps community/ as a docs plugin instance of its own.
    write(
        tmp_path / "docusaurus.config.js",
        "export default {\n  i18n: {defaultLocale: 'en', locales: ['en', 'ja']},\n"
        "  presets: [['classic', {docs: {path: 'docs'}}]],\n"
        "  plugins: [['content-docs', {id: 'community', path: 'community',"
        " routeBasePath: '/community'}]],\n};\n",
    )
    write(tmp_path / "versions.json", '["1.0"]')  # the default instance's, not community's
    write(tmp_path / "community_versions.json", '["2.0"]')
    write(tmp_path / "community" / "support.md", "# Support\n\nText.\n")
    translated = tmp_path / "i18n" / "ja" / "docusaurus-plugin-content-docs-community" / "current"
    write(translated / "support.md", "# サポート\n\n本文。\n")
    # The default instance's translation folder is not community's.
    write(
        tmp_path / "i18n" / "ja" / "docusaurus-plugin-content-docs" / "current" / "x.md",
        "# X\n\nText.\n",
    )
    read = read_kb(tmp_path / "community")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards] == [
        ("support", "en", ("/community/next/support/", "/community/support/")),
        ("support", "ja", ("/ja/community/next/support/", "/ja/community/support/")),
    ]


def test_a_page_the_docusaurus_config_excludes_is_no_card(tmp_path: Path) -> None:
    # SimpleGo's website config (MIT) leaves folders out of the published docs.
    write(
        tmp_path / "docusaurus.config.js",
        "export default {\n  presets: [['classic', {docs: {path: 'docs', routeBasePath: '/',"
        " exclude: ['protocol-analysis/**', 'legal/**']}}]],\n};\n",
    )
    write(tmp_path / "docs" / "intro.md", "# Intro\n\nText.\n")
    write(tmp_path / "docs" / "protocol-analysis" / "notes.md", "# Notes\n\nText.\n")
    write(tmp_path / "docs" / "legal" / "a" / "terms.md", "# Terms\n\nText.\n")
    read = read_kb(tmp_path / "docs")
    assert [e.card.id for e in read.cards] == ["intro"]
    assert sorted((s.path, s.reason) for s in read.skipped) == [
        ("legal/a/terms.md", "site exclude"),
        ("protocol-analysis/notes.md", "site exclude"),
    ]


def test_a_docs_folder_read_by_a_config_beside_it_takes_that_sites_rules(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "website" / "docusaurus.config.js",
        "export default {\n  baseUrl: '/project/',\n"
        "  presets: [['classic', {docs: {path: '../docs', routeBasePath: '/'}}]],\n};\n",
    )
    write(tmp_path / "docs" / "guide" / "intro.md", "# Intro\n\nText.\n")
    # Another folder's config that reads some other folder is not the KB's site.
    write(tmp_path / "aaa" / "docusaurus.config.js", "export default {};\n")
    read = read_kb(tmp_path / "docs")
    assert read.site is not None
    assert read.site.config.parent.name == "website"
    assert read.cards[0].urls == ("/guide/intro/", "/project/guide/intro/")


def test_a_kb_merely_near_a_site_config_is_not_read_as_that_site(tmp_path: Path) -> None:
    write(tmp_path / "mkdocs.yml", "site_name: x\n")  # docs_dir: docs, not kb/
    write(tmp_path / "kb" / "a.md", "# A\n\nText.\n")
    read = read_kb(tmp_path / "kb", KbFiles(default_language="en"))
    assert read.site is None
    assert read.cards[0].urls == ()


MKDOCS_THEMES = {
    # FastAPI's docs/en/mkdocs.yml, cut down (MIT): a Material theme block with a
    # python tag elsewhere in the file, which a YAML loader would refuse.
    "material, nested keys before": (
        "site_url: https://fastapi.tiangolo.com/\ntheme:\n  name: material\n"
        "  palette:\n  - media: '(prefers-color-scheme: light)'\n    scheme: default\n"
        "  features:\n  - search.share\n  language: en\nmarkdown_extensions:\n"
        "  pymdownx.emoji:\n    emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
        "en",
    ),
    "quoted, commented": (
        "theme:  # the look\n  name: mkdocs\n  language: 'pt-br'  # ui\n",
        "pt-BR",
    ),
    "no language": ("theme:\n  name: material\n", None),
    "a theme by name only": ("theme: readthedocs\nlanguage: de\n", None),
    "a nested language is no theme language": (
        "theme:\n  name: material\n  icon:\n    language: fr\n",
        None,
    ),
    "not a tag": ("theme:\n  language: english!\n", None),
    # mkdocs-static-i18n: an unsuffixed page is its default locale's (not the theme's).
    "the i18n plugin's default locale": (
        "theme:\n  name: material\n  language: en\nplugins:\n  - search\n  - i18n:\n"
        "      docs_structure: suffix\n      languages:\n        - locale: fr\n"
        "        - locale: pt_BR\n          default: true\n",
        "pt-BR",
    ),
}


@pytest.mark.parametrize(("config", "language"), MKDOCS_THEMES.values(), ids=MKDOCS_THEMES.keys())
def test_a_mkdocs_sites_theme_language_is_the_language_no_other_rule_names(
    tmp_path: Path, config: str, language: str | None
) -> None:
    write(tmp_path / "mkdocs.yml", config)
    write(tmp_path / "docs" / "a.md", "# A\n\nText.\n")
    write(tmp_path / "docs" / "b.md", "---\nlanguage: es\n---\n# B\n\nTexto.\n")
    if language is None:
        with pytest.raises(InputError, match="no language for this card"):
            read_kb(tmp_path / "docs")
        return
    read = read_kb(tmp_path / "docs")
    assert [(e.card.id, e.card.language) for e in read.cards] == [("a", language), ("b", "es")]
    # The config's own default_language comes first.
    read = read_kb(tmp_path / "docs", KbFiles(default_language="ja"))
    assert [e.card.language for e in read.cards] == ["ja", "es"]


@pytest.mark.parametrize(
    "page",
    [
        "---\nweight: {n}\n---\nText.\n",
        "+++\nweight = {n}\n+++\nText.\n",
        '{{"weight": {n}}}\nText.\n',
    ],
)
def test_a_huge_integer_in_front_matter_names_the_file(tmp_path: Path, page: str) -> None:
    path = write(tmp_path / "a.md", page.format(n="9" * 5000))
    with pytest.raises(InputError) as caught:
        read_kb(tmp_path, KbFiles(default_language="en"))
    assert str(caught.value).startswith(f"{path}: a number has more than 4,300 digits\n")


def test_the_i18n_plugins_folder_structure_puts_the_default_locale_at_the_root(
    tmp_path: Path,
) -> None:
    write(
        tmp_path / "mkdocs.yml",
        "site_url: https://docs.example.org/p/\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "plugins:\n  i18n:\n    docs_structure: folder\n    languages:\n"
        "      - locale: en\n        default: true\n      - locale: pt_BR\n",
    )
    write(tmp_path / "docs" / "en" / "setup.md", "# Setup\n\nText.\n")
    write(tmp_path / "docs" / "pt_BR" / "setup.md", "# Configuração\n\nTexto.\n")
    read = read_kb(tmp_path / "docs")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards] == [
        ("en/setup", "en", ("/setup/", "/p/setup/")),
        ("pt_BR/setup", "pt-BR", ("/pt_BR/setup/", "/p/pt_BR/setup/")),
    ]


def test_an_i18n_fallback_beside_the_default_locales_own_page_is_no_card(tmp_path: Path) -> None:
    # mkdocs-static-i18n builds page.en.md for the default locale; page.md is shown
    # only where a language has no translation: one card, not a duplicate id.
    write(
        tmp_path / "mkdocs.yml",
        "plugins:\n  - i18n:\n      languages:\n        - locale: en\n          default: true\n"
        "        - locale: fr\n",
    )
    write(tmp_path / "docs" / "page.md", "# Page\n\nFallback text.\n")
    write(tmp_path / "docs" / "page.en.md", "# Page\n\nEnglish text.\n")
    write(tmp_path / "docs" / "page.fr.md", "# Page\n\nTexte.\n")
    write(tmp_path / "docs" / "other.md", "# Other\n\nOnly here.\n")
    read = read_kb(tmp_path / "docs")
    assert [(e.card.id, e.card.language, e.path) for e in read.cards] == [
        ("other", "en", "other.md"),
        ("page", "en", "page.en.md"),
        ("page", "fr", "page.fr.md"),
    ]
    assert [(s.path, s.reason) for s in read.skipped] == [("page.md", "i18n fallback")]


def test_hugo_languages_in_a_config_directory_file_of_their_own(tmp_path: Path) -> None:
    write(tmp_path / "config" / "_default" / "hugo.toml", 'defaultContentLanguage = "de"\n')
    write(
        tmp_path / "config" / "_default" / "languages.yaml",
        "de:\n  contentDir: content/de\nen:\n  contentDir: content/en\n",
    )
    write(tmp_path / "content" / "de" / "start.md", "# Start\n\nText.\n")
    write(tmp_path / "content" / "en" / "start.md", "# Start\n\nText.\n")
    read = read_kb(tmp_path / "content")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards] == [
        ("de/start", "de", ("/start/",)),
        ("en/start", "en", ("/en/start/",)),
    ]


def test_hugo_a_languages_content_mounted_by_a_module_mount_is_its_content_folder(
    tmp_path: Path,
) -> None:
    # No contentDir: the languages' content comes in by [[module.mounts]] with `lang`.
    write(
        tmp_path / "hugo.toml",
        'defaultContentLanguage = "en"\n[languages.en]\n[languages.fr]\n'
        '[[module.mounts]]\nsource = "content/english"\ntarget = "content"\nlang = "en"\n'
        '[[module.mounts]]\nsource = "content/french"\ntarget = "content"\nlang = "fr"\n',
    )
    write(tmp_path / "content" / "english" / "docs" / "a.md", "# A\n\nText.\n")
    write(tmp_path / "content" / "french" / "docs" / "a.md", "# A\n\nTexte.\n")
    read = read_kb(tmp_path / "content")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards] == [
        ("english/docs/a", "en", ("/docs/a/",)),
        ("french/docs/a", "fr", ("/fr/docs/a/",)),
    ]


def test_hugo_the_root_config_file_and_the_config_directory_are_read_together(
    tmp_path: Path,
) -> None:
    write(tmp_path / "hugo.toml", 'baseURL = "https://example.org/root/"\n')
    write(tmp_path / "config" / "_default" / "languages.toml", "[en]\n[fr]\n")
    write(tmp_path / "content" / "a.fr.md", "# A\n\nTexte.\n")
    read = read_kb(tmp_path / "content")
    assert read.cards[0].card.language == "fr"
    assert read.cards[0].urls == ("/fr/a/", "/root/fr/a/")


def test_mkdocs_exclude_docs_and_draft_docs_pages_are_no_card(tmp_path: Path) -> None:
    write(
        tmp_path / "mkdocs.yml",
        "site_name: x\nexclude_docs: |\n  # working notes\n  notes/\n  *_score.md\n"
        "  !keep_score.md\ndraft_docs: |\n  _unpublished/\n",
    )
    for page in (
        "index.md",
        "notes/idea.md",
        "guide/notes/deep.md",
        "ch1/intro_score.md",
        "keep_score.md",
        "templates/base.md",
        "_unpublished/soon.md",
    ):
        write(tmp_path / "docs" / page, "# Page\n\nText.\n")
    read = read_kb(tmp_path / "docs", KbFiles(default_language="en"))
    assert sorted(e.card.id for e in read.cards) == ["index", "keep_score"]
    assert sorted((s.path, s.reason) for s in read.skipped) == [
        ("_unpublished/soon.md", "site draft"),
        ("ch1/intro_score.md", "site exclude"),
        ("guide/notes/deep.md", "site exclude"),
        ("notes/idea.md", "site exclude"),
        ("templates/base.md", "site exclude"),  # MkDocs' own default
    ]


def test_a_material_blog_post_is_found_where_the_blog_plugin_publishes_it(
    tmp_path: Path,
) -> None:
    # As squidfunk/mkdocs-material's own site (MIT): `- blog` among the plugins,
    # a post's slug from its heading, its date from the front matter.
    write(
        tmp_path / "mkdocs.yml",
        "site_name: x\nsite_url: https://squidfunk.github.io/mkdocs-material/\n"
        "plugins:\n  - search\n  - blog\n",
    )
    write(tmp_path / "docs" / "blog" / "index.md", "# Blog\n\nAll posts.\n")
    write(
        tmp_path / "docs" / "blog" / "posts" / "git-sparse-checkout.md",
        "---\ndate: 2023-09-22\ncategories:\n  - Build\n---\n\n"
        "# Using `git sparse-checkout` for faster documentation builds\n\nText.\n",
    )
    read = read_kb(tmp_path / "docs", KbFiles(default_language="en"))
    urls = {e.card.id: e.urls for e in read.cards}
    assert urls["blog/index"][0] == "/blog/"
    assert urls["blog/posts/git-sparse-checkout"] == (
        "/blog/2023/09/22/using-git-sparse-checkout-for-faster-documentation-builds/",
        "/mkdocs-material/blog/2023/09/22/using-git-sparse-checkout-for-faster-documentation-builds/",
    )


def test_a_disabled_hugo_languages_pages_are_no_card(tmp_path: Path) -> None:
    # AliceNovel/Docs (MIT) lists `disableLanguages = ["de", "nl"]`; Hugo builds
    # neither, whatever their content folders or translated files hold.
    write(
        tmp_path / "hugo.toml",
        'defaultContentLanguage = "en"\ndisableLanguages = ["fr"]\n'
        '[languages.en]\ncontentDir = "content/en"\n[languages.de]\n'
        'contentDir = "content/de"\ndisabled = true\n[languages.fr]\n',
    )
    write(tmp_path / "content" / "en" / "a.md", "# A\n\nText.\n")
    write(tmp_path / "content" / "en" / "a.fr.md", "# A\n\nTexte.\n")
    write(tmp_path / "content" / "de" / "a.md", "# A\n\nText auf Deutsch.\n")
    read = read_kb(tmp_path / "content")
    assert [e.card.id for e in read.cards] == ["en/a"]
    assert sorted((s.path, s.reason) for s in read.skipped) == [
        ("de/a.md", "disabled language"),
        ("en/a.fr.md", "disabled language"),
    ]


def test_hugo_content_mounted_for_a_sites_matrix_language_and_nothing_else(
    tmp_path: Path,
) -> None:
    # gohugoio/hugoDocs (Apache-2.0): content/en mounted as content for the sites
    # matrix language en; content/LICENSE.md beside it is mounted nowhere.
    write(
        tmp_path / "hugo.toml",
        'baseURL = "https://gohugo.io/"\ndefaultContentLanguage = "en"\n'
        "[languages]\n  [languages.en]\n    weight = 1\n[module]\n  [[module.mounts]]\n"
        '    source = "assets"\n    target = "assets"\n  [[module.mounts]]\n'
        "    source = 'content/en'\n    target = 'content'\n"
        "    [module.mounts.sites.matrix]\n      languages = ['en']\n",
    )
    write(tmp_path / "content" / "LICENSE.md", "# Licence\n\nApache.\n")
    write(
        tmp_path / "content" / "en" / "content-management" / "shortcodes.md",
        "---\ntitle: Shortcodes\naliases: [/extras/shortcodes/]\n---\n\nText.\n",
    )
    read = read_kb(tmp_path / "content")
    assert [(e.card.id, e.urls) for e in read.cards] == [
        (
            "en/content-management/shortcodes",
            ("/content-management/shortcodes/", "/extras/shortcodes/"),
        ),
    ]
    assert [(s.path, s.reason) for s in read.skipped] == [("LICENSE.md", "not mounted")]


def test_hugo_pages_below_a_section_whose_cascade_renders_nothing_are_no_card(
    tmp_path: Path,
) -> None:
    # hugoDocs' content/en/_common (snippets the include shortcode pulls in) and
    # its glossary terms: `cascade: {build: {render: never}}` on the section page.
    kb = hugo_site(tmp_path)
    write(kb / "_common" / "_index.md", "---\ncascade:\n  build:\n    render: never\n---\n")
    write(kb / "_common" / "snippet.md", "---\n---\nShared text.\n")
    write(
        kb / "glossary" / "_index.md",
        "---\ntitle: Glossary\nbuild:\n  render: always\ncascade:\n  build:\n"
        "    render: never\n    list: local\n---\n\nTerms.\n",
    )
    write(kb / "glossary" / "bundle.md", "---\ntitle: bundle\n---\n\nA folder.\n")
    # A cascade aimed at some pages only (target) is not followed.
    write(
        kb / "news" / "_index.md",
        "---\ncascade:\n  - target:\n      kind: page\n    build:\n"
        "      render: never\n---\n\nNews.\n",
    )
    write(kb / "news" / "post.md", "# Post\n\nText.\n")
    read = read_kb(kb, KbFiles(default_language="en"))
    assert sorted(e.card.id for e in read.cards) == ["glossary/_index", "news/_index", "news/post"]
    assert sorted((s.path, s.reason) for s in read.skipped) == [
        ("_common/_index.md", "no text"),
        ("_common/snippet.md", "link only"),
        ("glossary/bundle.md", "link only"),
    ]


def test_a_docusaurus_partial_file_or_folder_is_no_card_in_any_language(tmp_path: Path) -> None:
    write(
        tmp_path / "docusaurus.config.js",
        "export default {\n  i18n: {defaultLocale: 'en', locales: ['en', 'fr']},\n"
        "  presets: [['classic', {docs: {exclude: ['drafts/**']}}]],\n};\n",
    )
    write(tmp_path / "docs" / "intro.md", "# Intro\n\nText.\n")
    write(tmp_path / "docs" / "guide" / "_shared" / "note.md", "# Note\n\nText.\n")
    translated = tmp_path / "i18n" / "fr" / "docusaurus-plugin-content-docs" / "current"
    write(translated / "_snippet.md", "Texte.\n")
    read = read_kb(tmp_path / "docs")
    assert [e.card.id for e in read.cards] == ["intro"]
    assert sorted((s.path, s.reason) for s in read.skipped) == [
        ("guide/_shared/note.md", "partial"),
        ("i18n/fr/_snippet.md", "partial"),
    ]
