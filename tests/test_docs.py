"""The README's examples stay true: the config reference validates."""

from __future__ import annotations

import re
from pathlib import Path

from recall_gate.adapters.config import Config, load_config

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_config_reference_is_a_valid_config_with_the_defaults(tmp_path: Path) -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"### `recall-gate.yaml`.*?```yaml\n(.*?)```", text, re.S)
    assert match, "README lost its recall-gate.yaml reference block"
    path = tmp_path / "recall-gate.yaml"
    path.write_text(match.group(1), encoding="utf-8")
    config = load_config(path)
    defaults = Config()
    # Every section shown equals the defaults, so the reference documents them.
    for section in ("embedder", "chunking", "store", "retrieval", "reranker", "gate"):
        shown = getattr(config, section).model_dump(exclude={"path"})
        assert shown == getattr(defaults, section).model_dump(exclude={"path"}), section
