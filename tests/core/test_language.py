"""Language tags: any well-formed BCP-47 tag, stored in canonical case."""

from __future__ import annotations

import pytest

from recall_gate.core.language import (
    canonical_language,
    folder_language,
    is_canonical_language,
)
from recall_gate.core.records import Card


@pytest.mark.parametrize(
    ("tag", "canonical"),
    [
        ("en", "en"),
        ("de", "de"),
        ("es", "es"),
        ("es-419", "es-419"),
        ("pt-br", "pt-BR"),
        ("PT-BR", "pt-BR"),
        ("fr-ca", "fr-CA"),
        ("zh-hant", "zh-Hant"),
        ("ZH-hant-tw", "zh-Hant-TW"),
        ("sr-latn-rs", "sr-Latn-RS"),
        ("yue-HK", "yue-HK"),
        ("de-CH-1996", "de-CH-1996"),
        ("en-US-u-ca-gregory", "en-US-u-ca-gregory"),
        ("en-a-bbb-x-CC", "en-a-bbb-x-cc"),  # after a singleton everything is lowercase
        ("x-Private", "x-private"),
    ],
)
def test_any_well_formed_tag_is_accepted_in_canonical_case(tag: str, canonical: str) -> None:
    assert canonical_language(tag) == canonical
    assert is_canonical_language(canonical)


@pytest.mark.parametrize(
    ("tag", "reason"),
    [
        ("english", "is not a well-formed BCP-47 tag (e.g. en, de, es-419, pt-BR, fr-CA, zh-Hant)"),
        ("e", "is not a well-formed BCP-47 tag"),
        ("", "is not a well-formed BCP-47 tag"),
        ("en--us", "is not a well-formed BCP-47 tag"),
        ("en-", "is not a well-formed BCP-47 tag"),
        ("pt_BR", "is not a BCP-47 tag: use '-', not '_' (pt-BR)"),
        ("en-a-bb-a-cc", "repeats an extension singleton"),
    ],
)
def test_a_malformed_tag_is_refused_with_the_reason(tag: str, reason: str) -> None:
    with pytest.raises(ValueError, match="language") as caught:
        canonical_language(tag)
    assert reason in str(caught.value)
    assert not is_canonical_language(tag)


def test_a_non_canonical_spelling_is_not_canonical() -> None:
    assert not is_canonical_language("pt-br")


def test_records_store_the_canonical_tag() -> None:
    card = Card(id="c", language="fr-ca", title="t", body="b")
    assert card.language == "fr-CA"


@pytest.mark.parametrize(
    ("folder", "language"),
    [
        ("de", "de"),
        ("fr-CA", "fr-CA"),
        ("pt-br", "pt-BR"),
        ("zh-Hant", "zh-Hant"),
        ("es-419", "es-419"),
        # Not a language: a folder is read as one only when it starts with an ISO 639-1 code.
        ("api", None),
        ("guides", None),
        ("ui", None),
        ("docs", None),
        ("pt_BR", None),
    ],
)
def test_a_folder_is_a_language_only_when_named_after_one(
    folder: str, language: str | None
) -> None:
    assert folder_language(folder) == language
