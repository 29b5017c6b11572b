"""A card is (language, id): a translation shares its id with its source page but is
not the page a reader of the other language asked for (core/card_language.py).

Run on a real Docusaurus site in English and Chinese (tests/data/sites/
docusaurus-eventmesh: `docs/` and its translations under `i18n/zh/`, each page's
translation keeping the page's id), through the command line, with a retriever
that returns, for each query, the document the test names."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli

SITES = Path(__file__).resolve().parent.parent / "data" / "sites"
ZH_CURRENT = "i18n/zh/docusaurus-plugin-content-docs/current"

# What each case's query finds in the reader's own language: URLs as the site publishes them.
OWN_LANGUAGE = {
    "What is EventMesh?": "/docs/introduction",
    "Does EventMesh speak HTTPS?": "/docs/design-document/event-handling-and-integration/https",
    "How do I upgrade?": "https://eventmesh.apache.org/docs/upgrade-guide/upgrade-guide/",
    "什么是 EventMesh？": "/zh/docs/introduction",
    "如何部署存储？": "https://eventmesh.apache.org/zh/docs/instruction/store",
    "Java SDK 介绍": "/zh/docs/sdk-java/intro/",
}
# The Chinese cases answered from the English page of the same id.
ENGLISH_FOR_CHINESE = {
    **OWN_LANGUAGE,
    "什么是 EventMesh？": "/docs/introduction",
    "如何部署存储？": "https://eventmesh.apache.org/docs/instruction/store",
    "Java SDK 介绍": "/docs/sdk-java/intro/",
}

RETRIEVER = """
import json
from pathlib import Path

PAGES = json.loads((Path(__file__).parent / "pages.json").read_text(encoding="utf-8"))


def build():
    def search(query, k):
        page = PAGES[query]
        return [page if isinstance(page, dict) else {"id": page}]

    return search
"""


def site(tmp_path: Path, pages: dict[str, Any]) -> Path:
    root = tmp_path / "site"
    if not root.exists():
        shutil.copytree(SITES / "docusaurus-eventmesh", root)
        (root / ".git").mkdir()
        (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    (root / "pages.json").write_text(json.dumps(pages, ensure_ascii=False), encoding="utf-8")
    sys.modules.pop("site_search", None)  # each capture imports its own copy
    return root


def capture(root: Path, *extra: str) -> Any:
    argv = ["capture", "--retriever", "site_search:build", "--out", "c.jsonl", "--json", "r.json"]
    return run_cli([*argv, *extra], cwd=root)


def results(root: Path, name: str = "r.json") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / name).read_text(encoding="utf-8"))
    return data


def hits(root: Path, name: str = "r.json") -> dict[str, float]:
    return {c["case_id"]: c["metrics"]["retrieval_hit_at_k"] for c in results(root, name)["cases"]}


ALL_HIT = dict.fromkeys(
    ["en-intro", "en-https", "en-upgrade", "zh-intro", "zh-store", "zh-sdk"], 1.0
)
CHINESE_MISSED = ALL_HIT | {"zh-intro": 0.0, "zh-store": 0.0, "zh-sdk": 0.0}


def test_each_language_answered_from_its_own_pages_meets_every_case(tmp_path: Path) -> None:
    root = site(tmp_path, OWN_LANGUAGE)
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == ALL_HIT
    by_language = results(root)["aggregates"]["by_language"]
    assert by_language["zh"]["answered_in_reader_language"] == {"mean": 1.0, "n": 3}
    assert "answered_from_other_language" not in results(root)


def test_a_chinese_case_is_not_met_by_the_english_page_of_its_gold_id_given_as_a_url(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, ENGLISH_FOR_CHINESE)
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == CHINESE_MISSED
    # The English page is a card of its own in the Chinese cases' rankings.
    ranked = {c["case_id"]: c["ranked_ids"] for c in results(root)["cases"]}
    assert ranked["zh-intro"] == ["introduction@en"]
    assert ranked["en-intro"] == ["introduction"]
    # Each Chinese case found its page, and none in Chinese.
    share = results(root)["aggregates"]["by_language"]["zh"]["answered_in_reader_language"]
    assert share == {"mean": 0.0, "n": 3}


def test_a_chinese_case_is_not_met_by_the_english_page_of_its_gold_id_given_as_a_file_path(
    tmp_path: Path,
) -> None:
    pages = {
        **OWN_LANGUAGE,
        "什么是 EventMesh？": "/srv/eventmesh-site/docs/introduction.md",
        "如何部署存储？": "docs/instruction/01-store.md",
        "Java SDK 介绍": f"/srv/eventmesh-site/{ZH_CURRENT}/sdk-java/01-intro.md",
    }
    root = site(tmp_path, pages)
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == ALL_HIT | {"zh-intro": 0.0, "zh-store": 0.0}
    # The capture keeps the language each path told.
    lines = [json.loads(line) for line in (root / "c.jsonl").read_text().splitlines()]
    items = {line["case_id"]: line["retrieved"][0] for line in lines}
    assert items["zh-intro"]["language"] == "en"
    assert items["zh-sdk"]["language"] == "zh"


def test_a_chinese_case_is_not_met_by_the_english_page_given_as_parent_id_and_language(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, {})
    https = "design-document/01-event-handling-and-integration/02-https"

    def line(case_id: str, parent_id: str, **told: Any) -> dict[str, Any]:
        return {
            "case_id": case_id,
            "retrieved": [{"id": "chunk-1", "parent_id": parent_id, **told}],
        }

    lines = [
        line("en-intro", "introduction", language="en"),
        line("zh-intro", "introduction", language="en"),
        line("zh-store", "instruction/01-store", metadata={"lang": "zh"}),
        line("zh-sdk", "sdk-java/01-intro", metadata={"locale": "en_US"}),
        line("en-https", https, language="en"),
        line("en-upgrade", "upgrade-guide/01-upgrade-guide", language="zh"),
    ]
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    (root / "a.jsonl").write_text(text, encoding="utf-8")
    run = run_cli(["score", "--artifacts", "a.jsonl", "--json", "r.json"], cwd=root)
    assert run.code == 0, run.err
    assert hits(root) == {
        "en-intro": 1.0,
        "zh-intro": 0.0,  # the English page
        "zh-store": 1.0,  # its metadata says Chinese
        "zh-sdk": 0.0,  # en_US is English
        "en-https": 1.0,
        "en-upgrade": 0.0,  # the Chinese translation, for an English reader
    }


def test_a_chinese_case_is_met_by_the_english_page_where_no_chinese_card_of_its_id_exists(
    tmp_path: Path,
) -> None:
    # The site serves the English page where a page has no translation (its fallback).
    root = site(tmp_path, ENGLISH_FOR_CHINESE)
    (root / ZH_CURRENT / "sdk-java" / "01-intro.md").unlink()
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == CHINESE_MISSED | {"zh-sdk": 1.0}
    assert results(root)["answered_from_other_language"] == {"zh": 1}
    share = results(root)["aggregates"]["by_language"]["zh"]["answered_in_reader_language"]
    assert share == {"mean": 0.0, "n": 3}
    assert "Answered from another language: zh 1 of 3 scored cases" in run.out
    assert "Answered in the reader's language: en 100% (3 of 3), zh 0% (0 of 3)" in run.out


def test_a_capture_of_a_translated_kb_that_does_not_tell_its_documents_language_is_refused(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, {})
    lines = [
        {"case_id": "en-intro", "retrieved": ["introduction"]},
        {"case_id": "zh-intro", "retrieved": ["introduction", "instruction/01-store"]},
    ]
    text = "".join(json.dumps(line) + "\n" for line in lines)
    (root / "a.jsonl").write_text(text, encoding="utf-8")
    cases = root / "two.yaml"
    cases.write_text(
        "\n".join((root / "cases.yaml").read_text(encoding="utf-8").splitlines()[:2] + [
            line for line in (root / "cases.yaml").read_text(encoding="utf-8").splitlines()
            if "zh-intro" in line
        ]) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    run = run_cli(
        ["score", "--artifacts", "a.jsonl", "--cases", "two.yaml", "--json", "r.json"], cwd=root
    )
    assert run.code == 2, run.err
    assert (
        "a.jsonl: 3 retrieved document(s) in 2 case(s) name a card the KB holds in more than "
        "one language without telling which, e.g. 'introduction' in case 'en-intro' (the KB "
        "holds it in en, zh); 'introduction' in case 'zh-intro' (the KB holds it in en, zh)"
    ) in run.err
    assert "return each document's file path or page URL" in run.err
    assert not (root / "r.json").exists()


def test_a_retriever_that_tells_no_language_of_a_translated_page_is_refused(
    tmp_path: Path,
) -> None:
    pages = {q: {"id": "c", "metadata": {"card_id": "introduction"}} for q in OWN_LANGUAGE}
    run = capture(site(tmp_path, pages))
    assert run.code == 2
    assert "without telling which" in run.err
    assert "(`language`, `lang` or `locale`)" in run.err


def test_the_retrievers_metadata_language_tells_the_translation(tmp_path: Path) -> None:
    pages: dict[str, Any] = {
        q: {"id": "c", "metadata": {"card_id": "introduction", "language": lang}}
        for q, lang in (("What is EventMesh?", "en"), ("什么是 EventMesh？", "zh"))
    }
    root = site(tmp_path, OWN_LANGUAGE | pages)
    run = capture(root)
    assert run.code == 0, run.err
    assert hits(root) == ALL_HIT
    pages["什么是 EventMesh？"]["metadata"]["language"] = "en"
    root = site(tmp_path, OWN_LANGUAGE | pages)
    assert capture(root).code == 0
    assert hits(root)["zh-intro"] == 0.0


@pytest.mark.parametrize("name", ["hugo-docsy", "hugo-doks"])
def test_a_kb_with_one_language_per_id_needs_no_language_told(tmp_path: Path, name: str) -> None:
    # Hugo sites whose ids hold their language folder: a bare id is unambiguous.
    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    ids = sorted(set(_gold_ids(root / "cases.yaml")))
    lines = [json.dumps({"case_id": c, "retrieved": ids}) for c in _case_ids(root / "cases.yaml")]
    (root / "a.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = run_cli(["score", "--artifacts", "a.jsonl", "--k", "20", "--json", "r.json"], cwd=root)
    assert run.code == 0, run.err
    assert set(hits(root).values()) == {1.0}
    assert "answered_in_reader_language" not in json.dumps(results(root)["aggregates"])


def _case_ids(path: Path) -> list[str]:
    return [
        line.split("id: ", 1)[1].split(",", 1)[0]
        for line in path.read_text(encoding="utf-8").splitlines()
        if "must_cite_one_of" in line
    ]


def _gold_ids(path: Path) -> list[str]:
    return [
        line.split("must_cite_one_of: [", 1)[1].split("]", 1)[0]
        for line in path.read_text(encoding="utf-8").splitlines()
        if "must_cite_one_of" in line
    ]


def test_kb_coverage_counts_each_language_of_a_translated_id_as_its_own_card(
    tmp_path: Path,
) -> None:
    # The English cases cite 3 English pages, the Chinese cases 3 Chinese ones: 6 of
    # the KB's 10 cards, not "5 of 5" ids.
    root = site(tmp_path, {})
    run = run_cli(["cards", "--json", "cards.json"], cwd=root)
    assert run.code == 0, run.err
    coverage = json.loads((root / "cards.json").read_text(encoding="utf-8"))["coverage"]
    assert (coverage["covered"], coverage["cards"]) == (6, 10)
    assert coverage["by_language"] == {
        "en": {"covered": 3, "cards": 5},
        "zh": {"covered": 3, "cards": 5},
    }
    assert sorted(coverage["uncovered"]) == [
        "design-document/01-event-handling-and-integration/02-https@zh",
        "instruction/01-store@en",
        "sdk-java/01-intro@en",
        "upgrade-guide/01-upgrade-guide@zh",
    ]
    check = run_cli(["check"], cwd=root)
    assert "KB coverage: 6 of 10 cards (60.0%) cited by a case — en 3/5 (60.0%), zh 3/5" in (
        check.out + check.err
    )


def test_a_case_whose_language_lacks_the_page_covers_the_page_it_is_served(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, {})
    (root / ZH_CURRENT / "sdk-java" / "01-intro.md").unlink()
    run = run_cli(["cards", "--json", "cards.json"], cwd=root)
    assert run.code == 0, run.err
    coverage = json.loads((root / "cards.json").read_text(encoding="utf-8"))["coverage"]
    assert coverage["by_language"] == {
        "en": {"covered": 4, "cards": 5},
        "zh": {"covered": 2, "cards": 4},
    }


def test_never_retrieved_counts_the_pages_of_each_language_a_case_retrieves(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, OWN_LANGUAGE)
    run = capture(root)
    assert run.code == 0, run.err
    assert results(root)["kb_retrieved"]["by_language"] == {
        "en": {"covered": 3, "cards": 5},
        "zh": {"covered": 3, "cards": 5},
    }
    # Answered from the English pages, no Chinese page is retrieved at all.
    root = site(tmp_path, ENGLISH_FOR_CHINESE)
    run = capture(root)
    assert run.code == 0, run.err
    assert results(root)["kb_retrieved"]["by_language"] == {
        "en": {"covered": 5, "cards": 5},
        "zh": {"covered": 0, "cards": 5},
    }
    assert "Never retrieved: 5 of 10 cards (50.0%) in no case's top 3 — en 0/5, zh 5/5" in run.out


def test_a_pull_request_answering_chinese_cases_from_english_pages_shows_in_the_comparison(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, OWN_LANGUAGE)
    assert capture(root).code == 0
    made = run_cli(
        ["baseline", "update", "--results", "r.json", "--git-sha", "a" * 40, "--reason", "base"],
        cwd=root,
    )
    assert made.code == 0, made.err
    root = site(tmp_path, ENGLISH_FOR_CHINESE)
    run = capture(root, "--comparison-json", "cmp.json", "--comment-markdown", "comment.md")
    assert run.code == 0, run.err
    doc = json.loads((root / "cmp.json").read_text(encoding="utf-8"))
    shares = {r["language"]: r["share"] for r in doc["run"]["reader_language"]}
    assert shares == {"en": 1.0, "zh": 0.0}
    assert {r["language"]: r["share"] for r in doc["baseline"]["reader_language"]} == {
        "en": 1.0,
        "zh": 1.0,
    }
    line = "Answered in the reader's language: en 100% (3 of 3), zh 0% (0 of 3; baseline 100%)"
    assert line in run.out
    assert line in (root / "comment.md").read_text(encoding="utf-8")
    # The Chinese cases lost their hits: the English page is no gold of theirs.
    assert doc["flips"]["hit_to_miss"]


def test_a_logged_query_answered_from_another_translation_of_its_page_has_moved(
    tmp_path: Path,
) -> None:
    from recall_gate.adapters.query_snapshot import read_snapshot
    from recall_gate.core.logged_query import LoggedQuery
    from recall_gate.core.traffic_diff import diff_traffic

    logged = [
        {"id": "q-zh", "query": "什么是 EventMesh？", "language": "zh"},
        {"id": "q-en", "query": "What is EventMesh?", "language": "en"},
    ]

    def snapshot(pages: dict[str, Any]) -> dict[str, tuple[str, ...]]:
        root = site(tmp_path, pages)
        (root / "queries.jsonl").write_text(
            "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in logged), encoding="utf-8"
        )
        config = root / "recall-gate.yaml"
        if "queries:" not in config.read_text(encoding="utf-8"):
            config.write_text(config.read_text() + "queries: queries.jsonl\n", encoding="utf-8")
        run = capture(root)
        assert run.code == 0, run.err
        found = read_snapshot(root / "c.jsonl")
        assert found is not None
        return dict(found.rankings)

    before = snapshot(OWN_LANGUAGE)
    after = snapshot(ENGLISH_FOR_CHINESE)
    assert before == {"q-zh": ("introduction",), "q-en": ("introduction",)}
    assert after == {"q-zh": ("introduction@en",), "q-en": ("introduction",)}
    queries = [LoggedQuery.model_validate(q) for q in logged]
    moved = diff_traffic(queries, base=before, current=after, k=3)
    assert [m.id for m in moved.movers] == ["q-zh"]


def test_the_reader_language_gate_fails_a_language_answered_from_another_translation(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, ENGLISH_FOR_CHINESE)
    run = capture(root, "--min-reader-language-share", "0.9", "--comparison-json", "cmp.json")
    assert run.code == 1, run.err
    gates = json.loads((root / "cmp.json").read_text(encoding="utf-8"))["gates"]
    judged = {g["subject"]: (g["outcome"], g["reason"]) for g in gates}
    assert judged["reader language · language:zh"] == (
        "fails",
        "0 of 3 zh cases found their gold page in zh (0.0 %), below "
        "min_reader_language_share 90.0 %",
    )
    assert judged["reader language · language:en"][0] == "passes"


def test_the_reader_language_gate_passes_each_language_answered_from_its_own_pages(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, OWN_LANGUAGE)
    (root / "recall-gate.yaml").write_text(
        (root / "recall-gate.yaml").read_text(encoding="utf-8")
        + "gate:\n  min_reader_language_share: 0.9\n",
        encoding="utf-8",
    )
    run = capture(root, "--comparison-json", "cmp.json")
    assert run.code == 0, run.err
    gates = json.loads((root / "cmp.json").read_text(encoding="utf-8"))["gates"]
    assert [g["outcome"] for g in gates if g["kind"] == "reader_language"] == ["passes"] * 2
    settings = run_cli(["settings"], cwd=root)
    assert "min_reader_language_share" in settings.out


def site_repo(tmp_path: Path, name: str) -> Path:
    """A real site as a repository: its ``main`` the base, a branch the pull request."""
    from git_repo import pull_request_repo

    root = tmp_path / name
    shutil.copytree(SITES / name, root)
    return pull_request_repo(root, {})


@pytest.mark.parametrize(
    ("name", "page", "cited"),
    [
        ("docusaurus-eventmesh", f"{ZH_CURRENT}/introduction.md", "'introduction' (zh)"),
        ("mkdocs-static-i18n", "docs/index.fr.md", "'index' (fr)"),
    ],
)
def test_a_pull_request_deleting_a_translation_names_the_cases_of_its_language_only(
    tmp_path: Path, name: str, page: str, cited: str
) -> None:
    from git_repo import commit_all, git

    root = site_repo(tmp_path, name)
    git(root, "rm", "-q", page)
    commit_all(root)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=root)
    assert run.code == 1, run.err
    # The page in the other language is still there: its case is not named.
    case = "zh-intro" if name.startswith("docusaurus") else "fr-home"
    assert f"card {cited} is deleted by this change but is still cited by 1 case(s): {case}" in (
        run.err
    )


def test_a_pull_request_editing_a_docs_sites_page_reads_it_by_the_sites_rules(
    tmp_path: Path,
) -> None:
    # The page's language is the site config's default locale, as in the KB itself.
    from git_repo import commit_all

    root = site_repo(tmp_path, "docusaurus-react-native")
    page = root / "docs" / "introduction.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
    commit_all(root)
    run = run_cli(["check", "--baseline-ref", "main"], cwd=root)
    assert run.code == 0, run.err
    assert "KB changes since main: 1 edited" in run.out


def test_a_pull_request_deleting_translations_and_answering_from_english_fails_its_capture(
    tmp_path: Path,
) -> None:
    # Judged at its base, whose Chinese cases cite the Chinese pages the pull
    # request deletes: the English pages that now answer them are not theirs.
    from git_repo import commit_all, git

    root = site_repo(tmp_path, "docusaurus-eventmesh")
    (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    pages = json.dumps(ENGLISH_FOR_CHINESE, ensure_ascii=False)
    (root / "pages.json").write_text(pages, encoding="utf-8")
    sys.modules.pop("site_search", None)
    git(root, "rm", "-q", "-r", "i18n")
    commit_all(root)
    run = capture(root, "--baseline-ref", "main")
    assert run.code == 1, run.err
    assert "dataset integrity failed" in run.err
    assert (
        "card 'introduction' (zh) is deleted by this change but is still cited by 1 case(s): "
        "zh-intro" in run.err
    )
    assert "en-intro" not in run.err


def test_an_items_language_is_a_tag_read_in_canonical_case_and_a_bad_one_is_refused(
    tmp_path: Path,
) -> None:
    root = site(tmp_path, {})

    def score(language: str) -> Any:
        item = {"id": "c1", "parent_id": "introduction", "language": language}
        line = {"case_id": "zh-intro", "retrieved": [item]}
        (root / "a.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
        cases = root / "one.yaml"
        cases.write_text(
            "- {id: zh-intro, language: zh, case_type: golden, query: q, "
            "must_cite_one_of: [introduction]}\n",
            encoding="utf-8",
        )
        argv = ["score", "--artifacts", "a.jsonl", "--cases", "one.yaml", "--json", "r.json"]
        return run_cli(argv, cwd=root)

    assert score("ZH").code == 0
    assert hits(root) == {"zh-intro": 1.0}
    bad = score("chinese")
    assert bad.code == 2
    assert "a.jsonl:1" in bad.err
    assert "language" in bad.err


def test_a_pull_request_dropping_a_locale_from_the_site_config_fails_like_deleting_it(
    tmp_path: Path,
) -> None:
    # Its translations stay on disk, but the site no longer builds them: the
    # Chinese cases' pages are gone, whatever the English pages answer.
    from git_repo import commit_all

    root = site_repo(tmp_path, "docusaurus-eventmesh")
    (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    pages = json.dumps(ENGLISH_FOR_CHINESE, ensure_ascii=False)
    (root / "pages.json").write_text(pages, encoding="utf-8")
    sys.modules.pop("site_search", None)
    config = root / "docusaurus.config.js"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("locales: ['en', 'zh']", "locales: ['en']"), encoding="utf-8")
    commit_all(root)
    run = capture(root, "--baseline-ref", "main")
    assert run.code == 1, run.err
    assert "card 'introduction' (zh) is deleted by this change" in run.err
    check = run_cli(["check", "--baseline-ref", "main"], cwd=root)
    assert check.code == 1
    assert "zh-store" in check.err
