"""Plain-text tables pad by display width (report.text_width)."""

from __future__ import annotations

from pathlib import Path

from cli_runner import run_cli
from recall_gate.report.text_width import display_width, ljust_display

SITE = Path(__file__).resolve().parent.parent / "data" / "sites" / "docusaurus-eventmesh"


def test_wide_characters_take_two_columns_and_combining_marks_none() -> None:
    assert display_width("SDK") == 3
    assert display_width("安装 SDK") == 8  # 2 + 2 + 1 + 3
    assert display_width("e\u0301") == 1  # e + a combining acute accent
    assert ljust_display("安装", 6) == "安装  "


def test_cards_columns_stay_aligned_with_chinese_titles() -> None:
    run = run_cli(["cards"], cwd=SITE)
    assert run.code == 0, run.err
    table = run.out.split("\n\nid ", 1)[1].splitlines()
    zh = [line for line in table if " zh " in line]
    columns = {display_width(line[: line.rindex("i18n/zh/")]) for line in zh}
    assert len(zh) == 5
    # The path column starts at one display column on every Chinese row.
    assert len(columns) == 1, columns
