"""The query log's section of the comment: ONE collapsed section, every user
string (query text, card title) inert, the gate's state in words."""

from __future__ import annotations

import re

from recall_gate.core.logged_query import LoggedQuery
from recall_gate.core.traffic_diff import diff_traffic
from recall_gate.core.traffic_record import TrafficRecord, traffic_record
from recall_gate.report.style import MARKDOWN, TEXT
from recall_gate.report.traffic import traffic_section

HOSTILE = "ping @octocat <img src=x> | `code` #12"


def record(max_moved_share: float | None = None) -> TrafficRecord:
    queries = [LoggedQuery(id="q1", query=HOSTILE, language="en", weight=5)]
    diff = diff_traffic(queries, base={"q1": ["a", "b"]}, current={"q1": ["c", "b"]}, k=2)
    return traffic_record(
        diff,
        titles={"a": "Old <b>title</b> @team", "c": "New | title"},
        max_moved_share=max_moved_share,
    )


def test_the_section_is_one_collapsed_details_block() -> None:
    text = traffic_section(record(), MARKDOWN)
    assert text is not None
    assert text.count("<details>") == 1
    assert text.startswith("<details><summary>Query traffic: 100.0 % of it changed its top 2")
    assert text.rstrip().endswith("</details>")


def test_user_text_in_the_section_is_inert() -> None:
    text = traffic_section(record(), MARKDOWN)
    assert text is not None
    # HTML is backslash-escaped: GitHub shows it as text.
    assert re.search(r"(?<!\\)<(img|b>)", text) is None
    assert "\\<img" in text
    assert "@octocat" not in text  # a zero-width joiner stops the mention
    assert "@team" not in text
    assert "\\| title" in text  # a pipe cannot break the table


def test_no_traffic_diff_no_section() -> None:
    assert traffic_section(None, MARKDOWN) is None


def test_the_gate_is_named_report_only_or_with_its_verdict() -> None:
    assert "Report-only" in (traffic_section(record(), TEXT) or "")
    failing = traffic_section(record(max_moved_share=0.5), MARKDOWN) or ""
    assert "Gate `max_moved_share` = 50.0 %: **fails** at 100.0 %." in failing
