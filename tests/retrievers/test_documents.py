"""How a returned document's card id is found: the field, then the path rule."""

from __future__ import annotations

import pytest

from recall_gate.errors import InputError
from recall_gate.retrievers.documents import Hit, IdMapper, lookup

CARDS = frozenset({"de/setup", "faq", "en-refills"})


@pytest.mark.parametrize(
    ("value", "card"),
    [
        ("de/setup", "de/setup"),  # already a card id
        ("docs/de/setup.md", "de/setup"),  # relative path, extension dropped
        ("/srv/app/docs/de/setup.markdown", "de/setup"),  # absolute path
        ("C:\\repo\\docs\\de\\setup.md", "de/setup"),  # Windows separators
        ("./faq.md", "faq"),
        ("kb/en/en-refills.md", "en-refills"),  # a front-matter id that is the file's stem
    ],
)
def test_a_path_maps_to_the_longest_trailing_part_that_is_a_card(value: str, card: str) -> None:
    hit = Hit(fields={"metadata": {"source": value}})
    assert IdMapper(card_ids=CARDS).card_id(hit, case_id="c", rank=1) == card


def test_the_default_fields_are_tried_in_order_until_one_is_a_card() -> None:
    hit = Hit(fields={"id": "uuid-1", "metadata": {"source": "docs/faq.md", "card_id": "nope"}})
    assert IdMapper(card_ids=CARDS).card_id(hit, case_id="c", rank=1) == "faq"


def test_without_a_kb_the_first_present_field_is_used_without_its_extension() -> None:
    hit = Hit(fields={"id": "uuid-1", "metadata": {"source": "docs/faq.md"}})
    assert IdMapper(gold_ids=frozenset({"docs/faq"})).card_id(hit, case_id="c", rank=1) == (
        "docs/faq"
    )
    assert IdMapper(id_from="id").card_id(hit, case_id="c", rank=1) == "uuid-1"


def test_without_a_kb_a_file_path_that_is_no_gold_id_names_kb() -> None:
    hit = Hit(fields={"metadata": {"source": "/srv/app/docs/en/faq.md"}})
    with pytest.raises(InputError) as caught:
        IdMapper(gold_ids=frozenset({"en/faq"})).card_id(hit, case_id="q1", rank=1)
    assert str(caught.value) == (
        "case 'q1', document 1: metadata.source '/srv/app/docs/en/faq.md' looks like a file "
        "path and no `kb:` is set to map it to a card id: every case would score 0\n"
        "  fix: set `kb:` in recall-gate.yaml (or pass --kb PATH) to the folder of your docs, "
        "so each path maps to its card id (the path under that folder, without extension)"
    )


def test_without_a_kb_paths_pass_when_the_gold_ids_are_paths_too() -> None:
    hit = Hit(fields={"metadata": {"source": "docs/other.md"}})
    mapper = IdMapper(gold_ids=frozenset({"docs/faq.md"}))
    assert mapper.card_id(hit, case_id="q1", rank=1) == "docs/other"


def test_id_from_names_one_field_and_its_value_must_be_a_card() -> None:
    hit = Hit(fields={"metadata": {"url": "https://example.com/pricing"}})
    with pytest.raises(InputError) as caught:
        IdMapper(id_from="metadata.url", card_ids=CARDS).card_id(hit, case_id="q7", rank=2)
    assert str(caught.value).startswith(
        "case 'q7', document 2: --id-from metadata.url: 'https://example.com/pricing' is no KB card"
    )


def test_lookup_follows_mappings_and_attributes() -> None:
    class Node:
        def __init__(self) -> None:
            self.metadata = {"file_path": "a.md"}

    assert lookup({"node": Node()}, "node.metadata.file_path") == "a.md"
    assert lookup({"node": Node()}, "node.missing.x") is None


def test_a_page_outside_the_kb_is_named_relative_to_the_kb_else_its_repository() -> None:
    mapper = IdMapper(
        card_ids=frozenset({"en/install"}), anchors=("/runner/app/docs", "/runner/app")
    )
    in_kb = Hit({"metadata": {"file_path": "/runner/app/docs/blog/launch.md"}})
    in_repo = Hit({"metadata": {"file_path": "/runner/app/CHANGES.md"}})
    elsewhere = Hit({"metadata": {"file_path": "/srv/shared/faq.md"}})
    assert mapper.map(in_kb, case_id="c", rank=1) == ("blog/launch.md", True)
    assert mapper.map(in_repo, case_id="c", rank=2) == ("CHANGES.md", True)
    assert mapper.map(elsewhere, case_id="c", rank=3) == ("/srv/shared/faq.md", True)
    card = Hit({"metadata": {"file_path": "/runner/app/docs/en/install.md"}})
    assert mapper.map(card, case_id="c", rank=4) == ("en/install", False)
