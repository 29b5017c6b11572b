"""Chunk retrievers and pages outside the KB, through `recall-gate capture` as a
user runs it: a case that holds fewer than k distinct cards is asked deeper
(k, 2k, 4k … up to 16k documents), the depth is recorded, and a document that
maps to no card keeps its rank as an "outside the KB" entry, counted in the
report; `--strict` refuses it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_runner import run_cli

# Each page is split into 3 sections; the retriever ranks sections, so the first
# k sections come from ceil(k / 3) pages. `blog/` pages are in the index, not in the KB.
APP = '''
PAGES = ["en/a", "en/b", "en/c", "en/d", "blog/post", "en/e"]
ASKED = []

def sections(query, k):
    """A section retriever: 3 sections per page, pages in a fixed order."""
    ASKED.append(k)
    ranked = [
        {"metadata": {"source": f"docs/{page}.md"}, "chunk_id": f"{page}#{i}"}
        for page in PAGES
        for i in range(3)
    ]
    return ranked[:k]

def shallow(query, k):
    """Ignores k: always two sections of one page."""
    return [{"metadata": {"source": "docs/en/a.md"}, "chunk_id": f"a#{i}"} for i in range(2)]

async def async_sections(query, k):
    """The section retriever, natively async."""
    return sections(query, k)

def one_page(query, k):
    """Always k sections, all of one page: never k distinct cards."""
    ASKED.append(k)
    return [{"metadata": {"source": "docs/en/a.md"}, "chunk_id": f"a#{i}"} for i in range(k)]

def three_pages(query, k):
    """A regressed index: three pages, one of them outside the KB, however deep it is asked."""
    pages = ["en/b", "blog/post", "en/c"]
    return [{"metadata": {"source": f"docs/{page}.md"}} for page in pages][:k]

def blog_only(query, k):
    return [{"metadata": {"source": "docs/blog/post.md"}}][:k]
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    for page in ("a", "b", "c", "d", "e"):
        card = tmp_path / "docs" / "en" / f"{page}.md"
        card.parent.mkdir(parents=True, exist_ok=True)
        card.write_text(f"# Page {page}\n\nText {page}.\n", encoding="utf-8")
    blog = tmp_path / "docs" / "blog" / "post.md"
    blog.parent.mkdir(parents=True)
    blog.write_text("# Post\n\nNews.\n", encoding="utf-8")
    (tmp_path / "depth_app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(
        "- {id: q1, language: en, case_type: golden, query: q, must_cite_one_of: [en/e]}\n"
        "- {id: q2, language: en, case_type: golden, query: r, must_cite_one_of: [en/a]}\n",
        encoding="utf-8",
    )
    (tmp_path / "recall-gate.yaml").write_text(
        "k: 5\nkb: docs\nkb_exclude: [blog]\ncases: cases.yaml\n", encoding="utf-8"
    )
    return tmp_path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_a_chunk_retriever_is_asked_deeper_until_a_case_holds_k_cards(project: Path) -> None:
    run = run_cli(["capture", "--retriever", "depth_app:sections", "--out", "c.jsonl"], cwd=project)
    assert run.code == 0, run.err
    line = lines(project / "c.jsonl")[0]
    # k = 5 sections hold 2 pages; 10 hold 4; 20 hold all 6 (5 cards and the blog post).
    cards = list(dict.fromkeys(i.get("parent_id") or i["id"] for i in line["retrieved"]))
    assert cards == ["en/a", "en/b", "en/c", "en/d", "docs/blog/post.md"]
    # Kept up to the k-th distinct page: the metric sees k = 5 pages, not 5 sections.
    assert len(line["retrieved"]) == 13
    # The depth actually fetched is on the line: the third ask, 20 documents.
    assert line["depth"] == 20


def test_the_depth_fetched_is_recorded_per_case_and_the_metric_sees_k_cards(
    project: Path,
) -> None:
    run = run_cli(
        ["capture", "--retriever", "depth_app:sections", "--out", "c.jsonl", "--json", "r.json"],
        cwd=project,
    )
    assert run.code == 0, run.err
    assert [line["depth"] for line in lines(project / "c.jsonl")] == [20, 20]
    assert (
        "recall-gate: 2 case(s) held fewer than 5 distinct cards in the first 5 documents "
        "and were asked deeper (up to 20 documents)\n"
    ) in run.err
    results = json.loads((project / "r.json").read_text(encoding="utf-8"))
    # Every case holds k = 5 distinct cards after the deeper asks: none is short.
    assert results["cases_short_of_k"] == 0
    # The metric's ranking: the first k distinct cards (the blog post takes its rank).
    assert [c["ranked_ids"] for c in results["cases"]] == [
        ["en/a", "en/b", "en/c", "en/d", "docs/blog/post.md"]
    ] * 2
    assert "fewer than 5 cards" not in run.out


def test_an_async_chunk_retriever_is_asked_deeper_too_and_its_depth_recorded(
    project: Path,
) -> None:
    run = run_cli(
        ["capture", "--retriever", "depth_app:async_sections", "--out", "c.jsonl"], cwd=project
    )
    assert run.code == 0, run.err
    line = lines(project / "c.jsonl")[0]
    assert line["depth"] == 20
    assert len({i.get("parent_id") or i["id"] for i in line["retrieved"]}) == 5


def test_a_case_is_asked_at_most_16_times_k_documents(project: Path) -> None:
    run = run_cli(
        ["capture", "--retriever", "depth_app:one_page", "--out", "c.jsonl", "--concurrency", "1"],
        cwd=project,
    )
    assert run.code == 0, run.err
    # k, 2k, 4k, 8k, 16k: five rounds per case, then the cap (MAX_DEPTH_FACTOR = 16).
    assert [line["depth"] for line in lines(project / "c.jsonl")] == [80, 80]
    assert "(2 of 2 scored cases hold fewer than 5 cards*)" in run.out


def test_a_retriever_that_returns_fewer_than_asked_is_asked_once_at_k(project: Path) -> None:
    run = run_cli(["capture", "--retriever", "depth_app:shallow", "--out", "c.jsonl"], cwd=project)
    assert run.code == 0, run.err
    assert [line["depth"] for line in lines(project / "c.jsonl")] == [5, 5]
    assert "asked deeper" not in run.err


def test_a_retriever_that_ignores_k_is_not_asked_again_and_the_report_says_so(
    project: Path,
) -> None:
    run = run_cli(["capture", "--retriever", "depth_app:shallow", "--out", "c.jsonl"], cwd=project)
    assert run.code == 0, run.err
    assert [len(line["retrieved"]) for line in lines(project / "c.jsonl")] == [2, 2]
    assert "(2 of 2 scored cases hold fewer than 5 cards*)" in run.out
    assert "hit@5*" in run.out
    assert "* Depth: 2 of 2 scored cases hold fewer than k = 5 distinct retrieved cards" in run.out


def test_a_page_outside_the_kb_keeps_its_rank_and_is_counted(project: Path) -> None:
    run = run_cli(
        ["capture", "--retriever", "depth_app:sections", "--out", "c.jsonl", "--json", "r.json"],
        cwd=project,
    )
    assert run.code == 0, run.err
    outside = [i for i in lines(project / "c.jsonl")[0]["retrieved"] if i.get("outside_kb")]
    assert {i["parent_id"] for i in outside} == {"docs/blog/post.md"}
    results = json.loads((project / "r.json").read_text(encoding="utf-8"))
    # 2 of the 26 documents retrieved (all English, all golden) are outside: 2 / 26 = 0.0769
    assert results["outside_kb"] == {
        "cases": 2,
        "entries": 2,
        "examples": ["docs/blog/post.md"],
        "share_by_case_type": {"golden": 0.0769},
        "share_by_language": {"en": 0.0769},
    }
    assert (
        "Outside the KB: 2 retrieved documents in 2 cases map to no card (e.g. docs/blog/post.md): "
        "kept at their rank as non-relevant results (--strict refuses them)."
    ) in run.out
    # q1's gold (en/e) is the 6th page: past the blog post, out of the top 5.
    by_case = {c["case_id"]: c for c in results["cases"]}
    assert by_case["q1"]["metrics"]["retrieval_hit_at_k"] == 0.0
    assert by_case["q2"]["metrics"]["retrieval_hit_at_k"] == 1.0


def test_rescoring_the_capture_counts_the_same_pages_outside_the_kb(project: Path) -> None:
    assert (
        run_cli(
            ["capture", "--retriever", "depth_app:sections", "--out", "c.jsonl"], cwd=project
        ).code
        == 0
    )
    run = run_cli(["score", "--artifacts", "c.jsonl"], cwd=project)
    assert run.code == 0, run.err
    assert "Outside the KB: 2 retrieved documents in 2 cases" in run.out


def test_strict_refuses_pages_outside_the_kb(project: Path) -> None:
    assert (
        run_cli(
            ["capture", "--retriever", "depth_app:sections", "--out", "c.jsonl"], cwd=project
        ).code
        == 0
    )
    run = run_cli(["score", "--artifacts", "c.jsonl", "--strict"], cwd=project)
    assert run.code == 2
    assert "--strict: 2 retrieved document(s) in 2 case(s) map to no KB card" in run.err


def test_a_capture_where_no_document_is_a_card_is_a_mapping_error(project: Path) -> None:
    run = run_cli(
        ["capture", "--retriever", "depth_app:blog_only", "--out", "c.jsonl"], cwd=project
    )
    assert run.code == 2
    assert "case 'q1', document 1: no field maps to a KB card (tried " in run.err
    assert "--id-from FIELD" in run.err
    assert not (project / "c.jsonl").exists()


def test_the_comparison_report_says_not_retrieved_and_counts_pages_outside_the_kb(
    project: Path,
) -> None:
    made = run_cli(
        ["capture", "--retriever", "depth_app:sections", "--out", "a.jsonl", "--json", "a.json"],
        cwd=project,
    )
    assert made.code == 0, made.err
    assert run_cli(["baseline", "update", "--results", "a.json"], cwd=project).code == 0
    run = run_cli(
        ["capture", "--retriever", "depth_app:three_pages", "--out", "b.jsonl"], cwd=project
    )
    assert run.code == 0, run.err
    # q2's gold en/a was at rank 1; the regressed index returned 3 pages without it.
    (row,) = {line for line in run.out.splitlines() if line.startswith("q2 ") and "→" in line}
    assert row.split()[:4] == ["q2", "r", "en", "golden"]
    assert row.endswith("en/a       1 → not retrieved (3 returned)  hit@5 1 → 0")
    assert "n = 2 (2 of 2 scored cases hold fewer than 5 cards*)" in run.out
    assert (
        "Outside the KB: 2 retrieved documents in 2 cases map to no card (e.g. "
        "docs/blog/post.md): kept at their rank as non-relevant results (--strict refuses them)."
    ) in run.out
