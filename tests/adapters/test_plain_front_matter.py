"""The plain front-matter fast path reads exactly what the full YAML parser reads,
or hands the page to it (adapters.plain_front_matter)."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.files import parse_yaml
from recall_gate.adapters.plain_front_matter import parse_plain_front_matter

DATA = Path(__file__).resolve().parent.parent / "data"

SAMPLES = [
    "title: Install\nweight: 3\ndate: 2024-01-05\ntags: [setup, guide]\n",
    "title: A\nmenu:\n  main:\n    weight: 20\ntags:\n- a\n- b\naliases:\n  - /old/x/\nk:\n",
    "description: A short lead, with a comma.\nslug: /\nid: intro\n",
    "title: \"Quoted: yes\"\nsub: 'single'\n",
    "title: 中文标题\nlinkTitle: Dokumentasjon\n",
    "build:\n  render: link\ncascade:\n  type: docs\n",
    "# a comment\ntitle: After a comment\n\nweight: 0\n",
    "a: 1\nb: 0\n",
]
# What the fast path must leave to the full parser (YAML gives each a meaning the
# subset does not spell, or an error that must be reported as the parser words it).
FALLBACK = [
    "draft: true\n",
    "draft: no\n",
    "on: x\n",
    "weight: 1.5\n",
    "weight: -3\n",
    "weight: 0x1F\n",
    "n: 007\n",
    "title: a: b\n",
    "title: x # comment\n",
    'title: "esc\\"aped"\n',
    "title: 'it''s'\n",
    "a: &x 1\nb: *x\n",
    "body: |\n  text\n",
    "menu: { main: { weight: 20 } }\n",
    "a: 1\na: 2\n",
    "list:\n  - a: 1\n",
    "date: 2024-13-45\n",
    "a: b\n  c: d\n",
    "- a\n",
    "a: nan\n",
]


@pytest.mark.parametrize("text", SAMPLES)
def test_the_plain_subset_reads_as_yaml_reads_it(text: str) -> None:
    plain = parse_plain_front_matter(text)
    assert plain is not None
    assert plain == parse_yaml(text, source="x")


@pytest.mark.parametrize("text", FALLBACK)
def test_anything_outside_the_plain_subset_goes_to_the_full_parser(text: str) -> None:
    assert parse_plain_front_matter(text) is None


def front_matters() -> list[tuple[str, str]]:
    found = []
    for path in sorted(DATA.rglob("*.md")) + sorted(DATA.rglob("*.mdx")):
        text = path.read_text(encoding="utf-8")
        if text.startswith("---\n") and "\n---" in text[3:]:
            found.append((path.relative_to(DATA).as_posix(), text[4 : text.index("\n---", 3)]))
    return found


@pytest.mark.parametrize(("where", "text"), front_matters())
def test_every_real_front_matter_of_the_test_data_reads_alike(where: str, text: str) -> None:
    plain = parse_plain_front_matter(text)
    assert plain is None or plain == parse_yaml(text, source=where)
