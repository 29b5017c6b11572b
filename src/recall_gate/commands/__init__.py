"""The commands of ``recall-gate``, one module per concept (private).

``evaluation`` (check, score, run), ``baselines`` (compare, baseline update,
floors suggest) and ``github_actions`` (comment, actions-report,
propose-baseline) each expose ``add_commands(sub)``: it adds the concept's
subparsers and returns their handlers by command name. A handler takes the
parsed flags and the :class:`~recall_gate.commands.context.Console` that
``cli.main`` builds, and returns an exit code; it never reads the process
environment. ``arguments`` holds the flags the commands share, ``context`` the
handler's inputs and shared lookups, ``gating`` the floors, the tolerance and
the verdict's exit code.
"""
