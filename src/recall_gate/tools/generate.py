"""The files that follow the metric registry, regenerated from it (``make generate``).

``core/metric_registry.py`` is the truth; this rewrites, between marker comments,
what the other files say about each metric:

* ``action.yml``: the floor and tolerance inputs (``min-NAME``,
  ``max-regression-NAME``) and the other gates' setting inputs (the settings
  table's gate rows, ``settings/gate_settings.py``: ``max-moved-share``, …),
  the metric outputs, the environment variables the evaluate step passes them
  in, and the plan step's list of gate inputs;
* ``docs/reference/metrics.md``: the table of metrics;
* ``docs/reference/action.md``: the inputs and outputs tables (from ``action.yml``).

``python -m recall_gate.tools.generate [--check] [ROOT]``: ``--check`` writes
nothing and exits 1 naming each file that differs (tests/test_generated_files.py
runs the same check). The CLI flags and the config schema need no generation:
they are built from the registry when the package is imported.
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

from recall_gate.core.metric_registry import GATED_METRICS, MetricSpec
from recall_gate.settings.gate_settings import GATE_SETTINGS

__all__ = ["GENERATED", "MarkerError", "generate", "main", "replace_block"]

ACTION = Path("action.yml")
METRICS_DOC = Path("docs/reference/metrics.md")
ACTION_DOC = Path("docs/reference/action.md")
# Every file with generated blocks, in the order they are made (action.md reads action.yml).
GENERATED = (ACTION, METRICS_DOC, ACTION_DOC)

_WIDTH = 80
# The plan step refuses these in the capture role (it judges nothing): the gate's
# inputs beside the registry's.
_GATE_INPUTS_AFTER = ("min-group-n", "require-significance", "baseline")
_MAX_REGRESSION = (
    "Largest tolerated absolute drop of every metric in any group against the "
    "baseline, in [0, 1]. Empty = the config's `gate.max_regression`, else "
    "inactive. A metric's own input below wins over it."
)


def _label(spec: MetricSpec) -> str:
    return f"{spec.label}@k"


def _and(words: Sequence[str]) -> str:
    return ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else "".join(words)


def _optional_note(spec: MetricSpec, what: str) -> str:
    return "" if spec.default else what


# -- action.yml ----------------------------------------------------------------------


def _input(name: str, description: str) -> list[str]:
    wrapped = textwrap.wrap(description, width=_WIDTH - 6, break_on_hyphens=False)
    return [
        f"  {name}:",
        "    description: >-",
        *(f"      {line}" for line in wrapped),
        "    required: false",
        '    default: ""',
    ]


def _floor_description(spec: MetricSpec) -> str:
    note = _optional_note(spec, " (a floor scores the metric)")
    return f"Floor on overall {_label(spec)}, in [0, 1]. Empty = inactive{note}."


def _tolerance_description(spec: MetricSpec) -> str:
    note = _optional_note(spec, "; a tolerance of its own scores the metric")
    return (
        f"Largest tolerated drop of {_label(spec)} alone, in [0, 1]{note}. "
        "Empty = `max-regression`, else the config's."
    )


def _metrics_description() -> str:
    default = [m.name for m in GATED_METRICS if m.default]
    optional = [m.name for m in GATED_METRICS if not m.default]
    choices = f" ({', '.join(optional)})" if optional else ""
    return (
        f"Metrics scored besides {_and(default)}, comma-separated{choices}. "
        "Empty = the config's `metrics:`, else the default set."
    )


def metric_inputs() -> list[str]:
    """The floor inputs, ``metrics``, ``max-regression``, the tolerance inputs and
    the other gates' settings."""
    lines: list[str] = []
    for spec in GATED_METRICS:
        lines += _input(_flag(spec.floor_flag), _floor_description(spec))
    lines += _input("metrics", _metrics_description())
    lines += _input("max-regression", _MAX_REGRESSION)
    for spec in GATED_METRICS:
        lines += _input(_flag(spec.tolerance_flag), _tolerance_description(spec))
    for setting in GATE_SETTINGS:
        lines += _input(setting.input, setting.description)
    return lines


def metric_outputs() -> list[str]:
    lines: list[str] = []
    for spec in GATED_METRICS:
        note = (
            "mean over the gold-labelled cases"
            if spec.default
            else "empty unless `metrics` or a floor selects it"
        )
        lines += [
            f"  {spec.name}:",
            f'    description: "Overall {_label(spec)} ({note})."',
            f"    value: ${{{{ steps.report.outputs.{spec.name} }}}}",
        ]
    return lines


def metric_environment() -> list[str]:
    """The evaluate step's ``env:`` entries that pass the metric inputs to the CLI."""
    pairs = [(_flag(m.floor_env), _flag(m.floor_flag)) for m in GATED_METRICS]
    pairs += [("RECALL_GATE_METRICS", "metrics"), ("RECALL_GATE_MAX_REGRESSION", "max-regression")]
    pairs += [(_flag(m.tolerance_env), _flag(m.tolerance_flag)) for m in GATED_METRICS]
    pairs += [(s.env, s.input) for s in GATE_SETTINGS]
    return [f"        {env}: ${{{{ inputs.{name} }}}}" for env, name in pairs]


def gate_inputs() -> list[str]:
    """The plan step's ``RG_GATE_INPUTS``: every gate input run together, empty when
    none is set. Lines break inside an expression (``${{ inputs.x`` / ``}}``), where
    the space that folding makes is harmless."""
    names = [_flag(m.floor_flag) for m in GATED_METRICS]
    names += ["max-regression", *(_flag(m.tolerance_flag) for m in GATED_METRICS)]
    names += [s.input for s in GATE_SETTINGS]
    names += _GATE_INPUTS_AFTER
    pieces = [f"${{{{ inputs.{name}" for name in names]
    indent = " " * 10
    lines, line = [], indent
    for number, piece in enumerate(pieces):
        if number and len(line) + len(" }}") + len(piece) > _WIDTH + 10:
            lines.append(line)
            line = f"{indent}}}}}"
        elif number:
            line += " }}"
        line += piece
    lines.append(line + " }}")
    return ["        RG_GATE_INPUTS: >-", *lines]


def _flag(value: str | None) -> str:
    assert value is not None, "a gated metric has its flags and variables"
    return value


# -- the docs ------------------------------------------------------------------------


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def metrics_table() -> list[str]:
    rows = [
        "| name | key | definition | matches | scored |",
        "| --- | --- | --- | --- | --- |",
    ]
    for spec in GATED_METRICS:
        scored = "always" if spec.default else "on request"
        rows.append(
            f"| `{spec.name}` ({_label(spec)}) | `{spec.key}` | {_cell(spec.definition)} "
            f"| {_cell(spec.formula)} | {scored} |"
        )
    return rows


def _action_data(action_text: str) -> dict[str, Any]:
    data = YAML(typ="safe").load(action_text)
    assert isinstance(data, dict), "action.yml is a mapping"
    return data


def inputs_table(action_text: str) -> list[str]:
    rows = ["| input | default | description |", "|---|---|---|"]
    for name, spec in _action_data(action_text)["inputs"].items():
        default = str(spec.get("default", ""))
        shown = f"`{_cell(default)}`" if default else ""
        rows.append(f"| `{name}` | {shown} | {_cell(spec.get('description', ''))} |")
    return rows


def outputs_table(action_text: str) -> list[str]:
    rows = ["| output | description |", "|---|---|"]
    for name, spec in _action_data(action_text)["outputs"].items():
        rows.append(f"| `{name}` | {_cell(spec.get('description', ''))} |")
    return rows


# -- the blocks ----------------------------------------------------------------------


class MarkerError(Exception):
    """A file lost the marker comments around one of its generated blocks."""


def replace_block(text: str, name: str, lines: Sequence[str], *, where: Path) -> str:
    """``text`` with the lines between the ``NAME:start`` and ``NAME:end`` marker
    lines (a YAML or HTML comment) replaced by ``lines``."""
    found = re.search(
        rf"^[^\n]*(?<![\w-]){re.escape(name)}:start\b[^\n]*\n(.*?)^[^\n]*(?<![\w-]){re.escape(name)}:end\b",
        text,
        re.MULTILINE | re.DOTALL,
    )
    if found is None:
        raise MarkerError(f"{where}: no `{name}:start` ... `{name}:end` marker comments")
    body = "".join(f"{line}\n" for line in lines)
    return text[: found.start(1)] + body + text[found.end(1) :]


def _blocks(path: Path, texts: dict[Path, str]) -> list[tuple[str, list[str]]]:
    if path == ACTION:
        return [
            ("registry-gate-inputs", gate_inputs()),
            ("registry-inputs", metric_inputs()),
            ("registry-outputs", metric_outputs()),
            ("registry-environment", metric_environment()),
        ]
    if path == METRICS_DOC:
        return [("metrics", metrics_table())]
    action = texts[ACTION]
    return [("inputs", inputs_table(action)), ("outputs", outputs_table(action))]


def generate(root: Path) -> dict[Path, str]:
    """Each generated file's text (path relative to ``root`` → text) as the registry
    makes it."""
    texts: dict[Path, str] = {}
    for path in GENERATED:
        text = (root / path).read_text(encoding="utf-8")
        for name, lines in _blocks(path, texts):
            text = replace_block(text, name, lines, where=path)
        texts[path] = text
    return texts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m recall_gate.tools.generate")
    parser.add_argument("root", nargs="?", type=Path, default=Path.cwd())
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    root: Path = args.root
    try:
        texts = generate(root)
    except (MarkerError, OSError) as exc:
        print(f"generate: {exc}", file=sys.stderr)
        return 2
    stale = [p for p, text in texts.items() if (root / p).read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date with the metric registry: run `make generate`")
        return 1 if stale else 0
    for path in stale:
        (root / path).write_text(texts[path], encoding="utf-8")
        print(f"regenerated {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
