"""Front matter parsing: 10,000 docs pages, target at most 2 s.

Synthetic data: N invented pages (default 10,000) in the shapes real docs sites
write (Hugo and Docusaurus front matter: title, description, weight, date, tags,
aliases; one page in ten in TOML, one in ten with a nested ``menu:`` that only
the full YAML parser reads). Each run splits and parses the front matter of
every page, in memory (no file I/O): the rows are min / median / max of
``--repeat`` runs. ``--full-yaml`` sends every YAML front matter to the full
parser, for the comparison with the plain fast path.

Usage: ``python -m benchmarks front-matter [--pages N] [--repeat R] [--full-yaml]``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from unittest import mock

from recall_gate.adapters import front_matter
from recall_gate.adapters.front_matter import split_front_matter

__all__ = ["main"]

TARGET_SECONDS = 2.0


def page(i: int) -> str:
    if i % 10 == 0:
        return f'+++\ntitle = "Page {i}"\nweight = {i}\ndraft = false\n+++\n\nText {i}.\n'
    menu = "menu:\n  main:\n    weight: 20\n" if i % 10 == 1 else ""
    return (
        f"---\ntitle: Page {i} of the guide\n"
        f"description: A short lead description about page {i}.\n"
        f"weight: {i}\ndate: 2024-01-05\ntags: [setup, guide]\n"
        f"aliases:\n  - /old/page-{i}/\n{menu}---\n\n# Page {i}\n\nText about page {i}.\n"
    )


def run_once(pages: list[str]) -> float:
    start = time.perf_counter()
    for i, text in enumerate(pages):
        split_front_matter(text, source=f"page-{i}.md")
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks front-matter")
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--full-yaml", action="store_true", help="no plain fast path")
    args = parser.parse_args(argv)
    pages = [page(i) for i in range(args.pages)]
    size = sum(len(p.encode("utf-8")) for p in pages)
    if args.full_yaml:
        with mock.patch.object(front_matter, "parse_plain_front_matter", return_value=None):
            times = [run_once(pages) for _ in range(args.repeat)]
    else:
        times = [run_once(pages) for _ in range(args.repeat)]
    median = statistics.median(times)
    print(
        f"front matter of {args.pages} pages ({size / 1e6:.1f} MB), "
        f"{'full YAML parser' if args.full_yaml else 'plain fast path + full parser'}: "
        f"min {min(times):.2f} s, median {median:.2f} s, max {max(times):.2f} s "
        f"(target ≤ {TARGET_SECONDS:.0f} s for 10,000 pages)"
    )
    return 0 if args.full_yaml or median <= TARGET_SECONDS * args.pages / 10_000 else 1
