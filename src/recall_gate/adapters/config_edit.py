"""Write gate floors into ``recall-gate.yaml`` (adapter: ruamel.yaml round-trip).

Round-trip mode keeps the file's comments, key order, quoting and layout:
only the ``gate:`` keys that are set change. A missing ``gate:`` section is
appended; a missing file is created. The result is validated as a config
before the atomic write, so a floor can never leave an unreadable file.
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
from recall_gate.errors import InputError

__all__ = ["GATE_KEYS", "write_gate_settings"]

GATE_KEYS = ("min_hit", "min_recall", "min_ndcg", "max_regression")


def _yaml() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap a user's long lines
    # Keep `null` spelled out: ruamel writes None as an empty value otherwise.
    yaml.representer.add_representer(type(None), _represent_null)
    return yaml


def _represent_null(representer: Any, _: None) -> Any:
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def write_gate_settings(path: Path, settings: Mapping[str, float]) -> str:
    """Set ``gate.<key>`` for each of ``settings`` in the config at ``path``.

    Returns the text written. Keys must be among :data:`GATE_KEYS`.
    """
    unknown = sorted(set(settings) - set(GATE_KEYS))
    if unknown:
        raise ValueError(f"not gate settings: {', '.join(unknown)}")
    yaml = _yaml()
    source = str(path)
    document: Any
    if path.exists():
        text = read_text(path, what="config file")
        # The safe reader first: an unknown tag (`!python/object`), a depth or an
        # alias expansion it refuses is exit 2 here as it is for every command.
        parse_yaml(text, source=source)
        try:
            document = yaml.load(text)
        except YAMLError as exc:
            raise InputError(
                f"{source}: cannot be parsed as YAML ({str(exc).splitlines()[0]})",
                fix="fix the YAML, then run `recall-gate floors suggest --write` again",
            ) from None
    else:
        document = None
    if document is None:
        document = CommentedMap()
    if not isinstance(document, CommentedMap):
        raise InputError(
            f"{source}: expected a mapping of settings", fix="see the README's config example"
        )
    gate = document.get("gate")
    if gate is None:
        gate = CommentedMap()
        document["gate"] = gate
    elif not isinstance(gate, CommentedMap):
        raise InputError(
            f"{source}: `gate` is not a mapping",
            fix="write `gate:` as a mapping of min_hit / min_recall / min_ndcg / max_regression",
        )
    for key in GATE_KEYS:
        if key in settings:
            gate[key] = round(float(settings[key]), 6)
    out = io.StringIO()
    yaml.dump(document, out)
    written = out.getvalue()
    try:
        Config.model_validate(parse_yaml(written, source=source))
    except ValidationError as exc:
        raise InputError(
            f"{source}: would not be a valid config after the update: "
            f"{describe_validation_error(exc)}",
            fix="fix the config first (`recall-gate check --config` reads it)",
        ) from None
    atomic_write_text(path, written)
    return written
