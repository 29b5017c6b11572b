"""What this gate can see at the team's own n, k and tolerance (pure): how often
it fails a no-op pull request, and the smallest hit@k drop it catches.

* **False fails.** With ``require-significance`` on, a drop fails only when the
  report-level test (:func:`~recall_gate.core.stats.family_drop_p`) calls it
  likely real, and that test holds the family-wise level: a pull request of
  equal quality fails at most :data:`~recall_gate.core.stats.SIGNIFICANCE` of
  the time, however many rows are gated (measured by ``python -m benchmarks
  gate-calibration``). With it off, every drop beyond the tolerance fails,
  noise or not: no bound.
* **The smallest drop caught.** Assumption: the drop is hit@k lost hits alone,
  nothing gained, elsewhere the changes this run made. L lost hits standardise
  to √L, which must reach the report-level test's critical value at this run
  (and 2^−L < 0.05); a group of n cases whose cases each lose their hit with
  probability δ loses at least that many (and more than the tolerance) 80 % of
  the time from the smallest δ :func:`~recall_gate.core.stats.smallest_drop_caught`
  finds. Without a run to draw from (``floors suggest``), the critical value
  is the Bonferroni bound over the rows the gate would hold, which the
  report-level test never needs more than (:func:`bonferroni_critical`).
"""

from __future__ import annotations

from collections.abc import Mapping
from statistics import NormalDist

from recall_gate.core.compare import Comparison
from recall_gate.core.comparison_records import CalibrationRecord
from recall_gate.core.metrics import HIT
from recall_gate.core.stats import SIGNIFICANCE, fewest_lost_caught, smallest_drop_caught

__all__ = ["POWER", "bonferroni_critical", "calibration", "smallest_drops"]

# "Caught" means caught this often.
POWER = 0.8


def bonferroni_critical(cells: int, *, alpha: float = SIGNIFICANCE) -> float:
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
        false_fail=SIGNIFICANCE if require_significance else None,
        critical=family.critical,
        fewest_lost=lost,
        tolerance=tolerance,
        smallest_drop=drops,
    )
