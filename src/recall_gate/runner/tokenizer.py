"""The BM25 tokenizer: case- and accent-folded word tokens, analysed per language.

Patients type "informacion" for "información" and "nao" for "não"; folding
accents (NFKD, combining marks dropped) and case lets those match the KB's
spelling. Tokens are runs of letters and digits; one-letter tokens are
dropped (articles and prepositions such as "a", "e", "o", "y").

:func:`analyze` adds what the language offers: where PyStemmer has a Snowball
stemmer for a text's primary language (en, es, pt and the others of
:data:`STEMMERS`), the folded tokens are stemmed ("recetas", "receta" →
"recet"); folding first keeps an accented and a plain spelling one token. Any
other language keeps the folded tokens. No stopword list: on the reference set
dropping bm25s's en/es/pt stopwords lost hits (hybrid hit@5 0.860 with them,
0.907 without; "no", "nao", "cuando" carry meaning in a patient's question),
and BM25's IDF already discounts words every card uses.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from functools import cache

__all__ = ["ANALYZER_VERSION", "STEMMERS", "analyze", "fold", "tokenize"]

# Bump when analyze() changes its output: cached BM25 indexes are keyed by it.
ANALYZER_VERSION = 1

_WORD = re.compile(r"[^\W_]+")

# Primary language subtag → PyStemmer's Snowball algorithm.
STEMMERS: dict[str, str] = {
    "ar": "arabic",
    "ca": "catalan",
    "cs": "czech",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "et": "estonian",
    "eu": "basque",
    "fi": "finnish",
    "fr": "french",
    "ga": "irish",
    "hi": "hindi",
    "hu": "hungarian",
    "hy": "armenian",
    "id": "indonesian",
    "it": "italian",
    "lt": "lithuanian",
    "nb": "norwegian",
    "ne": "nepali",
    "nl": "dutch",
    "no": "norwegian",
    "pl": "polish",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
}


class _DropCombining(dict[int, int | None]):
    """A ``str.translate`` table that drops combining marks, filled as characters come."""

    def __missing__(self, code: int) -> int | None:
        kept = None if unicodedata.combining(chr(code)) else code
        self[code] = kept
        return kept


_DROP_COMBINING = _DropCombining()


def fold(text: str) -> str:
    """Lower-cased text with accents removed ("Não" → "nao", "ß" → "ss")."""
    if text.isascii():
        return text.lower()  # ASCII: casefold is lower, and nothing decomposes
    return unicodedata.normalize("NFKD", text.casefold()).translate(_DROP_COMBINING)


def tokenize(text: str) -> list[str]:
    """Folded word tokens of two or more characters, or digits of any length."""
    return [t for t in _WORD.findall(fold(text)) if len(t) > 1 or t.isdigit()]


@cache
def _stemmer(primary: str) -> Callable[[list[str]], list[str]] | None:
    algorithm = STEMMERS.get(primary)
    if algorithm is None:
        return None
    import Stemmer  # PyStemmer

    stem: Callable[[list[str]], list[str]] = Stemmer.Stemmer(algorithm).stemWords
    return stem


def analyze(text: str, language: str | None) -> list[str]:
    """:func:`tokenize`, then stemmed by the language's Snowball stemmer if it has one."""
    tokens = tokenize(text)
    stem = _stemmer(language.split("-")[0].lower()) if language else None
    if stem is None:
        return tokens
    return [fold(s) for s in stem(tokens)]
