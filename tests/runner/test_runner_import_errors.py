"""A model stack that is installed but will not import says why, not "not installed".

transformers' lazy modules wrap any failure inside an import as "Could not import
module …"; the message names the first error of the chain instead.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from recall_gate.errors import root_cause


def test_root_cause_names_the_first_error_of_a_chain() -> None:
    wrapped = ModuleNotFoundError("Could not import module 'PreTrainedModel'")
    wrapped.__cause__ = OSError("libfoo.so: cannot open shared object file")
    assert root_cause(wrapped) == "OSError: libfoo.so: cannot open shared object file"


def test_root_cause_of_a_lone_error_is_the_error() -> None:
    assert root_cause(ValueError("bad\nmore")) == "ValueError: bad"
    assert root_cause(ValueError()) == "ValueError"


def _load_error(tmp_path: Path, package_init: str) -> str:
    fake = tmp_path / "sentence_transformers"
    fake.mkdir()
    (fake / "__init__.py").write_text(package_init)
    script = (
        "from recall_gate.runner.embedder import _import_sentence_transformers\n"
        "from recall_gate.errors import InputError\n"
        "try:\n    _import_sentence_transformers()\n"
        "except InputError as exc:\n    print(exc, '|', exc.fix)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={"PYTHONPATH": f"{tmp_path}:{Path(__file__).parents[2] / 'src'}"},
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def test_an_installed_stack_that_fails_to_import_names_the_cause(tmp_path: Path) -> None:
    said = _load_error(tmp_path, "import a_dependency_that_is_missing_xyz\n")
    assert "is installed but cannot be imported" in said
    assert "a_dependency_that_is_missing_xyz" in said
    assert "constraints.txt" in said


def test_a_missing_stack_is_named_not_installed(tmp_path: Path) -> None:
    gone = "raise ModuleNotFoundError('gone', name='sentence_transformers')\n"
    said = _load_error(tmp_path, gone)
    assert "which is not installed" in said
