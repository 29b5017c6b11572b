"""Metamorphic tests of the gate: base → pull-request pairs judged end to end."""
