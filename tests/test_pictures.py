"""The pictures of what a reviewer sees cannot drift from the golden reports.

docs/images/pictures.json records, for each picture, the golden file it was
drawn from with that file's sha256, the picture's own sha256 and the sha256 of
the script that draws them (tools/pictures.py). These tests need no browser:
they compare the record with the files, and fail naming `make pictures` when a
golden report, a picture or the drawing script changed without a redraw.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = Path("docs/images")
MANIFEST = IMAGES / "pictures.json"
REDRAW = "run `make pictures` (needs chromium and npm; see CONTRIBUTING.md) and commit docs/images/"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _manifest(root: Path) -> dict[str, object]:
    data = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _entries(root: Path) -> list[dict[str, str]]:
    entries = _manifest(root)["pictures"]
    assert isinstance(entries, list)
    return entries


def drifted(root: Path) -> list[str]:
    """What changed since the pictures under root were drawn, one line each."""
    manifest = _manifest(root)
    found = []
    generator = root / str(manifest["generator"])
    if not generator.is_file() or _sha256(generator) != manifest["generator_sha256"]:
        found.append(f"{manifest['generator']} changed since the pictures were drawn")
    for entry in _entries(root):
        golden, image = root / entry["golden"], root / IMAGES / entry["image"]
        if not golden.is_file():
            found.append(f"{entry['golden']} (drawn as {IMAGES / entry['image']}) is gone")
        elif _sha256(golden) != entry["golden_sha256"]:
            found.append(
                f"{entry['golden']} changed since {IMAGES / entry['image']} was drawn from it"
            )
        if not image.is_file() or _sha256(image) != entry["image_sha256"]:
            found.append(f"{IMAGES / entry['image']} is not the picture {MANIFEST} records")
    recorded = {entry["image"] for entry in _entries(root)}
    found += [
        f"{IMAGES / png.name} is in no record of {MANIFEST}"
        for png in sorted((root / IMAGES).glob("*.png"))
        if png.name not in recorded
    ]
    return found


def test_every_picture_is_drawn_from_its_golden_file_as_it_is_now() -> None:
    found = drifted(ROOT)
    assert found == [], "\n".join([*found, REDRAW])


def _sandbox(tmp_path: Path) -> Path:
    """A copy of what the record names: the drawing script, the pictures, the goldens."""
    manifest = _manifest(ROOT)
    for name in [
        str(manifest["generator"]),
        str(MANIFEST),
        *(entry["golden"] for entry in _entries(ROOT)),
        *(str(IMAGES / entry["image"]) for entry in _entries(ROOT)),
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / name, tmp_path / name)
    return tmp_path


def test_a_changed_golden_report_asks_for_a_redraw(tmp_path: Path) -> None:
    root = _sandbox(tmp_path)
    entry = _entries(root)[0]
    golden = root / entry["golden"]
    golden.write_text(golden.read_text(encoding="utf-8") + "one more line\n", encoding="utf-8")

    found = drifted(root)

    assert f"{entry['golden']} changed since docs/images/{entry['image']} was drawn from it" in (
        found
    )


def test_a_picture_replaced_by_hand_or_left_behind_asks_for_a_redraw(tmp_path: Path) -> None:
    root = _sandbox(tmp_path)
    first = _entries(root)[0]["image"]
    (root / IMAGES / first).write_bytes(b"not the drawn picture")
    (root / IMAGES / "left-behind.png").write_bytes(b"")

    assert drifted(root) == [
        f"docs/images/{first} is not the picture docs/images/pictures.json records",
        "docs/images/left-behind.png is in no record of docs/images/pictures.json",
    ]


def test_a_changed_drawing_script_asks_for_a_redraw(tmp_path: Path) -> None:
    root = _sandbox(tmp_path)
    script = root / "tools" / "pictures.py"
    script.write_text(script.read_text(encoding="utf-8") + "\n# changed\n", encoding="utf-8")

    assert drifted(root) == ["tools/pictures.py changed since the pictures were drawn"]


def _shown(page: Path) -> list[tuple[str, str]]:
    """(alt text, picture file) of each image of docs/images/ a page shows."""
    return re.findall(
        r"!\[([^\]]*)\]\((?:\.\./)*(?:docs/)?images/([\w.-]+\.png)\)", page.read_text("utf-8")
    )


def test_the_readme_shows_the_rendered_pr_comment_near_the_top_with_alt_text() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = _shown(ROOT / "README.md")
    assert [image for _, image in shown] == ["pr-comment-top.png"]
    assert readme.index("docs/images/pr-comment-top.png") < len(readme) // 4
    assert all(len(alt) > 40 for alt, _ in shown), "say what the picture shows"


def test_the_docs_show_every_picture_and_only_drawn_ones() -> None:
    recorded = {entry["image"] for entry in _entries(ROOT)}
    shown = {
        image
        for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
        for alt, image in _shown(page)
        if alt
    }
    assert shown == recorded
