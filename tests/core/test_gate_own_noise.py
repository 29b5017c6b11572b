"""The gate's noise rule with the retriever's own noise floor (A/A): when
``capture --repeat 2`` measured a non-deterministic retriever, a drop that is
within what it changed on its own is exempt (``own_noise``), in any group:
every case behind it is one the identical captures changed, or its flip rate
is at most their share. A deterministic retriever, a drop beyond the A/A share
on other cases, or ``require-significance: false`` keeps the drop failing.

The overall group: 20 cases, 3 lost (15 %), which the noise rule without A/A
fails (tests/core/test_gate_noise_rule.py)."""

from __future__ import annotations

from factories import baseline_of, case, results
from recall_gate.core.compare import Comparison, compare_to_baseline
from recall_gate.core.comparison_json import comparison_document, judged
from recall_gate.core.gate import Floors, Tolerances, judge_comparison
from recall_gate.core.metrics import HIT
from recall_gate.core.self_agreement import SelfAgreement, within_own_noise


def aa(changed: list[str], *, cases: int = 60) -> SelfAgreement:
    return SelfAgreement(
        runs=2,
        k=5,
        cases=cases,
        cases_changed=tuple(sorted(changed)),
        logged=0,
        logged_changed=0,
        logged_moved_share=0.0,
    )


def nine_lost() -> Comparison:
    # 9 of 60 lost (15 %), none gained: likely real (report-level p = 2^-9).
    base = [case(f"en-{i:02d}", 1) for i in range(60)]
    cur = [case(f"en-{i:02d}", None if i < 9 else 1) for i in range(60)]
    return compare_to_baseline(
        current=results(cur), baseline=baseline_of(base), baseline_path="b.json"
    )


def overall_hit_exemption(agreement: SelfAgreement | None, **knobs: bool) -> str | None:
    verdict = judge_comparison(
        nine_lost(),
        floors=Floors(),
        tolerances=Tolerances.every(0.05),
        self_agreement=agreement,
        **knobs,
    )
    rows = [*verdict.gate.regressions, *verdict.gate.exempt]
    (row,) = [r for r in rows if (r.metric, r.group) == (HIT, "overall")]
    return row.exempt


def test_a_drop_whose_cases_the_retriever_changed_on_its_own_is_exempt() -> None:
    # A/A changed 9 of 60 cases (15 %): the very nine that lost their hit.
    assert overall_hit_exemption(aa([f"en-{i:02d}" for i in range(9)])) == "own_noise"


def test_a_drop_no_larger_than_the_aa_share_is_exempt_whatever_its_cases() -> None:
    # A/A changed 12 other cases of 60 (20 %); 9 of 60 lost (15 %) is within it.
    assert overall_hit_exemption(aa([f"en-{i}" for i in range(20, 32)])) == "own_noise"


def test_a_drop_beyond_the_aa_share_on_other_cases_still_fails() -> None:
    # A/A changed 6 other cases of 60 (10 %): 15 % lost is more than the retriever's noise.
    assert overall_hit_exemption(aa([f"en-{i}" for i in range(20, 26)])) is None
    # Six of the nine are noise, three are not, and 15 % > 10 %: still a regression.
    assert overall_hit_exemption(aa([f"en-{i:02d}" for i in range(6)])) is None


def test_a_deterministic_retriever_or_no_aa_gives_no_exemption() -> None:
    assert overall_hit_exemption(aa([])) is None
    assert overall_hit_exemption(None) is None


def test_require_significance_off_turns_the_aa_exemption_off_too() -> None:
    agreement = aa([f"en-{i:02d}" for i in range(9)])
    assert overall_hit_exemption(agreement, require_significance=False) is None


def test_the_verdict_passes_and_the_document_keeps_the_exemption() -> None:
    agreement = aa([f"en-{i:02d}" for i in range(9)])
    verdict = judge_comparison(
        nine_lost(), floors=Floors(), tolerances=Tolerances.every(0.05), self_agreement=agreement
    )
    assert verdict.gate.verdict == "pass"
    # As report_comparison does: the A/A part joins the document, then it is judged.
    doc, _ = judged(
        comparison_document(nine_lost(), verdict, profile="default").model_copy(
            update={"self_agreement": agreement}
        )
    )
    assert {r.status for r in doc.gate.exempt} == {"exempt_own_noise"}
    # The document's own numbers bear the exemption out ...
    assert judged(doc) == (doc, False)
    # ... and without its A/A part (or with a deterministic one) they do not: a fail.
    for edited in (None, aa([])):
        redone, changed = judged(doc.model_copy(update={"self_agreement": edited}))
        assert changed
        assert redone.verdict == "fail"


def test_within_own_noise_compares_shares_exactly() -> None:
    # 3 of 30 is exactly 4 of 40: within, with no float's last bit in the way.
    assert within_own_noise(["x", "y", "z"], n=30, agreement=aa(list("abcd"), cases=40))
    assert not within_own_noise(["w", "x", "y", "z"], n=30, agreement=aa(list("abcd"), cases=40))
    assert not within_own_noise([], n=30, agreement=aa(list("abcd"), cases=40))
