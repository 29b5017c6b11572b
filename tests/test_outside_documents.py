"""The repository names no file outside itself: its contracts live in its own docs
(docs/reference/, docs/what-reviewers-see.md), so no source, test or page cites a
design document it does not hold."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Documents kept outside the repository that its files once cited.
OUTSIDE = ("DESIGN.md", "STYLE.md")


def test_no_file_cites_a_design_document_the_repository_does_not_hold() -> None:
    listed = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    held = {Path(f).name for f in listed}
    citing = []
    for name in listed:
        path = ROOT / name
        if not path.is_file() or path.suffix not in (".py", ".md", ".yml", ".yaml", ".toml"):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        citing += [f"{name}: {doc}" for doc in OUTSIDE if doc not in held and doc in text]
    assert citing == []
