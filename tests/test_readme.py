"""The README is the front door: short, and every promise in it still true.

The two commands exist, the quick start's configuration and cases pass
`recall-gate check`, its links resolve, and the docs site can still include
its quick start (the quick-start workflow itself is checked in
``tests/action/test_action.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

from cli_runner import run_cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 300


def readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_readme_stays_a_front_door_of_at_most_300_lines() -> None:
    lines = len(readme().splitlines())
    assert lines <= MAX_LINES, (
        f"README.md has {lines} lines (at most {MAX_LINES}): move guide or reference "
        "text to a page under docs/ and link it"
    )


def test_the_two_commands_are_in_the_readme_and_the_makefile() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("run", "check"):
        assert re.search(rf"^make {target}\b", readme(), re.M), f"README lost `make {target}`"
        assert re.search(rf"^{target}:", makefile, re.M), f"Makefile lost the `{target}` target"


def test_make_check_builds_the_docs_site_strictly() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    check = re.search(r"^check:(.*)$", makefile, re.M)
    assert check, "Makefile lost the `check` target"
    assert "docs" in check.group(1).split(), "`make check` no longer builds the docs"
    docs = re.search(r"^docs:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert docs, "Makefile lost the `docs` target"
    assert "mkdocs build --strict" in docs.group(1)


def test_the_quick_start_config_and_cases_pass_check(tmp_path: Path) -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", readme(), re.S)
    config = next((b for b in blocks if re.search(r"^kb:", b, re.M)), None)
    cases = next((b for b in blocks if re.search(r"^cases:\n", b, re.M)), None)
    assert config, "README's quick start lost its recall-gate.yaml example"
    assert cases, "README's quick start lost its cases example"
    kb = re.search(r"^kb: (\S+)", config, re.M)
    cases_path = re.search(r"^cases: (\S+)", config, re.M)
    assert kb
    assert cases_path
    (tmp_path / "recall-gate.yaml").write_text(config, encoding="utf-8")
    (tmp_path / cases_path.group(1)).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / cases_path.group(1)).write_text(cases, encoding="utf-8")
    # One synthetic doc per gold id of the example, at the path its id names.
    for card_id in re.findall(r"must_cite_one_of: \[([^\]]*)\]", cases):
        for one in card_id.split(","):
            card = tmp_path / kb.group(1) / f"{one.strip()}.md"
            card.parent.mkdir(parents=True, exist_ok=True)
            card.write_text("# A synthetic card\n\nInvented text.\n", encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 0, done.out + done.err


def test_every_relative_link_in_the_readme_resolves() -> None:
    targets = re.findall(r"\]\((?!https?://|#)([^)#\s]+)(?:#[^)]*)?\)", readme())
    assert targets, "README links nowhere"
    missing = [target for target in targets if not (ROOT / target).exists()]
    assert missing == []


def test_the_docs_site_can_include_the_readme_quick_start() -> None:
    text = readme()
    start, end = "<!-- --8<-- [start:quickstart] -->", "<!-- --8<-- [end:quickstart] -->"
    assert start in text, "docs/index.md includes the README from this marker"
    assert end in text, "docs/index.md includes the README up to this marker"
    section = text[text.index(start) : text.index(end)]
    assert "<!-- quickstart:start -->" in section, "the included part holds the workflow"
    relative = re.findall(r"\]\((?!https?://)[^)]*\)", section)
    assert relative == [], "a relative link breaks on the site: put it after the end marker"


def test_the_readmes_trust_claim_is_the_security_pages_word_for_word() -> None:
    """The README promises what docs/security.md's trust model states, in its words."""
    claim = "The pull request's code never runs in a job that holds a token or makes the verdict"

    def words(path: str) -> str:
        text = (Path(__file__).resolve().parents[1] / path).read_text(encoding="utf-8")
        return " ".join(text.replace("*", "").split())

    assert claim in words("README.md")
    assert claim in words("docs/security.md")
    data = (
        "It reads the pull request as data: no file of the pull request is the judge's "
        "working folder, a configuration its tools read, or a program on its PATH"
    )
    assert data in words("README.md")
    assert data in words("docs/security.md")
    assert "| tool | what it reads by default from the working folder, its parents and HOME |" in (
        words("docs/security.md")
    )
