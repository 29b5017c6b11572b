"""The command handlers of ``recall-gate``, one module per concept (private).

Each handler module (``cli.COMMAND_MODULES``) exposes ``add_commands(sub)``: it
adds the concept's subparsers and returns their handlers by command name. A
handler takes the parsed flags and the :class:`~recall_gate.console.Console`
that ``cli.main`` builds, and returns an exit code; it never reads the process
environment. A handler is a thin adapter: it imports ``arguments`` (the shared
flags), ``context`` and ``progress`` here, and the rooms below — the judge
(:mod:`recall_gate.judging`), the settings (:mod:`recall_gate.settings`), the
core, the adapters and the report — never another handler.
"""
