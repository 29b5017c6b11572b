"""Loaders for the KB, cases and artifacts: every bad file is one InputError that
names the file (and line or case) and carries a fix."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recall_gate.adapters.dataset import load_artifacts, load_cards, load_cases
from recall_gate.adapters.files import describe_validation_error, parse_yaml, read_text
from recall_gate.core.records import Card, RetrievedItem
from recall_gate.errors import InputError

CASE = {
    "id": "c1",
    "language": "en",
    "case_type": "golden",
    "query": "how do I refill?",
    "must_cite_one_of": ["en-refills"],
}


def card_md(card_id: str = "en-refills", *, language: str = "en", extra: str = "") -> str:
    return (
        f"---\nid: {card_id}\nlanguage: {language}\ntitle: Refills\n"
        f"tags: [synthetic]\n{extra}---\nBody of {card_id}.\n\nSecond paragraph.\n"
    )


def write(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def jsonl(*objects: Any) -> str:
    return "".join(json.dumps(obj, ensure_ascii=False) + "\n" for obj in objects)


def input_error(call: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(InputError) as caught:
        call(*args, **kwargs)
    assert caught.value.exit_code == 2
    assert caught.value.fix, "every input error carries a fix"
    return str(caught.value)


# --- read_text ------------------------------------------------------------------------


def test_read_text_strips_a_utf8_bom(tmp_path: Path) -> None:
    path = write(tmp_path / "f.yaml", "\ufeffcases: []\n".encode())
    assert read_text(path, what="cases file") == "cases: []\n"


def test_read_text_missing_file(tmp_path: Path) -> None:
    assert input_error(read_text, tmp_path / "nope.yaml", what="cases file") == (
        f"{tmp_path / 'nope.yaml'}: cases file not found\n"
        "  fix: check the path, or create the cases file"
    )


def test_read_text_directory(tmp_path: Path) -> None:
    assert input_error(read_text, tmp_path, what="artifacts file") == (
        f"{tmp_path}: is a directory, expected the artifacts file\n"
        "  fix: pass the artifacts file's path"
    )


def test_read_text_binary_file(tmp_path: Path) -> None:
    path = write(tmp_path / "run.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00")
    assert input_error(read_text, path, what="artifacts file") == (
        f"{path}: is a binary file, expected the artifacts file as text\n"
        "  fix: pass a UTF-8 text file"
    )


def test_read_text_not_utf8(tmp_path: Path) -> None:
    path = write(tmp_path / "cases.yaml", "query: ¿dónde?\n".encode("latin-1"))
    assert input_error(read_text, path, what="cases file") == (
        f"{path}: is not UTF-8 text (byte 7)\n  fix: save the file as UTF-8"
    )


@pytest.mark.parametrize("content", ["", "  \n\n\t\n"])
def test_read_text_empty_file(tmp_path: Path, content: str) -> None:
    path = write(tmp_path / "cases.yaml", content)
    assert input_error(read_text, path, what="cases file") == (
        f"{path}: cases file is empty\n  fix: add content to the cases file"
    )


# --- YAML -----------------------------------------------------------------------------


def test_parse_yaml_names_the_line() -> None:
    assert input_error(lambda: parse_yaml("a: 1\nb: [1,\n", source="f.yaml")) == (
        "f.yaml: line 3 invalid YAML: expected the node content, but found '<stream end>'\n"
        "  fix: fix the YAML syntax (quote strings containing ':' or '#')"
    )


def test_parse_yaml_rejects_duplicate_keys() -> None:
    message = input_error(lambda: parse_yaml("id: a\nid: b\n", source="f.yaml"))
    assert message.startswith('f.yaml: line 2 invalid YAML: found duplicate key "id"')


def test_parse_yaml_refuses_arbitrary_tags() -> None:
    message = input_error(lambda: parse_yaml("x: !!python/object:os.system 1\n", source="f"))
    assert "could not determine a constructor" in message


# --- cards ------------------------------------------------------------------------------


def test_load_cards_from_a_directory_of_markdown(tmp_path: Path) -> None:
    write(tmp_path / "kb" / "en" / "b.md", card_md("en-b"))
    write(tmp_path / "kb" / "es-419" / "a.md", card_md("es-a", language="es-419"))
    write(tmp_path / "kb" / "notes.txt", "not a card")
    located = load_cards(tmp_path / "kb")
    assert [(where, card.id) for where, card in located] == [
        (str(tmp_path / "kb" / "en" / "b.md"), "en-b"),
        (str(tmp_path / "kb" / "es-419" / "a.md"), "es-a"),
    ]
    card = located[0][1]
    assert card.body == "Body of en-b.\n\nSecond paragraph."
    assert card.tags == ("synthetic",)
    assert card.title == "Refills"


def test_load_cards_from_yaml_and_jsonl(tmp_path: Path) -> None:
    data = {"id": "c", "language": "pt-BR", "title": "T", "body": "B"}
    from_yaml = load_cards(write(tmp_path / "kb.yaml", f"cards:\n  - {json.dumps(data)}\n"))
    from_jsonl = load_cards(write(tmp_path / "kb.jsonl", jsonl(data)))
    card = Card.model_validate(data)
    assert from_yaml == [(f"{tmp_path / 'kb.yaml'} card #1", card)]
    assert from_jsonl == [(f"{tmp_path / 'kb.jsonl'}:1", card)]


def test_load_cards_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "kb").mkdir()
    assert input_error(load_cards, tmp_path / "kb") == (
        f"{tmp_path / 'kb'}: no Markdown card files (.md, .markdown, .mdx) in the KB directory\n"
        "  fix: add Markdown files (front matter optional), point `kb` elsewhere, or widen "
        "`kb_include` / `kb_exclude` in recall-gate.yaml"
    )


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("id: x\n\nbody\n", "no language for this card"),
        ("---\nid: x\nlanguage: en\n", "front matter is not closed"),
        ("---\n- a\n- b\n---\nbody\n", "front matter is a list, not a mapping of keys"),
        (card_md(language="french"), "front-matter `language: french` is not a BCP-47 tag"),
        (card_md(extra="tags: synthetic\n"), 'line 6 invalid YAML: found duplicate key "tags"'),
        ("---\nid: x\nlanguage: en\ntitle: a: b\n---\nbody\n", "line 4 invalid YAML"),
        ("---\nid: x\nlanguage: en\ntitle: t\n---\n\n", "the page is no card (no text)"),
    ],
)
def test_load_cards_bad_markdown_card(tmp_path: Path, content: str, expected: str) -> None:
    path = write(tmp_path / "card.md", content)
    message = input_error(load_cards, path)
    assert message.startswith(f"{path}: {expected}")
    assert "\n  fix: " in message


def test_plain_markdown_card_takes_id_from_path_title_from_heading_language_from_folder(
    tmp_path: Path,
) -> None:
    kb = tmp_path / "docs"
    write(kb / "de" / "setup" / "install.md", "Intro line.\n\n# Installation \n\nSo geht's.\n")
    write(kb / "fr-CA" / "faq.markdown", "Foire aux questions\n===\n\nRéponses.\n")
    write(kb / "pricing.md", "## Prices ##\n\nCheap.\n")
    located = load_cards(kb, default_language="es")
    cards = {card.id: card for _, card in located}
    assert sorted(cards) == ["de/setup/install", "fr-CA/faq", "pricing"]
    assert (cards["de/setup/install"].title, cards["de/setup/install"].language) == (
        "Installation",
        "de",
    )
    assert cards["de/setup/install"].body == "Intro line.\n\n# Installation \n\nSo geht's."
    assert (cards["fr-CA/faq"].title, cards["fr-CA/faq"].language) == (
        "Foire aux questions",
        "fr-CA",
    )
    assert (cards["pricing"].title, cards["pricing"].language) == ("Prices", "es")


def test_front_matter_fields_win_and_missing_ones_are_derived(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    write(kb / "de" / "a.md", "---\nlanguage: de-at\n---\n# Titel\n\nText.\n")
    write(kb / "de" / "b.md", "---\nid: custom\ntitle: Given\n---\n# Heading\n\nText.\n")
    write(kb / "notitle.md", "---\nlanguage: en\n---\nJust text, no heading.\n")
    cards = {card.id: card for _, card in load_cards(kb)}
    assert (cards["de/a"].language, cards["de/a"].title) == ("de-AT", "Titel")
    assert (cards["custom"].language, cards["custom"].title) == ("de", "Given")
    assert cards["notitle"].title == "notitle"  # no heading: the file name


def test_a_card_with_no_language_anywhere_names_the_four_ways_to_give_one(tmp_path: Path) -> None:
    path = write(tmp_path / "kb" / "guides" / "a.md", "# A\n\nText.\n")
    assert input_error(load_cards, tmp_path / "kb") == (
        f"{path}: no language for this card\n"
        "  fix: add `language: <tag>` front matter, keep the file under a folder named after its "
        "language directly under the KB root (e.g. de/ or fr-CA/), map its folder in "
        "`languages:`, or set `default_language` in recall-gate.yaml"
    )


def test_every_bad_kb_file_is_reported_in_one_run(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    write(kb / "en" / "good.md", "# Good\n\nText.\n")
    first = write(kb / "en" / "bad-yaml.md", "---\ntitle: a: b\n---\nText.\n")
    second = write(kb / "misc" / "no-language.md", "# X\n\nText.\n")
    third = write(kb / "en" / "no-front-matter-close.md", "---\ntitle: T\n\nText.\n")
    write(kb / "en" / "empty-body.md", "---\ntitle: T\n---\n\n")  # skipped: no error
    message = input_error(load_cards, kb)
    assert message.startswith("3 of 5 KB card files are unusable:\n")
    for path in (first, second, third):
        assert f"\n  {path}: " in message
    assert message.count("\n    fix") == 3
    assert message.endswith("\n  fix: fix each one listed above")


def test_a_fix_that_many_bad_files_share_is_said_once_after_them(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    for n in range(40):
        write(kb / "misc" / f"p{n:02}.md", "# X\n\nText.\n")  # no language: one fix for all
    write(kb / "en" / "bad.md", "---\nlanguage: english\n---\n# X\n\nText.\n")
    message = input_error(load_cards, kb)
    assert message.startswith("41 of 41 KB card files are unusable:\n")
    assert message.count("no language for this card") == 40  # every file named
    assert message.count("fix (the 40 above): add `language: <tag>` front matter") == 1
    assert message.count("\n    fix") == 2  # and the other file's own fix


def test_load_cards_unknown_format(tmp_path: Path) -> None:
    path = write(tmp_path / "kb.csv", "id,language\n")
    assert input_error(load_cards, path) == (
        f"{path}: unknown KB format '.csv'\n"
        "  fix: use a directory of Markdown cards (.md, .mdx), or a .yaml / .jsonl file of cards"
    )


# --- cases ------------------------------------------------------------------------------


def test_load_cases_yaml_list_mapping_jsonl_and_directory(tmp_path: Path) -> None:
    as_list = write(tmp_path / "d" / "a.yaml", f"- {json.dumps(CASE)}\n")
    as_mapping = write(
        tmp_path / "d" / "b.yml", f"cases:\n  - {json.dumps({**CASE, 'id': 'c2'})}\n"
    )
    as_jsonl = write(tmp_path / "d" / "c.jsonl", "\n" + jsonl({**CASE, "id": "c3"}))
    write(tmp_path / "d" / "README.md", "ignored")
    located = load_cases([tmp_path / "d"])
    assert [(where, case.id) for where, case in located] == [
        (f"{as_list} case #1 (id c1)", "c1"),
        (f"{as_mapping} case #1 (id c2)", "c2"),
        (f"{as_jsonl}:2", "c3"),  # line numbers count blank lines
    ]
    assert load_cases([as_list, as_jsonl]) == [located[0], located[2]]


def test_load_cases_keeps_optional_relevant_ids(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", jsonl({**CASE, "relevant_ids": ["a", "b"]}))
    [(_, case)] = load_cases([path])
    assert case.relevant_ids == ("a", "b")


CASE_FIX = (
    "  fix: a case needs id, language (a BCP-47 tag such as en, de, es-419, pt-BR), case_type "
    "(golden | adversarial | capability | no_match), query and must_cite_one_of "
    "(a list of card ids, [] for none)"
)


BAD_CASES = {
    "missing field": (
        {k: v for k, v in CASE.items() if k != "query"},
        "field `query`: required field is missing",
    ),
    "mistyped field": (
        {**CASE, "must_cite_one_of": "en-refills"},
        "field `must_cite_one_of`: Input should be a valid list",
    ),
    "malformed language": (
        {**CASE, "language": "Spanish"},
        "field `language`: language 'Spanish' is not a well-formed BCP-47 tag "
        "(e.g. en, de, es-419, pt-BR, fr-CA, zh-Hant)",
    ),
    "unknown case type": (
        {**CASE, "case_type": "gold"},
        "field `case_type`: Input should be 'golden', 'adversarial', 'capability' or 'no_match'",
    ),
    "unknown field": (
        {**CASE, "must_cite": ["a"]},
        "field `must_cite`: unknown field (check its spelling)",
    ),
    "id not a string": ({**CASE, "id": 7}, "field `id`: Input should be a valid string"),
}


@pytest.mark.parametrize(("case", "expected"), BAD_CASES.values(), ids=BAD_CASES.keys())
def test_load_cases_bad_case_in_yaml(tmp_path: Path, case: dict[str, Any], expected: str) -> None:
    good = "{id: ok, language: en, case_type: golden, query: q, must_cite_one_of: []}"
    path = write(tmp_path / "cases.yaml", f"cases:\n  - {good}\n  - {json.dumps(case)}\n")
    ident = f" (id {case['id']})" if isinstance(case.get("id"), str) else ""
    assert input_error(load_cases, [path]) == f"{path} case #2{ident}: {expected}\n{CASE_FIX}"


def test_load_cases_bad_case_in_jsonl_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path / "cases.jsonl", jsonl(CASE, {**CASE, "language": "de_DE"}))
    assert input_error(load_cases, [path]) == (
        f"{path}:2: field `language`: language 'de_DE' is not a BCP-47 tag: "
        f"use '-', not '_' (de-DE)\n{CASE_FIX}"
    )


def test_load_cases_relevant_ids_without_gold(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c.jsonl", jsonl({**CASE, "must_cite_one_of": [], "relevant_ids": ["a"]})
    )
    message = input_error(load_cases, [path])
    assert message.startswith(f"{path}:1: relevant_ids is set but must_cite_one_of")


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("cases: [\n", ": line 2 invalid YAML: expected the node content"),
        ("cases:\n  id: c1\n", ": expected a top-level list of cases or a `cases:` list"),
        ("# only a comment\n", ": expected a top-level list of cases or a `cases:` list"),
        ("cases: []\n", ": the case list is empty"),
        ("- just a string\n", " case #1: expected a mapping, got str"),
    ],
)
def test_load_cases_bad_yaml_file(tmp_path: Path, content: str, expected: str) -> None:
    path = write(tmp_path / "cases.yaml", content)
    assert input_error(load_cases, [path]).startswith(f"{path}{expected}")


def test_load_cases_directory_without_case_files(tmp_path: Path) -> None:
    write(tmp_path / "d" / "notes.txt", "x")
    assert input_error(load_cases, [tmp_path / "d"]) == (
        f"{tmp_path / 'd'}: no .yaml or .jsonl cases files in the directory\n"
        "  fix: point `cases` at a cases file or a directory holding them"
    )


# --- artifacts -------------------------------------------------------------------------

ARTIFACT_FIX = (
    '  fix: each line is {"case_id": "...", "retrieved": ["card-id", ...]} '
    '(an item may be {"id": ..., "parent_id": ..., "score": ...})'
)


def test_load_artifacts_with_line_numbers(tmp_path: Path) -> None:
    path = write(
        tmp_path / "run.jsonl",
        jsonl({"case_id": "c1", "retrieved": ["a", {"id": "b#1", "parent_id": "b", "score": 0.5}]})
        + "\n   \n"
        + jsonl({"case_id": "c2", "retrieved": [], "cited": ["a"]}),
    )
    [(n1, first), (n2, second)] = load_artifacts(path)
    assert (n1, n2) == (1, 4)
    assert first.retrieved == ("a", RetrievedItem(id="b#1", parent_id="b", score=0.5))
    assert first.ranked_card_ids() == ["a", "b"]
    assert second.cited == ("a",)


def test_load_artifacts_accepts_crlf_and_unicode_line_separators_inside_strings(
    tmp_path: Path,
) -> None:
    # U+2028 and U+0085 are legal unescaped in JSON strings: they must not split a line.
    lines = [
        {"case_id": "c1", "retrieved": ["a"], "query": "uno\u2028dos\x85tres"},
        {"case_id": "c2", "retrieved": ["b"]},
    ]
    path = write(tmp_path / "run.jsonl", jsonl(*lines).replace("\n", "\r\n"))
    loaded = load_artifacts(path)
    assert [(n, a.case_id) for n, a in loaded] == [(1, "c1"), (2, "c2")]
    assert loaded[0][1].query == "uno\u2028dos\x85tres"


BAD_ARTIFACT_LINES = {
    "invalid JSON": (
        '{"case_id": "c1", "retrieved": ["a"]',
        ": invalid JSON: Expecting ',' delimiter (column 37)",
    ),
    "a list, not an object": ('["c1", ["a"]]', ": expected a mapping, got list"),
    "a string, not an object": ('"c1"', ": expected a mapping, got str"),
    "missing case_id": ('{"retrieved": ["a"]}', ": field `case_id`: required field is missing"),
    "retrieved not a list": (
        '{"case_id": "c1", "retrieved": "a"}',
        " (case c1): field `retrieved`: Input should be a valid list",
    ),
    "empty retrieved id": (
        '{"case_id": "c1", "retrieved": [""]}',
        " (case c1): field `retrieved`: retrieved[0] is an empty id",
    ),
    "malformed language": (
        '{"case_id": "c1", "retrieved": [], "language": "e"}',
        " (case c1): field `language`: language 'e' is not a well-formed BCP-47 tag "
        "(e.g. en, de, es-419, pt-BR, fr-CA, zh-Hant)",
    ),
    "unknown case type": (
        '{"case_id": "c1", "retrieved": [], "case_type": "x"}',
        " (case c1): field `case_type`: Input should be 'golden', 'adversarial', 'capability' "
        "or 'no_match'",
    ),
    "misspelt field": (
        '{"case_id": "c1", "retreived": []}',
        " (case c1): field `retrieved`: required field is missing; "
        "field `retreived`: unknown field (check its spelling)",
    ),
}


@pytest.mark.parametrize(
    ("line", "expected"), BAD_ARTIFACT_LINES.values(), ids=BAD_ARTIFACT_LINES.keys()
)
def test_load_artifacts_bad_line(tmp_path: Path, line: str, expected: str) -> None:
    good = jsonl({"case_id": "c0", "retrieved": ["a"]})
    path = write(tmp_path / "run.jsonl", good + line + "\n")
    fix = (
        "  fix: write one JSON object per line (JSON Lines)"
        if "invalid JSON" in expected
        else ARTIFACT_FIX
    )
    assert input_error(load_artifacts, path) == f"{path}:2{expected}\n{fix}"


def test_describe_validation_error_lists_three_and_counts_the_rest(tmp_path: Path) -> None:
    path = write(tmp_path / "c.jsonl", jsonl({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}))
    message = input_error(load_cases, [path])
    assert message.startswith(f"{path}:1: field `")
    assert "; and " in message
    assert message.split("\n")[0].endswith("more")


def test_describe_validation_error_without_a_location() -> None:
    from pydantic import TypeAdapter, ValidationError

    with pytest.raises(ValidationError) as caught:
        TypeAdapter(int).validate_python("x")
    assert describe_validation_error(caught.value).startswith("Input should be a valid integer")
