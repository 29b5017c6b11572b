"""A kept environment is reused only while it holds what its installers put there:
every recorded file matches its RECORD hash, and no file in site-packages or bin/
is one that no package installed. Real environments (``python -m venv``), real
RECORD files written the way installers write them."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from recall_gate.adapters.kept_environment import changed_files, main


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


@pytest.fixture
def venv(tmp_path: Path) -> Path:
    """A fresh environment with one installed package, as an installer leaves it."""
    root = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    [site] = root.glob("lib/python3*/site-packages")
    files = {
        "shop/__init__.py": b"VALUE = 1\n",
        "shop-1.0.dist-info/METADATA": b"Metadata-Version: 2.1\nName: shop\nVersion: 1.0\n",
        "../../../bin/shop": b"#!/bin/sh\nexit 0\n",
    }
    rows = []
    for name, data in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        rows.append(f"{name},{_digest(data)},{len(data)}")
    rows.append("shop-1.0.dist-info/RECORD,,")
    (site / "shop-1.0.dist-info" / "RECORD").write_text("\n".join(rows) + "\n")
    (site / "shop" / "__pycache__").mkdir()
    (site / "shop" / "__pycache__" / "__init__.cpython-311.pyc").write_bytes(b"\0")
    return root


def test_an_environment_as_installed_is_intact(venv: Path) -> None:
    assert changed_files(venv) == []
    assert main([str(venv)]) == 0


def test_an_edited_module_is_a_changed_file(venv: Path) -> None:
    [site] = venv.glob("lib/python3*/site-packages")
    (site / "shop" / "__init__.py").write_text("VALUE = 2\n")
    assert changed_files(venv) == [str((site / "shop" / "__init__.py").relative_to(venv))]


def test_a_pth_file_no_package_installed_is_a_changed_file(venv: Path) -> None:
    [site] = venv.glob("lib/python3*/site-packages")
    (site / "zz_pass.pth").write_text("import sitecustomize\n")
    (site / "sitecustomize.py").write_text("print('patched')\n")
    found = changed_files(venv)
    assert any(p.endswith("zz_pass.pth") for p in found)
    assert any(p.endswith("sitecustomize.py") for p in found)


def test_a_script_added_to_bin_is_a_changed_file_and_the_venvs_own_are_not(venv: Path) -> None:
    (venv / "bin" / "recall-gate").write_text("#!/bin/sh\nexit 0\n")
    assert changed_files(venv) == ["bin/recall-gate"]


def test_a_deleted_recorded_file_is_a_changed_file(
    venv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (venv / "bin" / "shop").unlink()
    assert changed_files(venv) == ["bin/shop"]
    assert main([str(venv)]) == 1
    assert capsys.readouterr().out == "bin/shop\n"


def test_a_folder_that_is_no_environment_is_not_intact(tmp_path: Path) -> None:
    assert changed_files(tmp_path) == ["(no site-packages folder)"]
