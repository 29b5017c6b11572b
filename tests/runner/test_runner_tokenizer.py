"""The BM25 tokenizer: case and accent folding for en, es-419 and pt-BR."""

from __future__ import annotations

import pytest

from recall_gate.runner.tokenizer import analyze, fold, tokenize


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("Não", "nao"),
        ("INFORMACIÓN", "informacion"),
        ("cobrança", "cobranca"),
        ("niño", "nino"),
        ("Straße", "strasse"),
        ("façade résumé", "facade resume"),
    ],
)
def test_fold_lowercases_and_drops_accents(text: str, folded: str) -> None:
    assert fold(text) == folded


def test_accented_and_plain_spellings_give_the_same_tokens() -> None:
    assert tokenize("¿Cómo renuevo mi receta?") == tokenize("como renuevo mi RECETA")
    assert tokenize("¿Cómo renuevo mi receta?") == ["como", "renuevo", "mi", "receta"]


def test_one_letter_words_are_dropped_but_numbers_are_kept() -> None:
    # "a", "e", "o", "y" carry no topic; "4410" and "7" may be the whole point.
    assert tokenize("Ligue a ext. 4410 e o ramal 7") == ["ligue", "ext", "4410", "ramal", "7"]


def test_punctuation_and_underscores_separate_tokens() -> None:
    assert tokenize("co-pay/deductible: e_mail (portal)") == [
        "co",
        "pay",
        "deductible",
        "mail",
        "portal",
    ]


def test_empty_and_symbol_only_text_has_no_tokens() -> None:
    assert tokenize("") == []
    assert tokenize("¿?¡! — …") == []


# --- analyze: stemming in the text's language -----------------------------------


def test_analyze_stems_in_the_texts_language() -> None:
    assert analyze("¿Cómo renuevo mis recetas?", "es-419") == ["com", "renuev", "mis", "recet"]
    assert analyze("receita", "pt-BR") == analyze("receitas", "pt-BR")
    assert analyze("refills prescriptions", "en") == ["refil", "prescript"]


def test_accented_and_plain_spellings_stem_alike() -> None:
    assert analyze("información cobrança", "es") == analyze("informacion cobranca", "es")


def test_a_language_without_a_stemmer_keeps_the_folded_tokens() -> None:
    assert analyze("Ligue a ext. 4410", "xx") == tokenize("Ligue a ext. 4410")
    assert analyze("Ligue a ext. 4410", None) == tokenize("Ligue a ext. 4410")
