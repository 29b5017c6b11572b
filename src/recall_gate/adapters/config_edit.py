"""Write gate floors into ``recall-gate.yaml`` (adapter: ruamel.yaml round-trip).

Round-trip mode keeps the file's comments, key order, quoting and layout:
only the ``gate.floors`` entries that are set change (a deprecated
``gate.min_<name>`` key of the same metric is replaced by them). A missing
``gate:`` or ``floors:`` section is appended; a missing file is created. The
result is validated as a config before the atomic write, so a floor can never
leave an unreadable file.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.error import YAMLError

from recall_gate.adapters.config import Config
from recall_gate.adapters.files import (
    atomic_write_text,
    describe_validation_error,
    parse_yaml,
    read_text,
)
from recall_gate.core.metric_registry import GATED_METRICS
from recall_gate.errors import InputError

__all__ = ["write_floors"]


def _yaml() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a user's long lines
    # Keep `null` spelled out: ruamel writes None as an empty value otherwise.
    yaml.representer.add_representer(type(None), _represent_null)
    return yaml


def _represent_null(representer: Any, _: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def write_floors(path: Path, floors: Mapping[str, float]) -> str:
    """Set ``gate.floors.<name>`` for each of ``floors`` (metric name → floor) in
    the config at ``path``. Returns the text written."""
    names = [m.name for m in GATED_METRICS]
    unknown = sorted(set(floors) - set(names))
    if unknown:
        raise ValueError(f"not gated metrics: {', '.join(unknown)}")
    yaml = _yaml()
    source = str(path)
    document = _load(yaml, path)
    if not isinstance(document, CommentedMap):
        raise InputError(
            f"{source}: expected a mapping of settings",
            fix="write `key: value` lines, as in docs/reference/config.md",
        )
    gate = document.get("gate")
    if gate is None:
        gate = CommentedMap()
        document["gate"] = gate
    elif not isinstance(gate, CommentedMap):
        raise InputError(
            f"{source}: `gate` is not a mapping",
            fix="write `gate:` as a mapping, e.g. `gate: {floors: {hit: 0.8}}`",
        )
    section = gate.get("floors")
    if section is None:
        section = CommentedMap()
        # In place of the first deprecated key it replaces, else at the end.
        old = [key for key in gate if key in {f"min_{name}" for name in floors}]
        gate.insert(list(gate).index(old[0]) if old else len(gate), "floors", section)
    elif not isinstance(section, CommentedMap):
        raise InputError(
            f"{source}: `gate.floors` is not a mapping",
            fix="write `floors:` as a mapping of metric name to floor, e.g. `{hit: 0.8}`",
        )
    for name in names:
        if name in floors:
            gate.pop(f"min_{name}", None)
            section[name] = round(float(floors[name]), 6)
    out = io.StringIO()
    yaml.dump(document, out)
    written = out.getvalue()
    try:
        Config.model_validate(parse_yaml(written, source=source))
    except ValidationError as exc:
        raise InputError(
            f"{source}: would not be a valid config after the update: "
            f"{describe_validation_error(exc, model=Config)}",
            fix="fix the config first (`recall-gate check --config` reads it)",
        ) from None
    atomic_write_text(path, written)
    return written


def _load(yaml: YAML, path: Path) -> Any:
    """The config's round-trip document; an empty mapping for a missing or empty file."""
    document: Any = None
    if path.exists():
        text = read_text(path, what="config file")
        # The safe reader first: an unknown tag (`!python/object`), a depth or an
        # alias expansion it refuses is exit 2 here as it is for every command.
        parse_yaml(text, source=str(path))
        try:
            document = yaml.load(text)
        except YAMLError as exc:
            raise InputError(
                f"{path}: cannot be parsed as YAML ({str(exc).splitlines()[0]})",
                fix="fix the YAML, then run `recall-gate floors suggest --write` again",
            ) from None
    return CommentedMap() if document is None else document
