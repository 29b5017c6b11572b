"""The capture scored once: one pass of the one scorer over the captured lines,
labelled by the oracle (:mod:`recall_gate.judging.oracle`), the gold ids
checked against the KB as they stream by, then the report — results, or the
verdict against the baseline (:mod:`recall_gate.judging.verdict`) when there is one."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from recall_gate import __version__
from recall_gate.adapters.artifacts import CaptureWatch
from recall_gate.adapters.dataset import card_ids_of
from recall_gate.adapters.query_snapshot import QuerySnapshot
from recall_gate.adapters.results_store import ResultsWriter, read_results
from recall_gate.adapters.scoring import (
    MissedHook,
    RetrievedCards,
    ScoredCapture,
    score_capture,
)
from recall_gate.console import Console
from recall_gate.core.base_judging import (
    CasePlan,
    PullRequestChanges,
)
from recall_gate.core.comparison_json import RunTotals
from recall_gate.core.coverage import kb_coverage, kb_retrieved, retrieved_cards
from recall_gate.core.fingerprint import (
    fingerprint_cards,
    fingerprint_labels,
    fingerprint_queries,
)
from recall_gate.core.integrity import (
    Problem,
    find_problems,
    gold_as_card_ids,
    label_problems,
)
from recall_gate.core.records import (
    Artifact,
    Card,
    Case,
    CaseLabel,
    KbCoverageCounts,
    Provenance,
    Results,
)
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.unwinnable import UnwinnableTally
from recall_gate.errors import GateFailure, InputError
from recall_gate.judging.kb_judging import (
    deleted_translations,
    gold_read_as_cards,
    read_kb_noted,
)
from recall_gate.judging.oracle import (
    new_case_results,
    unique_cases,
)
from recall_gate.judging.outputs import Outputs
from recall_gate.judging.query_traffic import judge_traffic, logged_top_cards
from recall_gate.judging.revision import JudgedSettings
from recall_gate.judging.verdict import pull_request_changes, report_comparison


def _own_results(path: Path) -> Results:
    """The results file this run just wrote, read back: a file it cannot read is
    recall-gate's bug (exit 3), never the user's input (the judge never blames its
    own outputs, nor tells the user to fix them)."""
    try:
        return read_results(path)
    except InputError as exc:
        raise RuntimeError(f"the results file it wrote does not read back: {exc.message}") from None


def score_and_report(
    *,
    artifacts: Iterable[tuple[int, Artifact]],
    cases: Sequence[CaseLabel] | None,
    artifacts_source: str,
    cases_source: str,
    provenance: Callable[[ScoredCapture, CaptureWatch], Provenance],
    settings: JudgedSettings,
    outputs: Outputs,
    console: Console,
    card_ids: frozenset[str] | None = None,
    pull_request: Callable[[], PullRequestChanges | None] | None = None,
    kb_known: bool = True,
    unjudged: Sequence[str] = (),
    self_agreement: SelfAgreement | None = None,
    kb_coverage: KbCoverageCounts | None = None,
    kb_cards: Sequence[Card] | None = None,
    logged: QuerySnapshot | None = None,
) -> int:
    """Score the capture in one pass (the one scorer), then report: results, or
    the comparison with the baseline when there is one.

    Per-case results stream to the ``--json`` file; a comparison needs them,
    so without ``--json`` it reads them back from a temp results file. With
    ``card_ids`` (a known KB) and no cases file, the capture's own gold ids are
    checked as they stream by; an integrity failure or ``--strict`` depth
    refusal comes before any results file is written. ``pull_request`` says,
    once the capture is scored, what a pull request judged at its base changes.
    ``unjudged``: the run's queries that the qrels do not judge, filled as the
    capture streams (their count goes to the results file). ``logged``: the
    logged queries' answers of a capture made just now (else read from beside
    ``artifacts_source``).
    """
    watch = CaptureWatch(
        artifacts_source,
        card_ids=card_ids if cases is None else None,
        self_labelled=cases is None,
        unmapped_paths=not kb_known,
        gold_ids=frozenset(
            g for c in cases or () for g in (*c.must_cite_one_of, *(c.relevant_ids or ()))
        ),
        kb_ids=card_ids,
        groups={c.id: (c.language, c.case_type) for c in cases or ()},
    )
    k = settings.k
    compared = compares(outputs, settings)
    with contextlib.ExitStack() as stack:
        out: Path | None = outputs.json
        if out is None and compared:
            out = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "results.json"
        writer = None if out is None else stack.enter_context(ResultsWriter(out))
        # With the KB's cards at hand, the cards some case retrieves are noted too.
        sink = RetrievedCards(writer) if kb_cards is not None else writer
        unwinnable = UnwinnableTally(k=k)
        scored = score_capture(
            artifacts,
            watch=watch,
            k=k,
            cases=cases,
            artifacts_source=artifacts_source,
            cases_source=cases_source,
            results=sink,
            on_missed=unwinnable_hook(unwinnable),
            fingerprint=cases is None,
            metrics=settings.metrics,
        )
        watch.refuse_unmapped_paths()
        watch.refuse_outside(strict=outputs.strict)
        watch.refuse_untold_languages()
        fail_on_integrity_problems(watch.problems, console)
        refuse_short_when_strict(outputs, short=scored.short_of_k, scored=scored.scored, k=k)
        made = provenance(scored, watch)
        retrieved = None
        if kb_cards is not None and isinstance(sink, RetrievedCards):
            # A card some logged query retrieves is not "never retrieved" either.
            by_queries = logged_top_cards(
                settings, artifacts=Path(artifacts_source), current=logged
            )
            # Logged queries carry no reader's language: their cards are any language's.
            ranked = (
                sink.by_language
                if by_queries is None
                else {
                    **sink.by_language,
                    None: sink.by_language.get(None, set()) | by_queries[1],
                }
            )
            retrieved = kb_retrieved(
                kb_cards,
                retrieved_cards(kb_cards, ranked),
                logged_queries=None if by_queries is None else by_queries[0],
            )
        # What the results file and the document both say of the run, computed once.
        summary: dict[str, Any] = {
            "k": k,
            "provenance": made,
            "aggregates": scored.aggregates,
            "cases_short_of_k": scored.short_of_k,
            "outside_kb": watch.outside_kb(),
            "latency": watch.latency(),
            "failed_cases": tuple(watch.failed),
            "unjudged_queries": len(unjudged),
            "kb_coverage": kb_coverage,
            "kb_retrieved": retrieved,
            "unwinnable": unwinnable.result(),
            "answered_from_other_language": dict(sorted(watch.from_other_language.items())),
        }
        if writer is not None:
            writer.finish(**summary)
        # One document, with or without a baseline: without one to compare with
        # (none is named, none exists), the scorer's counts and its first missed cases.
        current = (
            _own_results(out)
            if compared and out is not None
            else Results(cases=scored.missed, **summary)
        )
        return report_comparison(
            current,
            settings=settings,
            console=console,
            comparison_json=outputs.comparison_json,
            comment_markdown=outputs.comment_markdown,
            full_markdown=outputs.markdown,
            pull_request=pull_request() if pull_request is not None else None,
            traffic=judge_traffic(
                settings, console, artifacts=Path(artifacts_source), current=logged
            )
            if compared
            else None,
            self_agreement=self_agreement,
            totals=None
            if compared
            else RunTotals(
                total=scored.total,
                scored=scored.scored,
                missed=scored.missed_total,
                outcomes=scored.outcomes,
            ),
        )


def unwinnable_hook(tally: UnwinnableTally) -> MissedHook:
    """What tells ``tally``, for each missed case, whether its gold is at any depth
    its capture line holds (the line's ranked card ids, as the watch gave them)."""

    def missed(
        case_id: str,
        gold_ids: Sequence[str],
        relevant_ids: Sequence[str] | None,
        top: Sequence[str],
        ranked: Sequence[str],
    ) -> None:
        tally.add(case_id, labelled={*gold_ids, *(relevant_ids or ())}, top=top, ranked=ranked)

    return missed


def refuse_short_when_strict(outputs: Outputs, *, short: int, scored: int, k: int) -> None:
    if short and outputs.strict:
        raise InputError(
            f"--strict: {short} of {scored} scored case(s) hold fewer than k = {k} distinct "
            "retrieved cards, so their metrics would be computed on a shorter list",
            fix=f"capture at least {k} ids per case (e.g. `recall-gate capture --k {k}`), "
            "or lower --k",
        )


def fail_on_integrity_problems(problems: Sequence[Problem], console: Console) -> None:
    if problems:
        for problem in problems:
            console.stderr.write(f"  {problem}\n")
        raise GateFailure(
            f"dataset integrity failed ({len(problems)} problem(s)); run `recall-gate check`",
            fix="fix the ids listed above",
        )


def compares(outputs: Outputs, settings: JudgedSettings) -> bool:
    """Whether `score` / `run` compare with the baseline: when one is named, the
    profile's file exists, a tolerance asks for one, or a comparison output is
    asked for (then a missing file is reported as "no baseline yet")."""
    return (
        settings.baseline_given
        or settings.baseline_ref is not None
        or settings.baseline.exists()
        or settings.tolerances.active
        or outputs.asks_comparison
    )


def score_labelled(
    outputs: Outputs,
    settings: JudgedSettings,
    console: Console,
    *,
    artifacts: Iterable[tuple[int, Artifact]],
    artifacts_source: str,
    located: Sequence[tuple[str, CaseLabel]] | None,
    cases_source: str,
    judged: Sequence[CaseLabel] | None = None,
    pull_request: Callable[[], PullRequestChanges | None] | None = None,
    unjudged: Sequence[str] = (),
) -> int:
    """Score labelled artifacts; ``located`` is what the integrity check reads,
    ``judged`` (a run judged at its base) the cases that label the verdict,
    ``unjudged`` the run's queries left out for want of a judgment."""
    kb_fingerprint = card_ids = coverage = kb_cards = None
    read = None if settings.kb is None else read_kb_noted(settings.kb, settings.kb_files(), console)
    if read is not None:
        card_ids = card_ids_of(read.cards)
        # Gold ids written as page URLs read as card ids, before anything is fingerprinted.
        if located is not None:
            located, _ = gold_read_as_cards(located, card_ids, console)
        if judged is not None:
            judged = [c for _, c in gold_as_card_ids([("", c) for c in judged], card_ids)[0]]
    labels: list[CaseLabel] | None = unique_cases(located) if located is not None else None
    if judged is not None:
        labels = list(judged)
    if read is not None:
        assert card_ids is not None
        cards = [(e.where, e.card) for e in read.cards]
        kb_cards = [c for _, c in cards]
        kb_fingerprint = fingerprint_cards(c for _, c in cards)
        if labels is not None:
            coverage = kb_coverage([c for _, c in cards], labels).counts
        if located is not None:
            fail_on_integrity_problems(
                find_problems(
                    cards=cards, cases=located, skipped=read.skipped_ids(), card_ids=card_ids
                )
                + deleted_translations(settings, labels or [c for _, c in located], card_ids),
                console,
            )
    elif located is not None:
        fail_on_integrity_problems(label_problems(located), console)
    cases = None if labels is None else [c for c in labels if isinstance(c, Case)]
    queries = (
        None
        if labels is None or cases is None or len(cases) != len(labels)
        else fingerprint_queries((c.id, c.query) for c in cases)
    )
    case_labels = (
        None if labels is None else [c.label() if isinstance(c, Case) else c for c in labels]
    )

    def provenance(scored: ScoredCapture, watch: CaptureWatch) -> Provenance:
        fingerprint = scored.label_fingerprint
        if fingerprint is None:
            assert case_labels is not None
            fingerprint = fingerprint_labels(case_labels)
        return Provenance(
            tool_version=__version__,
            dataset_fingerprint=fingerprint,
            queries_fingerprint=queries,
            kb_fingerprint=kb_fingerprint,
            retriever=watch.retriever,
        )

    return score_and_report(
        artifacts=artifacts,
        cases=case_labels,
        artifacts_source=artifacts_source,
        cases_source=cases_source,
        provenance=provenance,
        settings=settings,
        outputs=outputs,
        console=console,
        card_ids=card_ids,
        pull_request=pull_request,
        kb_known=settings.kb is not None,
        unjudged=unjudged,
        kb_coverage=coverage,
        kb_cards=kb_cards,
    )


def cards_checked(
    settings: JudgedSettings,
    console: Console,
    located: Sequence[tuple[str, Case]],
    plan: CasePlan | None = None,
) -> tuple[list[tuple[str, Card]], frozenset[str], list[tuple[str, Case]], CasePlan | None]:
    """The KB's cards (with where each is defined) and their ids, once every
    case's gold resolves: a typo'd gold id fails before any retriever runs; and
    the cases (and plan) with gold URLs read as card ids (:func:`gold_read_as_cards`)."""
    assert settings.kb is not None
    read = read_kb_noted(settings.kb, settings.kb_files(), console)
    cards = [(e.where, e.card) for e in read.cards]  # drafts and link-only pages are none
    card_ids = card_ids_of(read.cards)
    located, plan = gold_read_as_cards(located, card_ids, console, plan=plan)
    fail_on_integrity_problems(
        find_problems(cards=cards, cases=located, skipped=read.skipped_ids(), card_ids=card_ids)
        + deleted_translations(settings, [c for _, c in located], card_ids),
        console,
    )
    return cards, card_ids, located, plan


def score_fresh_capture(
    artifacts: Sequence[Artifact],
    *,
    judged: Sequence[Case],
    plan: CasePlan | None,
    provenance: Provenance,
    artifacts_source: str,
    settings: JudgedSettings,
    outputs: Outputs,
    console: Console,
    cards: Sequence[Card] | None,
    card_ids: frozenset[str] | None = None,
    self_agreement: SelfAgreement | None = None,
    logged: QuerySnapshot | None = None,
) -> int:
    """A capture made just now (``run``, ``capture``), judged: the lines of the
    judged cases scored, those of the cases a pull request adds reported beside
    the verdict (``logged``: its answers to the query log, when held in memory)."""
    judged_ids = {c.id for c in judged}
    labels = [c.label() for c in judged]
    new = [a for a in artifacts if a.case_id not in judged_ids]
    return score_and_report(
        artifacts=enumerate((a for a in artifacts if a.case_id in judged_ids), start=1),
        cases=labels,
        artifacts_source=artifacts_source,
        cases_source=", ".join(map(str, settings.cases)),
        provenance=lambda _scored, _watch: provenance,
        settings=settings,
        outputs=outputs,
        console=console,
        card_ids=card_ids,
        kb_coverage=None if cards is None else kb_coverage(cards, labels).counts,
        kb_cards=None if cards is None else list(cards),
        pull_request=lambda: pull_request_changes(
            settings,
            console,
            plan=plan,
            cases_at_base=plan is not None,
            added=new_case_results(new, plan.added, k=settings.k) if plan is not None else (),
        ),
        self_agreement=self_agreement,
        logged=logged,
    )
