"""Helpers shared by the integration tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path

from recall_gate.adapters.config import CacheSettings, Config, StoreSettings
from recall_gate.core.aggregate import aggregate
from recall_gate.core.evaluate import score_case
from recall_gate.core.records import Aggregates, Card, Case
from recall_gate.runner import Embedder, PipelineRun, run_pipeline


@dataclass(frozen=True)
class Reference:
    """The reference evaluation: its config, KB and cases, as `recall-gate run` sees them."""

    config: Config
    cards: list[Card]
    cases: list[Case]


def unique_collection(prefix: str = "it") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def config_for(reference: Reference, cache: Path | None, **update: object) -> Config:
    """The reference config on a fresh in-memory collection and a test cache."""
    base = reference.config.model_copy(
        update={
            "store": StoreSettings(collection=unique_collection()),
            "cache": CacheSettings(path=cache),
        }
    )
    return base.model_copy(update=update)


def run_capture(
    config: Config,
    reference: Reference,
    embedder: Embedder,
    *,
    cards: list[Card] | None = None,
    cases: list[Case] | None = None,
) -> PipelineRun:
    return run_pipeline(
        config,
        reference.cards if cards is None else cards,
        reference.cases if cases is None else cases,
        progress=False,
        log=lambda _: None,
        embedder=embedder,
    )


def score(captured: PipelineRun, cases: list[Case], k: int) -> Aggregates:
    """The scoring path of `recall-gate score`: score_case per case, then aggregate."""
    return aggregate(
        score_case(case, artifact.ranked_card_ids(), k=k)
        for case, artifact in zip(cases, captured.artifacts, strict=True)
    )


def ranked_chunks(captured: PipelineRun) -> list[list[str]]:
    """Per case, the retrieved chunk ids in rank order."""
    return [
        [item if isinstance(item, str) else item.id for item in a.retrieved]
        for a in captured.artifacts
    ]
