"""The gates' rules and the one verdict (pure).

Every gate is judged the same way: a rule takes the settings the team gave it
and the figures the run observed, and says ``passes``, ``fails`` or
``unjudged`` (could not be judged), with the reason in words. :func:`decide`
turns the outcomes of one list of gates into the verdict:

- ``fail`` when an enforced gate fails **or could not be judged** (a gate the
  team configured never passes on figures it could not read);
- ``pass`` when none failed and a metric gate (a floor or a tolerance) is set;
- ``report-only`` when the team set no floor and no tolerance: the checks still
  run at reference settings, unenforced, so the report can say what *would*
  fail. The other gates (integrity, which is no knob; capture completeness,
  which guards the metric gates; traffic and new-card coverage, when set) can
  fail a report-only run, but passing they leave the verdict to the metrics.

The list itself (which gates a comparison has, and the figures each reads from
the comparison document) is :data:`recall_gate.core.gate_list.GATES`; both the
command that judges a run and ``actions-report``, which re-reads the written
document as untrusted data, build it with the same function and decide with
:func:`decide`, so no rule is stated twice.

A rule is ``(setting, observed) -> Judgement``: plain mappings of numbers, so
the document can record both and be judged again from what it records. To add
a gate, write its rule here and add one :class:`~recall_gate.core.gate_list.GateSpec`
to ``GATES`` (its kind, its rule and the function that reads its subjects'
settings and figures from the document); every surface then renders it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

__all__ = [
    "DEFAULT_MAX_UNANSWERED_SHARE",
    "METRIC_GATES",
    "Figures",
    "Judgement",
    "Outcome",
    "Verdict",
    "beyond_tolerance",
    "capture_rule",
    "decide",
    "floor_rule",
    "integrity_rule",
    "new_cards_rule",
    "reader_language_rule",
    "tolerance_rule",
    "traffic_rule",
]

Verdict = Literal["pass", "fail", "report-only"]
Outcome = Literal["passes", "fails", "unjudged"]
# A rule's settings and observed figures, as the document records them.
Figures = Mapping[str, float | int | bool | str | None]

# gate.max_unanswered_share's default: past this share of cases (or of logged
# queries) the retriever did not answer, the gates that read them cannot be judged.
DEFAULT_MAX_UNANSWERED_SHARE = 0.1
# The gate kinds whose setting makes a run gated ("pass" rather than "report-only").
METRIC_GATES = frozenset({"floor", "tolerance"})
# Deltas are compared after rounding, so 0.90 → 0.85 is not "beyond 0.05" by a
# float's last bit.
_DIGITS = 9


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    reason: str


class _Judged(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def enforced(self) -> bool: ...
    @property
    def outcome(self) -> Outcome: ...


def decide(gates: Iterable[_Judged]) -> Verdict:
    """The one verdict of a list of judged gates (see the module docstring)."""
    enforced = [g for g in gates if g.enforced]
    if any(g.outcome != "passes" for g in enforced):
        return "fail"
    if any(g.kind in METRIC_GATES for g in enforced):
        return "pass"
    return "report-only"


def _share(value: float) -> str:
    return f"{value * 100:.1f} %"


def _num(figures: Figures, key: str) -> float | None:
    value = figures.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _count(figures: Figures, key: str) -> int:
    value = figures.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _unanswered(unanswered: int, total: int, what: str, allowed: float) -> Judgement | None:
    """Could not be judged: more of ``total`` went unanswered than ``allowed``."""
    if total and unanswered / total > allowed:
        return Judgement(
            "unjudged",
            f"could not be judged: {unanswered:,} of {total:,} {what} not answered "
            f"(more than max_unanswered_share {_share(allowed)})",
        )
    return None


def integrity_rule(setting: Figures, observed: Figures) -> Judgement:
    """Dataset integrity: every gold id resolves to a card, ids unique, fields valid."""
    errors = _count(observed, "errors")
    if errors:
        return Judgement("fails", f"{errors} integrity error(s) in the dataset")
    if observed.get("gold_checked") is False:
        return Judgement("passes", "no KB to check the gold ids against")
    return Judgement("passes", "every gold id resolves to a card")


def capture_rule(setting: Figures, observed: Figures) -> Judgement:
    """Capture completeness: the metric gates judge the cases the retriever
    answered; a case it failed (or the capture lacks) scores as a miss, and
    past ``max_unanswered_share`` of them the metrics say nothing of the
    retriever: the gates reading them could not be judged."""
    cases = _count(observed, "cases")
    unanswered = _count(observed, "unanswered")
    allowed = _num(setting, "max_unanswered_share")
    if not cases:
        return Judgement("unjudged", "could not be judged: the capture holds no case")
    if allowed is not None and (bad := _unanswered(unanswered, cases, "cases", allowed)):
        return bad
    return Judgement("passes", f"{cases - unanswered:,} of {cases:,} cases answered")


def floor_rule(setting: Figures, observed: Figures) -> Judgement:
    """A floor on an overall mean: below it fails; nothing scored cannot be judged.
    A floor the document itself lists as missed fails whatever its mean says."""
    floor = _num(setting, "floor")
    mean = _num(observed, "mean")
    if floor is None:
        return Judgement("passes", "no floor")
    if mean is None or not _count(observed, "n"):
        return Judgement("unjudged", "could not be judged: nothing was scored")
    if mean < floor or observed.get("listed_missed") is True:
        return Judgement("fails", f"{mean:.3f} below the floor {floor:.3f}")
    return Judgement("passes", f"{mean:.3f} meets the floor {floor:.3f}")


def beyond_tolerance(delta: float, tolerance: float) -> bool:
    """Whether a change is a drop beyond the tolerance (rounded first)."""
    return round(delta, _DIGITS) < -tolerance


def _noise_words(observed: Figures) -> str:
    family = _num(observed, "p_family")
    if family is not None:  # what the gate reads: every gated row tested together
        return f"report-level p = {family:.3g}"
    p = _num(observed, "p_value")
    if p is not None:
        return f"p = {p:.3g}"
    low, high = _num(observed, "ci_low"), _num(observed, "ci_high")
    if low is not None and high is not None:
        return f"95 % interval {low:+.3f} to {high:+.3f}"
    return "untested"


_EXEMPT_WORDS = {
    "small_n": "exempt: {n} compared cases, fewer than min_group_n {min_group_n}",
    "not_significant": "exempt: within noise ({noise})",
    "own_noise": "exempt: within the retriever's own noise (A/A)",
}


def tolerance_rule(setting: Figures, observed: Figures) -> Judgement:
    """A metric's drop in one group against its tolerance. A drop beyond it fails
    unless exempt (``observed["exempt"]``: the reason
    :func:`recall_gate.core.gate.exemption` gave, computed from the same figures);
    without a comparable baseline the tolerance has nothing to check: reported,
    not failed."""
    tolerance = _num(setting, "max_regression")
    if observed.get("comparable") is False:
        return Judgement("passes", "not checked: no comparable baseline (reported, not failed)")
    delta = _num(observed, "delta")
    if tolerance is None or delta is None:
        return Judgement(
            "passes", "not checked: the baseline or this run lacks it (reported, not failed)"
        )
    if not beyond_tolerance(delta, tolerance):
        return Judgement("passes", f"{delta:+.3f} within the {tolerance:.3f} tolerance")
    noise = _noise_words(observed)
    exempt = observed.get("exempt")
    if isinstance(exempt, str) and exempt in _EXEMPT_WORDS:
        words = _EXEMPT_WORDS[exempt].format(
            n=_count(observed, "n"), min_group_n=setting.get("min_group_n"), noise=noise
        )
        return Judgement("passes", f"{delta:+.3f} beyond the {tolerance:.3f} tolerance, {words}")
    return Judgement("fails", _failing_drop(delta, tolerance, setting, observed, noise))


def _failing_drop(
    delta: float, tolerance: float, setting: Figures, observed: Figures, noise: str
) -> str:
    """Why a drop fails, in words: likely real, or (only where the team said so)
    held to the tolerance within noise."""
    beyond = f"{delta:+.3f} beyond the {tolerance:.3f} tolerance"
    if observed.get("significant") is True:
        return f"{beyond}, likely real ({noise})"
    if setting.get("require_significance") is False:
        return f"{beyond}, within noise ({noise}): fails because require-significance is off"
    return f"{beyond}, not called likely real ({noise}) but held to it"


def _traffic_unjudged(setting: Figures, observed: Figures) -> Judgement | None:
    """Why the traffic gate cannot judge what it compared (None: it can)."""
    if observed.get("answered") is False:
        return Judgement(
            "unjudged",
            "could not be judged: the capture holds no answers to the logged queries",
        )
    compared = _count(observed, "compared")
    unanswered = _count(observed, "not_captured")
    allowed = _num(setting, "max_unanswered_share")
    if allowed is not None and (
        bad := _unanswered(unanswered, compared + unanswered, "logged queries", allowed)
    ):
        return bad
    # By traffic too: one unanswered query may carry most of it.
    unanswered_weight = _num(observed, "not_captured_weight") or 0.0
    total_weight = unanswered_weight + (_num(observed, "compared_weight") or 0.0)
    if allowed is not None and total_weight > 0 and unanswered_weight / total_weight > allowed:
        return Judgement(
            "unjudged",
            f"could not be judged: the {unanswered:,} logged queries not answered carry "
            f"{_share(unanswered_weight / total_weight)} of the logged traffic (more than "
            f"max_unanswered_share {_share(allowed)})",
        )
    k, asked = _count(observed, "k"), _count(observed, "k_asked")
    if k and asked and k < asked:
        return Judgement(
            "unjudged",
            f"could not be judged: the capture's snapshot holds the top {k} of each logged "
            f"query, the gate compares the top {asked}",
        )
    if not compared:
        not_in_base = _count(observed, "not_in_base")
        why = f" ({not_in_base:,} not in the base's snapshot)" if not_in_base else ""
        return Judgement("unjudged", f"could not be judged: no logged query was compared{why}")
    return None


def traffic_rule(setting: Figures, observed: Figures) -> Judgement:
    """``max_moved_share`` on the traffic-weighted share of logged queries whose
    top k changed. It judges what it compared: no answers to the log, more
    unanswered logged queries than ``max_unanswered_share`` (by count, or by the
    traffic they carry), a capture's
    snapshot shallower than the top k it compares, or no logged query in both
    snapshots cannot be judged."""
    limit = _num(setting, "max_moved_share")
    if limit is None:
        return Judgement("passes", "no max_moved_share")
    unjudged = _traffic_unjudged(setting, observed)
    if unjudged is not None:
        return unjudged
    moved = _num(observed, "moved") or 0.0
    if moved > limit:
        return Judgement(
            "fails",
            f"{_share(moved)} of logged traffic changed its top k, more than "
            f"max_moved_share {_share(limit)}",
        )
    return Judgement(
        "passes", f"{_share(moved)} of logged traffic changed its top k, within {_share(limit)}"
    )


def reader_language_rule(setting: Figures, observed: Figures) -> Judgement:
    """``min_reader_language_share``: of a case language's cases whose gold page is in
    their top k in some language, the share that found it in their own
    (core/card_language.py). A language none of whose cases found its gold page in
    any language cannot be judged; a KB holding each id in one language has no
    other translation to answer from."""
    floor = _num(setting, "min_reader_language_share")
    if floor is None:
        return Judgement("passes", "no min_reader_language_share")
    if observed.get("translated") is False:
        return Judgement(
            "passes", "the KB holds each id in one language: no other translation to answer from"
        )
    found, own = _count(observed, "found"), _count(observed, "in_language")
    language = str(observed.get("language") or "their language")
    if not found:
        return Judgement(
            "unjudged",
            f"could not be judged: no {language} case found its gold page in any language",
        )
    share = _share(own / found)
    words = f"{own} of {found} {language} cases found their gold page in {language} ({share})"
    if own / found < floor:
        return Judgement("fails", f"{words}, below min_reader_language_share {_share(floor)}")
    return Judgement("passes", f"{words}, meets min_reader_language_share {_share(floor)}")


def new_cards_rule(setting: Figures, observed: Figures) -> Judgement:
    """``min_new_card_coverage``: the share of the cards a pull request adds that
    some case cites. A pull request that adds none has nothing to miss; a
    document that applies it without the pull request's KB changes cannot be
    judged."""
    floor = _num(setting, "min_new_card_coverage")
    if floor is None:
        return Judgement("passes", "no min_new_card_coverage")
    if observed.get("kb_read") is False:
        return Judgement(
            "unjudged", "could not be judged: the pull request's KB changes were not read"
        )
    cards, cited = _count(observed, "cards"), _count(observed, "cited")
    if not cards:
        return Judgement("passes", "the pull request adds no card")
    words = f"{cited} of {cards} new cards cited by a case ({_share(cited / cards)})"
    if cited / cards < floor:
        return Judgement("fails", f"{words}, below min_new_card_coverage {_share(floor)}")
    return Judgement("passes", f"{words}, meets min_new_card_coverage {_share(floor)}")
