"""Every metric the reports show, described once: key, short name, label,
definition, the trec_eval measure it matches, and how it is computed.

The key is the metric's identity (the decision record's names, verbatim). Everything
else a metric has is derived from its entry here, so adding an entry is the
whole change for a new metric:

* its short ``name`` (``hit``) is the action output and comparison JSON key,
  the floor's key under ``gate.floors`` in ``recall-gate.yaml``, ``--min
  NAME=X``, the flag ``--min-NAME``, the variable
  ``RECALL_GATE_MIN_NAME`` and the action input ``min-NAME``; and likewise
  the tolerance's key under ``gate.max_regression``, ``--max-regression
  NAME=X``, ``--max-regression-NAME``, ``RECALL_GATE_MAX_REGRESSION_NAME`` and
  the input ``max-regression-NAME``;
* its ``label`` heads its column in every table (``hit@5``);
* the scorer computes it (``kernel``), the aggregates average it, compare
  tests its noise (``binary``: McNemar on flips, else a paired sign-flip test), the
  gate applies floors and the tolerance to it.

* ``make generate`` writes its inputs, outputs and variables into
  ``action.yml`` and its row into the docs' metric reference
  (``recall_gate.tools.generate``); a test fails when they are stale.

A test adds an entry to a copy of this module and shows all of the above follow
(tests/commands/test_metric_registry_sandbox.py).
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence, Set
from dataclasses import dataclass

from recall_gate.core.metrics import (
    HIT,
    MRR,
    NDCG,
    PRECISION,
    RECALL,
    precision_at_k,
    reciprocal_rank_at_k,
)

__all__ = [
    "CITATION_COVERAGE",
    "DEFAULT_METRIC_KEYS",
    "GATED_METRICS",
    "METRICS",
    "METRIC_KEYS",
    "Kernel",
    "MetricSpec",
    "floor_flag",
    "floor_key",
    "gated_metric",
    "metric_label",
    "metric_spec",
    "select_metrics",
    "shown_metrics",
    "unknown_metric",
]

CITATION_COVERAGE = "citation_coverage"

# One case's value: (the top k distinct card ids, gold, relevant, k) → [0, 1].
# ``relevant`` is the case's relevance set (``relevant_ids``, else the gold).
Kernel = Callable[[Sequence[str], Set[str], Set[str], int], float]


@dataclass(frozen=True, kw_only=True)
class MetricSpec:
    """One metric's names, meaning and computation."""

    key: str
    # short name: output, `gate.floors` / `gate.max_regression` key, --min NAME=X,
    # --max-regression NAME=X, and the generated flags and inputs
    name: str
    label: str  # short name in tables, before "@k": "hit" → "hit@5"
    definition: str  # Markdown, one sentence
    formula: str  # the trec_eval measure it matches, or how it is counted
    # Retrieval metrics are gated (floors, tolerance) and are action outputs.
    gated: bool = True
    # 0 or 1 per case: its changes are flips, tested with McNemar; else a sign-flip test.
    binary: bool = False
    # None: computed in the scorer's one pass (the ADR triad, :func:`score_top`).
    kernel: Kernel | None = None
    # In the default set (scored and reported without `metrics:` / --metrics).
    default: bool = True

    @property
    def output(self) -> str | None:
        """The action output / comparison JSON key; None = not an output."""
        return self.name if self.gated else None

    @property
    def floor_flag(self) -> str | None:
        """``min-hit``: the CLI flag (without ``--``) and action input; None = no floor."""
        return f"min-{self.name}" if self.gated else None

    @property
    def floor_env(self) -> str | None:
        """``RECALL_GATE_MIN_HIT``: how the action passes the floor input."""
        return f"RECALL_GATE_MIN_{self.name.upper()}" if self.gated else None

    @property
    def tolerance_flag(self) -> str | None:
        """``max-regression-hit``: the CLI flag (without ``--``) and action input of
        its own tolerance; None = not gated."""
        return f"max-regression-{self.name}" if self.gated else None

    @property
    def tolerance_env(self) -> str | None:
        """``RECALL_GATE_MAX_REGRESSION_HIT``: how the action passes that input."""
        return f"RECALL_GATE_MAX_REGRESSION_{self.name.upper()}" if self.gated else None


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec(
        key=HIT,
        name="hit",
        label="hit",
        definition="1 if at least one `must_cite_one_of` card is in the top k, else 0 (primary).",
        formula="trec_eval success_k",
        binary=True,
    ),
    MetricSpec(
        key=RECALL,
        name="recall",
        label="recall",
        definition="|relevant ∩ top k| / |relevant| (relevant = `relevant_ids` if set, else gold).",
        formula="trec_eval recall_k",
    ),
    MetricSpec(
        key=NDCG,
        name="ndcg",
        label="nDCG",
        definition=(
            "binary-gain nDCG: Σ 1/log2(rank+1) over relevant cards in the top k, divided by "
            "the ideal ranking cut at k (never above 1)."
        ),
        formula="trec_eval ndcg_cut_k (binary qrels)",
    ),
    MetricSpec(
        key=MRR,
        name="mrr",
        label="MRR",
        definition="1/rank of the first relevant card in the top k, else 0 (mean reciprocal rank).",
        formula="trec_eval recip_rank on the top k",
        kernel=reciprocal_rank_at_k,
        default=False,
    ),
    MetricSpec(
        key=PRECISION,
        name="precision",
        label="P",
        definition="|relevant ∩ top k| / k: divided by k even when fewer cards came back.",
        formula="trec_eval P_k",
        kernel=precision_at_k,
        default=False,
    ),
    MetricSpec(
        key=CITATION_COVERAGE,
        name="cited",
        label="cited gold",
        definition="1 if the answer cited a gold card (cases whose citations were captured).",
        formula="share of captured citation outcomes that are ok",
        gated=False,
    ),
)

# The retrieval metrics: scored per case, gated, reported as outputs.
GATED_METRICS: tuple[MetricSpec, ...] = tuple(m for m in METRICS if m.gated)
METRIC_KEYS: tuple[str, ...] = tuple(m.key for m in GATED_METRICS)
# Scored and reported when neither `metrics:` nor --metrics selects others.
DEFAULT_METRIC_KEYS: tuple[str, ...] = tuple(m.key for m in GATED_METRICS if m.default)

_BY_KEY = {m.key: m for m in METRICS}
_GATED_BY_NAME = {m.name: m for m in GATED_METRICS}


def metric_spec(key: str) -> MetricSpec:
    """The spec of a known metric key (KeyError for an unknown one: a programming error)."""
    return _BY_KEY[key]


def gated_metric(name: str) -> MetricSpec:
    """The gated metric of a short name or key (``hit`` or ``retrieval_hit_at_k``).

    ValueError naming the known names for anything else."""
    spec = _GATED_BY_NAME.get(name) or _BY_KEY.get(name)
    if spec is None or not spec.gated:
        raise ValueError(unknown_metric(name))
    return spec


def unknown_metric(name: str) -> str:
    """``unknown metric 'htt' (known: hit, …); did you mean 'hit'?``: the guess only
    when a short name is close."""
    names = [m.name for m in GATED_METRICS]
    message = f"unknown metric {name!r} (known: {', '.join(names)})"
    close = difflib.get_close_matches(name, names, n=1)
    return f"{message}; did you mean {close[0]!r}?" if close else message


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
    """The floor's key under ``gate.floors`` and in the comparison JSON (``hit``)."""
    return gated_metric(key).name


def select_metrics(names: Iterable[str]) -> tuple[str, ...]:
    """The keys of the named metrics (short names or keys), in the registry's order.

    ValueError naming the known names for an unknown one, or for an empty selection."""
    chosen = {gated_metric(name.strip()).key for name in names if name.strip()}
    if not chosen:
        known = ", ".join(m.name for m in GATED_METRICS)
        raise ValueError(f"no metric selected (known: {known})")
    return tuple(key for key in METRIC_KEYS if key in chosen)


def shown_metrics(*carried: Iterable[str]) -> tuple[str, ...]:
    """The gated metrics a report shows: the default set, always, and every other
    one that some of ``carried`` (aggregates, deltas) holds — in registry order."""
    present = set(DEFAULT_METRIC_KEYS).union(*carried)
    return tuple(key for key in METRIC_KEYS if key in present)
