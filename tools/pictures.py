"""The pictures of what a reviewer sees, drawn from the golden reports (`make pictures`).

Each picture is one golden file under tests/golden/ rendered as GitHub renders
Markdown: GFM to HTML by cmark-gfm (the library github.com uses, through
cmarkgfm), GitHub's alerts (``> [!WARNING]``) as GitHub draws them, styled by
GitHub's markdown CSS (npm ``github-markdown-css``), the ```mermaid charts
drawn by mermaid (npm ``mermaid``), every ``<details>`` opened so the picture
shows what a click would, then photographed by headless Chromium and cropped to
the frame.

The npm packages are fetched once into .pictures-cache/ (not committed).
docs/images/pictures.json records, per picture, the golden file and the sha256
of its bytes, the picture's sha256, this script's sha256 and the renderer
versions; tests/test_pictures.py fails, without a browser, when a golden file
or this script changed and the pictures were not redrawn.

A picture whose golden file, renderer versions and this script are unchanged is
kept as it is (``--force`` redraws all), so a second run changes nothing.

Needs: chromium (Debian: ``apt-get install chromium fonts-noto-color-emoji``),
npm, and the dev extra (cmarkgfm, Pillow).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden"
IMAGES = ROOT / "docs" / "images"
MANIFEST = IMAGES / "pictures.json"
CACHE = ROOT / ".pictures-cache"

# The npm packages drawn with, each with the one file taken from its tarball.
NPM_FILES = {
    ("github-markdown-css", "5.9.0"): "package/github-markdown-light.css",
    ("mermaid", "12.3.0"): "package/dist/mermaid.min.js",
}
# GitHub's comment column is about 880 px wide; a picture is the frame, no wider.
WIDTH = 880
# Tall enough for the longest report; a report that reaches it is an error, not a cut.
VIEWPORT_HEIGHT = 12000
MARGIN = 8


@dataclass(frozen=True)
class Picture:
    image: str  # file name under docs/images/
    golden: str  # file name under tests/golden/
    surface: str  # the frame's title: where a reviewer sees it
    alt: str
    # Only the first <details> section that holds this text, if set.
    section: str | None = None
    # The report up to the first line starting with this, if set; the frame's
    # foot says what follows.
    until: str | None = None
    follows: str = ""
    # Every <details> opened (what a click shows), or left as GitHub first shows them.
    expand: bool = True


PICTURES = (
    Picture(
        "pr-comment-top.png",
        "regression.md",
        "Pull request comment: a real regression (its top)",
        "recall-gate's sticky PR comment for a failing run: the verdict, the headline "
        "metrics with their deltas, each drop beyond tolerance with its noise test, "
        "and the cases behind it (pt-BR cases that fell out of the top 5)",
        until="| group |",
        follows="Then the metric table per group, the chart, the flipped cases and the notes.",
        expand=False,
    ),
    Picture(
        "pr-comment-regression.png",
        "regression.md",
        "Pull request comment: a real regression",
        "recall-gate's PR comment for a failing run: the verdict, the drops beyond "
        "tolerance with the cases behind them, the metric table and its charts",
    ),
    Picture(
        "pr-comment-pass.png",
        "all_pass.md",
        "Pull request comment: a pass",
        "recall-gate's PR comment for a passing run: the verdict, the headline "
        "metrics with their deltas, the metric table per group and the flipped cases",
    ),
    Picture(
        "pr-comment-stale-baseline.png",
        "stale_baseline.md",
        "Pull request comment: a stale baseline",
        "recall-gate's PR comment when the baseline is stale: the warning naming what "
        "changed since the baseline was made, then the comparison and suggested floors",
    ),
    Picture(
        "job-summary-chart.png",
        "regression.md",
        "Job summary: the chart of a regression",
        "The job summary's chart of the regression: per metric, this run as bars and the "
        "baseline as a line, for overall, each case type and each language; pt-BR drops",
        section="```mermaid",
    ),
)

# GitHub's alert titles and their octicons (MIT, github.com/primer/octicons).
ALERTS = {
    "NOTE": (
        "Note",
        "M0 8a8 8 0 1 1 16 0A8 8 0 0 1 0 8Zm8-6.5a6.5 6.5 0 1 0 0 13 6.5 6.5 0 0 0 0-13ZM6.5 "
        "7.75A.75.75 0 0 1 7.25 7h1a.75.75 0 0 1 .75.75v2.75h.25a.75.75 0 0 1 0 1.5h-2a.75.75 "
        "0 0 1 0-1.5h.25v-2h-.25a.75.75 0 0 1-.75-.75ZM8 6a1 1 0 1 1 0-2 1 1 0 0 1 0 2Z",
    ),
    "IMPORTANT": (
        "Important",
        "M0 1.75C0 .784.784 0 1.75 0h12.5C15.216 0 16 .784 16 1.75v9.5A1.75 1.75 0 0 1 14.25 "
        "13H8.06l-2.573 2.573A1.458 1.458 0 0 1 3 14.543V13H1.75A1.75 1.75 0 0 1 0 11.25Zm1.75"
        "-.25a.25.25 0 0 0-.25.25v9.5c0 .138.112.25.25.25h2a.75.75 0 0 1 .75.75v2.19l2.72-2.72a"
        ".749.749 0 0 1 .53-.22h6.5a.25.25 0 0 0 .25-.25v-9.5a.25.25 0 0 0-.25-.25Zm7 2.25v2.5a"
        ".75.75 0 0 1-1.5 0v-2.5a.75.75 0 0 1 1.5 0ZM9 9a1 1 0 1 1-2 0 1 1 0 0 1 2 0Z",
    ),
    "WARNING": (
        "Warning",
        "M6.457 1.047c.659-1.234 2.427-1.234 3.086 0l6.082 11.378A1.75 1.75 0 0 1 14.082 15H1.918"
        "a1.75 1.75 0 0 1-1.543-2.575Zm1.763.707a.25.25 0 0 0-.44 0L1.698 13.132a.25.25 0 0 0 "
        ".22.368h12.164a.25.25 0 0 0 .22-.368Zm.53 3.996v2.5a.75.75 0 0 1-1.5 0v-2.5a.75.75 0 0 "
        "1 1.5 0ZM9 11a1 1 0 1 1-2 0 1 1 0 0 1 2 0Z",
    ),
}

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<style>{css}</style>
<style>
html, body {{ margin: 0; background: #ffffff; }}
.frame {{ box-sizing: border-box; width: {frame}px; margin: {margin}px;
  border: 1px solid #d1d9e0; border-radius: 6px; }}
.frame-head {{ background: #f6f8fa; border-bottom: 1px solid #d1d9e0; border-radius: 6px 6px 0 0;
  padding: 8px 16px; color: #59636e;
  font: 14px -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; }}
.markdown-body {{ padding: 16px; }}
.frame-foot {{ border-top: 1px dashed #d1d9e0; padding: 8px 16px; color: #59636e;
  font: italic 14px -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; }}
.markdown-body pre.mermaid {{ background: #ffffff; text-align: center; }}
.markdown-alert-title svg {{ margin-right: 8px; }}
</style></head>
<body><div class="frame"><div class="frame-head">{surface}</div>
<article class="markdown-body">
{body}
</article>{foot}</div>
<script src="{mermaid}"></script>
<script>
mermaid.initialize({{ startOnLoad: false, theme: "default" }});
mermaid.run({{ querySelector: "pre.mermaid" }});
</script>
</body></html>
"""


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def github_html(markdown: str, *, expand: bool) -> str:
    """GFM to HTML as github.com does it (cmark-gfm, raw HTML kept, ```lang as
    <pre lang>), then GitHub's own additions: alerts and drawn mermaid blocks."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    body: str = cmarkgfm.github_flavored_markdown_to_html(
        markdown, options=Options.CMARK_OPT_UNSAFE | Options.CMARK_OPT_GITHUB_PRE_LANG
    )
    body = re.sub(
        r'<pre lang="mermaid"><code>(.*?)</code></pre>',
        r'<pre class="mermaid">\1</pre>',
        body,
        flags=re.S,
    )
    body = re.sub(r"<blockquote>\n<p>\[!(\w+)\]\n(.*?)</blockquote>", _alert, body, flags=re.S)
    if not expand:
        return body
    # Opened for the picture: it shows what a reviewer sees after a click.
    return re.sub(r"<details(?![^>]*\bopen\b)", "<details open", body)


def markdown_of(picture: Picture) -> str:
    golden = GOLDEN / picture.golden
    if not golden.is_file():
        raise SystemExit(
            f"pictures: tests/golden/{picture.golden} is gone: point {picture.image} "
            "at another golden report in PICTURES (tools/pictures.py)"
        )
    text = golden.read_text(encoding="utf-8")
    if picture.until is not None:
        cut = text.find(f"\n{picture.until}")
        if cut < 0:
            raise SystemExit(
                f"pictures: tests/golden/{picture.golden} has no line starting with "
                f"'{picture.until}' for {picture.image}"
            )
        return text[: cut + 1]
    if picture.section is None:
        return text
    for found in re.finditer(r"<details[^>]*>.*?</details>", text, flags=re.S):
        if picture.section in found.group(0):
            return found.group(0) + "\n"
    raise SystemExit(
        f"pictures: tests/golden/{picture.golden} has no <details> section holding "
        f"'{picture.section}' for {picture.image}"
    )


def _alert(match: re.Match[str]) -> str:
    kind, rest = match.group(1), match.group(2)
    # An alert without an icon here (TIP, CAUTION) is drawn with its title alone.
    title, path = ALERTS.get(kind, (kind.capitalize(), ""))
    icon = (
        '<svg class="octicon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true">'
        f'<path d="{path}"></path></svg>'
        if path
        else ""
    )
    return (
        f'<div class="markdown-alert markdown-alert-{kind.lower()}">'
        f'<p class="markdown-alert-title">{icon}{title}</p>\n<p>{rest}</div>'
    )


def npm_file(name: str, version: str, member: str) -> Path:
    """One file of an npm package, fetched with npm into the cache once."""
    target = CACHE / f"{name}-{version}" / Path(member).name
    if target.exists():
        return target
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit(
            "pictures: npm is needed once to fetch the renderers (apt-get install npm)"
        )
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [npm, "pack", "--silent", "--pack-destination", tmp, f"{name}@{version}"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (tarball,) = Path(tmp).glob("*.tgz")
        with tarfile.open(tarball) as archive:
            source = archive.extractfile(member)
            if source is None:
                raise SystemExit(f"pictures: {member} is not in {name}@{version}")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    return target


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    raise SystemExit("pictures: headless Chromium is needed (Debian: apt-get install chromium)")


def renderers(browser: str) -> dict[str, str]:
    version = subprocess.run(
        [browser, "--version"], check=True, capture_output=True, text=True
    ).stdout.strip()
    found = {"cmarkgfm": metadata.version("cmarkgfm"), "chromium": version}
    found.update(dict(NPM_FILES.keys()))
    return found


def shoot(page: Path, browser: str, profile: Path) -> bytes:
    """The page photographed by headless Chromium, cropped to the frame and
    reduced to a 256-colour palette (text and charts stay sharp, a third the bytes)."""
    from PIL import Image, ImageChops

    raw = page.with_suffix(".raw.png")
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH + 2 * MARGIN},{VIEWPORT_HEIGHT}",
            "--virtual-time-budget=15000",
            f"--screenshot={raw}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
    )
    with Image.open(raw) as shot:
        image = shot.convert("RGB")
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is None:
        raise SystemExit(f"pictures: {page.name} rendered blank")
    if box[3] >= image.height - 1:
        raise SystemExit(f"pictures: {page.name} is taller than {VIEWPORT_HEIGHT} px")
    left, top, right, bottom = box
    image = image.crop((left, top, right, bottom))
    out = io.BytesIO()
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="PNG", optimize=True
    )
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--force", action="store_true", help="redraw every picture")
    args = parser.parse_args(argv)

    browser = chromium()
    versions = renderers(browser)
    script = sha256(Path(__file__))
    old = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.exists() else {}
    kept = {entry["image"]: entry for entry in old.get("pictures", [])}
    same_tools = old.get("generator_sha256") == script and all(
        old.get("renderers", {}).get(name) == ver
        for name, ver in versions.items()
        if name != "chromium"  # another build draws the same page; no reason to redraw
    )

    css = npm_file(*_only("github-markdown-css")).read_text("utf-8")
    mermaid = npm_file(*_only("mermaid"))
    IMAGES.mkdir(parents=True, exist_ok=True)
    entries = []
    drawn = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for picture in PICTURES:
            markdown = markdown_of(picture)  # first: a gone golden file is one clear message
            golden = GOLDEN / picture.golden
            image = IMAGES / picture.image
            entry = {
                "image": picture.image,
                "golden": f"tests/golden/{picture.golden}",
                "golden_sha256": sha256(golden),
                "alt": picture.alt,
            }
            previous = kept.get(picture.image)
            if (
                not args.force
                and same_tools
                and previous is not None
                and previous.get("golden_sha256") == entry["golden_sha256"]
                and image.exists()
                and sha256(image) == previous.get("image_sha256")
            ):
                entries.append(previous)
                continue
            page = work / picture.image.replace(".png", ".html")
            page.write_text(
                PAGE.format(
                    css=css,
                    frame=WIDTH,
                    margin=MARGIN,
                    surface=html.escape(picture.surface),
                    body=github_html(markdown, expand=picture.expand),
                    foot=(
                        f'<div class="frame-foot">{html.escape(picture.follows)}</div>'
                        if picture.follows
                        else ""
                    ),
                    mermaid=mermaid.as_uri(),
                ),
                encoding="utf-8",
            )
            image.write_bytes(shoot(page, browser, work / "profile"))
            entry["image_sha256"] = sha256(image)
            entries.append(entry)
            drawn += 1
    if drawn == 0:
        print(f"pictures: all {len(entries)} up to date")
        return 0
    manifest = {
        "about": "Pictures of golden reports; redraw with `make pictures`.",
        "generator": "tools/pictures.py",
        "generator_sha256": script,
        "renderers": versions,
        "pictures": entries,
    }
    MANIFEST.write_text(
        json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8", newline="\n"
    )
    print(f"pictures: drew {drawn} of {len(entries)} into {IMAGES.relative_to(ROOT)}/")
    return 0


def _only(name: str) -> tuple[str, str, str]:
    ((version, member),) = [(v, m) for (n, v), m in NPM_FILES.items() if n == name]
    return name, version, member


if __name__ == "__main__":
    sys.exit(main())
