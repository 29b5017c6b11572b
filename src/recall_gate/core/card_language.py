"""A card is (language, id): which language's card a retrieved document is, and
whether it is the card the case's reader asked for.

A translation shares its id with its source page (Docusaurus ``i18n/<locale>/``,
Hugo ``page.<lang>.md``, MkDocs' i18n plugin), but it is not the page a reader of
the other language asked for. The rules, each with a named test:

* A document's language is what it tells: the item's ``language``, else its
  metadata's ``language`` / ``lang`` / ``locale``, else its page URL or file path
  as the KB publishes it (:func:`address_language`); an id the KB holds in one
  language only is that language's card. An id the KB holds in two or more
  languages, given without any of these, cannot be told: the capture is refused,
  never guessed (:class:`Placement`'s ``untold``).
* A case's gold is met by the card in the case's language. Another language's
  card of the gold id counts only where the case's language has no card of that
  id (the untranslated page a site serves as its fallback), and the case is then
  counted as "answered from another language".
* In a case's ranking, another language's card of an id the case's language
  also has is written ``id@language`` (``introduction@en``): a distinct card,
  which no gold id names. Every other entry keeps its id, so a KB with one
  language per id scores exactly as before.

"Answered in the reader's language" (:data:`READER_LANGUAGE`, a column of the
aggregates) is, of the cases that found a gold id's page in some language in
their top k, the share that found it in their own language. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from recall_gate.core.language import canonical_language
from recall_gate.core.site_urls import address_key, path_parts

__all__ = [
    "LANGUAGE_KEYS",
    "READER_LANGUAGE",
    "Placement",
    "address_language",
    "in_another_language",
    "metadata_language",
    "place_in_language",
    "reader_ranking",
    "told_language",
    "translated_ids",
]

# The aggregates' column: 1 when a case found a gold page in its own language,
# 0 when only in another one; cases that found none carry no value.
READER_LANGUAGE = "answered_in_reader_language"

# The metadata keys a retrieved document's language is read from, in this order.
LANGUAGE_KEYS: tuple[str, ...] = ("language", "lang", "locale")


def in_another_language(card_id: str, language: str) -> str:
    """How a ranking writes ``language``'s card of ``card_id`` for a reader of
    another language who has a card of that id: ``introduction@en``."""
    return f"{card_id}@{language}"


def reader_ranking(
    entries: Iterable[tuple[str, str | None]], reader: str | None
) -> tuple[str, ...]:
    """A logged query's ranking as the traffic diff compares it: each card
    ``(id, language)`` by its id, ``id@language`` where a document told a language
    other than the query's (None: told none, or a query of no language), so a
    query answered from another translation of the same id has moved."""
    return tuple(
        in_another_language(card_id, language)
        if language is not None and language != reader
        else card_id
        for card_id, language in entries
    )


def told_language(item: Any) -> str | None:
    """The language a retrieved item says it is in: its ``language``, else its
    metadata's ``language`` / ``lang`` / ``locale`` (``zh_CN`` read as ``zh-CN``),
    in canonical case; None for a bare id or an item that says none (or no tag)."""
    if isinstance(item, str):
        return None
    language: str | None = getattr(item, "language", None)
    if language:
        return _tag(language)
    metadata = getattr(item, "metadata", None)
    return metadata_language(metadata) if metadata else None


def _tag(value: str) -> str | None:
    """``value`` as a tag in canonical case (``zh_CN`` read as ``zh-CN``), or None."""
    try:
        return canonical_language(value.strip().replace("_", "-"))
    except ValueError:
        return None


def metadata_language(metadata: Mapping[str, Any]) -> str | None:
    """The language a document's metadata names (``language``, ``lang``, ``locale``),
    in canonical case; None when it names none or no well-formed tag."""
    for key in LANGUAGE_KEYS:
        value = metadata.get(key)
        if isinstance(value, str) and value.strip():
            return _tag(value)
    return None


def translated_ids(card_ids: frozenset[str]) -> frozenset[str]:
    """The ids the KB holds in two or more languages (none: a KB whose ids are
    unambiguous, which scores by id alone)."""
    written: Mapping[str, frozenset[str]] = getattr(card_ids, "languages", None) or {}
    return frozenset(ident for ident, languages in written.items() if len(languages) > 1)


def _common_tail(a: Sequence[str], b: Sequence[str]) -> int:
    n = 0
    while n < len(a) and n < len(b) and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def address_language(value: str, card_id: str, card_ids: frozenset[str]) -> str | None:
    """The language of the card ``card_id`` that the retrieved URL or file path
    ``value`` names: the one language the KB holds it in; else the language of the
    card publishing that URL; else of the card whose file shares the longest
    trailing path with ``value`` (``…/i18n/zh/…/current/introduction.md`` is the
    Chinese card); None when that does not tell one language."""
    written: Mapping[str, frozenset[str]] = getattr(card_ids, "languages", None) or {}
    languages = written.get(card_id)
    if not languages:
        return None
    if len(languages) == 1:
        return next(iter(languages))
    by_address: Mapping[str, str] = getattr(card_ids, "address_languages", None) or {}
    published = by_address.get(address_key(value))
    if published is not None:
        return published
    files: Mapping[str, tuple[tuple[str, tuple[str, ...]], ...]] = (
        getattr(card_ids, "files", None) or {}
    )
    parts = path_parts(value)
    best: str | None = None
    longest = 0
    tied = False
    for language, file_parts in files.get(card_id, ()):
        shared = _common_tail(parts, file_parts)
        if shared > longest:
            best, longest, tied = language, shared, False
        elif shared == longest and language != best:
            tied = True
    # Only the id's own part in common (``introduction.md``) tells no language.
    return None if tied or longest < 2 else best


@dataclass(frozen=True)
class Placement:
    """One case's ranking read in its reader's language (see the module docstring).

    ``ranked``: the card ids to score; ``foreign``: ids in it that are another
    language's card, kept as the id because the reader's language has none of it
    (the fallback); ``elsewhere``: each ``id@language`` entry's id; ``untold``:
    the translated ids given without a language that could be told."""

    reader: str
    ranked: tuple[str, ...]
    foreign: frozenset[str]
    elsewhere: Mapping[str, str]
    untold: tuple[str, ...]

    def judge(self, gold: Iterable[str], top: Sequence[str]) -> tuple[float | None, bool]:
        """Of the case's top k: 1.0 when a gold page is there in the reader's language,
        0.0 when one is there only in another language, None when none is; and
        whether the gold was met by another language's card only (the fallback:
        "answered from another language")."""
        gold_set = frozenset(gold)
        met = gold_set.intersection(top)
        if met - self.foreign:
            return 1.0, False
        if met:
            return 0.0, True
        elsewhere = self.elsewhere
        if any(elsewhere.get(entry) in gold_set for entry in top):
            return 0.0, False
        return None, False


def place_in_language(
    ranked: Sequence[str],
    told: Sequence[str | None],
    *,
    reader: str,
    written: Mapping[str, frozenset[str]],
) -> Placement:
    """A case's ranked card ids (``told``: each entry's language, None where the
    document tells none) read for a reader of ``reader`` (``written``: card id →
    the languages the KB holds it in)."""
    out: list[str] = []
    foreign: set[str] = set()
    elsewhere: dict[str, str] = {}
    untold: list[str] = []
    for ident, said in zip(ranked, told, strict=True):
        languages = written.get(ident)
        if not languages:  # no card: a page outside the KB, kept as it is
            out.append(ident)
            continue
        if said is None and len(languages) > 1:
            untold.append(ident)
            out.append(ident)
            continue
        language = next(iter(languages)) if said is None else said
        if language == reader:
            out.append(ident)
        elif reader in languages:
            entry = in_another_language(ident, language)
            elsewhere[entry] = ident
            out.append(entry)
        else:
            foreign.add(ident)
            out.append(ident)
    return Placement(
        reader=reader,
        ranked=tuple(out),
        foreign=frozenset(foreign),
        elsewhere=elsewhere,
        untold=tuple(untold),
    )
