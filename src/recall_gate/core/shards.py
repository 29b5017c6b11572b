"""Shards of a case set: ``--shard I/N`` captures a deterministic 1/N of the cases.

A case belongs to shard ``1 + int(sha256(case id)) mod N``: the same case is in
the same shard whatever the order of the cases file, on any machine, so the
jobs of a CI matrix split a case set without talking to each other and
``recall-gate merge`` puts it back together. What part of a case set a file
holds is recorded on its first line (:class:`~recall_gate.core.records.Coverage`).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

__all__ = ["SHARD_RULE", "Shard", "parse_shard"]

SHARD_RULE = "I/N with 1 <= I <= N, e.g. --shard 2/3 (the second of three shards)"
_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True)
class Shard:
    """The ``index``-th (1-based) of ``count`` shards."""

    index: int
    count: int

    def holds(self, case_id: str) -> bool:
        return shard_of(case_id, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(case_id: str, count: int) -> int:
    """The shard (1-based, of ``count``) that holds ``case_id``."""
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogatepass")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % count


def parse_shard(text: str) -> Shard:
    """``"2/3"`` → ``Shard(2, 3)``; anything else is a ``ValueError`` saying the rule."""
    match = _SHARD.fullmatch(text)
    if match is None:
        raise ValueError(f"expected {SHARD_RULE}, got {text!r}")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 1 <= index <= count:
        raise ValueError(f"shard {index}/{count} does not exist: expected {SHARD_RULE}")
    return Shard(index, count)
