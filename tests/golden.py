"""Golden files: rendered reports compared byte for byte, rewritten only on request:

    RECALL_GATE_UPDATE_GOLDEN=1 .venv/bin/pytest tests/report

Review a golden file's diff like code.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("RECALL_GATE_UPDATE_GOLDEN") == "1"


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    if not path.exists():
        pytest.fail(f"{path} is missing: run with RECALL_GATE_UPDATE_GOLDEN=1 to create it")
    expected = path.read_text(encoding="utf-8")
    assert text == expected, (
        f"{name} differs from the golden file; if the change is intended, "
        "re-run with RECALL_GATE_UPDATE_GOLDEN=1 and review the diff"
    )
