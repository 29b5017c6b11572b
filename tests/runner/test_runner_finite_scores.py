"""The built-in runner's capture lines hold finite numbers only: a chunk whose score
is not a number (a NaN distance, from a zero vector) is kept at its rank, with no
score, as the capture adapters keep one (a capture line refuses NaN and Infinity)."""

from __future__ import annotations

import math

import pytest

from recall_gate.runner.expansion import ScoredChunk
from recall_gate.runner.pipeline import _item


@pytest.mark.parametrize("score", [math.nan, math.inf, -math.inf])
def test_a_chunk_without_a_finite_score_is_kept_with_no_score(score: float) -> None:
    item = _item(ScoredChunk("card-a#0", "card-a", score), {"card-a": "card-a"})
    assert item.id == "card-a#0"
    assert item.parent_id == "card-a"
    assert item.score is None


def test_a_finite_score_is_kept_rounded() -> None:
    item = _item(ScoredChunk("card-a#0", "card-a", 0.123456789), {"card-a": "card-a"})
    assert item.score == pytest.approx(0.123457, abs=1e-6)
