"""The pure core: records, metrics, evaluation, aggregation, comparison and the gate.

No I/O, no environment, no network: plain values in, plain values out.
"""
