"""Whether a kept virtual environment still holds what its installers put there.

The action reuses an environment it made (a self-hosted runner's kept ``venv:``,
or one restored by ``actions/cache``) only while every installed file matches the
hash its package recorded (``*.dist-info/RECORD``) and no file in site-packages or
``bin/`` is one that no package installed (a ``.pth`` file, a patched module, a
script). It runs as a script, standard library only, with the interpreter that
made the environment (``python -I kept_environment.py VENV``), before anything
inside the environment is started: exit 0 when it is intact, 1 with the changed
files listed when it is not (the action then makes it anew).

What it cannot see (docs/security.md): byte-code caches (``__pycache__``), which no
installer records, and an edit that rewrites a RECORD file along with the file it
lists. That is why the judge never uses a kept environment at all.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import os
import sys
from collections.abc import Iterator
from pathlib import Path

# Files `python -m venv` and `uv venv` write themselves (no package records them).
_VENV_OWN = {
    "pyvenv.cfg",
    "activate",
    "activate.bat",
    "activate.csh",
    "activate.fish",
    "activate.xsh",
    "activate.nu",
    "activate.ps1",
    "Activate.ps1",
    "activate_this.py",
    "deactivate.bat",
    "pydoc.bat",
    ".gitignore",
    "CACHEDIR.TAG",
    ".lock",
    ".recall-gate-key",
}


def _site_packages(venv: Path) -> list[Path]:
    return [*venv.glob("lib/python3*/site-packages"), *venv.glob("Lib/site-packages")]


def _recorded(site: Path) -> Iterator[tuple[str, str]]:
    """(normalised path, ``algo=digest`` or "") of every file a RECORD lists."""
    for record in sorted(site.glob("*.dist-info/RECORD")):
        text = record.read_text(encoding="utf-8", errors="replace")
        for row in csv.reader(text.splitlines()):
            if row:
                yield os.path.normpath(site / row[0]), (row[1] if len(row) > 1 else "")


def _matches(path: str, digest: str) -> bool:
    algo, _, expected = digest.partition("=")
    try:
        data = Path(path).read_bytes()
        actual = hashlib.new(algo, data).digest()
    except (OSError, ValueError):
        return False
    return base64.urlsafe_b64encode(actual).rstrip(b"=").decode() == expected


def changed_files(venv: Path) -> list[str]:
    """The files of VENV that differ from what its packages recorded, or that no
    package installed; empty when it is intact. Paths are relative to VENV."""
    sites = _site_packages(venv)
    if not sites:
        return ["(no site-packages folder)"]
    owned: dict[str, str] = {}
    for site in sites:
        owned.update(_recorded(site))
    found = []
    for path, digest in sorted(owned.items()):
        if digest and not _matches(path, digest):
            found.append(os.path.relpath(path, venv))
    scripts = [venv / "bin", venv / "Scripts"]
    for top in [*sites, *scripts]:
        for root, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            for name in files:
                path = os.path.normpath(os.path.join(root, name))
                if path in owned or (top in scripts and _venv_own(name)):
                    continue
                found.append(os.path.relpath(path, venv))
    return sorted(set(found))


def _venv_own(name: str) -> bool:
    return name in _VENV_OWN or name.startswith(("python", "pip"))


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: kept_environment.py VENV", file=sys.stderr)
        return 2
    found = changed_files(Path(argv[0]))
    for path in found[:10]:
        print(path)
    if len(found) > 10:
        print(f"… and {len(found) - 10} more")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
