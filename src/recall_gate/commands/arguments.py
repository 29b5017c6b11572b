"""The argparse vocabulary the commands share: the parser class, value types
and flag builders, so a flag reads and parses the same on every command."""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

from recall_gate.console import DEFAULT_CONFIG
from recall_gate.core.metric_registry import (
    DEFAULT_METRIC_KEYS,
    GATED_METRICS,
    gated_metric,
    metric_spec,
)
from recall_gate.core.stats import MIN_GROUP_N
from recall_gate.errors import InputError
from recall_gate.judging.outputs import Outputs
from recall_gate.settings.gate_settings import GATE_SETTINGS
from recall_gate.settings.values import (
    boolean,
    fraction,
    metric_selection,
    optional_path,
    optional_positive_int,
    optional_text,
    profile_name,
)


class Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting, so main() owns every exit; a
    flag is spelled out (no abbreviation: ``--metric`` is no ``--metrics``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        raise InputError(f"{self.prog}: {message}", fix=f"see `{self.prog} --help`")


def refuse_unrecognized(
    parser: argparse.ArgumentParser, args: argparse.Namespace, extras: Sequence[str]
) -> None:
    """The arguments no parser took, refused on one line; an unknown flag close to
    one the (sub)command has gets "did you mean …" (argparse on 3.11 has none)."""
    if not extras:
        return
    chosen = parser
    while True:
        sub = next((a for a in chosen._actions if isinstance(a, argparse._SubParsersAction)), None)
        name = getattr(args, sub.dest, None) if sub is not None else None
        if sub is None or name not in sub.choices:
            break
        chosen = sub.choices[name]
    known = [o for a in chosen._actions for o in a.option_strings if o.startswith("--")]
    flags = [e.split("=", 1)[0] for e in extras if e.startswith("--")]
    close = next((m for f in flags for m in difflib.get_close_matches(f, known, n=1)), None)
    noun = "argument" if len(extras) == 1 else "arguments"
    chosen.error(
        f"unrecognized {noun}: {' '.join(extras)}"
        + (f" (did you mean {close}?)" if close is not None else "")
    )


def add_subcommands(
    p: argparse.ArgumentParser, *, dest: str, metavar: str = "ACTION"
) -> argparse._SubParsersAction[Parser]:
    sub = p.add_subparsers(dest=dest, metavar=metavar, parser_class=Parser)
    sub.required = True
    return sub


def add_config(p: argparse.ArgumentParser, *, required: bool = False) -> None:
    p.add_argument(
        "--config",
        type=Path,
        metavar="PATH",
        default=None,
        help=f"the config file (default: the nearest {DEFAULT_CONFIG} from the current "
        "directory up to the repository root" + ("" if required else ", if any") + ")",
    )
    p.add_argument(
        "--set",
        action="append",
        metavar="KEY=VALUE",
        help="override a config setting, e.g. --set retrieval.mode=hybrid (repeatable)",
    )
    p.add_argument(
        "--allow-outside-repo",
        action="store_true",
        default=None,
        help="let the config name a KB, cases or baseline outside its repository "
        "(refused by default: a pull request can edit the config)",
    )


def note_deprecation(namespace: argparse.Namespace, line: str) -> None:
    """Leave a warning in ``args.deprecations``: ``cli.main`` prints each one."""
    namespace.deprecations = [*(getattr(namespace, "deprecations", None) or []), line]


class _Deprecated(argparse.Action):
    """An old spelling, kept for one minor version: it stores into its new flag's
    destination and leaves a warning naming the new spelling."""

    def __init__(self, *args: Any, instead: str, **kwargs: Any) -> None:
        self.instead = instead
        super().__init__(*args, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, values)
        note_deprecation(
            namespace,
            f"{option_string} is deprecated; write {self.instead} (the old spelling goes in "
            "the next minor version)",
        )


def add_deprecated(
    p: argparse._ActionsContainer, flag: str, *, instead: str, dest: str, **kwargs: Any
) -> None:
    """``flag`` as an old spelling of ``instead`` (same ``dest``), with a warning."""
    p.add_argument(
        flag,
        dest=dest,
        action=_Deprecated,
        instead=instead,
        help=f"deprecated: {instead}",
        **kwargs,
    )


# The output flags mean one thing in every command that has them.
def add_results_json(p: argparse._ActionsContainer) -> None:
    p.add_argument("--json", type=optional_path, metavar="PATH", help="write the results JSON here")


def add_report_outputs(p: argparse._ActionsContainer) -> None:
    """``--markdown`` (the full report), ``--comparison-json`` and ``--comment-markdown``."""
    p.add_argument(
        "--markdown",
        type=optional_path,
        metavar="PATH",
        help="write the full Markdown report here (for the job summary)",
    )
    p.add_argument(
        "--comparison-json",
        type=optional_path,
        metavar="PATH",
        help="write the comparison with the baseline here (compares even when there is no "
        "baseline yet)",
    )
    p.add_argument(
        "--comment-markdown",
        type=optional_path,
        metavar="PATH",
        help="write the PR comment here (shortened to fit GitHub's 65,536-character limit)",
    )


def add_outputs(p: argparse.ArgumentParser) -> None:
    add_results_json(p)
    add_report_outputs(p)


def outputs_asked(args: argparse.Namespace) -> Outputs:
    """The outputs a scored run was asked for (``add_outputs``, ``add_strict``,
    ``add_baseline_comparison``), as the judge takes them."""
    return Outputs(
        json=args.json,
        markdown=args.markdown,
        comparison_json=getattr(args, "comparison_json", None),
        comment_markdown=getattr(args, "comment_markdown", None),
        strict=args.strict,
    )


def add_strict(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--strict",
        action="store_true",
        help="exit 2 when a scored case holds fewer than k distinct retrieved cards, or a "
        "retrieved document is outside the KB",
    )


def floor_assignment(text: str) -> tuple[str, float | None]:
    """``METRIC=X`` (``hit=0.8``): a gated metric's short name and a fraction
    (empty = no floor)."""
    name, sep, value = text.partition("=")
    if not sep:
        raise argparse.ArgumentTypeError(f"expected METRIC=X, e.g. hit=0.8, got {text!r}")
    try:
        spec = gated_metric(name.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return spec.key, fraction(value)


class _PerMetric(argparse.Action):
    """Collects values by metric key into ``args.<dest>``: floors from ``--min
    METRIC=X`` and the per-metric flags (``--min-hit X``), tolerances likewise,
    where ``--max-regression X`` is kept under ``None`` (every metric; a metric
    named wins over it, whatever the order). The last one given for a key wins."""

    def __init__(self, *args: Any, metric: str | None = None, **kwargs: Any) -> None:
        self.metric = metric
        super().__init__(*args, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        key, value = (self.metric, values) if self.metric else values
        floors = dict(getattr(namespace, self.dest, None) or {})
        floors[key] = value
        setattr(namespace, self.dest, floors)


def tolerance_assignment(text: str) -> tuple[str | None, float | None]:
    """``X`` (every gated metric; ``None`` stands for all of them) or ``METRIC=X``
    (``hit=0.02``: one metric); an empty X is unset."""
    name, sep, value = text.partition("=")
    if not sep:
        try:
            float(text.strip() or "0")
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected X or METRIC=X (e.g. 0.05 or hit=0.02), got {text!r}"
            ) from None
        return None, fraction(text)  # a number out of range says so
    try:
        spec = gated_metric(name.strip())
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return spec.key, fraction(value)


def add_gate(p: argparse.ArgumentParser) -> None:
    """The floors: ``--min METRIC=X`` and one ``--min-NAME X`` per gated metric
    of the registry, all into ``args.floors`` (metric key → X; None = unset)."""
    g = p.add_argument_group("gate (all inactive when unset: report-only)")
    names = ", ".join(m.name for m in GATED_METRICS)
    g.add_argument(
        "--min",
        dest="floors",
        action=_PerMetric,
        type=floor_assignment,
        metavar="METRIC=X",
        help=f"floor on a metric's overall mean, e.g. --min hit=0.8 (metrics: {names}; repeatable)",
    )
    g.add_argument(
        "--metrics",
        type=metric_selection,
        metavar="NAME,NAME",
        help=f"the metrics scored and reported (metrics: {names}; default: "
        f"{', '.join(metric_spec(key).name for key in DEFAULT_METRIC_KEYS)}); a floor adds "
        "its metric",
    )
    for spec in GATED_METRICS:
        g.add_argument(
            f"--{spec.floor_flag}",
            dest="floors",
            action=_PerMetric,
            metric=spec.key,
            type=fraction,
            metavar="X",
            help=f"floor on overall {spec.label}@k (as --min {spec.name}=X)",
        )


def add_baseline_file(
    p: argparse._ActionsContainer,
    flag: str,
    *,
    help: str = "the baseline file (default: baselines/<profile>.json)",
) -> None:
    p.add_argument(flag, type=optional_path, metavar="PATH", help=help)


def add_baseline_ref(p: argparse._ActionsContainer) -> None:
    p.add_argument(
        "--baseline-ref",
        type=optional_text,
        metavar="REF",
        help="judge by this git revision (the PR's base; in a pull request event on GitHub "
        "Actions, its base SHA): its baseline, gate settings and cases apply, and what the "
        "working tree changes of them is reported",
    )


def add_profile(p: argparse._ActionsContainer) -> None:
    p.add_argument(
        "--profile",
        type=profile_name,
        metavar="NAME",
        help="profile (default: the config's, else 'default'): names the baseline file",
    )


def add_tolerance(p: argparse._ActionsContainer) -> None:
    """The tolerance: ``--max-regression X`` (every metric), ``--max-regression
    METRIC=X`` and one ``--max-regression-NAME X`` per gated metric of the
    registry, all into ``args.tolerances`` (see :class:`_PerMetric`); then the
    noise rule."""
    names = ", ".join(m.name for m in GATED_METRICS)
    p.add_argument(
        "--max-regression",
        dest="tolerances",
        action=_PerMetric,
        type=tolerance_assignment,
        metavar="[METRIC=]X",
        help="tolerance: fail when a metric drops by more than X in a group (see the noise "
        f"rule below); X alone: every metric; METRIC=X: that one (metrics: {names}; "
        "repeatable, a metric named wins over X alone)",
    )
    for spec in GATED_METRICS:
        p.add_argument(
            f"--{spec.tolerance_flag}",
            dest="tolerances",
            action=_PerMetric,
            metric=spec.key,
            type=fraction,
            metavar="X",
            help=f"tolerance of {spec.label}@k alone (as --max-regression {spec.name}=X)",
        )
    p.add_argument(
        "--min-group-n",
        type=optional_positive_int,
        metavar="N",
        help=f"a group with fewer compared cases is neither tested nor gated "
        f"(default {MIN_GROUP_N})",
    )
    p.add_argument(
        "--require-significance",
        type=boolean,
        metavar="BOOL",
        help="true (default): a drop fails only when the report-level noise test (every "
        "gated row tested together) calls it likely real; false: any drop beyond the "
        "tolerance fails, within noise or not",
    )
    # The other gates' settings (settings/gate_settings.py): one flag each.
    for setting in GATE_SETTINGS:
        p.add_argument(setting.flag, dest=setting.name, type=fraction, metavar="X",
                       help=setting.help)  # fmt: skip


def add_baseline_comparison(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group(
        "baseline (compared when --baseline is given, the profile's baseline file "
        "exists, or a tolerance is set)"
    )
    add_baseline_file(
        g, "--baseline", help="the baseline file (default: baselines/<profile>.json if present)"
    )
    add_profile(g)
    add_baseline_ref(g)
    add_tolerance(g)


def add_no_score(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--no-score",
        action="store_true",
        help="write the capture and stop: no score, no comparison, no verdict (the capture "
        "job of a two-job PR check; the judge job scores the file)",
    )


# The flags of a scored run's outputs: (flag, argparse dest).
RESULT_FLAGS: Final = (
    ("--json", "json"),
    ("--markdown", "markdown"),
    ("--comparison-json", "comparison_json"),
    ("--comment-markdown", "comment_markdown"),
)


def asked_flags(args: argparse.Namespace, flags: Sequence[tuple[str, str]]) -> list[str]:
    """Which of ``flags`` ((flag, dest) pairs) the command line set."""
    return [flag for flag, dest in flags if getattr(args, dest, None)]


def refuse_outputs_without_score(args: argparse.Namespace) -> None:
    """``--no-score`` with a flag that only scoring honours would drop it silently."""
    if not args.no_score:
        return
    asked = asked_flags(
        args,
        (
            *RESULT_FLAGS,
            ("a floor (--min…)", "floors"),
            ("a tolerance (--max-regression…)", "tolerances"),
        ),
    )
    if asked:
        raise InputError(
            f"--no-score with {', '.join(asked)}: a capture that is not scored writes no "
            "results, report or verdict",
            fix="drop them here and pass them where the capture is scored (`recall-gate score "
            "--artifacts FILE`, or the judge job's inputs)",
        )
