"""The gate settings beside the metrics' floors and tolerances: each is a row of
the settings table (:mod:`recall_gate.settings.table`), a flag
(:mod:`recall_gate.commands.arguments`), an action input and its environment
variable (``make generate`` writes them into ``action.yml``) and a key under
``gate:`` in ``recall-gate.yaml``, all from its one entry here. Kept free of
the config model so the flag parser loads fast."""

from __future__ import annotations

from dataclasses import dataclass

from recall_gate.core.gates import DEFAULT_MAX_UNANSWERED_SHARE

__all__ = ["GATE_SETTINGS", "GateSetting"]


@dataclass(frozen=True, kw_only=True)
class GateSetting:
    """A share in [0, 1]: ``--NAME``, the input ``NAME``, ``gate.NAME``."""

    name: str  # snake_case: the config key under gate:, the flag's dest
    default: float | None  # None: the gate is off (report-only)
    help: str  # the flag's help
    description: str  # the action input's description

    @property
    def flag(self) -> str:
        return "--" + self.input

    @property
    def input(self) -> str:
        return self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return f"RECALL_GATE_{self.name.upper()}"


GATE_SETTINGS: tuple[GateSetting, ...] = (
    GateSetting(
        name="max_moved_share",
        default=None,
        help="query log: fail when more than this traffic-weighted share of the logged "
        "queries changed its top k (default: report-only)",
        description="Query log: the largest traffic-weighted share of logged queries whose "
        "top k may change, in [0, 1]. Empty = the config's `gate.max_moved_share`, else "
        "report-only.",
    ),
    GateSetting(
        name="min_new_card_coverage",
        default=None,
        help="the share of the cards a pull request adds that some case must cite "
        "(default: reported only)",
        description="The share of the cards a pull request adds that some case must cite, "
        "in [0, 1]. Empty = the config's `gate.min_new_card_coverage`, else reported only.",
    ),
    GateSetting(
        name="min_reader_language_share",
        default=None,
        help="a KB with translations: per case language, the least share of the cases that "
        "found their gold page that found it in their own language (default: reported only)",
        description="A KB with translations: per case language, the least share of the cases "
        "that found their gold page in their top k that found it in their own language, in "
        "[0, 1]. Empty = the config's `gate.min_reader_language_share`, else reported only.",
    ),
    GateSetting(
        name="max_unanswered_share",
        default=DEFAULT_MAX_UNANSWERED_SHARE,
        help="past this share of cases (or of logged queries) the retriever did not answer, "
        f"a set gate cannot be judged and fails (default {DEFAULT_MAX_UNANSWERED_SHARE})",
        description="Past this share of cases (or of logged queries) the retriever did not "
        "answer, a set gate cannot be judged and fails, in [0, 1]. Empty = the config's "
        f"`gate.max_unanswered_share`, else {DEFAULT_MAX_UNANSWERED_SHARE}.",
    ),
)
