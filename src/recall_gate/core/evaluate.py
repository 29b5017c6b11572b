"""The retrieval-recall evaluator: one case's ranking → its metrics (ADR-0023).

Rules, each with a named test:

* Card identity is ``parent_id`` when present, else the item's ``id``
  (resolved by :meth:`Artifact.ranked_card_ids` before scoring).
* Metrics are computed on **retrieved** ids, never on cited ids.
* A case with empty ``must_cite_one_of`` yields ``{}``: it adds to no mean
  and no n (ADR-0023 (B)).
* Scoring is keyed on the presence of gold, not on the case type: an
  adversarial case that carries gold is scored (ADR-0023 (C)).
* When the capture carries ``cited`` ids, a gold-labelled case is classified:
  ``retrieval_miss`` (no gold card in the top k), ``citation_miss`` (a gold
  card was retrieved but none was cited) or ``ok`` (a gold card was cited).
"""

from __future__ import annotations

from collections.abc import Sequence

from recall_gate.core.metrics import HIT, score_ranking, top_k
from recall_gate.core.records import Case, CaseLabel, CaseResult, CitationOutcome

__all__ = ["classify_citation", "score_case"]


def classify_citation(*, hit: float, gold: frozenset[str], cited: Sequence[str]) -> CitationOutcome:
    """Tell a retrieval miss from a citation miss for one gold-labelled case."""
    if not hit:
        return "retrieval_miss"
    if gold.isdisjoint(cited):
        return "citation_miss"
    return "ok"


def score_case(
    case: CaseLabel,
    ranked_card_ids: Sequence[str],
    *,
    k: int,
    cited: Sequence[str] | None = None,
    query: str | None = None,
) -> CaseResult:
    """Score one case's ranked card ids at k; ``{}`` metrics for empty gold.

    ``query`` is carried into the record for reports; a :class:`Case` brings its own."""
    gold = frozenset(case.must_cite_one_of)
    relevant = frozenset(case.relevant_ids) if case.relevant_ids is not None else None
    metrics = score_ranking(ranked_card_ids, gold=gold, relevant=relevant, k=k)
    outcome: CitationOutcome | None = None
    if cited is not None and metrics:
        outcome = classify_citation(hit=metrics[HIT], gold=gold, cited=cited)
    return CaseResult(
        case_id=case.id,
        language=case.language,
        case_type=case.case_type,
        query=case.query if isinstance(case, Case) else query,
        metrics=metrics,
        ranked_ids=tuple(top_k(ranked_card_ids, k)),
        must_cite_one_of=case.must_cite_one_of,
        relevant_ids=case.relevant_ids,
        cited=tuple(cited) if cited is not None else None,
        citation_outcome=outcome,
    )
