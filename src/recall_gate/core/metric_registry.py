"""Every metric the reports show, described once: key, label, output name,
floor flag, definition and the trec_eval measure it matches.

The key is the metric's identity (the decision record's names, verbatim); every table,
flag and output reads its other names from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from recall_gate.core.metrics import HIT, NDCG, RECALL

__all__ = [
    "CITATION_COVERAGE",
    "GATED_METRICS",
    "METRICS",
    "MetricSpec",
    "floor_flag",
    "floor_key",
    "metric_label",
    "metric_spec",
]

CITATION_COVERAGE = "citation_coverage"


@dataclass(frozen=True, kw_only=True)
class MetricSpec:
    """One metric's names and meaning."""

    key: str
    label: str  # short name in tables, before "@k": "hit" → "hit@5"
    output: str | None  # the action output / comparison JSON key; None = not an output
    floor_flag: str | None  # CLI flag / config key / action input of its floor; None = no floor
    definition: str  # Markdown, one sentence
    formula: str  # the trec_eval measure it matches, or how it is counted


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        key=HIT,
        label="hit",
        output="hit",
        floor_flag="min-hit",
        definition="1 if at least one `must_cite_one_of` card is in the top k, else 0 (primary).",
        formula="trec_eval success_k",
    ),
    MetricSpec(
        key=RECALL,
        label="recall",
        output="recall",
        floor_flag="min-recall",
        definition="|relevant ∩ top k| / |relevant| (relevant = `relevant_ids` if set, else gold).",
        formula="trec_eval recall_k",
    ),
    MetricSpec(
        key=NDCG,
        label="nDCG",
        output="ndcg",
        floor_flag="min-ndcg",
        definition=(
            "binary-gain nDCG: Σ 1/log2(rank+1) over relevant cards in the top k, divided by "
            "the ideal ranking cut at k (never above 1)."
        ),
        formula="trec_eval ndcg_cut_k (binary qrels)",
    ),
    MetricSpec(
        key=CITATION_COVERAGE,
        label="cited gold",
        output=None,
        floor_flag=None,
        definition="1 if the answer cited a gold card (cases whose citations were captured).",
        formula="share of captured citation outcomes that are ok",
    ),
)

# The retrieval triad: the metrics floors and tolerance apply to.
GATED_METRICS: tuple[MetricSpec, ...] = tuple(m for m in METRICS if m.floor_flag is not None)

_BY_KEY = {m.key: m for m in METRICS}


def metric_spec(key: str) -> MetricSpec:
    """The spec of a known metric key (KeyError for an unknown one: a programming error)."""
    return _BY_KEY[key]


def metric_label(key: str, k: int) -> str:
    """``hit@5``; the citation share has no cut-off (``cited gold``); unknown keys pass through."""
    spec = _BY_KEY.get(key)
    if spec is None:
        return f"{key}@{k}"
    return spec.label if spec.key == CITATION_COVERAGE else f"{spec.label}@{k}"


def floor_flag(key: str) -> str:
    """The floor flag of a gated metric (``min-hit``)."""
    flag = metric_spec(key).floor_flag
    if flag is None:
        raise KeyError(f"{key} has no floor")
    return flag


def floor_key(key: str) -> str:
    """The floor's config / JSON key of a gated metric (``min_hit``)."""
    return floor_flag(key).replace("-", "_")
