"""The documentation site stays true and buildable.

The configuration reference validates and shows the defaults; the site builds
with ``mkdocs build --strict`` without the network; the paths, make targets and
test files the pages name exist; and nothing cites a document the repository
does not hold (the decision record lives in docs/decisions/).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel
from ruamel.yaml import YAML

from cli_runner import run_cli
from recall_gate.adapters.config import Config, load_config

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONFIG_REFERENCE = DOCS / "reference" / "config.md"
CONTRIBUTING = ROOT / "CONTRIBUTING.md"
DECISION = "docs/decisions/retrieval-recall.md"


def pages() -> list[Path]:
    return sorted(DOCS.rglob("*.md"))


def mkdocs_config() -> dict[str, object]:
    # mkdocs.yml may hold `!!python/name:` tags; the keys read here are plain.
    yaml = YAML(typ="rt")
    data = yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return dict(data)


def test_the_config_reference_is_a_valid_config_with_the_defaults(tmp_path: Path) -> None:
    text = CONFIG_REFERENCE.read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert match, f"{CONFIG_REFERENCE.name} lost its recall-gate.yaml reference block"
    path = tmp_path / "recall-gate.yaml"
    path.write_text(match.group(1), encoding="utf-8")
    config = load_config(path)
    defaults = Config()
    # Every section shown equals the defaults, so the reference documents them.
    for section in ("embedder", "chunking", "store", "retrieval", "reranker", "gate"):
        shown = getattr(config, section).model_dump(exclude={"path"})
        assert shown == getattr(defaults, section).model_dump(exclude={"path"}), section
    for section in ("capture",):
        assert getattr(config, section) == getattr(defaults, section), section


def test_the_config_reference_shows_every_key() -> None:
    text = CONFIG_REFERENCE.read_text(encoding="utf-8")
    match = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert match
    shown = YAML(typ="safe").load(match.group(1))
    assert set(shown) == set(Config.model_fields), (
        "document the new key in docs/reference/config.md"
    )
    for section, field in Config.model_fields.items():
        if isinstance(field.default, BaseModel):
            assert isinstance(shown[section], dict), section
            assert set(shown[section]) == set(type(field.default).model_fields), section


def test_the_site_builds_offline_with_system_fonts_and_no_downloading_plugin() -> None:
    config = mkdocs_config()
    theme = config["theme"]
    assert isinstance(theme, dict)
    assert theme["name"] == "material"
    assert theme["font"] is False, "web fonts are fetched from Google: keep `font: false`"
    plugins = config.get("plugins", [])
    assert isinstance(plugins, list)
    names = {p if isinstance(p, str) else next(iter(p)) for p in plugins}
    assert names <= {"search"}, f"check that {sorted(names - {'search'})} needs no network"


def test_every_page_in_the_nav_exists() -> None:
    def walk(entries: object) -> list[str]:
        if isinstance(entries, str):
            return [entries]
        if isinstance(entries, list):
            return [page for entry in entries for page in walk(entry)]
        if isinstance(entries, dict):
            return [page for value in entries.values() for page in walk(value)]
        return []

    listed = walk(mkdocs_config()["nav"])
    assert listed, "mkdocs.yml has no nav"
    assert [page for page in listed if not (DOCS / page).is_file()] == []
    assert len(listed) == len(set(listed)), "a page is listed twice"


def test_the_site_builds_strict(tmp_path: Path) -> None:
    mkdocs = shutil.which("mkdocs") or str(Path(sys.executable).parent / "mkdocs")
    if not Path(mkdocs).exists():
        pytest.fail("mkdocs is not installed: `make install` installs the dev extra")
    done = subprocess.run(
        [mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _named_repository_paths(text: str) -> set[str]:
    return set(re.findall(r"`((?:tests|src|benchmarks|examples)/[\w./-]+\.(?:py|md|yml))`", text))


def test_every_file_the_docs_name_exists() -> None:
    named = {
        (page.relative_to(ROOT), path)
        for page in [*pages(), CONTRIBUTING]
        for path in _named_repository_paths(page.read_text(encoding="utf-8"))
    }
    assert named, "the docs name no file of the repository"
    assert sorted((str(page), path) for page, path in named if not (ROOT / path).exists()) == []


def test_every_make_target_contributing_names_exists() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    named = set(re.findall(r"`make ([a-z][a-z-]*)`", CONTRIBUTING.read_text(encoding="utf-8")))
    assert named >= {"run", "check", "docs", "bench"}
    assert sorted(named - targets) == []


# Spelled in pieces so that this file does not cite them either.
_ABSENT_DOCUMENTS = ("ADR-" + "0023", "ADR-" + "0018", "STYLE" + ".md", "DESIGN" + ".md")


def test_nothing_cites_a_document_the_repository_lacks() -> None:
    tracked = (
        subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True, timeout=60
        )
        .stdout.decode()
        .split("\0")
    )
    citing = []
    for name in filter(None, tracked):
        path = ROOT / name
        if not path.is_file() or path.suffix not in {".py", ".md", ".yml", ".yaml", ".txt", ""}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        citing += [f"{name}: {doc}" for doc in _ABSENT_DOCUMENTS if doc in text]
    assert citing == [], f"point to {DECISION} (or say it in words) instead"
    assert (ROOT / DECISION).is_file()


def test_no_text_file_holds_a_merge_conflict_marker() -> None:
    tracked = subprocess.run(
        ["git", "ls-files", "-z", "*.md", "*.yml", "*.yaml", "*.toml", "*.txt"],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=60,
    ).stdout.decode()
    marked = [
        name
        for name in filter(None, tracked.split("\0"))
        if (ROOT / name).is_file()
        # The opening and closing markers; a lone ======= may be a setext heading.
        and re.search(r"^(<{7}|>{7}) ", (ROOT / name).read_text(encoding="utf-8"), re.M)
    ]
    assert marked == [], "resolve the merge: keep both sides' intent, drop the markers"


# A page of this site (not an example path of a user's docs such as docs/de/setup.md).
_OUR_PAGE = r"\bdocs/(?:(?:guide|reference|decisions)/)?[\w-]+\.md\b"


def test_every_docs_page_the_code_names_exists() -> None:
    named = {
        (source.relative_to(ROOT), page)
        for source in sorted((ROOT / "src").rglob("*.py"))
        for page in re.findall(_OUR_PAGE, source.read_text(encoding="utf-8"))
    }
    assert named, "no message or docstring points to the docs"
    missing = sorted((str(source), page) for source, page in named if not (ROOT / page).is_file())
    assert missing == []


def test_a_config_that_is_not_a_mapping_points_to_the_config_reference(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("- kb: docs\n", encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 2
    assert "expected a mapping of settings" in done.err
    assert "fix: write `key: value` lines, as in docs/reference/config.md" in done.err


def test_an_unknown_config_key_points_to_the_config_reference(tmp_path: Path) -> None:
    (tmp_path / "recall-gate.yaml").write_text("kb: docs\nk_: 5\n", encoding="utf-8")

    done = run_cli(["check"], cwd=tmp_path)

    assert done.code == 2
    assert "fix: see docs/reference/config.md for every key, its type and its default" in done.err
