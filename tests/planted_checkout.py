"""A pull request's checkout that carries every file a tool of the judge could discover
and run: the judge must read the checkout as data, never as a working folder, a
configuration, an interpreter or a folder of its search path (docs/security.md, "What
the judge's tools read").

Each planted program writes one line to ``MARKERS/<name>`` when it runs: the job
(``GITHUB_JOB``) and whether a step of the action ran it (``rg=yes``: the step's
environment holds the action's own ``RG*`` variables). A marker line with ``rg=yes`` in
the judge's job is a planted file the judge ran. Planted programs then run the real
tool they stand for, so a job that runs them still works.

- ``uv.toml`` and ``[tool.uv]`` in ``pyproject.toml``: only uv-managed Python, from a
  download list of the pull request's whose "interpreter" is the pull request's script
  (uv runs it to query it) — the attack of issue 40, as uv runs it;
- ``.python-version``: the same planted version, for a uv or pyenv that reads it;
- ``pip.conf``: no index but an empty folder of the checkout (a pip that read it could
  install nothing);
- ``sitecustomize.py`` and a ``.pth`` file at the root: run by a Python that has the
  checkout on its ``sys.path``;
- ``evil-bin/python3``, ``evil-bin/uv``, ``evil-bin/git``: found by a command name when
  the folder (or a relative entry naming it) is on ``PATH``;
- ``.gitattributes``: every file through the filter and diff drivers ``rgplant``, which
  :func:`git_drivers` defines in a git configuration (a runner's global one, say).
"""

from __future__ import annotations

import json
import platform
import shutil
import sys
import sysconfig
import tarfile
from pathlib import Path

__all__ = ["PLANTED_PROGRAMS", "git_drivers", "judge_markers", "plant"]

# The marker names each planted program writes: one per program.
PLANTED_PROGRAMS = (
    "uv-toml-python",
    "pyproject-python",
    "sitecustomize",
    "pth",
    "bin-python3",
    "bin-uv",
    "bin-git",
    "git-smudge",
    "git-clean",
    "git-textconv",
)

_PLANTED_VERSION = (3, 11, 99)


def _shell_marker(markers: Path, name: str) -> str:
    """A shell line that appends this program's marker line."""
    return (
        'rg=no; [ -n "${RG+x}${RG_ROLE+x}${RG_JUDGE+x}${RG_PYTHON+x}${RG_INSTALLER+x}" ]'
        " && rg=yes\n"
        f'echo "{name} job=${{GITHUB_JOB:-none}} rg=$rg" >> "{markers / name}"\n'
    )


def _python_marker(markers: Path, name: str) -> str:
    """Python source that appends this program's marker line."""
    return (
        "import os as _o; _rg = 'yes' if any(k.startswith('RG') for k in _o.environ) else 'no'; "
        f"open({str(markers / name)!r}, 'a').write("
        f"'{name} job=' + _o.environ.get('GITHUB_JOB', 'none') + ' rg=' + _rg + '\\n')"
    )


def _script(path: Path, body: str, *, interpreter: str = "/bin/sh") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"#!{interpreter}\n" + body, encoding="utf-8")
    path.chmod(0o755)


def _managed_python(root: Path, markers: Path, name: str, *, real_python: Path) -> Path:
    """A "python-build-standalone" download list and archive in ROOT whose interpreter
    writes the marker NAME, then runs ``real_python``; the list's path."""
    folder = root / f".{name}"
    major, minor, patch = _PLANTED_VERSION
    tree = folder / "python"
    # It runs the real interpreter under its own name, so a virtual environment made
    # from it works (its pyvenv.cfg is found from argv[0]; the standard library is the
    # real one's): a job that used it goes on.
    _script(
        tree / "bin" / f"python{major}.{minor}",
        _shell_marker(markers, name)
        + f'PYTHONHOME="{sys.base_prefix}" exec -a "$0" "{real_python}" "$@"\n',
        interpreter="/bin/bash",
    )
    for link in (f"python{major}", "python"):
        (tree / "bin" / link).symlink_to(f"python{major}.{minor}")
    lib = tree / "lib" / f"python{major}.{minor}"
    lib.mkdir(parents=True)
    sysconfig_data = f"{sysconfig._get_sysconfigdata_name()}.py"  # type: ignore[attr-defined]
    shutil.copy(Path(sysconfig.get_path("stdlib")) / sysconfig_data, lib / sysconfig_data)
    archive = folder / "python.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(tree, arcname="python")
    shutil.rmtree(tree)
    machine = platform.machine()
    key = f"cpython-{major}.{minor}.{patch}-linux-{machine}-gnu"
    downloads = folder / "downloads.json"
    downloads.write_text(
        json.dumps(
            {
                key: {
                    "name": "cpython",
                    "arch": {"family": machine, "variant": None},
                    "os": "linux",
                    "libc": "gnu",
                    "major": major,
                    "minor": minor,
                    "patch": patch,
                    "prerelease": "",
                    "url": archive.as_uri(),
                    "sha256": None,
                    "variant": None,
                }
            }
        ),
        encoding="utf-8",
    )
    return downloads


def plant(root: Path, markers: Path) -> None:
    """Every planted file in the checkout ROOT; their markers go to MARKERS."""
    markers.mkdir(parents=True, exist_ok=True)
    real_python = Path(sys.executable).resolve()
    uv_list = _managed_python(root, markers, "uv-toml-python", real_python=real_python)
    (root / "uv.toml").write_text(
        f'python-preference = "only-managed"\npython-downloads-json-url = "{uv_list}"\n',
        encoding="utf-8",
    )
    project_list = _managed_python(root, markers, "pyproject-python", real_python=real_python)
    (root / "pyproject.toml").write_text(
        '[tool.uv]\npython-preference = "only-managed"\n'
        f'python-downloads-json-url = "{project_list}"\n',
        encoding="utf-8",
    )
    (root / ".python-version").write_text(
        ".".join(map(str, _PLANTED_VERSION)) + "\n", encoding="utf-8"
    )
    (root / "evil-index").mkdir()
    (root / "pip.conf").write_text(
        f"[global]\nno-index = true\nfind-links = {root / 'evil-index'}\n", encoding="utf-8"
    )
    (root / "sitecustomize.py").write_text(_python_marker(markers, "sitecustomize") + "\n")
    (root / "zz_planted.pth").write_text(_python_marker(markers, "pth") + "\n")
    real_uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
    real_git = shutil.which("git") or "/usr/bin/git"
    for tool, real in (("python3", real_python), ("uv", real_uv), ("git", real_git)):
        _script(
            root / "evil-bin" / tool,
            _shell_marker(markers, f"bin-{tool}") + f'exec "{real}" "$@"\n',
        )
    (root / ".gitattributes").write_text("* filter=rgplant diff=rgplant\n", encoding="utf-8")


def git_drivers(markers: Path, folder: Path) -> str:
    """A git configuration (``.gitconfig`` text) that defines the drivers the planted
    ``.gitattributes`` names, as a runner's configuration might (git-lfs does): each,
    a script in FOLDER, writes its marker, then passes the bytes through."""
    markers.mkdir(parents=True, exist_ok=True)
    for name, tail in (
        ("git-smudge", "cat\n"),
        ("git-clean", "cat\n"),
        ("git-textconv", 'cat "$1"\n'),
    ):
        _script(folder / f"{name}.sh", _shell_marker(markers, name) + tail)
    return (
        '[filter "rgplant"]\n'
        f"\tsmudge = {folder / 'git-smudge.sh'}\n"
        f"\tclean = {folder / 'git-clean.sh'}\n"
        '[diff "rgplant"]\n'
        f"\ttextconv = {folder / 'git-textconv.sh'}\n"
    )


def judge_markers(markers: Path, *, job: str | None = "judge") -> list[str]:
    """The marker lines a step of the action wrote (in JOB; any job when None)."""
    lines = []
    for path in sorted(markers.glob("*")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if "rg=yes" in line and (job is None or f" job={job} " in f"{line} "):
                lines.append(line)
    return lines
