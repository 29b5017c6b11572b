"""Dataset integrity (always a gate, docs/decisions/retrieval-recall.md): a
labelling error must not pass for a retrieval failure. Pure: takes located
records, returns every problem found.
"""

from __future__ import annotations

import difflib
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from recall_gate.core.records import Card, Case, CaseLabel
from recall_gate.core.site_urls import CardIds, cards_sharing_address, resolve_address

__all__ = [
    "GOLD_REQUIRED",
    "Problem",
    "card_of_path",
    "duplicate_cases",
    "find_problems",
    "gold_as_card_ids",
    "label_problems",
    "languages_without_cards",
    "looks_like_file_path",
    "missing_gold",
    "unresolved_gold",
]

# Case types whose whole point is their gold: without it the case would be
# silently unscored, and a suite could shrink to nothing without a word. An
# adversarial case needs it too: the right card must be retrieved even when the
# answer must refuse (docs/decisions/retrieval-recall.md); a prompt no card
# applies to is a no_match case.
GOLD_REQUIRED: frozenset[str] = frozenset({"golden", "adversarial"})

_GOLD_HINTS = {
    "golden": "list the card ids that answer it, or make it a capability or no_match case",
    "adversarial": "list the card a refusal must rest on (the right card must be retrieved "
    "even when the answer must refuse), or make it a no_match case if no card applies",
}


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One integrity problem: where it is, what is wrong, and a hint."""

    where: str
    message: str
    hint: str = ""

    def __str__(self) -> str:
        text = f"{self.where}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text


def _duplicates(kind: str, located: Sequence[tuple[str, str]]) -> list[Problem]:
    seen: dict[str, list[str]] = defaultdict(list)
    for where, ident in located:
        seen[ident].append(where)
    # Every repeat is listed, not only the second one: a fix must find them all.
    return [
        Problem(
            where=place,
            message=f"duplicate {kind} id {ident!r}",
            hint=f"first defined at {places[0]}; give each {kind} a unique id",
        )
        for ident, places in seen.items()
        for place in places[1:]
    ]


def _duplicate_cards(cards: Sequence[tuple[str, Card]]) -> list[Problem]:
    """Cards that repeat an id in one language. Card identity is (language, id): a
    translation is the same card id in another language (Docusaurus requires it)."""
    seen: dict[tuple[str, str], list[str]] = defaultdict(list)
    for where, card in cards:
        seen[(card.language, card.id)].append(where)
    return [
        Problem(
            where=place,
            message=f"duplicate card id {ident!r}"
            + ("" if len(seen) == len({i for _, i in seen}) else f" in language {language}"),
            hint=f"first defined at {places[0]}; give each card a unique id",
        )
        for (language, ident), places in seen.items()
        for place in places[1:]
    ]


def duplicate_cases(cases: Sequence[tuple[str, CaseLabel]]) -> list[Problem]:
    """Every repeated case id (what scoring needs without a KB at hand)."""
    return _duplicates("case", [(w, c.id) for w, c in cases])


_FILE_PATH = re.compile(
    r"""
    ^(?:/|~|\.{1,2}/|[A-Za-z]:[\\/]|file://)           # absolute, home, relative, drive, URL
    | \\                                             # a Windows separator anywhere
    | \.(?:md|markdown|mdx|txt|rst|html?|pdf|ipynb)$     # a document's extension
    """,
    re.VERBOSE | re.IGNORECASE,
)


# A web address rather than a source file: a URL or a root-relative path that
# names no source file (``/blog/2017/flexbox``; not ``/srv/app/guide/a.md`` nor a
# repository's ``https://…/blob/main/guide/a.md``).
_SITE_ADDRESS = re.compile(
    r"(?i)(?:https?://|/)(?!.*\.(?:md|markdown|mdx|txt|rst|ipynb|json|ya?ml)(?:[?#]|$))"
)
_DOC_EXTENSION = re.compile(r"\.(?:md|markdown|mdx|txt|rst|html?|pdf|json|ya?ml)$", re.IGNORECASE)


def card_of_path(value: str, card_ids: frozenset[str]) -> str | None:
    """The card a retrieved id names: itself when it is a card id, else the card
    whose published URL it is (when ``card_ids`` carries the site's URLs, see
    :mod:`recall_gate.core.site_urls`), else the longest trailing part of it as a
    path, without a document extension, that is one (``/srv/app/docs/de/setup.md``
    → ``de/setup``; not for a web address when the site's URLs are known); None
    when none is."""
    if value in card_ids:
        return value
    published = resolve_address(value, card_ids)
    if published is not None:
        return published
    if getattr(card_ids, "addresses", None) and _SITE_ADDRESS.match(value.strip()):
        # The site's own URLs are all known: a web address it does not publish
        # (a blog post, an older docs version) is no card, whatever its last part.
        return None
    path = _DOC_EXTENSION.sub("", value.replace("\\", "/")).strip("/")
    parts = [p for p in path.split("/") if p not in ("", ".")]
    for start in range(len(parts)):
        candidate = "/".join(parts[start:])
        if candidate in card_ids:
            return candidate
    return None


def looks_like_file_path(ident: str) -> bool:
    """Whether a retrieved id is a file path rather than a card id (``docs/en/a.md``,
    ``/srv/app/a.md``, ``C:\\docs\\a``): without a KB to map it, it matches no gold id."""
    return _FILE_PATH.search(ident) is not None


def missing_gold(
    where: str, case_id: str, *, case_type: str | None, must_cite_one_of: Sequence[str] | None
) -> list[Problem]:
    """A ``golden`` or ``adversarial`` case without gold (``must_cite_one_of`` empty
    or absent): it would never be scored, so it is an integrity error."""
    if case_type not in GOLD_REQUIRED or must_cite_one_of:
        return []
    article = "an" if case_type.startswith("a") else "a"
    return [
        Problem(
            where=where if where.endswith(f"(id {case_id})") else f"{where} (case {case_id})",
            message=f"{article} {case_type} case with no gold: must_cite_one_of is empty",
            hint=_GOLD_HINTS[case_type],
        )
    ]


def label_problems(cases: Sequence[tuple[str, CaseLabel]]) -> list[Problem]:
    """What is wrong with the labels alone (no KB needed): repeated case ids, and
    golden or adversarial cases without gold."""
    problems = duplicate_cases(cases)
    for where, case in cases:
        problems += missing_gold(
            where, case.id, case_type=case.case_type, must_cite_one_of=case.must_cite_one_of
        )
    return problems


def find_problems(
    *,
    cards: Sequence[tuple[str, Card]],
    cases: Sequence[tuple[str, CaseLabel]],
    skipped: Mapping[str, str] | None = None,
    card_ids: frozenset[str] | None = None,
    reported: frozenset[str] = frozenset(),
) -> list[Problem]:
    """Every integrity problem: duplicate card ids in one language, duplicate case
    ids, golden and adversarial cases without gold, and gold or relevant ids that
    resolve to no card (with the nearest existing id as a hint), except the
    ``reported`` ones, which a problem of their own names (a card a pull request
    deletes). ``card_ids``: the KB's, with the URLs its site publishes
    (``core.site_urls``); ``skipped``: the pages that are no card (id → why).
    Field validity (languages, case types) is enforced when files are loaded."""
    problems = _duplicate_cards(cards)
    problems += label_problems(cases)
    if card_ids is None:  # else the caller's, with the URLs its site publishes
        card_ids = frozenset(c.id for _, c in cards)
    known = card_ids | reported
    if isinstance(card_ids, CardIds):  # a union is a plain set: keep the URLs
        known = card_ids.with_ids(known)
    for where, case in cases:
        problems += unresolved_gold(
            where,
            case.id,
            must_cite_one_of=case.must_cite_one_of,
            relevant_ids=case.relevant_ids,
            card_ids=known,
            skipped=skipped,
            language=case.language,
        )
    return problems


_Label = TypeVar("_Label", bound=CaseLabel)


def gold_as_card_ids(
    located: Sequence[tuple[str, _Label]], card_ids: frozenset[str]
) -> tuple[list[tuple[str, _Label]], list[tuple[str, str]]]:
    """The cases with each gold and relevant id that names a card by what its site
    publishes for it (a full URL, a path with or without the trailing slash: see
    :func:`card_of_path`, the function retrieved ids resolve by) written as that
    card's id, and the ``(as written, card id)`` pairs read so. A card id stays
    as it is; an id that names no card, or an address two cards publish, stays
    too (the integrity check names it). Resolved before anything is fingerprinted:
    a gold URL and its card id label a case alike."""
    out: list[tuple[str, _Label]] = []
    read: list[tuple[str, str]] = []
    for where, case in located:
        update: dict[str, tuple[str, ...]] = {}
        for field, ids in (
            ("must_cite_one_of", case.must_cite_one_of),
            ("relevant_ids", case.relevant_ids),
        ):
            if not ids or all(i in card_ids for i in ids):
                continue
            written = []
            for gold in ids:
                card = gold if gold in card_ids else card_of_path(gold, card_ids)
                if card is not None and card != gold:
                    read.append((gold, card))
                written.append(gold if card is None else card)
            update[field] = tuple(dict.fromkeys(written))
        out.append((where, case.model_copy(update=update) if update else case))
    return out, read


def unresolved_gold(
    where: str,
    case_id: str,
    *,
    must_cite_one_of: Sequence[str] | None,
    relevant_ids: Sequence[str] | None,
    card_ids: frozenset[str],
    skipped: Mapping[str, str] | None = None,
    language: str | None = None,
) -> list[Problem]:
    """The gold and relevant ids of one case that resolve to no card, each with
    the nearest existing id as a hint (a card of the case's ``language`` first);
    an id of a page that is no card (``skipped``: page id → why, e.g. ``draft``)
    says so, and so does an address two cards publish (naming both)."""
    known = card_ids
    problems = []
    for field, ids in (("must_cite_one_of", must_cite_one_of), ("relevant_ids", relevant_ids)):
        for gold_id in ids or ():
            if gold_id in known:
                continue
            if skipped and gold_id in skipped:
                problems.append(
                    Problem(
                        where=where
                        if where.endswith(f"(id {case_id})")
                        else f"{where} (case {case_id})",
                        message=f"{field} id {gold_id!r} is a page that is no card "
                        f"({skipped[gold_id]})",
                        hint="publish the page (a draft: remove `draft: true`) or cite a "
                        "card the site publishes",
                    )
                )
                continue
            sharing = cards_sharing_address(gold_id, known)
            if sharing:
                problems.append(
                    Problem(
                        where=where
                        if where.endswith(f"(id {case_id})")
                        else f"{where} (case {case_id})",
                        message=f"{field} id {gold_id!r} is the page of {len(sharing)} cards: "
                        + " and ".join(repr(c) for c in sharing),
                        hint="write the card id you mean",
                    )
                )
                continue
            page = card_of_path(gold_id, known)
            near = _nearest_id(gold_id, known, language)
            problems.append(
                Problem(
                    where=where
                    if where.endswith(f"(id {case_id})")
                    else f"{where} (case {case_id})",
                    message=f"{field} id {gold_id!r} resolves to no card",
                    hint=f"that is the page of card {page!r}: write its card id"
                    if page
                    else f"did you mean {near!r}?"
                    if near
                    else "no similar card id",
                )
            )
    return problems


def _nearest_id(gold_id: str, known: frozenset[str], language: str | None) -> str | None:
    """The card id most like ``gold_id``, among the cards of ``language`` first."""
    written: Mapping[str, frozenset[str]] = getattr(known, "languages", None) or {}
    pools = [sorted(known)]
    if language is not None and written:
        pools.insert(0, sorted(c for c in known if language in written.get(c, ())))
    for pool in pools:
        near = difflib.get_close_matches(gold_id, pool, n=1, cutoff=0.5)
        if near:
            return near[0]
    return None


def languages_without_cards(cards: Sequence[Card], cases: Sequence[Case]) -> dict[str, int]:
    """Case languages no card is written in, with how many cases each: under
    ``same_language`` those cases search an empty set and all score as misses."""
    card_languages = {card.language for card in cards}
    missing: dict[str, int] = {}
    for case in cases:
        if case.language not in card_languages:
            missing[case.language] = missing.get(case.language, 0) + 1
    return dict(sorted(missing.items()))
