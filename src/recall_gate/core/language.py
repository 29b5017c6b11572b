"""Language tags: any well-formed BCP-47 tag (RFC 5646), in canonical case.

Cards and cases carry a language so that results break down by it. Any
well-formed tag is accepted (``de``, ``es``, ``fr-CA``, ``zh-Hant``,
``es-419``…) and stored in the case RFC 5646 §2.1.1 recommends: the language
lowercase, a script in title case, a region uppercase, everything else
lowercase (``pt-br`` → ``pt-BR``, ``ZH-hant-tw`` → ``zh-Hant-TW``). So two
spellings of one tag are one group. Well-formed is a syntax check, not a
registry lookup: ``xx`` passes, ``english`` or ``en_US`` do not. (The primary
language must have 2 or 3 letters: the 4- to 8-letter forms RFC 5646 reserves
have no registered value, and refusing them catches ``english`` or ``deutsch``.)

:func:`folder_language` is stricter on purpose: a KB folder is read as a
language only when its first subtag is an ISO 639-1 code (two letters), so
folders such as ``api``, ``guides`` or ``ui`` are not mistaken for languages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Annotated

from pydantic import AfterValidator

__all__ = [
    "REFERENCE_LANGUAGES",
    "LanguageTag",
    "canonical_language",
    "folder_language",
    "is_canonical_language",
    "language_error",
    "nearest_language",
]

# The languages of the bundled reference data, in report order; other tags
# follow them alphabetically.
REFERENCE_LANGUAGES: tuple[str, ...] = ("en", "es-419", "pt-BR")

_LANGTAG = re.compile(
    r"""
    [a-z]{2,3}(?:-[a-z]{3}){0,3}                   # language, extended language subtags
    (?:-[a-z]{4})?                                 # script
    (?:-(?:[a-z]{2}|[0-9]{3}))?                    # region
    (?:-(?:[a-z0-9]{5,8}|[0-9][a-z0-9]{3}))*       # variants
    (?:-[0-9a-wyz](?:-[a-z0-9]{2,8})+)*            # extensions
    (?:-x(?:-[a-z0-9]{1,8})+)?                     # private use
    """,
    re.VERBOSE,
)
_PRIVATE_ONLY = re.compile(r"x(?:-[a-z0-9]{1,8})+")

_EXAMPLES = "e.g. en, de, es-419, pt-BR, fr-CA, zh-Hant"

# ISO 639-1: the two-letter language codes a folder name may start with.
_ISO_639_1_CODES = """
    aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs
    cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he
    hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr
    ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng
    nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk
    sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz
    ve vi vo wa wo xh yi yo za zh zu"""
_ISO_639_1 = frozenset(_ISO_639_1_CODES.split())


def language_error(tag: str) -> str | None:
    """Why ``tag`` is not a well-formed BCP-47 tag, or None when it is."""
    lowered = tag.lower()
    if "_" in tag:
        return f"language {tag!r} is not a BCP-47 tag: use '-', not '_' ({tag.replace('_', '-')})"
    if not (_LANGTAG.fullmatch(lowered) or _PRIVATE_ONLY.fullmatch(lowered)):
        return f"language {tag!r} is not a well-formed BCP-47 tag ({_EXAMPLES})"
    singletons = re.findall(r"(?:^|-)([0-9a-z])(?=-)", lowered.split("-x-")[0])
    if len(singletons) != len(set(singletons)):
        return f"language {tag!r} repeats an extension singleton"
    return None


@lru_cache(maxsize=1024)
def canonical_language(tag: str) -> str:
    """``tag`` in canonical case; ValueError (with examples) if it is not well-formed."""
    problem = language_error(tag)
    if problem is not None:
        raise ValueError(problem)
    parts = tag.lower().split("-")
    out = [parts[0]]
    for part in parts[1:]:
        if len(out[-1]) == 1:  # after a singleton (extension, private use): lowercase
            out.append(part)
            out.extend(parts[len(out) :])
            break
        if len(part) == 4 and part.isalpha():
            out.append(part.title())
        elif len(part) == 2:
            out.append(part.upper())
        else:
            out.append(part)
    return "-".join(out)


def folder_language(name: str) -> str | None:
    """The language a KB folder is named after (``de``, ``fr-CA``, ``pt_BR`` is not), or None."""
    try:
        tag = canonical_language(name)
    except ValueError:
        return None
    return tag if tag.split("-")[0] in _ISO_639_1 else None


LanguageTag = Annotated[str, AfterValidator(canonical_language)]


@lru_cache(maxsize=4096)
def is_canonical_language(tag: str) -> bool:
    """Whether ``tag`` is well-formed and already in canonical case (a fast-path check)."""
    try:
        return canonical_language(tag) == tag
    except ValueError:
        return False


def nearest_language(tag: str, available: Iterable[str]) -> str | None:
    """The tag of ``available`` closest to ``tag``: one of the same primary
    language (``pt`` for ``pt-BR``, ``es-419`` for ``es``), the shortest first;
    None when no tag shares it."""
    primary = tag.split("-", maxsplit=1)[0].lower()
    same = [a for a in available if a != tag and a.split("-")[0].lower() == primary]
    return min(same, key=lambda a: (len(a), a)) if same else None
