"""``recall-gate settings``: every setting a run would use, and where each came from.

The answer to "why is my floor 0.80?" on a runner: a flag, an action input
(``RECALL_GATE_*``), the config file, the base branch's config (in a pull
request the base's gate settings judge), or the default.
"""

from __future__ import annotations

import argparse
import json

from recall_gate.commands.arguments import (
    Parser,
    add_baseline_ref,
    add_config,
    add_gate,
    add_profile,
    add_tolerance,
)
from recall_gate.commands.context import Console, Handler
from recall_gate.settings.values import positive_int

__all__ = ["add_commands"]


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "settings",
        help="every setting a run would use, and where each came from",
        description="Resolve the settings as `score` and `run` do (flags > the action's "
        "inputs in RECALL_GATE_* > recall-gate.yaml > defaults; in a pull request the base "
        "branch's gate settings) and print each with its source. Nothing is scored.",
    )
    add_config(p)
    add_profile(p)
    p.add_argument("--k", type=positive_int, metavar="K", help="as `score --k`")
    add_gate(p)
    add_tolerance(p)
    add_baseline_ref(p)
    p.add_argument("--json", action="store_true", help="one JSON object: name → value, source")
    return {"settings": _cmd_settings}


def _cmd_settings(args: argparse.Namespace, console: Console) -> int:
    # Imported when it runs: `settings --help` loads the parser alone.
    from recall_gate.judging.revision import resolve_judged
    from recall_gate.settings import write_settings_header

    settings = resolve_judged(args, console)
    if args.json:
        console.stdout.write(json.dumps(settings.explained(), indent=2, sort_keys=True) + "\n")
        return 0
    write_settings_header(settings, console)
    if settings.base is not None:
        console.stdout.write(f"judged by: {settings.base.ref} ({settings.base.given_as})\n\n")
    console.stdout.write("".join(line + "\n" for line in settings.explain()))
    return 0
