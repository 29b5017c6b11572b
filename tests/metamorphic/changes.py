"""The planted changes: what a pull request does to the base (tests/metamorphic/pairs.py).

``WORSE``: a change that makes retrieval worse in a way the gate promises to see.
``NOOP``: a change that leaves every card of every top k where it was.
Each is one :class:`Change`, named after what it plants; the test ids are the names.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from cli_runner import run_cli

from .pairs import (
    CARDS_PER_LANGUAGE,
    DEPTH,
    HIT_FLOOR,
    READER_LANGUAGE_FLOOR,
    SITE,
    Capture,
    Card,
    Doc,
    Form,
    Judged,
    K,
    World,
    capture_job,
    judge,
    open_pull_request,
    write_capture,
    write_cases,
)

__all__ = ["NOOP", "REFUSED", "WORSE", "Change", "install_retriever", "judge_pair"]

REFUSED = "refused"


@dataclass(frozen=True)
class Change:
    """One planted change: the pull request's capture and, optionally, its commit."""

    capture: Callable[[World], Capture]
    edit: Callable[[World, Path], None] | None = None
    layout: str = "site"
    # The capture job runs the pull request's retriever (`recall-gate capture`),
    # which answers what ``capture`` holds (no logged query when it holds none),
    # instead of handing over a capture written here.
    captured_by_the_pr: bool = False
    # How many unanswered cases and logged queries the capture job may record.
    max_failures: int = 1000
    # A worse change: the gate that must catch it (a kind of the comparison's
    # `gates`), or REFUSED: the judge must refuse the capture (exit 2).
    caught_by: str | None = None


def _cases_of(world: World, language: str) -> list[str]:
    return [c["id"] for c in world.cases if c["language"] == language]


def _rankings(world: World, change: Callable[[str, tuple[Doc, ...]], tuple[Doc, ...]]) -> Capture:
    base = world.capture
    return replace(base, rankings={c: change(c, r) for c, r in base.rankings.items()})


def _in(language: str, case_id: str) -> bool:
    return case_id.startswith(f"{language}-")


def _english_elsewhere(world: World, case_id: str) -> tuple[Card, ...]:
    """English pages of topics other than the case's (no page sharing its gold's id):
    what a retriever answers once the case's language's pages left its index."""
    topic = world.gold(case_id)[1]
    others = [t for t in range(CARDS_PER_LANGUAGE) if t != topic]
    start = topic % len(others)
    return tuple(("en", t) for t in (others[start:] + others[:start])[:DEPTH])


def _dropped(world: World, language: str) -> Capture:
    return _rankings(world, lambda c, r: _english_elsewhere(world, c) if _in(language, c) else r)


def language_pages_dropped(world: World) -> Capture:
    """The Chinese pages are gone from the Chinese cases' top k (and below it)."""
    return _dropped(world, "zh")


def snapshot_deleted(world: World) -> Capture:
    return replace(world.capture, logged=None)


def logged_queries_moved(world: World) -> Capture:
    """Every logged query of the first half of the log (most of the traffic) gets
    other cards in its top k."""
    logged = world.capture.logged or {}

    def moved(ranking: tuple[Card, ...]) -> tuple[Card, ...]:
        cards = world.layout.cards(ranking[0][0])
        return tuple(cards[(cards.index(c) + 7) % len(cards)] for c in ranking)

    return replace(
        world.capture, logged={q: moved(r) if q < "q15" else r for q, r in logged.items()}
    )


def _hitting(world: World, language: str) -> list[str]:
    return [c for c in _cases_of(world, language) if world.hits(c)]


def cases_deleted_from_capture(world: World) -> Capture:
    gone = set(_hitting(world, "es"))
    return replace(world.capture, order=tuple(c for c in world.capture.order if c not in gone))


def delete_cases_from_cases_file(world: World, repo: Path) -> None:
    gone = set(_hitting(world, "es"))
    write_cases(repo, [c for c in world.cases if c["id"] not in gone])


def gold_moved_below_k(world: World) -> Capture:
    def below(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        gold = world.gold(case_id)
        if gold not in ranking[:K]:
            return ranking
        docs = [d for d in ranking if d != gold]
        return (*docs[:K], gold, *docs[K:])

    return _rankings(world, below)


def ids_unmapped(world: World) -> Capture:
    def unmapped(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if not _in("es", case_id):
            return ranking
        return tuple(f"es-legacy-{d[1]:02d}" if isinstance(d, tuple) else d for d in ranking)

    return _rankings(world, unmapped)


def _edit_config(repo: Path, old: str, new: str) -> None:
    path = repo / "recall-gate.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def loosen_the_gate(world: World, repo: Path) -> None:
    _edit_config(
        repo,
        "  max_regression: 0.02\n  min_group_n: 10\n  max_moved_share: 0.2\n",
        "  max_regression: 1\n  min_group_n: 1000\n",
    )


def delete_the_baseline(world: World, repo: Path) -> None:
    for path in (repo / "baselines").iterdir():
        path.unlink()


def _renamed(case_id: str) -> str:
    return f"{case_id}-v2" if _in("zh", case_id) else case_id


def rename_cases(world: World, repo: Path) -> None:
    write_cases(repo, [{**c, "id": _renamed(c["id"])} for c in world.cases])


def renamed_and_regressed(world: World) -> Capture:
    dropped = language_pages_dropped(world)
    return replace(
        dropped,
        rankings={_renamed(c): r for c, r in dropped.rankings.items()},
        order=tuple(_renamed(c) for c in dropped.order),
    )


def gold_at_k_plus_1_with_the_top_score(world: World) -> Capture:
    """Gold moved below the cut, and given the highest score of its list: a rank is
    the order of the list, never the score."""
    moved = gold_moved_below_k(world)
    scores = {
        c: tuple(1.0 if d == world.gold(c) else 0.5 - n / 100 for n, d in enumerate(r))
        for c, r in moved.rankings.items()
    }
    return replace(moved, scores=scores)


def lines_claim_other_labels(world: World) -> Capture:
    """The Chinese cases lose their gold, and their lines claim as gold what they got."""
    dropped = language_pages_dropped(world)
    claims = {
        c: {"must_cite_one_of": [world.layout.card_id(_english_elsewhere(world, c)[0])]}
        for c in dropped.rankings
        if _in("zh", c)
    }
    return replace(dropped, extra=claims)


def answered_twice(world: World) -> Capture:
    """The Chinese and Spanish cases that hit are written twice, once regressed: the
    regressed line first for Chinese, last for Spanish. Whichever line a judge
    keeps, one language regressed; only "the better of the two" passes."""
    dropped = language_pages_dropped(world)
    es_dropped = _dropped(world, "es")
    rankings = dict(world.capture.rankings)
    doubled: dict[str, tuple[Doc, ...]] = {}
    for case_id in _hitting(world, "zh"):
        doubled[case_id] = dropped.rankings[case_id]
    for case_id in _hitting(world, "es"):
        doubled[case_id] = world.capture.rankings[case_id]
        rankings[case_id] = es_dropped.rankings[case_id]
    return replace(world.capture, rankings=rankings, doubled=doubled)


def lines_claim_no_gold(world: World) -> Capture:
    """The Chinese cases lose their gold, and their lines claim they are cases
    without gold (``no_match``), which no metric scores."""
    dropped = language_pages_dropped(world)
    claims = {
        c: {"case_type": "no_match", "must_cite_one_of": []}
        for c in dropped.rankings
        if _in("zh", c)
    }
    return replace(dropped, extra=claims)


def cases_failed_in_capture(world: World) -> Capture:
    """The Spanish cases came back as failures the capture recorded (a flaky
    endpoint under ``capture.max_failures``)."""
    failed = {c: {"error": "the retriever raised TimeoutError"} for c in _cases_of(world, "es")}
    rankings = {c: (() if c in failed else r) for c, r in world.capture.rankings.items()}
    return replace(world.capture, rankings=rankings, extra=failed)


def add_uncited_pages(world: World, repo: Path) -> None:
    """Six new English pages no case cites (gate.min_new_card_coverage is 0.5)."""
    for n in range(6):
        path = repo / world.layout.path(("en", 30 + n))
        path.write_text(f"---\ntitle: New {n}\n---\n\nA new page.\n", encoding="utf-8")


def add_a_page_and_its_case(world: World, repo: Path) -> None:
    """One new English page, and a new case citing it (judged after merge)."""
    add_uncited_pages(world, repo)
    for n in range(1, 6):
        (repo / world.layout.path(("en", 30 + n))).unlink()
    case = {**world.cases[0], "id": "en-new", "query": "what is new?"}
    case["must_cite_one_of"] = [world.layout.card_id(("en", 30))]
    write_cases(repo, [*world.cases, case])


def answered_with_the_new_case(world: World) -> Capture:
    rankings = {
        **world.capture.rankings,
        "en-new": (("en", 30), *world.capture.rankings["en-00"][1:]),
    }
    return replace(world.capture, rankings=rankings, order=(*world.capture.order, "en-new"))


def add_uncited_pages_and_unset_the_gate(world: World, repo: Path) -> None:
    add_uncited_pages(world, repo)
    _edit_config(repo, "  min_new_card_coverage: 0.5\n", "")


def delete_config_cases_and_baseline(world: World, repo: Path) -> None:
    for name in ("recall-gate.yaml", "cases.jsonl", "queries.jsonl"):
        (repo / name).unlink()
    for path in (repo / "baselines").iterdir():
        path.unlink()


def answered_in_english(world: World, *, form: Form = "path") -> Capture:
    """The Chinese and Spanish cases get the English page of each card they got."""

    def english(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if _in("en", case_id):
            return ranking
        return tuple(("en", d[1]) if isinstance(d, tuple) else d for d in ranking)

    return replace(_rankings(world, english), form=form)


def snapshot_emptied(world: World) -> Capture:
    return replace(world.capture, snapshot="header-only")


def most_logged_queries_unanswered(world: World) -> Capture:
    logged = world.capture.logged or {}
    return replace(world.capture, logged={q: r for q, r in logged.items() if q < "q03"})


def missed_cases_deleted_from_capture(world: World) -> Capture:
    gone = {c["id"] for c in world.cases if not world.hits(c["id"])}
    return replace(world.capture, order=tuple(c for c in world.capture.order if c not in gone))


def lines_claim_english(world: World) -> Capture:
    """The Chinese cases get the English page of each card, and their lines claim
    the cases are English ones."""
    answered = answered_in_english(world)
    claims = {c: {"language": "en"} for c in answered.rankings if _in("zh", c)}
    return replace(answered, extra=claims)


def logged_answered_in_english(world: World) -> Capture:
    """The Chinese logged queries (a third of the traffic) get the English page of each
    card they got: the capture job's snapshot must tell the languages apart."""
    logged = world.capture.logged or {}
    english = {
        q: tuple(("en", t) for _, t in r) if r[0][0] == "zh" else r for q, r in logged.items()
    }
    return replace(world.capture, logged=english)


def raise_max_unanswered_share(world: World, repo: Path) -> None:
    _edit_config(
        repo, "  max_moved_share: 0.2\n", "  max_moved_share: 0.2\n  max_unanswered_share: 1\n"
    )


def answered_in_english_by_climbing_paths(world: World) -> Capture:
    """The Chinese cases get the English page of each card, each written as a path
    under the Chinese folder that climbs back out of it (``i18n/zh/…/../../docs/…``):
    a language is told by the path the file system resolves, not its first folder."""
    climb = "i18n/zh/docusaurus-plugin-content-docs/current/../../../../../"

    def climbing(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if not _in("zh", case_id):
            return ranking
        return tuple(
            climb + world.layout.path(("en", d[1])) if isinstance(d, tuple) else d for d in ranking
        )

    return _rankings(world, climbing)


def point_baseline_ref_at_itself(world: World, repo: Path) -> None:
    """The pull request's config names its own branch as the revision that judges."""
    with (repo / "recall-gate.yaml").open("a", encoding="utf-8") as config:
        config.write("baseline_ref: pr\n")


def readers_lose_pages_in_their_language(world: World) -> Capture:
    """Chinese cases lose their Chinese gold page from the top k, as few as bring the
    share of Chinese hits found in Chinese (the untranslated pages' English ones are
    found in English) below gate.min_reader_language_share."""
    hits = _hitting(world, "zh")
    own = [c for c in hits if world.gold(c)[0] == "zh"]
    fallback = len(hits) - len(own)
    lost = 0
    while (len(own) - lost) / (len(hits) - lost) >= READER_LANGUAGE_FLOOR:
        lost += 1
    gone = set(own[:lost])
    assert fallback, "the share moves only beside hits found in another language"

    def without_gold(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if case_id not in gone:
            return ranking
        gold = world.gold(case_id)
        spare = next(c for c in world.layout.cards("zh") if c not in ranking and c != gold)
        return tuple(spare if d == gold else d for d in ranking)

    return _rankings(world, without_gold)


def hit_slips_below_the_floor(world: World) -> Capture:
    """English cases lose their gold from the top k, as few as take the overall hit@k
    below gate.floors.hit: too few lost hits for a noise test to call the drop real."""
    hits = [c["id"] for c in world.cases if world.hits(c["id"])]
    lost = 0
    while (len(hits) - lost) / len(world.cases) >= HIT_FLOOR:
        lost += 1
    gone = set(_hitting(world, "en")[:lost])

    def without_gold(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if case_id not in gone:
            return ranking
        gold = world.gold(case_id)
        docs = [d for d in ranking if d != gold]
        return (*docs[:K], gold, *docs[K:])

    return _rankings(world, without_gold)


def spanish_unanswered(world: World) -> Capture:
    """The retriever times out on every Spanish case."""
    return replace(world.capture, order=tuple(c for c in world.capture.order if not _in("es", c)))


def lower_the_baseline_to(capture: Callable[[World], Capture]) -> Callable[[World, Path], None]:
    """The pull request writes its own capture's scores (and snapshot) into the
    committed baseline with ``baseline update``, as a maintainer would."""

    def lower(world: World, repo: Path) -> None:
        folder = repo.parent / "lowered"
        write_capture(world.layout, capture(world), folder)
        for argv in (
            ["score", "--artifacts", str(folder / "capture.jsonl"), "--json",
             str(folder / "results.json")],
            ["baseline", "update", "--results", str(folder / "results.json"),
             "--queries-snapshot", str(folder / "capture.queries.jsonl"), "--reason", "noise"],
        ):  # fmt: skip
            made = run_cli(argv, cwd=repo)
            assert made.code in (0, 1), made.out + made.err

    return lower


def rewrite_the_snapshot_to(capture: Callable[[World], Capture]) -> Callable[[World, Path], None]:
    """The pull request writes its own capture's answers to the query log over the
    committed snapshot beside the baseline, and nothing else."""

    def rewrite(world: World, repo: Path) -> None:
        folder = repo.parent / "rewritten"
        write_capture(world.layout, capture(world), folder)
        shutil.copyfile(
            folder / "capture.queries.jsonl", repo / "baselines" / "default.queries.jsonl"
        )

    return rewrite


def delete_a_translation(world: World, repo: Path) -> None:
    """The pull request deletes the Chinese page of topic 3."""
    (repo / world.layout.path(("zh", 3))).unlink()


def chinese_topic_3_in_english(world: World) -> Capture:
    """The Chinese cases get the English page of topic 3 where they got the Chinese."""
    return _rankings(world, lambda c, r: tuple(("en", 3) if d == ("zh", 3) else d for d in r))


def unset_the_query_log(world: World, repo: Path) -> None:
    """One line of the pull request's config: the base's traffic gate stays set."""
    _edit_config(repo, "queries: queries.jsonl\n", "")


def snapshot_cut_to_top_1(world: World) -> Capture:
    """Most of the traffic moves below rank 1, and the snapshot is cut to k = 1."""
    logged = world.capture.logged or {}
    moved = logged_queries_moved(world).logged or {}
    return replace(
        world.capture,
        logged={q: (r[0], *moved[q][1:]) for q, r in logged.items()},
        snapshot_k=1,
    )


def delete_the_translations(world: World, repo: Path) -> None:
    """The pull request deletes the Chinese and Spanish pages (its index answers with
    the English ones): the base's cards judge it."""
    shutil.rmtree(repo / "i18n")


def _rewrite_query_log(world: World, repo: Path, queries: list[dict[str, object]]) -> None:
    text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries)
    (repo / "queries.jsonl").write_text(text, encoding="utf-8")


def reweigh_the_moved_queries(world: World, repo: Path) -> None:
    """The pull request's query log gives the queries it moves (q00..q14) weight 1 and
    the others 1,000: by its weights, almost no traffic moved."""
    _rewrite_query_log(
        world, repo, [{**q, "weight": 1 if q["id"] < "q15" else 1000} for q in world.logged]
    )


def drop_the_moved_queries(world: World, repo: Path) -> None:
    """The pull request's query log no longer holds the queries it moves."""
    _rewrite_query_log(world, repo, [q for q in world.logged if q["id"] >= "q15"])


def delete_the_query_log(world: World, repo: Path) -> None:
    (repo / "queries.jsonl").unlink()


def exclude_the_chinese_folder(world: World, repo: Path) -> None:
    """The pull request's recall-gate.yaml leaves the Chinese folder out of the KB."""
    with (repo / "recall-gate.yaml").open("a", encoding="utf-8") as config:
        config.write("kb_exclude: [zh]\n")


def relabel_pages(folder: str, language: str) -> Callable[[World, Path], None]:
    """The pull request gives every page under ``folder`` the front matter
    ``language: <language>``."""

    def relabel(world: World, repo: Path) -> None:
        for page in (repo / folder).rglob("*.md"):
            text = page.read_text(encoding="utf-8")
            page.write_text(text.replace("---\n", f"---\nlanguage: {language}\n", 1), "utf-8")

    return relabel


def drop_the_locales(world: World, repo: Path) -> None:
    """The pull request's site config builds English alone (the translations stay)."""
    config = repo / "docusaurus.config.js"
    text = config.read_text(encoding="utf-8")
    assert "locales: ['en', 'zh', 'es']" in text
    config.write_text(text.replace("locales: ['en', 'zh', 'es']", "locales: ['en']"), "utf-8")


def heaviest_query_answered_with_nothing(world: World) -> Capture:
    """The most asked logged query (a third of the traffic) gets an empty top k."""
    logged = world.capture.logged or {}
    return replace(world.capture, logged={q: (() if q == "q00" else r) for q, r in logged.items()})


def heaviest_query_unanswered(world: World) -> Capture:
    """The capture holds no answer to the most asked logged query: one query of 30 by
    count, 31 % of the traffic by weight, whose top k nobody compared."""
    logged = world.capture.logged or {}
    return replace(world.capture, logged={q: r for q, r in logged.items() if q != "q00"})


# --- the capture job running the pull request's retriever ----------------------------------

PR_RETRIEVER = '''
"""The pull request's retriever: its answers are a file; a query it has none for times out."""
import json
from pathlib import Path

ANSWERS = json.loads((Path(__file__).parent / "answers.json").read_text(encoding="utf-8"))


def build():
    def search(query, k):
        if query not in ANSWERS:
            raise TimeoutError("the search endpoint timed out")
        return ANSWERS[query]

    return search
'''


def install_retriever(
    world: World, capture: Capture, repo: Path, *, max_failures: int = 1000
) -> None:
    """The pull request's retriever (``pr_search:build``, named by its config), answering
    each case (of ``capture.order``) and logged query as ``capture`` holds it, timing out
    on the others; the config lets the capture record ``max_failures`` of those."""
    layout = world.layout
    answers = {
        case["query"]: [
            d if isinstance(d, str) else layout.written(d, capture.form)
            for d in capture.rankings[case["id"]]
        ]
        for case in world.cases
        if case["id"] in capture.order
    }
    logged = capture.logged or {}
    for query in world.logged:
        if query["id"] in logged:
            answers[query["query"]] = [layout.written(c, capture.form) for c in logged[query["id"]]]
    (repo / "answers.json").write_text(json.dumps(answers, ensure_ascii=False), encoding="utf-8")
    (repo / "pr_search.py").write_text(PR_RETRIEVER, encoding="utf-8")
    with (repo / "recall-gate.yaml").open("a", encoding="utf-8") as config:
        config.write(
            f"capture: {{retriever: 'pr_search:build', retries: 0, max_failures: {max_failures}}}\n"
        )


# --- the changes ---------------------------------------------------------------------------

WORSE: dict[str, Change] = {
    # Issue 39's list.
    "language-pages-dropped-from-top-k": Change(language_pages_dropped, caught_by="tolerance"),
    "cases-deleted-from-the-capture": Change(cases_deleted_from_capture, caught_by="capture"),
    "cases-deleted-from-the-capture-and-the-cases": Change(
        cases_deleted_from_capture, edit=delete_cases_from_cases_file, caught_by="capture"
    ),
    "gold-moved-below-k": Change(gold_moved_below_k, caught_by="tolerance"),
    "a-groups-ids-unmapped": Change(ids_unmapped, caught_by=REFUSED),
    "language-answered-from-another-language-by-path": Change(
        answered_in_english, caught_by="tolerance"
    ),
    "language-answered-from-another-language-by-url": Change(
        lambda w: answered_in_english(w, form="url"), caught_by="tolerance"
    ),
    "logged-queries-failed": Change(
        lambda w: replace(w.capture, logged=None), captured_by_the_pr=True, caught_by="traffic"
    ),
    "query-snapshot-emptied": Change(snapshot_emptied, caught_by="traffic"),
    "logged-queries-answered-from-another-language": Change(
        logged_answered_in_english, captured_by_the_pr=True, caught_by="traffic"
    ),
    # Found by trying what a pull request that would rather pass can do besides.
    "language-pages-dropped-through-the-capture-job": Change(
        language_pages_dropped, captured_by_the_pr=True, caught_by="tolerance"
    ),
    "language-pages-dropped-in-language-folders": Change(
        language_pages_dropped, layout="folders", caught_by="tolerance"
    ),
    "gold-moved-below-k-in-language-folders": Change(
        gold_moved_below_k, layout="folders", caught_by="tolerance"
    ),
    "cases-deleted-from-the-capture-in-language-folders": Change(
        cases_deleted_from_capture, layout="folders", caught_by="capture"
    ),
    "a-groups-ids-unmapped-in-language-folders": Change(
        ids_unmapped, layout="folders", caught_by=REFUSED
    ),
    "query-snapshot-emptied-in-language-folders": Change(
        snapshot_emptied, layout="folders", caught_by="traffic"
    ),
    "gold-at-rank-k-plus-1-with-the-top-score": Change(
        gold_at_k_plus_1_with_the_top_score, caught_by="tolerance"
    ),
    "pr-loosens-its-own-gate": Change(
        language_pages_dropped, edit=loosen_the_gate, caught_by="tolerance"
    ),
    "pr-raises-its-unanswered-share-and-empties-the-snapshot": Change(
        snapshot_emptied, edit=raise_max_unanswered_share, caught_by="traffic"
    ),
    "pr-lowers-its-baseline-to-its-own-scores": Change(
        language_pages_dropped,
        edit=lower_the_baseline_to(language_pages_dropped),
        caught_by="tolerance",
    ),
    "pr-rewrites-the-base-snapshot-and-moves-the-traffic": Change(
        logged_queries_moved,
        edit=lower_the_baseline_to(logged_queries_moved),
        caught_by="traffic",
    ),
    "pr-rewrites-only-the-base-snapshot-and-moves-the-traffic": Change(
        logged_queries_moved,
        edit=rewrite_the_snapshot_to(logged_queries_moved),
        caught_by="traffic",
    ),
    "pr-deletes-the-baseline": Change(
        language_pages_dropped, edit=delete_the_baseline, caught_by="tolerance"
    ),
    "pr-renames-the-cases-it-regresses": Change(
        renamed_and_regressed, edit=rename_cases, caught_by="capture"
    ),
    "lines-claim-the-gold-they-got": Change(lines_claim_other_labels, caught_by="tolerance"),
    "lines-claim-no-gold": Change(lines_claim_no_gold, caught_by="tolerance"),
    "lines-claim-another-language": Change(lines_claim_english, caught_by="tolerance"),
    "language-answered-from-another-language-by-climbing-paths": Change(
        answered_in_english_by_climbing_paths, caught_by="tolerance"
    ),
    "pr-points-its-baseline-ref-at-itself": Change(
        language_pages_dropped, edit=point_baseline_ref_at_itself, caught_by="tolerance"
    ),
    "language-answered-from-another-language-by-bare-id": Change(
        lambda w: answered_in_english(w, form="id"), caught_by=REFUSED
    ),
    "most-logged-queries-unanswered": Change(most_logged_queries_unanswered, caught_by="traffic"),
    "missed-cases-deleted-from-the-capture": Change(
        missed_cases_deleted_from_capture, caught_by="capture"
    ),
    "cases-answered-twice": Change(answered_twice, caught_by=REFUSED),
    "cases-failed-through-the-capture-job": Change(
        spanish_unanswered, captured_by_the_pr=True, caught_by="capture"
    ),
    "capture-job-failed-and-handed-over-its-error": Change(
        spanish_unanswered, captured_by_the_pr=True, max_failures=0, caught_by=REFUSED
    ),
    "cases-failed-in-the-capture": Change(cases_failed_in_capture, caught_by="capture"),
    "query-snapshot-deleted": Change(snapshot_deleted, caught_by="traffic"),
    "logged-queries-moved-beyond-max-moved-share": Change(
        logged_queries_moved, caught_by="traffic"
    ),
    "pr-deletes-its-config-cases-and-baseline": Change(
        language_pages_dropped, edit=delete_config_cases_and_baseline, caught_by="tolerance"
    ),
    "overall-hit-slips-below-the-floor": Change(hit_slips_below_the_floor, caught_by="floor"),
    "pr-deletes-the-translations-and-answers-in-english": Change(
        answered_in_english, edit=delete_the_translations, caught_by="integrity"
    ),
    "heaviest-logged-query-unanswered": Change(heaviest_query_unanswered, caught_by="traffic"),
    "heaviest-logged-query-answered-with-nothing": Change(
        heaviest_query_answered_with_nothing, caught_by="traffic"
    ),
    "query-snapshot-cut-to-top-1": Change(snapshot_cut_to_top_1, caught_by="traffic"),
    "pr-unsets-its-query-log-and-moves-the-traffic": Change(
        logged_queries_moved, edit=unset_the_query_log, caught_by="traffic"
    ),
    "pr-reweighs-its-query-log-and-moves-the-traffic": Change(
        logged_queries_moved, edit=reweigh_the_moved_queries, caught_by="traffic"
    ),
    "pr-drops-the-moved-queries-from-its-log": Change(
        logged_queries_moved, edit=drop_the_moved_queries, caught_by="traffic"
    ),
    "pr-deletes-its-query-log-and-moves-the-traffic": Change(
        logged_queries_moved, edit=delete_the_query_log, caught_by="traffic"
    ),
    "pr-excludes-a-language-folder-and-drops-its-pages": Change(
        language_pages_dropped,
        edit=exclude_the_chinese_folder,
        layout="folders",
        caught_by="integrity",
    ),
    "pr-drops-its-locales-and-answers-in-english": Change(
        answered_in_english, edit=drop_the_locales, caught_by="integrity"
    ),
    "pr-relabels-the-translations-as-english-and-answers-in-english": Change(
        answered_in_english, edit=relabel_pages("i18n", "en"), caught_by="integrity"
    ),
    "pr-relabels-the-english-pages-as-chinese-and-answers-in-english": Change(
        answered_in_english, edit=relabel_pages("docs", "zh"), caught_by="integrity"
    ),
    "pr-deletes-a-translation-and-answers-in-english": Change(
        chinese_topic_3_in_english, edit=delete_a_translation, caught_by="integrity"
    ),
    "readers-lose-pages-in-their-language": Change(
        readers_lose_pages_in_their_language, caught_by="reader_language"
    ),
    "pr-adds-pages-no-case-cites": Change(
        lambda w: w.capture, edit=add_uncited_pages, layout="folders", caught_by="new_cards"
    ),
    "pr-adds-pages-no-case-cites-and-unsets-the-coverage-gate": Change(
        lambda w: w.capture,
        edit=add_uncited_pages_and_unset_the_gate,
        layout="folders",
        caught_by="new_cards",
    ),
}


def ranks_below_k_permuted(world: World) -> Capture:
    return _rankings(world, lambda c, r: (*r[:K], *reversed(r[K:])))


def chunk_ids_renamed(world: World) -> Capture:
    return replace(world.capture, chunks="rechunked-v2:")


def bare_cards(world: World) -> Capture:
    return replace(world.capture, chunks=None)


def case_order_shuffled(world: World) -> Capture:
    order = list(world.capture.order)
    random.Random(6).shuffle(order)
    return replace(world.capture, order=tuple(order))


def shuffle_cases_file(world: World, repo: Path) -> None:
    cases = list(world.cases)
    random.Random(7).shuffle(cases)
    write_cases(repo, cases)


def as_urls(world: World) -> Capture:
    return replace(world.capture, form="url")


def as_paths(world: World) -> Capture:
    return replace(world.capture, form="path")


def as_site_relative_urls(world: World) -> Capture:
    return replace(world.capture, form="site-relative-url")


def as_urls_with_query(world: World) -> Capture:
    return replace(world.capture, form="url-with-query")


def split_into_two_chunks(world: World) -> Capture:
    """A re-chunk: every card retrieved as two chunks in a row, so the order of
    distinct cards is the base's, though a gold card at rank 3 now sits at the
    sixth place of its list: k counts distinct cards, not list places."""
    return _rankings(world, lambda c, r: tuple(d for doc in r for d in (doc, doc)))


def lines_carry_their_cases(world: World) -> Capture:
    """Each line carries its case's own fields (a self-contained capture, as
    ``recall-gate capture`` writes it), a latency and its items' scores."""
    fields = {
        c["id"]: {
            "language": c["language"],
            "case_type": c["case_type"],
            "must_cite_one_of": c["must_cite_one_of"],
            "query": c["query"],
            "latency_ms": 40.0 + n,
        }
        for n, c in enumerate(world.cases)
    }
    scores = {
        c: tuple(0.9 - n / 50 for n in range(len(r))) for c, r in world.capture.rankings.items()
    }
    return replace(world.capture, extra=fields, scores=scores)


def snapshot_deeper_than_k(world: World) -> Capture:
    """The snapshot holds each logged query's top 10, its top 5 the base's."""
    logged = world.capture.logged or {}

    def deeper(ranking: tuple[Card, ...]) -> tuple[Card, ...]:
        rest = [c for c in world.layout.cards(ranking[0][0]) if c not in ranking]
        return (*ranking, *rest[:K])

    return replace(
        world.capture, logged={q: deeper(r) for q, r in logged.items()}, snapshot_k=2 * K
    )


def fallback_pages_by_the_readers_url(world: World) -> Capture:
    """Page URLs, the untranslated pages' English ones in the Chinese cases given by the
    URL a Chinese reader gets them at (``/zh/docs/…``, the site's fallback content)."""

    def by_url(case_id: str, ranking: tuple[Doc, ...]) -> tuple[Doc, ...]:
        if not _in("zh", case_id):
            return ranking
        return tuple(
            f"{SITE}/zh/docs/topic-{d[1]:02d}/" if isinstance(d, tuple) and d[0] == "en" else d
            for d in ranking
        )

    return replace(_rankings(world, by_url), form="url")


NOOP: dict[str, Change] = {
    "identical-capture": Change(lambda w: w.capture),
    "ranks-below-k-permuted": Change(ranks_below_k_permuted),
    "chunk-ids-renamed": Change(chunk_ids_renamed),
    "chunks-given-as-their-cards": Change(bare_cards),
    "case-order-shuffled": Change(case_order_shuffled),
    "cases-file-order-shuffled": Change(case_order_shuffled, edit=shuffle_cases_file),
    "ids-as-urls-instead-of-paths": Change(as_urls),
    "ids-as-paths-instead-of-ids": Change(as_paths, layout="folders"),
    "ids-as-ids-in-language-folders": Change(lambda w: w.capture, layout="folders"),
    "ids-as-site-relative-urls": Change(as_site_relative_urls),
    "ids-as-urls-with-query-and-anchor": Change(as_urls_with_query),
    "ids-as-urls-without-trailing-slash": Change(
        lambda w: replace(w.capture, form="url-without-slash")
    ),
    "lines-carry-their-cases-fields-latency-and-scores": Change(lines_carry_their_cases),
    "query-snapshot-gzipped": Change(lambda w: replace(w.capture, snapshot="gzipped")),
    "query-snapshot-deeper-than-k": Change(snapshot_deeper_than_k),
    "untranslated-pages-given-by-the-readers-url": Change(fallback_pages_by_the_readers_url),
    "each-card-retrieved-as-two-chunks": Change(split_into_two_chunks),
    "captured-by-the-capture-job": Change(lambda w: w.capture, captured_by_the_pr=True),
    "captured-by-the-capture-job-as-urls": Change(as_urls, captured_by_the_pr=True),
    # Δ 0 on the cases both sides hold; the new case is judged after merge.
    "pr-adds-a-page-and-a-case-citing-it": Change(
        answered_with_the_new_case, edit=add_a_page_and_its_case
    ),
    "pr-adds-a-page-and-a-case-citing-it-in-language-folders": Change(
        answered_with_the_new_case, edit=add_a_page_and_its_case, layout="folders"
    ),
}


def judge_pair(worlds: Mapping[str, World], change: Change, folder: Path) -> Judged:
    """Open the pull request ``change`` plants on its world under ``folder``, let
    the capture job capture it (or hand over the capture it writes), and judge it."""
    world = worlds[change.layout]
    capture = change.capture(world)

    def commit(repo: Path) -> None:
        if change.edit is not None:
            change.edit(world, repo)
        if change.captured_by_the_pr:
            install_retriever(world, capture, repo, max_failures=change.max_failures)

    repo = open_pull_request(world, folder, commit)
    if change.captured_by_the_pr:
        sys.modules.pop("pr_search", None)  # each pull request imports its own
        artifacts = capture_job(repo, folder / "capture")
    else:
        artifacts = write_capture(world.layout, capture, folder / "capture")
    return judge(repo, artifacts)
