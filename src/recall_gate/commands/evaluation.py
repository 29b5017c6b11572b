"""Evaluation commands: ``check`` (dataset integrity), ``score`` (captured
artifacts) and ``run`` (the built-in runner), and the report they share:
results, or a comparison with the baseline when there is one."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Literal, TypeVar

from recall_gate import __version__
from recall_gate.adapters.artifacts import CaptureWatch, write_artifacts
from recall_gate.adapters.base_revision import load_cases_at, read_at
from recall_gate.adapters.baseline_store import read_baseline_in
from recall_gate.adapters.config import Config
from recall_gate.adapters.dataset import card_ids_of, iter_capture_lines, load_cases
from recall_gate.adapters.files import atomic_write_text
from recall_gate.adapters.journal import refuse_unfinished_capture
from recall_gate.adapters.query_log import load_query_log
from recall_gate.adapters.results_store import ResultsWriter, read_results
from recall_gate.adapters.scoring import RetrievedCards, ScoredCapture, score_capture
from recall_gate.adapters.trec import (
    UNDETERMINED_LANGUAGE,
    JudgedRun,
    detect_qrels_format,
    detect_run_format,
    judgment_labels,
    read_qrels,
    read_trec_run,
    run_artifacts,
)
from recall_gate.commands.arguments import (
    Parser,
    add_baseline_comparison,
    add_baseline_ref,
    add_config,
    add_gate,
    add_no_score,
    add_outputs,
    add_strict,
    positive_int,
    refuse_outputs_without_score,
)
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.commands.gating import exit_for, pull_request_changes, report_comparison
from recall_gate.commands.kb_judging import (
    follow_located,
    new_card_coverage_failure,
    pull_request_kb,
    write_kb_changes,
)
from recall_gate.commands.kb_reading import read_kb_noted
from recall_gate.commands.query_traffic import judge_traffic
from recall_gate.commands.settings import Settings, resolve_settings, write_settings_header
from recall_gate.core.base_judging import (
    CasePlan,
    NewCase,
    PullRequestChanges,
    oracle_from_records,
    plan_cases,
    relabels,
)
from recall_gate.core.capture_line import with_fields
from recall_gate.core.coverage import kb_coverage, kb_retrieved, render_coverage
from recall_gate.core.fingerprint import (
    fingerprint_cards,
    fingerprint_cases,
    fingerprint_labels,
    fingerprint_queries,
    fingerprint_settings,
)
from recall_gate.core.gate import decide
from recall_gate.core.integrity import (
    Problem,
    duplicate_cases,
    find_problems,
    label_problems,
    languages_without_cards,
)
from recall_gate.core.kb_diff import deleted_gold
from recall_gate.core.language import nearest_language
from recall_gate.core.leakage import (
    DUPLICATE_JACCARD,
    LEAK_CONTAINMENT,
    NGRAM,
    find_leaks,
    find_near_duplicates,
)
from recall_gate.core.records import (
    Artifact,
    Card,
    Case,
    CaseLabel,
    KbCoverageCounts,
    Provenance,
    Retriever,
)
from recall_gate.core.self_agreement import SelfAgreement
from recall_gate.core.staleness import flatten_settings
from recall_gate.errors import GateFailure, InputError
from recall_gate.report.results import render_summary

L = TypeVar("L", bound=CaseLabel)


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    check = sub.add_parser("check", help="dataset integrity: every gold id resolves, ids unique")
    add_config(check)
    check.add_argument("--kb", type=Path, metavar="PATH", help="KB directory or file")
    check.add_argument("--cases", type=Path, action="append", metavar="PATH", help="cases file")
    add_baseline_ref(check)
    check.add_argument(
        "--strict",
        action="store_true",
        help="fail (exit 1) on a query copied into a card or on near-duplicate cards "
        "(warnings otherwise); refuse (exit 2) a front-matter key that is no card field "
        "(kept as metadata otherwise)",
    )

    score = sub.add_parser("score", help="score captured artifacts or a TREC run (no store needed)")
    add_config(score)
    score.add_argument("--artifacts", type=Path, metavar="PATH", help="the capture (JSONL)")
    score.add_argument(
        "--cases", type=Path, action="append", metavar="PATH", help="cases file (default: config)"
    )
    ir = score.add_argument_group(
        "TREC / BEIR input (instead of --artifacts / --cases; queries the qrels do not "
        "judge are left out, as trec_eval does)"
    )
    ir.add_argument("--run", type=Path, metavar="PATH", help="a TREC run (or artifacts JSONL)")
    ir.add_argument(
        "--run-format", choices=("trec", "jsonl"), help="the run's format (default: detected)"
    )
    ir.add_argument(
        "--qrels", type=Path, metavar="PATH", help="TREC or BEIR qrels (or cases JSONL)"
    )
    ir.add_argument(
        "--qrels-format",
        choices=("trec", "beir", "jsonl"),
        help="the qrels' format (default: detected)",
    )
    score.add_argument(
        "--kb", type=Path, metavar="PATH", help="check gold ids against this KB (default: config)"
    )
    score.add_argument("--k", type=positive_int, metavar="K")
    add_strict(score)
    add_outputs(score)
    add_gate(score)
    add_baseline_comparison(score)

    run = sub.add_parser("run", help="ingest the KB into Chroma, retrieve every case, score")
    add_config(run, required=True)
    run.add_argument("--k", type=positive_int, metavar="K")
    run.add_argument("--artifacts-out", type=Path, metavar="PATH", help="write the capture here")
    add_no_score(run)
    add_strict(run)
    add_outputs(run)
    add_gate(run)
    add_baseline_comparison(run)

    return {"check": _cmd_check, "score": _cmd_score, "run": _cmd_run}


def unique_cases(located: Sequence[tuple[str, L]]) -> list[L]:
    dupes = duplicate_cases(located)
    if dupes:
        raise InputError(str(dupes[0]), fix="give each case a unique id")
    return [case for _, case in located]


def working_tree_cases(settings: Settings) -> list[tuple[str, Case]]:
    """The cases of the working tree. Judged at a base revision, a cases file
    the pull request deletes is no error: its cases are "removed", and judged."""
    paths = settings.cases
    if settings.base is not None:
        paths = tuple(p for p in paths if p.exists())
        if not paths:
            return []
    return load_cases(paths)


def judged_cases(
    settings: Settings, located: Sequence[tuple[str, Case]]
) -> tuple[list[tuple[str, Case]], CasePlan | None]:
    """The cases to evaluate (with where each is defined), and the plan of a
    run judged at the base revision: the base's cases as the base has them,
    plus the pull request's new ones. Without a base judge, or when the base
    has no cases yet, the working tree's cases and no plan."""
    base = settings.base
    if base is None:
        return list(located), None
    base_located = load_cases_at(base.tree, base.cases or settings.cases)
    if base_located is None:
        return list(located), None
    # A card the pull request renames is judged under its new id (the rename followed).
    diff = pull_request_kb(settings)
    base_located, located = follow_located(base_located, diff), follow_located(located, diff)
    plan = plan_cases(base=unique_cases(base_located), pull_request=unique_cases(located))
    added = {case.id for case in plan.added}
    return [*base_located, *((s, c) for s, c in located if c.id in added)], plan


def new_case_results(
    artifacts: Sequence[Artifact], cases: Sequence[Case] | None, *, k: int
) -> tuple[NewCase, ...]:
    """Hit or miss of each case a pull request adds (reported, not judged);
    ``cases`` None: the capture's lines label themselves."""
    if cases is None:
        return _self_labelled_new_case_results(artifacts, k=k)
    by_id = {a.case_id: a for a in artifacts}
    present = [c for c in cases if c.id in by_id]
    if not present:
        return ()
    scored = score_capture(
        ((n, _unlabelled(by_id[c.id])) for n, c in enumerate(present, start=1)),
        k=k,
        cases=[c.label() for c in present],
        artifacts_source="the new cases",
    )
    missed = {c.case_id for c in scored.missed}
    return tuple(
        NewCase(case_id=c.id, hit=(c.id not in missed) if c.gold_labelled else None)
        for c in present
    )


def _self_labelled_new_case_results(
    artifacts: Sequence[Artifact], *, k: int
) -> tuple[NewCase, ...]:
    if not artifacts:
        return ()
    scored = score_capture(
        enumerate(artifacts, start=1), k=k, cases=None, artifacts_source="the new cases"
    )
    missed = {c.case_id for c in scored.missed}
    return tuple(
        NewCase(case_id=a.case_id, hit=(a.case_id not in missed) if a.must_cite_one_of else None)
        for a in artifacts
    )


_LABEL_FIELDS = ("must_cite_one_of", "relevant_ids", "language", "case_type")


def _unlabelled(artifact: Artifact) -> Artifact:
    """The line without its case fields: the cases that judge it label it."""
    return with_fields(artifact, **dict.fromkeys(_LABEL_FIELDS))


def split_for_plan(
    artifacts: Iterable[tuple[int, Artifact]],
    plan: CasePlan,
    *,
    added: list[Artifact],
    not_captured: list[str],
) -> Iterator[tuple[int, Artifact]]:
    """A capture as the base judges it: the base's cases labelled by the base
    (a line's own fields are the pull request's), the new cases set aside in
    ``added``, and every base case the capture lacks scored as a miss (an
    empty line), its id noted in ``not_captured`` — a case deleted by the pull
    request never leaves the verdict."""
    judged = {case.id for case in plan.judged}
    new = {case.id for case in plan.added}
    seen: set[str] = set()
    last = 0
    for number, artifact in artifacts:
        last = number
        case_id = artifact.case_id
        if case_id in judged:
            seen.add(case_id)
            yield number, _unlabelled(artifact)
        elif case_id in new:
            added.append(artifact)
        else:
            yield number, artifact  # an unknown case: the labeller's error
    for case in plan.judged:
        if case.id not in seen:
            last += 1
            not_captured.append(case.id)
            yield last, Artifact(case_id=case.id, retrieved=())


def base_record_oracle(settings: Settings) -> tuple[tuple[CaseLabel, ...], str] | None:
    """Judged at a base revision with no cases file (a capture that labels
    itself), the base's oracle: the case records of the base's baseline, and
    how the report names them. ``None`` without a base judge, or when the base
    has no baseline (or one without records) yet."""
    base = settings.base
    if base is None:
        return None
    stored = read_baseline_in(base.tree, settings.baseline)
    if stored is None or not stored.baseline.cases:
        return None
    oracle = oracle_from_records(stored.baseline.cases, source=stored.source)
    return oracle, f"the case records of {base.tree.relative(settings.baseline)}"


def split_by_records(
    artifacts: Iterable[tuple[int, Artifact]],
    oracle: Sequence[CaseLabel],
    *,
    added: list[Artifact],
    relabelled: list[str],
    not_captured: list[str],
) -> Iterator[tuple[int, Artifact]]:
    """A capture that labels itself, as the base judges it: each base case
    labelled by its record (a line that states another label or query is noted
    in ``relabelled``), the new cases set aside in ``added``, and every base
    case the capture lacks — a case the pull request deleted — scored as a miss
    (an empty line), its id noted in ``not_captured``."""
    base = {case.id: case for case in oracle}
    seen: set[str] = set()
    last = 0
    for number, artifact in artifacts:
        last = number
        case = base.get(artifact.case_id)
        if case is None:
            added.append(artifact)
            continue
        if artifact.case_id not in seen and relabels(case, artifact):
            relabelled.append(artifact.case_id)
        seen.add(artifact.case_id)
        yield number, _unlabelled(artifact)
    for case in oracle:
        if case.id not in seen:
            last += 1
            not_captured.append(case.id)
            yield last, Artifact(case_id=case.id, retrieved=())


def score_and_report(
    *,
    artifacts: Iterable[tuple[int, Artifact]],
    cases: Sequence[CaseLabel] | None,
    artifacts_source: str,
    cases_source: str,
    provenance: Callable[[ScoredCapture, CaptureWatch], Provenance],
    settings: Settings,
    args: argparse.Namespace,
    console: Console,
    card_ids: frozenset[str] | None = None,
    pull_request: Callable[[], PullRequestChanges | None] | None = None,
    kb_known: bool = True,
    unjudged: Sequence[str] = (),
    self_agreement: SelfAgreement | None = None,
    kb_coverage: KbCoverageCounts | None = None,
    kb_cards: Sequence[Card] | None = None,
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
    capture streams (their count goes to the results file).
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
    compares = _compares(args, settings)
    with contextlib.ExitStack() as stack:
        out: Path | None = args.json
        if out is None and compares:
            out = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "results.json"
        writer = None if out is None else stack.enter_context(ResultsWriter(out))
        # With the KB's cards at hand, the cards some case retrieves are noted too.
        sink = RetrievedCards(writer) if kb_cards is not None else writer
        scored = score_capture(
            artifacts,
            watch=watch,
            k=k,
            cases=cases,
            artifacts_source=artifacts_source,
            cases_source=cases_source,
            results=sink,
            fingerprint=cases is None,
            metrics=settings.metrics,
        )
        watch.refuse_unmapped_paths()
        watch.refuse_outside(strict=args.strict)
        fail_on_integrity_problems(watch.problems, console)
        _refuse_short_when_strict(args, short=scored.short_of_k, scored=scored.scored, k=k)
        made = provenance(scored, watch)
        retrieved = (
            kb_retrieved(kb_cards, sink.ids)
            if kb_cards is not None and isinstance(sink, RetrievedCards)
            else None
        )
        if writer is not None:
            writer.finish(
                k=k,
                provenance=made,
                aggregates=scored.aggregates,
                cases_short_of_k=scored.short_of_k,
                outside_kb=watch.outside_kb(),
                latency=watch.latency(),
                failed_cases=tuple(watch.failed),
                unjudged_queries=len(unjudged),
                kb_coverage=kb_coverage,
                kb_retrieved=retrieved,
            )
        if compares:
            assert out is not None
            # The same report as the PR comment: deltas, flips and the verdict.
            return report_comparison(
                read_results(out),
                settings=settings,
                console=console,
                comparison_json=args.comparison_json,
                comment_markdown=args.comment_markdown,
                full_markdown=args.markdown,
                pull_request=pull_request() if pull_request is not None else None,
                traffic=judge_traffic(settings, console, artifacts=Path(artifacts_source)),
                self_agreement=self_agreement,
            )
    gate = decide(scored.aggregates, floors=settings.floors)

    def report(fmt: Literal["markdown", "text"]) -> str:
        return render_summary(
            k=k,
            aggregates=scored.aggregates,
            total=scored.total,
            scored=scored.scored,
            outcomes=scored.outcomes,
            gate=gate,
            fmt=fmt,
            cases=scored.missed,
            missed_total=scored.missed_total,
            short_of_k=scored.short_of_k,
            gold_checked=made.kb_fingerprint is not None,
            outside_kb=watch.outside_kb(),
            latency=watch.latency(),
            failed_cases=watch.failed,
            kb_coverage=kb_coverage,
            kb_retrieved=retrieved,
        )

    if args.markdown is not None:
        atomic_write_text(args.markdown, report("markdown"))
    write_settings_header(settings, console)
    console.stdout.write(report("text"))
    return exit_for(gate)


def _refuse_translated_ids(cards: Sequence[Card]) -> None:
    """The built-in runner indexes one card per id: a KB whose translations share
    their source page's id (Docusaurus) is refused, not indexed half."""
    languages: dict[str, set[str]] = {}
    for card in cards:
        languages.setdefault(card.id, set()).add(card.language)
    shared = sorted(i for i, langs in languages.items() if len(langs) > 1)
    if shared:
        raise InputError(
            f"the KB holds {len(shared)} card id(s) in more than one language (e.g. "
            f"{shared[0]!r} in {', '.join(sorted(languages[shared[0]]))}): translations that "
            "keep their page's id, which the built-in runner cannot index yet",
            fix="capture your own retriever's results with `recall-gate capture` (translations "
            "are cards there): the built-in runner indexes one language per card id",
        )


def _refuse_short_when_strict(args: argparse.Namespace, *, short: int, scored: int, k: int) -> None:
    if short and args.strict:
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


def _compares(args: argparse.Namespace, settings: Settings) -> bool:
    """Whether `score` / `run` compare with the baseline: when one is named, the
    profile's file exists, a tolerance asks for one, or a comparison output is
    asked for (then a missing file is reported as "no baseline yet")."""
    return (
        settings.baseline_given
        or settings.baseline_ref is not None
        or settings.baseline.exists()
        or settings.tolerances.active
        or getattr(args, "comparison_json", None) is not None
        or getattr(args, "comment_markdown", None) is not None
    )


def _cmd_check(args: argparse.Namespace, console: Console) -> int:
    settings = resolve_settings(args, console, judged=True)
    kb, case_paths = settings.kb, settings.cases
    if kb is None or not case_paths:
        raise InputError(
            "check needs a KB and cases",
            fix="pass --kb PATH and --cases PATH, or set `kb` and `cases` in recall-gate.yaml",
        )
    files = settings.kb_files()
    if args.strict and files.strict_front_matter is None:
        files = dataclasses.replace(files, strict_front_matter="--strict")
    read = read_kb_noted(kb, files, console)
    cards = [(e.where, e.card) for e in read.cards]
    written = working_tree_cases(settings) if settings.base is not None else load_cases(case_paths)
    # Judged at a base revision: the base's cases too (as the base has them: they
    # judge the pull request), each rename the pull request makes followed, each
    # deleted card still cited named with its cases.
    diff = pull_request_kb(settings)
    cases = follow_located(written, diff)
    kb_problems = []
    if diff is not None and settings.base is not None and diff.of("deleted"):
        judged, _ = judged_cases(settings, written)
        by_id = {c.id: c for _, c in (*written, *judged)}
        kb_problems = deleted_gold(diff, list(by_id.values()), ref=settings.base.ref)
    config = settings.config
    # The query log, validated like the cases (exit 2 listing every bad line).
    logged = load_query_log(config.queries) if config and config.queries else None
    _warn_case_languages([c for _, c in cards], [c for _, c in cases], console)
    gone = frozenset(c.card_id for c in diff.of("deleted")) if diff is not None else frozenset()
    problems = kb_problems + find_problems(
        cards=cards,
        cases=cases,
        reported=gone,
        skipped=read.skipped_ids(),
        card_ids=card_ids_of(read.cards),
    )
    if problems:
        console.stderr.write(f"recall-gate check: {len(problems)} integrity problem(s)\n")
        for problem in problems:
            console.stderr.write(f"  {problem}\n")
        raise GateFailure(
            "dataset integrity failed: a labelling error must not pass for a retrieval failure",
            fix="fix the ids listed above",
        )
    _report_leakage([c for _, c in cards], cases, console, strict=args.strict)
    gold = sum(1 for _, c in cases if c.gold_labelled)
    console.stdout.write(
        f"recall-gate check: ok — {len(cards)} cards, {len(cases)} cases "
        f"({gold} gold-labelled), every gold and relevant id resolves"
        + (f"; query log: {len(logged):,} queries" if logged is not None else "")
        + "\n"
    )
    coverage = kb_coverage([c for _, c in cards], [c for _, c in cases])
    console.stdout.write(f"recall-gate check: {render_coverage(coverage)}\n")
    if diff is not None and settings.base is not None:
        write_kb_changes(
            diff, ref=settings.base.ref, cases=[c for _, c in written], console=console
        )
        floor = settings.config.gate.min_new_card_coverage if settings.config else None
        failure = new_card_coverage_failure(diff, floor=floor, cases=[c for _, c in written])
        if failure is not None:
            raise failure
    return 0


def _report_leakage(
    cards: Sequence[Card], cases: Sequence[tuple[str, Case]], console: Console, *, strict: bool
) -> None:
    """Queries copied into cards and near-duplicate cards: warnings, or with
    ``strict`` a failed check (see :mod:`recall_gate.core.leakage`)."""
    leaks = find_leaks(cards, cases)
    twins = find_near_duplicates(cards)
    level = "error" if strict else "warning"
    if leaks:
        console.stderr.write(
            f"recall-gate check: {level}: {len(leaks)} case(s) whose query is copied into a "
            f"card (≥ {LEAK_CONTAINMENT:.0%} of its {NGRAM}-word sequences): they measure "
            "string matching, not retrieval\n"
        )
        console.stderr.writelines(f"  {leak}\n" for leak in leaks)
    if twins:
        console.stderr.write(
            f"recall-gate check: {level}: {len(twins)} pair(s) of near-duplicate cards "
            f"(≥ {DUPLICATE_JACCARD:.0%} of their {NGRAM}-word sequences shared)\n"
        )
        console.stderr.writelines(f"  {pair}\n" for pair in twins)
    if strict and (leaks or twins):
        raise GateFailure(
            f"--strict: {len(leaks)} leaked case(s), {len(twins)} near-duplicate card pair(s)",
            fix="rewrite the leaked queries in a user's words (or drop the copied text from the "
            "card), and merge or tell apart the near-duplicate cards",
        )


def _cmd_score(args: argparse.Namespace, console: Console) -> int:
    settings = resolve_settings(args, console, judged=True)
    if args.qrels is not None or args.run is not None:
        return _score_run(args, settings, console)
    if args.artifacts is None:
        raise InputError(
            "score needs a capture",
            fix="pass --artifacts PATH (a capture JSONL), or --run PATH --qrels PATH "
            "(a TREC run and its qrels)",
        )
    refuse_unfinished_capture(args.artifacts)
    case_paths = settings.cases
    located: list[tuple[str, Case]] | None = None
    plan = None
    if case_paths:
        located, plan = judged_cases(settings, working_tree_cases(settings))
    artifacts: Iterable[tuple[int, Artifact]] = iter_capture_lines(args.artifacts)
    added: list[Artifact] = []
    not_captured: list[str] = []
    relabelled: list[str] = []
    records = None if case_paths else base_record_oracle(settings)
    if plan is not None:
        artifacts = split_for_plan(artifacts, plan, added=added, not_captured=not_captured)
    elif records is not None:
        artifacts = split_by_records(
            artifacts, records[0], added=added, relabelled=relabelled, not_captured=not_captured
        )

    def pull_request() -> PullRequestChanges | None:
        if records is not None:
            return pull_request_changes(
                settings,
                console,
                added=new_case_results(added, None, k=settings.k),
                removed=tuple(not_captured),
                relabelled=tuple(relabelled),
                not_captured=tuple(not_captured),
                oracle=records[1],
            )
        if plan is None:
            return pull_request_changes(settings, console, cases_at_base=not case_paths)
        return pull_request_changes(
            settings,
            console,
            plan=plan,
            added=new_case_results(added, plan.added, k=settings.k),
            not_captured=tuple(not_captured),
        )

    return _score_labelled(
        args,
        settings,
        console,
        artifacts=artifacts,
        artifacts_source=str(args.artifacts),
        located=located,
        judged=plan.judged if plan is not None else records[0] if records is not None else None,
        cases_source=", ".join(map(str, case_paths))
        if case_paths
        else records[1]
        if records is not None
        else "the cases file",
        pull_request=pull_request,
    )


def _score_run(args: argparse.Namespace, settings: Settings, console: Console) -> int:
    """``score --run --qrels``: a TREC run (or a capture) judged by qrels (or cases),
    the queries the qrels do not judge left out, as trec_eval does."""
    if args.run is not None and args.artifacts is not None:
        raise InputError(
            "score takes --run or --artifacts, not both", fix="pass the capture once, as --run"
        )
    if args.qrels is not None and args.cases:
        raise InputError(
            "score takes --qrels or --cases, not both", fix="pass the judgments once, as --qrels"
        )
    run_path: Path | None = args.run if args.run is not None else args.artifacts
    if run_path is None or args.qrels is None:
        raise InputError(
            "score --run needs --qrels, and --qrels needs --run",
            fix="pass --run PATH (a TREC run, or artifacts JSONL) and --qrels PATH "
            "(TREC or BEIR qrels, or cases)",
        )
    config = settings.config
    language = (config.default_language if config else None) or UNDETERMINED_LANGUAGE

    def read_judgments(path: Path, shown: str) -> tuple[list[tuple[str, CaseLabel]], bool]:
        """The qrels' labels (with where each is defined), and whether any is graded."""
        qrels_format = args.qrels_format or detect_qrels_format(path)
        if qrels_format == "jsonl":
            return [(s.replace(str(path), shown), c) for s, c in load_cases([path])], False
        judgments = read_qrels(path, qrels_format)
        return [
            (f"{shown} (query {label.id})", label)
            for label in judgment_labels(judgments, language=language)
        ], judgments.graded

    located: list[tuple[str, CaseLabel]]
    qrels_source = str(args.qrels)
    base = settings.base
    # In a pull request the qrels are the oracle, like cases: the base's version judges.
    at_base = read_at(base.tree, args.qrels, read_judgments) if base is not None else None
    if base is not None and at_base is not None:
        located, graded = at_base
        mine, _ = read_judgments(args.qrels, qrels_source) if args.qrels.is_file() else ([], False)
        if {c.id: c for _, c in mine} != {c.id: c for _, c in located}:
            console.stderr.write(
                f"recall-gate: this pull request changes {display_path(args.qrels, console)}: "
                "it is judged by the "
                f"base's version at {base.ref}; the change applies after merge\n"
            )
    else:
        located, graded = read_judgments(args.qrels, qrels_source)
    if graded:
        console.stderr.write(
            f"recall-gate: note: {args.qrels} grades some documents above 1; every grade "
            "above 0 counts as relevant, and nDCG uses binary gains (trec_eval's ndcg_cut "
            "uses the grades as gains)\n"
        )
    run_format = args.run_format or (
        detect_run_format(run_path) if args.run is not None else "jsonl"
    )
    if run_format == "jsonl":
        refuse_unfinished_capture(run_path)
    artifacts = (
        iter_capture_lines(run_path)
        if run_format == "jsonl"
        else run_artifacts(read_trec_run(run_path))
    )
    judged = JudgedRun([label for _, label in located])
    code = _score_labelled(
        args,
        settings,
        console,
        artifacts=judged.filter(artifacts),
        artifacts_source=str(run_path),
        located=located,
        cases_source=str(args.qrels),
        unjudged=judged.unjudged,
    )
    run_name, qrels_name = display_path(run_path, console), display_path(args.qrels, console)
    _note_queries(
        console,
        judged.unjudged,
        one=f"of {run_name} has no judgment in {qrels_name}: left out",
        many=f"of {run_name} have no judgment in {qrels_name}: left out",
    )
    _note_queries(
        console,
        judged.unretrieved,
        one=f"judged in {qrels_name} has no line in {run_name}: scored as an empty ranking",
        many=f"judged in {qrels_name} have no line in {run_name}: scored as empty rankings",
    )
    return code


def _note_queries(console: Console, ids: Sequence[str], *, one: str, many: str) -> None:
    if ids:
        shown = ", ".join(ids[:5]) + (" …" if len(ids) > 5 else "")
        what = f"1 query {one}" if len(ids) == 1 else f"{len(ids)} queries {many}"
        console.stderr.write(f"recall-gate: {what} ({shown})\n")


def _score_labelled(
    args: argparse.Namespace,
    settings: Settings,
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
    labels: list[CaseLabel] | None = unique_cases(located) if located is not None else None
    if judged is not None:
        labels = list(judged)
    kb_fingerprint = card_ids = coverage = kb_cards = None
    if settings.kb is not None:
        read = read_kb_noted(settings.kb, settings.kb_files(), console)
        cards = [(e.where, e.card) for e in read.cards]
        kb_cards = [c for _, c in cards]
        kb_fingerprint = fingerprint_cards(c for _, c in cards)
        card_ids = card_ids_of(read.cards)
        if labels is not None:
            coverage = kb_coverage([c for _, c in cards], labels).counts
        if located is not None:
            fail_on_integrity_problems(
                find_problems(
                    cards=cards,
                    cases=located,
                    skipped=read.skipped_ids(),
                    card_ids=card_ids_of(read.cards),
                ),
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
        args=args,
        console=console,
        card_ids=card_ids,
        pull_request=pull_request,
        kb_known=settings.kb is not None,
        unjudged=unjudged,
        kb_coverage=coverage,
        kb_cards=kb_cards,
    )


def _warn_case_languages(cards: Sequence[Card], cases: Sequence[Case], console: Console) -> None:
    """A case language no card is written in: say so, and name the nearest card
    language (``pt-BR`` cases, ``pt`` cards) — a label mismatch more often than not."""
    card_languages = sorted({card.language for card in cards})
    for language, n in languages_without_cards(cards, cases).items():
        nearest = nearest_language(language, card_languages)
        plural = "s" if n != 1 else ""
        if nearest is not None:
            console.stderr.write(
                f"recall-gate: warning: {n} {language} case{plural}, no {language} card: the "
                f"nearest is {nearest} ({language} cases, {nearest} cards). If they are one "
                f"language, label them alike: `language:` in the cards' front matter, a "
                f"`languages:` folder map in recall-gate.yaml, or the cases' `language`\n"
            )
        else:
            console.stderr.write(
                f"recall-gate: warning: {n} {language} case{plural}, and no card in {language} "
                f"or a related language (the cards are in {', '.join(card_languages)}): "
                "cross-language retrieval, or a mislabelled case?\n"
            )


def _warn_languages_without_cards(
    cards: Sequence[Card], cases: Sequence[Case], console: Console
) -> None:
    missing = languages_without_cards(cards, cases)
    if missing:
        total = sum(missing.values())
        listed = ", ".join(
            f"{lang} ({n} case{'s' if n != 1 else ''})" for lang, n in missing.items()
        )
        console.stderr.write(
            f"recall-gate: warning: retrieval.same_language is on but no card is in {listed}: "
            f"those {total} case(s) search no card and score as misses "
            "(add cards in that language, fix the case's language, or turn same_language off)\n"
        )


def _builtin_retriever(config: Config, embedder_id: str) -> Retriever:
    """The built-in runner as a capture's retriever (its settings are in the config fingerprint)."""
    return Retriever(
        adapter="builtin",
        name="recall_gate.runner",
        params={
            "mode": config.retrieval.mode,
            "embedder": embedder_id,
            "reranker": config.reranker.model if config.reranker.enabled else None,
        },
    )


def _cmd_run(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.runner import run_pipeline  # heavy: torch, chromadb

    settings = resolve_settings(args, console, config_required=True, judged=True)
    config = settings.config
    assert config is not None
    if config.kb is None or not config.cases:
        raise InputError(
            "the config sets no `kb` or no `cases`",
            fix="set `kb:` (KB directory) and `cases:` (cases file or directory) in the config",
        )
    if args.no_score and args.artifacts_out is None:
        raise InputError(
            "run --no-score writes only the capture, and --artifacts-out names no file for it",
            fix="add --artifacts-out PATH (the judge scores that file with `recall-gate score`)",
        )
    refuse_outputs_without_score(args)
    read = read_kb_noted(config.kb, settings.kb_files(), console)
    cards = [(e.where, e.card) for e in read.cards]  # drafts and link-only pages are none
    located, plan = judged_cases(settings, working_tree_cases(settings))
    fail_on_integrity_problems(
        find_problems(
            cards=cards, cases=located, skipped=read.skipped_ids(), card_ids=card_ids_of(read.cards)
        ),
        console,
    )
    _refuse_translated_ids([c for _, c in cards])
    cases = [case for _, case in located]
    judged = list(plan.judged) if plan is not None else cases
    if config.retrieval.same_language:
        _warn_languages_without_cards([c for _, c in cards], cases, console)
    progress = console.stderr.isatty() and not console.environ.get("CI")
    log = lambda line: console.stderr.write(f"recall-gate: {line}\n")  # noqa: E731
    captured = run_pipeline(config, [c for _, c in cards], cases, progress=progress, log=log)
    retriever = _builtin_retriever(config, captured.embedder_id)
    if args.artifacts_out is not None:
        write_artifacts(args.artifacts_out, captured.artifacts, retriever=retriever)
    if args.no_score:
        return 0  # the capture job of a two-job PR check: the judge job scores it
    judged_ids = {c.id for c in judged}
    artifacts = [a for a in captured.artifacts if a.case_id in judged_ids]
    new = [a for a in captured.artifacts if a.case_id not in judged_ids]
    provenance = Provenance(
        tool_version=__version__,
        dataset_fingerprint=fingerprint_cases(judged),
        queries_fingerprint=fingerprint_queries((c.id, c.query) for c in judged),
        kb_fingerprint=fingerprint_cards(c for _, c in cards),
        config_fingerprint=fingerprint_settings(config.retrieval_fingerprint_payload()),
        embedder=captured.embedder_id,
        retrieval_mode=config.retrieval.mode + ("+rerank" if config.reranker.enabled else ""),
        settings={
            **flatten_settings(config.retrieval_fingerprint_payload()),
            "kb.cards": len(cards),
        },
        retriever=retriever,
    )
    return score_and_report(
        artifacts=enumerate(artifacts, start=1),
        cases=[c.label() for c in judged],
        artifacts_source="the capture",
        cases_source=", ".join(map(str, config.cases)),
        provenance=lambda _scored, _watch: provenance,
        settings=settings,
        args=args,
        console=console,
        kb_coverage=kb_coverage([c for _, c in cards], judged).counts,
        kb_cards=[c for _, c in cards],
        pull_request=lambda: pull_request_changes(
            settings,
            console,
            plan=plan,
            cases_at_base=plan is not None,
            added=new_case_results(new, plan.added, k=settings.k) if plan is not None else (),
        ),
    )
