"""The report's parts that tell a reviewer what happened: what came back instead
of a lost or missed case, one banner line per real change since the baseline,
and footnotes that agree with the tables (goldens in tests/golden/)."""

from __future__ import annotations

import re

from test_render_comment import DROPPED, PATH, SETTINGS, baseline, results, suite

from factories import LANGS
from golden import assert_golden
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import ComparisonDocument, comparison_document
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseResult, RetrievedDetail, Retriever
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.markup import escape_markdown
from recall_gate.report.notes import LANGUAGE_CAVEAT


def _doc(comparison: object, *, tolerances: Tolerances | None = None) -> ComparisonDocument:
    from recall_gate.core.compare import Comparison

    assert isinstance(comparison, Comparison)
    verdict = judge_comparison(comparison, floors=Floors(), tolerances=tolerances or Tolerances())
    return comparison_document(comparison, verdict, profile="default")


def _section(text: str, summary: str) -> str:
    return text.split(f"<details><summary>{summary}")[1].split("</details>", maxsplit=1)[0]


# --- what came back instead ---------------------------------------------------------


def test_every_lost_case_shows_the_top_k_that_came_back_instead_with_ranks() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    text = render_comment(_doc(comparison, tolerances=Tolerances.every(0.02)))
    section = _section(text, "What came back instead: the top 5 of this run for each lost case")
    assert "(6)</summary>" in section
    for cid in DROPPED:
        came_back = " · ".join(f"{r}: noise-{cid}-{r - 1}" for r in range(1, 6))
        assert f"| {cid} | — | card-{cid} | {came_back} |" in section


def test_every_missed_case_without_a_baseline_shows_what_came_back_instead() -> None:
    comparison = compare_to_baseline(current=results(suite()), baseline=None, baseline_path=PATH)
    doc = _doc(comparison)
    text = render_comment(doc)
    section = _section(text, "What came back instead: the top 5 of this run for each missed case")
    assert f"({len(doc.missed)})</summary>" in section
    for missed in doc.missed:
        assert f"| {missed.case_id} | — | card-{missed.case_id} | 1: noise-" in section
    # The terminal gets the same list, as plain text.
    plain = render_comparison_text(doc)
    assert "What came back instead: the top 5 of this run for each missed case" in plain


def _said_of_first(
    cases: list[CaseResult], case_id: str, detail: RetrievedDetail
) -> tuple[list[CaseResult], str]:
    """The cases with ``case_id``'s first retrieved card described by ``detail``."""
    first = next(c.ranked_ids[0] for c in cases if c.case_id == case_id)
    said = {"retrieved_detail": {first: detail}}
    return [c.model_copy(update=said) if c.case_id == case_id else c for c in cases], first


SAID = RetrievedDetail(chunk_id="chroma-17", metadata="source: docs/en/b.md, section: Set up")


def test_what_came_back_instead_names_the_chunk_and_its_source() -> None:
    cases = suite()
    missed = next(c for c in cases if c.metrics and not c.metrics[HIT])
    cases, card = _said_of_first(cases, missed.case_id, SAID)
    doc = _doc(compare_to_baseline(current=results(cases), baseline=None, baseline_path=PATH))
    said = f"1: {card} (chunk chroma-17; source: docs/en/b.md, section: Set up) · 2: "
    section = _section(
        render_comment(doc), "What came back instead: the top 5 of this run for each missed case"
    )
    assert f"| {missed.case_id} | — | card-{missed.case_id} | {said}" in section
    assert said in render_comparison_text(doc)
    # The comparison JSON carries it, additively, and reads back.
    data = doc.model_dump(mode="json")
    listed = {m["case_id"]: m for m in data["missed"]}
    assert listed[missed.case_id]["retrieved_detail"] == {
        card: {"chunk_id": "chroma-17", "metadata": "source: docs/en/b.md, section: Set up"}
    }
    assert all("retrieved_detail" not in m for cid, m in listed.items() if cid != missed.case_id)
    assert ComparisonDocument.model_validate(data) == doc


def test_a_lost_case_names_the_chunk_that_came_back_instead() -> None:
    lost = next(iter(DROPPED))
    cases, card = _said_of_first(suite(DROPPED), lost, SAID)
    comparison = compare_to_baseline(
        current=results(cases), baseline=baseline(suite()), baseline_path=PATH
    )
    doc = _doc(comparison, tolerances=Tolerances.every(0.02))
    move = next(m for m in doc.flips.hit_to_miss if m.case_id == lost)
    assert move.retrieved_detail == {card: SAID}
    section = _section(
        render_comment(doc), "What came back instead: the top 5 of this run for each lost case"
    )
    assert f"1: {card} (chunk chroma-17; source: docs/en/b.md, section: Set up) · 2: " in section


def test_what_the_retriever_said_of_a_card_renders_inert() -> None:
    hostile = RetrievedDetail(
        chunk_id="c|<img src=x onerror=alert(1)>", metadata="title: `x` @admin #1 [a](http://e)"
    )
    cases = suite()
    missed = next(c for c in cases if c.metrics and not c.metrics[HIT])
    cases, _ = _said_of_first(cases, missed.case_id, hostile)
    doc = _doc(compare_to_baseline(current=results(cases), baseline=None, baseline_path=PATH))
    section = _section(
        render_comment(doc), "What came back instead: the top 5 of this run for each missed case"
    )
    assert escape_markdown(hostile.chunk_id or "") in section
    assert escape_markdown(hostile.metadata or "") in section
    # No live HTML, code span, link, table cell, mention or issue reference.
    for live in (r"(?<!\\)<img", r"(?<!\\)`x", r"(?<!\\)\]\(", r"c\|", "@admin", "#1"):
        assert not re.search(live, section), live


# --- the stale banner: one line per real change ------------------------------------


def _stale_banner(text: str) -> list[str]:
    block = text.split("> [!WARNING]\n")[1].split("\n\n", maxsplit=1)[0]
    return [line for line in block.splitlines() if line.startswith("> - ")]


def test_a_framework_switch_is_one_change_in_the_stale_banner() -> None:
    then = Retriever(
        adapter="langchain-retriever",
        name="langchain_chroma.vectorstores.Chroma",
        label="docs-search",
        params={"search_type": "mmr", "k": 5, "fetch_k": 20, "lambda_mult": 0.5},
    )
    now = Retriever(
        adapter="haystack",
        name="haystack.core.pipeline.Pipeline",
        label="docs-search v2",
        params={"document_store": "InMemoryDocumentStore", "top_k": 5},
    )
    comparison = compare_to_baseline(
        current=results(suite({"en-000": 1}), retriever=now),
        baseline=baseline(suite(), retriever=then),
        baseline_path=PATH,
    )
    text = render_comment(_doc(comparison))
    assert _stale_banner(text) == [
        "> - retriever `langchain-retriever` `langchain_chroma.vectorstores.Chroma` → "
        "`haystack` `haystack.core.pipeline.Pipeline` "
        "(with its own label and settings: 7 differences)"
    ]
    assert "**Stale baseline: 1 change since it was made**:" in text
    assert "unset" not in text.split("| group |")[0]
    assert_golden("stale_retriever_switch.md", text)


def test_each_changed_setting_is_its_own_line_in_the_stale_banner() -> None:
    comparison = compare_to_baseline(
        current=results(
            suite(),
            config_fingerprint="sha256:config02",
            settings={**SETTINGS, "chunking.max_chars": 120, "retrieval.candidates": 80},
        ),
        baseline=baseline(suite(), settings=SETTINGS),
        baseline_path=PATH,
    )
    assert _stale_banner(render_comment(_doc(comparison))) == [
        "> - chunk size (characters) `500` → `120`",
        "> - candidates per query `50` → `80`",
    ]


# --- footnotes that agree with the tables ---------------------------------------------


def test_the_language_footnote_agrees_with_language_rows_that_are_tested_and_gate() -> None:
    comparison = compare_to_baseline(
        current=results(suite(DROPPED)), baseline=baseline(suite()), baseline_path=PATH
    )
    text = render_comment(_doc(comparison, tolerances=Tolerances.every(0.02)))
    # The pt-BR row carries a p-value and fails the gate ...
    assert "| language pt-BR † | 12 | hit@5 | 0.833 | 0.333 | −0.500 ❌ | likely real (p = " in text
    # ... so the footnote must not say language rows are not significance-tested.
    assert LANGUAGE_CAVEAT not in text
    assert (
        "- † A language's row compares this run with the baseline on that language's cases, "
        "and is noise-tested and gated like any group. Differences between languages are "
        "indicative, not significance-tested"
    ) in text


def test_without_a_baseline_the_language_footnote_says_languages_are_not_compared() -> None:
    comparison = compare_to_baseline(current=results(suite()), baseline=None, baseline_path=PATH)
    text = render_comment(_doc(comparison))
    assert f"- † {LANGUAGE_CAVEAT}" in text
    assert any(f"language {lang} †" in text for lang in LANGS)
