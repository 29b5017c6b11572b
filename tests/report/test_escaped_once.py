"""Untrusted text is escaped exactly once on every surface.

One hostile string — a table pipe, backticks, an HTML tag, an @mention, a
workflow command, a line break, a zero-width joiner and an emoji — is pushed
through every field a pull request or its capture controls (case id, query,
card id and title, retrieved id, the capture's error message, config names and
values) into every surface of one judged document: the PR comment, the job
summary, the terminal text, the annotations and the comparison JSON. Each
surface must hold the form its own escaping gives — once — and no form of it
escaped twice (``\\\\\\<``, or the joiner recall-gate puts after ``@`` turned into
U+FFFD by a second pass).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import factories
from factories import LANGS, case
from recall_gate.adapters.capture_folder import ERROR_FILE, capture_file_of
from recall_gate.core.compare import compare_to_baseline
from recall_gate.core.comparison_json import comparison_document
from recall_gate.core.comparison_records import (
    CardChangeRecord,
    ComparisonDocument,
    KbChangesRecord,
    NewCaseRecord,
    PullRequestRecord,
    SettingChangeRecord,
)
from recall_gate.core.evaluate import score_case
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.github_limits import COMMENT_BUDGET
from recall_gate.core.metrics import HIT
from recall_gate.core.records import CaseLabel, CaseResult
from recall_gate.errors import CaseFailed, InputError
from recall_gate.report.actions import comparison_annotations
from recall_gate.report.comparison import render_comment, render_comparison_text
from recall_gate.report.error import parse_error_log, render_error_comment
from recall_gate.report.markup import escape_markdown, plain_text

HOSTILE = "a|b `c` <script>x</script> @octocat ::error::boom\nnext \u200d🎉 #1"

# What a second escaping pass leaves behind, whatever the field.
TWICE = (
    escape_markdown(escape_markdown("|")),  # \\\|
    escape_markdown(escape_markdown("<")),  # \\\<
    escape_markdown(escape_markdown("`")),  # \\\`
    "@\ufffd",  # the joiner after @ made visible by a second pass
)


def _suite() -> list[CaseResult]:
    return [case(f"{LANGS[i % 3]}-{i:03d}", (i % 4) + 1, language=LANGS[i % 3]) for i in range(30)]


def _hostile_case(*, hit: bool) -> CaseResult:
    """A case whose id, query, gold card and retrieved id are all the hostile string."""
    label = CaseLabel(id=HOSTILE, language="en", case_type="golden", must_cite_one_of=(HOSTILE,))
    ranking = [HOSTILE if hit else HOSTILE + "-other", *(f"noise-{i}" for i in range(4))]
    scored = score_case(label, ranking, k=factories.K)
    return scored.model_copy(update={"query": HOSTILE})


@pytest.fixture(scope="module")
def document() -> ComparisonDocument:
    base = [*_suite(), _hostile_case(hit=True)]
    current = [*_suite(), _hostile_case(hit=False)]
    comparison = compare_to_baseline(
        current=factories.results(current),
        baseline=factories.baseline_of(base, reason=HOSTILE),
        baseline_path="baselines/default.json",
    )
    verdict = judge_comparison(
        comparison, floors=Floors({HIT: 0.99}), tolerances=Tolerances.every(0.0)
    )
    doc = comparison_document(comparison, verdict, profile="default")
    pull_request = PullRequestRecord(
        ref="main",
        config=HOSTILE,
        config_at_base=True,
        cases_at_base=True,
        gate=(SettingChangeRecord(setting="k", label="k", baseline=HOSTILE, current="5"),),
        added=(NewCaseRecord(case_id=HOSTILE, hit=True),),
        removed=(HOSTILE,),
        relabelled=(),
        not_captured=(HOSTILE,),
        config_after_merge=HOSTILE,
        kb=KbChangesRecord(
            cards=(
                CardChangeRecord(
                    kind="added",
                    card_id=HOSTILE,
                    base_id=None,
                    path=HOSTILE,
                    title=HOSTILE,
                    language="en",
                    text=True,
                    cases=(HOSTILE,),
                ),
            ),
            on_changed=(),
            deltas=(),
        ),
    )
    return doc.model_copy(update={"pull_request": pull_request})


def _markdown_holds_it_once(surface: str) -> None:
    assert escape_markdown(HOSTILE) in surface
    for residue in TWICE:
        assert residue not in surface, residue
    # Nothing of it is live: no tag, no code span, no mention, no line of its own.
    assert "<script" not in surface.replace("\\<script", "")
    assert "@octocat" not in surface
    assert "\n::error::" not in surface


@pytest.mark.parametrize("budget", [None, COMMENT_BUDGET], ids=["job summary", "comment"])
def test_the_markdown_surfaces_hold_each_field_escaped_once(
    document: ComparisonDocument, budget: int | None
) -> None:
    surface = render_comment(document, max_chars=budget)
    _markdown_holds_it_once(surface)
    shown = escape_markdown(HOSTILE)
    # The banner of the cases the pull request adds (escaped twice before).
    assert f"adds 1 case(s)**, evaluated and reported, judged after merge — hit: {shown}" in (
        surface
    )
    assert f"score as misses: {shown}" in surface  # not captured


def test_the_terminal_text_holds_each_field_as_plain_text(document: ComparisonDocument) -> None:
    surface = render_comparison_text(document)
    assert plain_text(HOSTILE) in surface
    assert f"hit: {plain_text(HOSTILE)}" in surface
    # No Markdown escape reaches a terminal, and no line starts a workflow command.
    assert escape_markdown(HOSTILE) not in surface
    assert "\\<script" not in surface
    assert not any(line.lstrip().startswith("::") for line in surface.splitlines())


def test_the_annotations_hold_user_text_as_plain_text(document: ComparisonDocument) -> None:
    notes = comparison_annotations(document)
    assert notes
    for note in notes:
        for residue in ("\\<", "\\|", "\\`", "@\u200d", "\ufffd\ufffd"):
            assert residue not in note.message, (residue, note.message)
    assert any(plain_text(HOSTILE) in note.message for note in notes), [n.message for n in notes]


def test_the_comparison_json_holds_each_field_as_written(document: ComparisonDocument) -> None:
    data = json.loads(document.model_dump_json())
    pull_request = data["pull_request"]
    assert pull_request["added"][0]["case_id"] == HOSTILE
    assert pull_request["kb"]["cards"][0]["title"] == HOSTILE
    assert pull_request["config"] == HOSTILE
    text = document.model_dump_json()
    assert escape_markdown(HOSTILE) not in text
    assert json.dumps(escape_markdown(HOSTILE))[1:-1] not in text


def test_the_capture_error_reaches_the_comment_escaped_once(tmp_path: Path) -> None:
    from recall_gate.adapters.capture_folder import write_capture_error

    handed = tmp_path / "capture"
    handed.mkdir()
    failure = CaseFailed("x", fix="y", case_id=HOSTILE, failure=f"PipelineRuntimeError: {HOSTILE}")
    write_capture_error(handed / ERROR_FILE, failure)
    with pytest.raises(InputError) as refused:
        capture_file_of(handed)
    one_line = " ".join(HOSTILE.split())
    message = refused.value.message
    assert message == (f"the capture failed on case {one_line}: PipelineRuntimeError: {one_line}")
    comment = render_error_comment(
        parse_error_log(f"recall-gate: error: {message}\n", what="the capture"),
        profile="default",
        what="the capture",
    )
    assert f"> **{escape_markdown(message)}**" in comment
    for residue in TWICE:
        assert residue not in comment, residue
