"""Two real docs sites as they are (tests/data/sites: a Hugo site in three languages,
a Docusaurus site with its Chinese translation; sources and licences in the README
there), through the command line, with a site-search retriever that returns the
URLs the sites publish. The retriever knows each case's page by its query: what
is tested is the mapping, not the search."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli
from git_repo import commit_all, pull_request_repo
from recall_gate.adapters.dataset import card_ids_of, read_kb
from recall_gate.core.integrity import card_of_path

SITES = Path(__file__).resolve().parent.parent / "data" / "sites"

# The page each case's query finds, as the site publishes it (Hugo: English at the
# root, other languages under /<lang>/, a section at its folder URL, lower case).
HUGO_URLS = {
    "Is this project for me?": "https://example.docsy.dev/docs/overview/",
    "How do I launch a ponycopter?": "/docs/tasks/ponycopters/launching-ponycopters",
    "Where is the documentation?": "https://example.docsy.dev/docs/",
    "Hvor er dokumentasjonen?": "https://example.docsy.dev/no/docs/",
    "Stordata": "/no/docs/big-data/",
    "مرور کلی": "https://example.docsy.dev/fa/docs/overview/?utm=x#top",
}
# Docusaurus: number prefixes dropped (upgrade-guide/01-upgrade-guide.md is no folder
# index: its name as written is not its folder's; Docusaurus 3.10's own permalink).
DOCUSAURUS_URLS = {
    "What is EventMesh?": "/docs/introduction",
    "Does EventMesh speak HTTPS?": "/docs/design-document/event-handling-and-integration/https",
    "How do I upgrade?": "https://eventmesh.apache.org/docs/upgrade-guide/upgrade-guide/",
    "什么是 EventMesh？": "/zh/docs/introduction",
    "如何部署存储？": "https://eventmesh.apache.org/zh/docs/instruction/store",
    "Java SDK 介绍": "/zh/docs/sdk-java/intro/",
}
# A Doks (Thulite) site: its config split across config/_default/ (hugo.toml,
# languages.toml with each language's contentDir, module.toml mounts), the
# default language (ja) in its subfolder too, docs at /docs/:sections[1:]/:slug/.
HUGO_DOKS_URLS = {
    "How do I start with Alice?": "https://alicenovel.web.app/en/docs/getting-started/1/",
    "Which platforms are supported?": "/en/docs/getting-started/2",
    "When is v0.9.3 released?": "https://alicenovel.web.app/en/blog/20241004/",
    "Alice の始め方は？": "/ja/docs/getting-started/1/",
    "対応プラットフォームは？": "https://alicenovel.web.app/ja/docs/getting-started/2/",
}

# React Native's site: the docs folder at the repository root, read by
# website/docusaurus.config.ts (path: '../docs'); versioned, so the docs folder is
# /docs/next/ and the last release /docs/; front-matter ids name the pages.
REACT_NATIVE_URLS = {
    "What is React Native?": "https://reactnative.dev/docs/getting-started",
    "How do I set up my environment?": "/docs/next/environment-setup",
    "How do I show an alert dialog?": "https://reactnative.dev/docs/next/alert/",
    "What is Fast Refresh?": "/docs/fast-refresh",
}

# MkDocs with mkdocs-static-i18n (suffix structure): the default locale at the
# site's root, French under /fr/, the site_url's path in front.
MKDOCS_I18N_URLS = {
    "What does the i18n plugin do?": "https://ultrabug.github.io/mkdocs-static-i18n/",
    "Que fait le plugin i18n ?": "https://ultrabug.github.io/mkdocs-static-i18n/fr/",
    "Suffix or folder layout?": "/mkdocs-static-i18n/setup/choosing-the-structure/",
    "How do I start?": "/getting-started/quick-start",
}

# opentelemetry.io's mount layout (synthetic pages): English mounted with no `lang`
# is the default language, at the root.
HUGO_MOUNTS_URLS = {
    "How do I send my first span?": "https://otel.example.org/docs/a/",
    "¿Cómo envío mi primer span?": "/es/docs/a/",
}

RETRIEVER = """
import json
from pathlib import Path

PAGES = json.loads((Path(__file__).parent / "pages.json").read_text(encoding="utf-8"))


def build():
    def search(query, k):
        return [{"id": PAGES[query]}]

    return search
"""


def site_copy(tmp_path: Path, name: str, pages: dict[str, str]) -> Path:
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    (root / ".git").mkdir()
    (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    (root / "pages.json").write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    sys.modules.pop("site_search", None)  # each test imports its own copy
    return root


def capture(root: Path) -> Any:
    argv = ["capture", "--retriever", "site_search:build", "--out", "c.jsonl", "--json", "r.json"]
    return run_cli(argv, cwd=root)


def hits(root: Path) -> dict[str, float]:
    results = json.loads((root / "r.json").read_text(encoding="utf-8"))
    return {c["case_id"]: c["metrics"]["retrieval_hit_at_k"] for c in results["cases"]}


@pytest.mark.parametrize(
    "name",
    [
        "hugo-docsy",
        "hugo-doks",
        "docusaurus-eventmesh",
        "docusaurus-react-native",
        "mkdocs-static-i18n",
        # Synthetic sites laid out as real ones are (their READMEs name the layouts).
        "hugo-mounts",
        "docusaurus-versioned-i18n",
        "mkdocs-blog",
    ],
)
def test_check_passes_a_real_site_as_it_is(tmp_path: Path, name: str) -> None:
    run = run_cli(["check"], cwd=site_copy(tmp_path, name, {}))
    assert run.code == 0, run.err
    assert "every gold and relevant id resolves" in run.out


@pytest.mark.parametrize(
    ("name", "pages"),
    [
        ("hugo-docsy", HUGO_URLS),
        ("hugo-doks", HUGO_DOKS_URLS),
        ("docusaurus-eventmesh", DOCUSAURUS_URLS),
        ("docusaurus-react-native", REACT_NATIVE_URLS),
        ("mkdocs-static-i18n", MKDOCS_I18N_URLS),
        ("hugo-mounts", HUGO_MOUNTS_URLS),
    ],
)
def test_a_url_returning_retriever_maps_every_published_page(
    tmp_path: Path, name: str, pages: dict[str, str]
) -> None:
    root = site_copy(tmp_path, name, pages)
    run = capture(root)
    assert run.code == 0, run.err
    assert set(hits(root).values()) == {1.0}
    assert "Outside the KB" not in run.out


def test_a_versioned_docusaurus_sites_next_urls_map_to_the_docs_folders_cards(
    tmp_path: Path,
) -> None:
    # eventmesh-site has versions.json: its docs/ folder is published under
    # /docs/next/ (the unversioned /docs/ is the last release, the same doc ids).
    pages = {q: u.replace("/docs/", "/docs/next/", 1) for q, u in DOCUSAURUS_URLS.items()}
    root = site_copy(tmp_path, "docusaurus-eventmesh", pages)
    run = capture(root)
    assert run.code == 0, run.err
    assert set(hits(root).values()) == {1.0}
    assert "Outside the KB" not in run.out


def test_a_page_the_site_publishes_elsewhere_is_outside_the_kb_whatever_its_last_part(
    tmp_path: Path,
) -> None:
    # React Native's blog post /blog/…/fast-refresh and release 0.79's alert page
    # end like the docs' cards, but the KB is the docs folder: neither is a card.
    pages = dict(REACT_NATIVE_URLS)
    pages["What is Fast Refresh?"] = "https://reactnative.dev/blog/2019/09/18/fast-refresh"
    pages["How do I show an alert dialog?"] = "https://reactnative.dev/docs/0.79/alert"
    root = site_copy(tmp_path, "docusaurus-react-native", pages)
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == {"intro": 1.0, "setup": 1.0, "alert": 0.0, "refresh": 0.0}
    assert "Outside the KB: 2 retrieved documents in 2 cases map to no card" in run.out


def test_a_site_config_beside_the_kb_that_reads_it_is_the_kbs_site(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "docusaurus-react-native", {})
    run = run_cli(["cards", "--json", "cards.json", "--skipped"], cwd=root)
    assert run.code == 0, run.err
    listed = json.loads((root / "cards.json").read_text(encoding="utf-8"))
    by_id = {c["id"]: (c["path"], c["language_source"], c["urls"]) for c in listed["cards"]}
    # Front-matter ids name the pages; the language is the config's default locale.
    assert by_id["getting-started"] == (
        "introduction.md",
        "docusaurus.config.ts default language",
        ["/docs/next/getting-started/", "/docs/getting-started/"],
    )
    assert by_id["environment-setup"][0] == "getting-started.md"
    # A `_` file is a partial the site imports, never a page.
    assert "_remove-global-cli.md" in run.out
    assert "partial" in run.out


def test_a_capture_that_maps_for_some_languages_and_not_others_exits_2_naming_the_language(
    tmp_path: Path,
) -> None:
    # The English pages come back under a base path the site's config does not
    # name (/goldydocs/): they map to nothing, the other languages map.
    pages = dict(HUGO_URLS)
    for query in ("Is this project for me?", "How do I launch a ponycopter?"):
        pages[query] = (
            "https://example.docsy.dev/goldydocs" + HUGO_URLS[query].split("example.docsy.dev")[-1]
        )
    pages["Where is the documentation?"] = "https://example.docsy.dev/goldydocs/docs/"
    root = site_copy(tmp_path, "hugo-docsy", pages)
    run = capture(root)
    assert run.code == 2, run.err
    assert "language en: 3 of 3 retrieved documents (100%) map to no KB card" in run.err
    # The nearest card is one of the group's language (fa/docs/overview is as near).
    assert (
        "'https://example.docsy.dev/goldydocs/docs/overview/' (nearest card: 'en/docs/overview')"
    ) in run.err
    assert "--id-from" in run.err
    assert not (root / "r.json").exists()


def test_a_pull_request_that_removes_one_language_fails_whatever_the_id_form(
    tmp_path: Path,
) -> None:
    root = site_copy(tmp_path, "hugo-docsy", HUGO_URLS)
    assert capture(root).code == 0
    shutil.rmtree(root / "content" / "no")
    # Whatever the retriever returns (URLs, paths, ids), the cases' Norwegian gold
    # now resolves to no card: the gate fails before any retrieval is scored.
    for form in (HUGO_URLS, {"Stordata": "content/no/docs/big-data/_index.md"}):
        (root / "pages.json").write_text(json.dumps(HUGO_URLS | form), encoding="utf-8")
        sys.modules.pop("site_search", None)
        run = capture(root)
        assert run.code == 1
        assert "must_cite_one_of id 'no/docs/big-data/_index' resolves to no card" in run.err


def test_a_pull_request_that_removes_the_english_pages_of_a_split_config_site_fails(
    tmp_path: Path,
) -> None:
    # The languages are in config/_default/languages.toml, not in hugo.toml.
    root = site_copy(tmp_path, "hugo-doks", HUGO_DOKS_URLS)
    assert capture(root).code == 0
    shutil.rmtree(root / "content" / "en")
    run = capture(root)
    assert run.code == 1
    assert "'en/docs/getting-started/1-introduction' resolves to no card" in run.err


def test_a_pull_request_that_switches_pages_off_in_the_site_config_fails(tmp_path: Path) -> None:
    # Pages the site no longer builds are no cards: gold naming them fails the gate
    # (exit 1), and a KB with no page left is refused (exit 2); never a pass.
    root = site_copy(tmp_path, "hugo-doks", HUGO_DOKS_URLS)
    assert capture(root).code == 0
    config = root / "config" / "_default" / "hugo.toml"
    text = config.read_text(encoding="utf-8")
    config.write_text(
        text.replace('disableLanguages = ["de", "nl"]', 'disableLanguages = ["de", "nl", "en"]'),
        encoding="utf-8",
    )
    run = capture(root)
    assert run.code == 1
    assert "'en/docs/getting-started/1-introduction' is a page that is no card" in run.err
    mkdocs = site_copy(tmp_path / "m", "mkdocs-static-i18n", MKDOCS_I18N_URLS)
    site_config = mkdocs / "mkdocs.yml"
    site_config.write_text(
        site_config.read_text(encoding="utf-8").replace(
            "exclude_docs: overrides/", "exclude_docs: |\n  overrides/\n  *.md"
        ),
        encoding="utf-8",
    )
    run = capture(mkdocs)
    assert run.code == 2
    assert "none of the" in run.err


def test_cards_shows_the_urls_each_card_is_found_by(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    run = run_cli(["cards", "--json", "cards.json"], cwd=root)
    assert run.code == 0, run.err
    listed = json.loads((root / "cards.json").read_text(encoding="utf-8"))
    urls = {c["id"]: c["urls"] for c in listed["cards"]}
    assert urls["en/docs/_index"] == ["/docs/"]
    assert urls["no/docs/big-data/_index"] == ["/no/docs/big-data/"]
    assert urls["en/docs/tasks/Ponycopters/_index"] == ["/docs/tasks/ponycopters/"]
    assert listed["site"] == "hugo"
    assert "/docs/overview/" in run.out


def test_cards_skipped_lists_pages_that_are_no_card(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    run = run_cli(["cards", "--skipped"], cwd=root)
    assert run.code == 0, run.err
    assert run.out.splitlines()[-3:] == [
        "en/blog/news/_index.md  no text",
        "en/search.md            no text",
        "fa/search.md            no text",
    ]
    assert "3 page(s) of the KB are no card (3 no text)" in run.err


def test_a_docusaurus_translation_is_the_same_card_id_in_another_language(
    tmp_path: Path,
) -> None:
    root = site_copy(tmp_path, "docusaurus-eventmesh", {})
    run = run_cli(["cards", "--json", "cards.json"], cwd=root)
    assert run.code == 0, run.err
    listed = json.loads((root / "cards.json").read_text(encoding="utf-8"))
    intro = [
        (c["language"], c["language_source"], c["urls"])
        for c in listed["cards"]
        if c["id"] == "introduction"
    ]
    assert intro == [
        # versions.json: the docs folder is published under /docs/next/, and the
        # last release (v1.12.0) at /docs/ is the same doc id.
        (
            "en",
            "docusaurus.config.js default language",
            ["/docs/next/introduction/", "/docs/introduction/"],
        ),
        ("zh", "i18n/zh/", ["/zh/docs/next/introduction/", "/zh/docs/introduction/"]),
    ]


def test_a_gold_id_naming_a_draft_is_an_integrity_error_naming_the_draft(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    page = root / "content" / "en" / "docs" / "overview.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("weight: 1\n", "weight: 1\ndraft: true\n"),
        encoding="utf-8",
    )
    run = run_cli(["check"], cwd=root)
    assert run.code == 1
    assert (
        "must_cite_one_of id 'en/docs/overview' is a page that is no card (draft) "
        "(publish the page (a draft: remove `draft: true`) or cite a card the site publishes)"
    ) in run.err


def test_a_kb_glob_that_matches_nothing_is_warned_by_name(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    config = root / "recall-gate.yaml"
    config.write_text(
        config.read_text(encoding="utf-8") + "kb_exclude: ['{en,no}/blgo/**']\n", encoding="utf-8"
    )
    run = run_cli(["check"], cwd=root)
    assert run.code == 0, run.err
    assert "warning: `kb_exclude: {en,no}/blgo/**` matches no file of the KB" in run.err


@pytest.mark.integration
def test_run_indexes_translations_that_share_their_pages_id(tmp_path: Path) -> None:
    # Docusaurus: i18n/zh/…/current/introduction.md keeps the English page's id.
    root = site_copy(tmp_path, "docusaurus-eventmesh", {})
    (root / "recall-gate.yaml").write_text(
        "kb: docs\ncases: cases.yaml\nk: 3\nretrieval:\n  same_language: true\n"
        "cache:\n  path: null\n",
        encoding="utf-8",
    )
    run = run_cli(["run", "--artifacts-out", "c.jsonl"], cwd=root, environ={"HF_HUB_OFFLINE": "1"})
    assert run.code == 0, run.err
    lines = [json.loads(line) for line in (root / "c.jsonl").read_text().splitlines()]
    by_case = {line["case_id"]: line for line in lines if "case_id" in line}
    # Each language's case is answered from its own translation, under the page's id.
    for case in ("en-intro", "zh-intro"):
        items = by_case[case]["retrieved"]
        language = case.split("-")[0]
        assert all(f"@{'zh' if language == 'en' else 'en'}#" not in item["id"] for item in items)
        assert "introduction" in [item["parent_id"] for item in items]


def with_gold_urls(root: Path) -> None:
    """Two cases' gold written as the site publishes the page: a full URL, a path."""
    cases = root / "cases.yaml"
    cases.write_text(
        cases.read_text(encoding="utf-8")
        .replace("[en/docs/overview]", "['https://example.docsy.dev/docs/overview/']")
        .replace("[no/docs/big-data/_index]", "[/no/docs/big-data]"),
        encoding="utf-8",
    )


GOLD_URL_NOTE = (
    "note: 2 gold id(s) name a card by the URL or path its site publishes (2 distinct), "
    "read as its card id (e.g. 'https://example.docsy.dev/docs/overview/' → 'en/docs/overview')"
)


def test_a_gold_url_names_the_card_whose_page_it_is(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    with_gold_urls(root)
    run = run_cli(["check"], cwd=root)
    assert run.code == 0, run.err
    assert "every gold and relevant id resolves" in run.out
    assert run.err.count(GOLD_URL_NOTE) == 1


def test_gold_urls_score_and_fingerprint_as_their_card_ids(tmp_path: Path) -> None:
    plain = site_copy(tmp_path / "ids", "hugo-docsy", HUGO_URLS)
    assert capture(plain).code == 0
    root = site_copy(tmp_path / "urls", "hugo-docsy", HUGO_URLS)
    with_gold_urls(root)
    run = capture(root)
    assert run.code == 0, run.err
    assert run.err.count(GOLD_URL_NOTE) == 1
    assert set(hits(root).values()) == {1.0}
    # The labels' fingerprint is of card ids: writing a URL keeps the baseline fresh.
    fingerprints = [
        json.loads((r / "r.json").read_text(encoding="utf-8"))["provenance"]["dataset_fingerprint"]
        for r in (plain, root)
    ]
    assert fingerprints[0] == fingerprints[1]
    # The capture written holds card ids; score with the cases reads them alike.
    lines = (root / "c.jsonl").read_text(encoding="utf-8")
    assert "https://example.docsy.dev/docs/overview/" not in lines.split('"retrieved"')[0]
    scored = run_cli(["score", "--artifacts", "c.jsonl", "--json", "s.json"], cwd=root)
    assert scored.code == 0, scored.err
    assert scored.err.count(GOLD_URL_NOTE) == 1


def test_a_gold_url_two_cards_publish_is_an_error_naming_both(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    page = root / "content" / "en" / "docs" / "overview.md"
    page.write_text(
        page.read_text(encoding="utf-8").replace("weight: 1\n", "weight: 1\naliases: [/docs/]\n"),
        encoding="utf-8",
    )
    cases = root / "cases.yaml"
    cases.write_text(
        cases.read_text(encoding="utf-8").replace("[en/docs/_index]", "[/docs/]"),
        encoding="utf-8",
    )
    run = run_cli(["check"], cwd=root)
    assert run.code == 1
    assert (
        "must_cite_one_of id '/docs/' is the page of 2 cards: 'en/docs/_index' and "
        "'en/docs/overview' (write the card id you mean)"
    ) in run.err


LOCALE_ROUTED = """
import json
from pathlib import Path

PAGES = json.loads((Path(__file__).parent / "pages.json").read_text(encoding="utf-8"))
SEEN = []


def build():
    def search(query, k, language=None):
        SEEN.append(language)
        prefix = "" if language == "en" else f"/{language}"
        return [{"id": prefix + PAGES[query]}]

    return search


def build_with_case():
    def search(query, k, **extra):
        SEEN.append(extra["case"]["id"])
        return [{"id": "/docs/introduction"}]

    return search
"""


def test_a_retriever_whose_search_takes_language_gets_each_cases_language(
    tmp_path: Path,
) -> None:
    # The same page path for both locales: the retriever routes by the language.
    pages = {
        q: u.split("eventmesh.apache.org")[-1].removeprefix("/zh")
        for q, u in DOCUSAURUS_URLS.items()
    }
    root = site_copy(tmp_path, "docusaurus-eventmesh", pages)
    (root / "site_search.py").write_text(LOCALE_ROUTED, encoding="utf-8")
    run = capture(root)
    assert run.code == 0, run.err
    assert set(hits(root).values()) == {1.0}
    assert sorted(set(sys.modules["site_search"].SEEN)) == ["en", "zh"]


def test_a_retriever_taking_keywords_gets_the_case(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "docusaurus-eventmesh", {})
    (root / "site_search.py").write_text(LOCALE_ROUTED, encoding="utf-8")
    argv = ["capture", "--retriever", "site_search:build_with_case", "--out", "c.jsonl"]
    run = run_cli(argv, cwd=root)
    assert run.code == 0, run.err
    assert sorted(sys.modules["site_search"].SEEN) == sorted(
        ["en-intro", "en-https", "en-upgrade", "zh-intro", "zh-store", "zh-sdk"]
    )


@pytest.mark.parametrize(
    ("name", "kb"),
    [
        ("hugo-docsy", "content"),
        ("hugo-doks", "content"),
        ("docusaurus-eventmesh", "docs"),
        ("docusaurus-react-native", "docs"),
        ("mkdocs-static-i18n", "docs"),
    ],
)
def test_every_published_url_in_every_form_resolves_to_its_own_card(name: str, kb: str) -> None:
    read = read_kb(SITES / name / kb)
    ids = card_ids_of(read.cards)
    for entry in read.cards:
        assert entry.urls, entry.card.id
        for url in entry.urls:
            for form in (url, url.rstrip("/"), f"https://docs.example.org{url}", url.upper()):
                assert card_of_path(form, ids) == entry.card.id, form


def test_score_maps_the_urls_of_a_capture_made_elsewhere(tmp_path: Path) -> None:
    root = site_copy(tmp_path, "hugo-docsy", {})
    cases = {
        "en-overview": HUGO_URLS["Is this project for me?"],
        "en-ponycopters": HUGO_URLS["How do I launch a ponycopter?"],
        "en-docs": HUGO_URLS["Where is the documentation?"],
        "no-docs": HUGO_URLS["Hvor er dokumentasjonen?"],
        "no-big-data": HUGO_URLS["Stordata"],
        "fa-overview": HUGO_URLS["مرور کلی"],
    }
    lines = [json.dumps({"case_id": c, "retrieved": [url]}) for c, url in cases.items()]
    (root / "c.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = run_cli(["score", "--artifacts", "c.jsonl", "--json", "r.json"], cwd=root)
    assert run.code == 0, run.err
    assert set(hits(root).values()) == {1.0}


def test_a_pull_request_that_writes_gold_as_urls_relabels_nothing(tmp_path: Path) -> None:
    """Gold written as the page URL is the same label as the card id (and back):
    judged at the base, only the case whose gold names another card is relabelled."""
    root = tmp_path / "site"
    shutil.copytree(SITES / "hugo-docsy", root)
    (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    (root / "pages.json").write_text(json.dumps(HUGO_URLS, ensure_ascii=False), encoding="utf-8")
    sys.modules.pop("site_search", None)
    pull_request_repo(root, {})
    with_gold_urls(root)  # two cases: a full URL, a path
    cases = root / "cases.yaml"
    cases.write_text(  # and one case truly relabelled: another card
        cases.read_text(encoding="utf-8").replace("[fa/docs/overview]", "[en/docs/overview]"),
        encoding="utf-8",
    )
    commit_all(root)
    assert capture(root).code == 0
    run = run_cli(
        ["score", "--artifacts", "c.jsonl", "--baseline-ref", "main",
         "--comparison-json", "cmp.json"],
        cwd=root,
    )  # fmt: skip
    assert run.code == 0, run.err
    doc = json.loads((root / "cmp.json").read_text(encoding="utf-8"))
    assert doc["pull_request"]["relabelled"] == ["fa-overview"]


def test_an_i18n_plugin_translation_is_the_same_card_id_in_its_language(tmp_path: Path) -> None:
    """mkdocs-static-i18n's suffix structure: `index.fr.md` is card `index` in
    French, at /fr/; the unsuffixed page is the default locale's, at the root."""
    read = read_kb(SITES / "mkdocs-static-i18n" / "docs")
    assert [(e.card.id, e.card.language, e.urls) for e in read.cards if e.card.id == "index"] == [
        ("index", "fr", ("/fr/", "/mkdocs-static-i18n/fr/")),
        ("index", "en", ("/", "/mkdocs-static-i18n/")),
    ]
    assert {e.card.language for e in read.cards if e.card.id != "index"} == {"en"}
