"""``recall-gate cards``: the KB as recall-gate sees it, so a user can check the
mapping (ids, languages and where each came from, titles, files) before
trusting a score; with cases at hand, how many cite each card (KB coverage,
:mod:`recall_gate.core.coverage`) and, with ``--uncovered``, the cards none does.
A configured cases file that holds no case yet lists the KB all the same ("no
cases yet"): listing the KB is the first step of labelling."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import Parser, add_config
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.errors import InputError

if TYPE_CHECKING:
    from recall_gate.adapters.dataset import Kb, KbCard
    from recall_gate.core.coverage import KbCoverage

# The handler imports what it runs when it runs: `cards --help` loads the parser alone.

__all__ = ["add_commands"]

_TITLE_WIDTH = 40
_GENERATORS = {"hugo": "Hugo", "docusaurus": "Docusaurus", "mkdocs": "MkDocs"}


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "cards",
        help="list the KB as recall-gate sees it: id, language and its source, title, path",
        description="Read the KB as every command does (front matter, `languages:`, "
        "`kb_include` / `kb_exclude`, `default_language`) and list its cards: each card's "
        "id, language and where that came from, title, file and size; languages with their "
        "folders first.",
    )
    add_config(p)
    p.add_argument("--kb", type=Path, metavar="PATH", help="KB directory or file")
    p.add_argument(
        "--cases",
        type=Path,
        action="append",
        metavar="PATH",
        help="count the cases citing each card from these cases (default: config)",
    )
    p.add_argument(
        "--uncovered",
        action="store_true",
        help="list only the cards no case cites (as gold or relevant id)",
    )
    p.add_argument("--json", type=Path, metavar="PATH", help="write the list as JSON here")
    p.add_argument(
        "--skipped",
        action="store_true",
        help="list the pages that are no card (drafts, link-only pages, pages without text) "
        "and why",
    )
    return {"cards": _cmd_cards}


_NO_CASES_YET = "KB coverage: no cases yet: 0 of {0.overall.cards} cards cited by a case"


def _citing(coverage: KbCoverage, entry: KbCard, *, no_cases: bool) -> str:
    """The citation column: how many cases cite the card, or that none is written yet."""
    return "no cases yet" if no_cases else str(len(coverage.cases_citing(entry.card)))


def _size(size: int) -> str:
    return f"{size} B" if size < 1024 else f"{size / 1024:.1f} KB"


def _short(text: str, width: int) -> str:
    text = " ".join("".join(c if c.isprintable() else "\ufffd" for c in text).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def render_cards(
    entries: Sequence[KbCard],
    *,
    coverage: KbCoverage | None = None,
    uncovered: bool = False,
    no_cases: bool = False,
) -> str:
    """The plain-text listing: languages and their folders, then one line per card
    (with ``coverage``, a column of the cases citing it and the coverage line, which
    say "no cases yet" with ``no_cases``; with ``uncovered``, only the cards no case
    cites)."""
    from recall_gate.adapters.kb_listing import cards_by_language
    from recall_gate.core.coverage import render_coverage
    from recall_gate.report.text_width import display_width, ljust_display

    lines = []
    for lang, folders in cards_by_language(entries).items():
        sources = sorted({e.language_source for e in entries if e.card.language == lang})
        total = sum(folders.values())
        lines.append(
            f"{lang}: {total} card{'' if total == 1 else 's'} (language from {', '.join(sources)})"
        )
        lines += [
            f"  {folder:<30} {n:>4} card{'' if n == 1 else 's'}"
            for folder, n in sorted(folders.items())
        ]
    rows = [
        (
            e.card.id,
            e.card.language,
            e.language_source,
            _short(e.card.title, _TITLE_WIDTH),
            e.path or e.where,
            _size(e.size),
            " ".join(e.urls),
            *(() if coverage is None else (_citing(coverage, e, no_cases=no_cases),)),
        )
        for e in entries
        if not uncovered or coverage is None or not coverage.cases_citing(e.card)
    ]
    header = ("id", "language", "from", "title", "path", "size", "urls", "cases")[
        : 7 if coverage is None else 8
    ]
    if coverage is not None:
        lines += ["", _NO_CASES_YET.format(coverage) if no_cases else render_coverage(coverage)]
        if uncovered:
            lines.append(f"Uncovered: {len(rows)} card{'' if len(rows) == 1 else 's'}")
    widths = [max(display_width(str(r[i])) for r in (header, *rows)) for i in range(len(header))]
    table = [
        "  ".join(ljust_display(str(cell), w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in (header, *rows)
    ]
    return "\n".join([*lines, "", *table]) + "\n"


def _cmd_cards(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.case_files import holds_no_case
    from recall_gate.adapters.dataset import load_cases
    from recall_gate.adapters.files import atomic_write_text, dump_json
    from recall_gate.adapters.kb_listing import cards_json
    from recall_gate.core.coverage import kb_coverage
    from recall_gate.judging.kb_judging import read_kb_noted
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    if settings.kb is None:
        raise InputError(
            "cards needs a KB",
            fix="pass --kb PATH, or set `kb:` in recall-gate.yaml",
        )
    read = read_kb_noted(settings.kb, settings.kb_files(), console)
    entries = read.cards
    coverage = None
    # Listing the KB is the first step of labelling: a cases file not written yet
    # (missing, empty, an empty list) is no cases, every card uncovered.
    with_cases = [p for p in settings.cases or () if not holds_no_case(p)]
    no_cases = bool(settings.cases) and not with_cases
    if settings.cases:
        cases = [case for _, case in load_cases(with_cases)] if with_cases else []
        coverage = kb_coverage([e.card for e in entries], cases)
    elif args.uncovered:
        raise InputError(
            "cards --uncovered needs cases: a card is covered when a case cites it",
            fix="pass --cases PATH, or set `cases:` in recall-gate.yaml",
        )
    shown = display_path(settings.kb, console)
    if shown.startswith("/"):
        shown = Path(os.path.relpath(settings.kb, console.cwd)).as_posix()
    if args.json is not None:
        atomic_write_text(
            args.json, dump_json(cards_json(entries, kb=shown, coverage=coverage, read=read))
        )
    site = "" if read.site is None else f", a {_GENERATORS[read.site.layout.generator]} site"
    skipped = f", {len(read.skipped)} pages skipped" if read.skipped else ""
    console.stdout.write(
        f"config: {settings.config_shown(console)}\n"
        f"KB:     {shown} ({len(entries)} cards{skipped}{site})\n\n"
    )
    if args.skipped:
        console.stdout.write(render_skipped(read))
        return 0
    console.stdout.write(
        render_cards(entries, coverage=coverage, uncovered=args.uncovered, no_cases=no_cases)
    )
    return 0


def render_skipped(read: Kb) -> str:
    """The pages that are no card, one a line, with the reason."""
    if not read.skipped:
        return "no page skipped\n"
    width = max(len(s.path) for s in read.skipped)
    return "".join(f"{s.path.ljust(width)}  {s.reason}\n" for s in read.skipped)
