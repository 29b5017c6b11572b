"""A change of the share of retrieved documents outside the KB is named at the top
of the report (report.outside_kb), never only in a closing note."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from cli_runner import run_cli
from recall_gate.core.records import OutsideKb
from recall_gate.report.outside_kb import outside_share_changes, render_outside_share_changes

SITE = Path(__file__).resolve().parent.parent / "data" / "sites" / "hugo-docsy"


def outside(**by_language: float) -> OutsideKb:
    return OutsideKb(entries=1, cases=1, share_by_language=by_language)


def test_a_group_whose_share_moves_by_5_points_or_more_is_named() -> None:
    changes = outside_share_changes(outside(en=0.0, es=0.5), outside(en=0.03, es=0.0))
    # en: 3 % → 0 % moved 3 points (under 5): not named; es: 0 % → 50 %: named.
    assert changes == [("language", "es", 0.0, 0.5)]


def test_a_group_gone_from_the_outside_counts_is_a_change_to_zero() -> None:
    assert outside_share_changes(None, outside(es=0.4)) == [("language", "es", 0.4, 0.0)]


def test_no_change_renders_nothing() -> None:
    assert render_outside_share_changes(outside(en=0.1), outside(en=0.12), markdown=True) is None


RETRIEVER = """
import json
from pathlib import Path

def build():
    pages = json.loads((Path(__file__).parent / "pages.json").read_text(encoding="utf-8"))
    return lambda query, k: pages[query]
"""


def site_with_retriever(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(SITE, root)
    (root / ".git").mkdir()
    (root / "site_search.py").write_text(RETRIEVER, encoding="utf-8")
    return root


def test_the_comparison_names_the_change_right_under_the_verdict(tmp_path: Path) -> None:
    root = site_with_retriever(tmp_path)
    pages = {
        "Is this project for me?": ["/docs/overview/"],
        "How do I launch a ponycopter?": ["/docs/tasks/ponycopters/launching-ponycopters/"],
        "Where is the documentation?": ["/docs/"],
        "Hvor er dokumentasjonen?": ["/no/docs/"],
        "Stordata": ["/no/docs/big-data/"],
        "مرور کلی": ["/fa/docs/overview/"],
    }

    def capture(name: str) -> None:
        (root / "pages.json").write_text(json.dumps(pages), encoding="utf-8")
        sys.modules.pop("site_search", None)
        argv = ["capture", "--retriever", "site_search:build", "--out", f"{name}.jsonl"]
        run = run_cli([*argv, "--json", f"{name}.json"], cwd=root)
        assert run.code == 0, run.err

    capture("base")
    made = run_cli(["baseline", "update", "--results", "base.json"], cwd=root)
    assert made.code == 0, made.err
    # The Norwegian pages now come back with a second URL the site does not publish:
    # 2 of 4 Norwegian documents (50 %) map to no card, at the limit, so it is scored.
    pages["Hvor er dokumentasjonen?"].append("/no/docs/gone/")
    pages["Stordata"].append("/no/docs/big-data/gone/")
    capture("head")
    run = run_cli(["compare", "--current", "head.json", "--markdown", "report.md"], cwd=root)
    assert run.code == 0, run.err
    report = (root / "report.md").read_text(encoding="utf-8")
    verdict_block, rest = report.split("⚠️ **Retrieved documents outside the KB changed**", 1)
    assert verdict_block.count("\n### ") == 1  # nothing but the verdict above it
    # golden: 2 of the 8 documents (25 %); Norwegian: 2 of 4 (50 %).
    assert rest.startswith(" (case type golden: 0% → 25%; language no: 0% → 50%)")


def test_with_no_baseline_there_is_no_change_to_name(tmp_path: Path) -> None:
    # A share of documents outside the KB is no change when nothing was measured
    # before: the closing note counts them; the top of the report stays quiet.
    root = site_with_retriever(tmp_path)
    pages = {
        "Is this project for me?": ["/docs/overview/", "/blog/2024/overview/"],
        "How do I launch a ponycopter?": ["/docs/tasks/ponycopters/launching-ponycopters/"],
        "Where is the documentation?": ["/docs/"],
        "Hvor er dokumentasjonen?": ["/no/docs/"],
        "Stordata": ["/no/docs/big-data/"],
        "مرور کلی": ["/fa/docs/overview/"],
    }
    (root / "pages.json").write_text(json.dumps(pages), encoding="utf-8")
    sys.modules.pop("site_search", None)
    argv = ["capture", "--retriever", "site_search:build", "--out", "c.jsonl"]
    run = run_cli([*argv, "--markdown", "report.md"], cwd=root)
    assert run.code == 0, run.err
    report = (root / "report.md").read_text(encoding="utf-8")
    assert "No baseline yet" in report
    assert "outside the KB changed" not in report
    assert "Outside the KB: 1 retrieved document" in report
