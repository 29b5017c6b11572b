"""The gate as the commands apply it: floors and tolerance (flags over the
config), a comparison with a baseline judged by them, and the exit code of a
verdict."""

from __future__ import annotations

import argparse
from pathlib import Path

from recall_gate.commands.context import Io, display_path
from recall_gate.core.compare import (
    BaselineEdit,
    Comparison,
    ComparisonVerdict,
    compare_to_baseline,
    judge_comparison,
)
from recall_gate.core.gate import Floors, GateResult
from recall_gate.core.records import Results
from recall_gate.io.baseline_store import read_baseline, read_baseline_at_ref
from recall_gate.io.config import Config, GateSettings


def floors_of(args: argparse.Namespace, config: Config | None) -> Floors:
    gate = config.gate if config else GateSettings()

    def pick(flag: float | None, configured: float | None) -> float | None:
        return flag if flag is not None else configured

    return Floors(
        min_hit=pick(args.min_hit, gate.min_hit),
        min_recall=pick(args.min_recall, gate.min_recall),
        min_ndcg=pick(args.min_ndcg, gate.min_ndcg),
    )


def tolerance_of(args: argparse.Namespace, config: Config | None) -> float | None:
    if args.max_regression is not None:
        return float(args.max_regression)
    return config.gate.max_regression if config else None


def min_group_n_of(args: argparse.Namespace, config: Config | None) -> int:
    flag: int | None = getattr(args, "min_group_n", None)
    if flag is not None:
        return flag
    return (config.gate if config else GateSettings()).min_group_n


def require_significance_of(args: argparse.Namespace, config: Config | None) -> bool:
    flag: bool | None = getattr(args, "require_significance", None)
    if flag is not None:
        return flag
    return (config.gate if config else GateSettings()).require_significance


def judge_against_baseline(
    current: Results, *, path: Path, args: argparse.Namespace, io: Io, config: Config | None
) -> tuple[Comparison, ComparisonVerdict]:
    """Compare ``current`` with the baseline at ``path`` (at ``--baseline-ref``
    when given) and apply the floors and the tolerance."""
    ref = getattr(args, "baseline_ref", None)
    shown = display_path(path, io)
    edit = None
    if ref:
        stored = read_baseline_at_ref(path, ref=ref, cwd=io.cwd)
        working = read_baseline(path, display=shown)
        old = stored.baseline if stored else None
        new = working.baseline if working else None
        if old != new:
            edit = BaselineEdit(old=old, new=new)
    else:
        stored = read_baseline(path, display=shown)
    comparison = compare_to_baseline(
        current=current,
        baseline=stored.baseline if stored else None,
        baseline_path=shown,
        baseline_ref=ref,
        edit=edit,
        min_group_n=min_group_n_of(args, config),
    )
    verdict = judge_comparison(
        comparison,
        floors=floors_of(args, config),
        max_regression=tolerance_of(args, config),
        require_significance=require_significance_of(args, config),
    )
    return comparison, verdict


def exit_for(gate: GateResult) -> int:
    return 1 if gate.verdict == "fail" else 0
