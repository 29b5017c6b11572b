"""What this gate can see at the team's own n, k and tolerance (pure): how often
it fails a no-op pull request, and the smallest hit@k drop it catches.

* **False fails.** With ``require-significance`` on, a drop fails only when the
  report-level test (:func:`~recall_gate.core.stats.family_drop_p`) calls it
  likely real, and that test holds the family-wise level: a pull request of
  equal quality fails at most :data:`~recall_gate.core.stats.FAMILY_LEVEL` of
  the time, however many rows are gated (measured by ``python -m benchmarks
  gate-calibration``). With it off, every drop beyond the tolerance fails,
  noise or not: no bound.
* **The smallest drop caught.** Assumption: the drop is hit@k lost hits alone,
  nothing gained, elsewhere the changes this run made. L lost hits standardise
  to √L, which must exceed the report-level test's critical value at this run
  (and 2^−L < 0.03); a group of n cases whose cases each lose their hit with
  probability δ loses at least that many (and more than the tolerance) 80 % of
  the time from the smallest δ :func:`~recall_gate.core.stats.smallest_drop_caught`
  finds. Without a run to draw from (``floors suggest``), the critical value
  is the Bonferroni bound over the rows the gate would hold, which the
  report-level test never needs more than (:func:`bonferroni_critical`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from statistics import NormalDist

from recall_gate.core.compare import Comparison
from recall_gate.core.comparison_records import CalibrationRecord
from recall_gate.core.metric_registry import METRIC_KEYS
from recall_gate.core.metrics import HIT
from recall_gate.core.records import Aggregates
from recall_gate.core.stats import FAMILY_LEVEL, fewest_lost_caught, smallest_drop_caught

__all__ = [
    "POWER",
    "SuggestedTolerance",
    "bonferroni_critical",
    "calibration",
    "smallest_drops",
    "suggest_tolerances",
]

# "Caught" means caught this often.
POWER = 0.8


def bonferroni_critical(cells: int, *, alpha: float = FAMILY_LEVEL) -> float:
    """The standardised drop a row must reach when ``cells`` rows are tested with
    Bonferroni's α / cells on the normal curve (0 cells: one row)."""
    return NormalDist().inv_cdf(1.0 - alpha / max(1, cells))


def smallest_drops(
    group_n: Mapping[str, int], *, critical: float, tolerance: float | None
) -> tuple[int, dict[str, float | None]]:
    """The fewest lost hits a row calls likely real at ``critical``, and per group
    (label → n) the smallest hit@k drop caught :data:`POWER` of the time."""
    lost = fewest_lost_caught(critical=critical)
    return lost, {
        label: smallest_drop_caught(n=n, lost=lost, tolerance=tolerance or 0.0, power=POWER)
        for label, n in group_n.items()
    }


def calibration(
    comparison: Comparison,
    *,
    tolerances: Mapping[str, float],
    require_significance: bool,
) -> CalibrationRecord | None:
    """The comparison's calibration figures (None: nothing tested together)."""
    family = comparison.family
    if family is None:
        return None
    tolerance = tolerances.get(HIT)
    gated = {
        d.group.label: d.n_compared
        for d in comparison.deltas
        if d.metric == HIT and d.noise.p_family is not None
    }
    critical = family.critical if family.critical is not None else 0.0
    lost, drops = smallest_drops(gated, critical=critical, tolerance=tolerance)
    if not require_significance:  # every drop beyond the tolerance fails: one lost hit will do
        lost = 1
        drops = {
            label: smallest_drop_caught(n=n, lost=1, tolerance=tolerance or 0.0, power=POWER)
            for label, n in gated.items()
        }
    return CalibrationRecord(
        cells=family.cells,
        method=family.method,
        false_fail=FAMILY_LEVEL if require_significance else None,
        critical=family.critical,
        fewest_lost=lost,
        tolerance=tolerance,
        smallest_drop=drops,
    )


@dataclass(frozen=True, kw_only=True)
class SuggestedTolerance:
    """What one group of a case set can enforce: the ``fewest_lost`` hits (none
    gained) the report-level test calls likely real, as a drop of its ``n``
    (``enforceable``: a tolerance below it gates nothing more), and the drop
    caught :data:`POWER` of the time (``caught``; None: never at this n)."""

    group: str
    n: int
    fewest_lost: int
    enforceable: float
    caught: float | None


def suggest_tolerances(
    aggregates: Aggregates, *, min_group_n: int
) -> tuple[tuple[SuggestedTolerance, ...], int]:
    """Per group with at least ``min_group_n`` cases (overall, case types,
    languages), the smallest hit@k drop the set can enforce, and the number of
    rows the gate would test together (those groups × the metrics scored).
    Without a pull request to draw from, the threshold is the Bonferroni bound
    over those rows (:func:`bonferroni_critical`): the report-level test never
    asks more."""
    groups = [("overall", aggregates.overall)]
    groups += [(f"case_type:{g}", v) for g, v in aggregates.by_case_type.items()]
    groups += [(f"language:{g}", v) for g, v in aggregates.by_language.items()]
    sized = [(label, means[HIT].n) for label, means in groups if HIT in means]
    sized = [(label, n) for label, n in sized if n >= min_group_n]
    metrics = sum(1 for key in METRIC_KEYS if key in aggregates.overall)
    cells = len(sized) * max(1, metrics)
    lost, drops = smallest_drops(dict(sized), critical=bonferroni_critical(cells), tolerance=0.0)
    return tuple(
        SuggestedTolerance(
            group=label,
            n=n,
            fewest_lost=lost,
            enforceable=math.ceil(round(lost / n * 100, 9)) / 100,
            caught=drops[label],
        )
        for label, n in sized
    ), cells
