"""Builders for scored cases, results and baselines, shared by the compare and report tests.

Cases go through the real evaluator (`score_case`), so a case "hit at rank r"
scores hit 1, recall 1 and nDCG 1/log2(r+1) for its single gold card.
"""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.core.aggregate import aggregate
from recall_gate.core.baseline import Baseline, make_baseline
from recall_gate.core.evaluate import score_case
from recall_gate.core.records import CaseLabel, CaseResult, CaseType, Language, Provenance, Results

K = 5
LANGS: tuple[Language, ...] = ("en", "es-419", "pt-BR")


def case(
    case_id: str,
    rank: int | None,
    *,
    language: Language = "en",
    case_type: CaseType = "golden",
    gold: Sequence[str] | None = None,
    k: int = K,
) -> CaseResult:
    """A case whose first gold card sits at ``rank`` (None: not retrieved)."""
    gold = tuple(gold) if gold is not None else (f"card-{case_id}",)
    ranking = [f"noise-{case_id}-{i}" for i in range(k)]
    if rank is not None and gold:
        ranking[rank - 1] = gold[0]
    label = CaseLabel(id=case_id, language=language, case_type=case_type, must_cite_one_of=gold)
    return score_case(label, ranking, k=k)


def results(cases: Sequence[CaseResult], *, k: int = K, **provenance: object) -> Results:
    """Results of ``cases``; ``provenance`` fields override a minimal provenance."""
    prov = {"tool_version": "0.1.0", "dataset_fingerprint": "sha256:cases", **provenance}
    return Results(
        k=k,
        provenance=Provenance.model_validate(prov),
        cases=tuple(cases),
        aggregates=aggregate(cases),
    )


def baseline_of(
    cases: Sequence[CaseResult],
    *,
    k: int = K,
    created_at: str = "2026-05-01T00:00:00Z",
    git_sha: str = "0123456789abcdef0123456789abcdef01234567",
    reason: str = "test",
    **provenance: object,
) -> Baseline:
    """A baseline made from `results` of ``cases``."""
    return make_baseline(
        results(cases, k=k, **provenance),
        created_at=created_at,
        git_sha=git_sha,
        reason=reason,
    )
