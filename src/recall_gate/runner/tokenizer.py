"""The BM25 tokenizer: case- and accent-folded word tokens (pure).

Patients type "informacion" for "información" and "nao" for "não"; folding
accents (NFKD, combining marks dropped) and case lets those match the KB's
spelling in en, es-419 and pt-BR alike. No stemming and no stopword list:
BM25's IDF already discounts words every card uses, and a stemmer would be
language-specific. Tokens are runs of letters and digits; one-letter tokens
are dropped (articles and prepositions such as "a", "e", "o", "y").
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["fold", "tokenize"]

_WORD = re.compile(r"[^\W_]+")


def fold(text: str) -> str:
    """Lower-cased text with accents removed ("Não" → "nao", "ß" → "ss")."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokenize(text: str) -> list[str]:
    """Folded word tokens of two or more characters, or digits of any length."""
    return [t for t in _WORD.findall(fold(text)) if len(t) > 1 or t.isdigit()]
