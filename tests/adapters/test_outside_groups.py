"""A capture is refused when a language or case type maps to nothing, or more than
half of it maps to no card (adapters.artifacts.CaptureWatch, core.outside_share)."""

from __future__ import annotations

import pytest

from recall_gate.adapters.artifacts import CaptureWatch
from recall_gate.core.outside_share import MAX_OUTSIDE_SHARE, GroupTally
from recall_gate.core.records import Artifact
from recall_gate.errors import InputError

KB = frozenset({"en/a", "en/b", "es/a", "es/b"})


def watch(*lines: tuple[str, str, str, tuple[str, ...]]) -> CaptureWatch:
    """Lines of (case id, language, case type, retrieved ids) through a watch with the KB."""
    seen = CaptureWatch("c.jsonl", kb_ids=KB)
    artifacts = [
        (n, Artifact(case_id=c, language=lang, case_type=t, retrieved=ids))
        for n, (c, lang, t, ids) in enumerate(lines, start=1)
    ]
    list(seen.watch(artifacts))
    return seen


def refusal(seen: CaptureWatch) -> str:
    with pytest.raises(InputError) as caught:
        seen.refuse_outside(strict=False)
    return str(caught.value)


def test_a_language_none_of_whose_documents_maps_is_refused_naming_it() -> None:
    seen = watch(
        ("1", "en", "golden", ("en-a.html", "en-b.html")),
        ("2", "es", "golden", ("es/a", "es/b")),
    )
    message = refusal(seen)
    assert message.startswith(
        "c.jsonl: language en: 2 of 2 retrieved documents (100%) map to no KB card"
    )
    assert "'en-a.html' (nearest card: 'en/a')" in message
    assert "fix: pass --id-from FIELD" in message


def test_a_case_type_over_the_share_is_refused_when_every_language_is_under_it() -> None:
    # en: 9 of 10 outside (90 %), es: 9 of 10 (90 %); adversarial: 10 of 10 (100 %).
    outside = tuple(f"x{n}" for n in range(5))
    seen = watch(
        ("1", "en", "golden", ("en/a", *outside[:4])),
        ("2", "en", "adversarial", outside),
        ("3", "es", "golden", ("es/a", *outside[:4])),
        ("4", "es", "adversarial", outside),
    )
    assert refusal(seen).startswith("c.jsonl: case type adversarial: 10 of 10 retrieved")


def test_a_share_at_the_limit_is_scored_and_reported_per_group() -> None:
    outside = tuple(f"blog/post-{n}" for n in range(9))
    seen = watch(("1", "en", "golden", ("en/a", *outside)))
    seen.refuse_outside(strict=False)  # 9 of 10 = 90 %: not more than the limit
    report = seen.outside_kb()
    assert report is not None
    assert report.share_by_language == {"en": 0.9}
    assert report.share_by_case_type == {"golden": 0.9}


def test_the_limit_is_more_than_90_percent() -> None:
    assert MAX_OUTSIDE_SHARE == 0.9
    assert not GroupTally(retrieved=10, outside=9).unusable()
    assert GroupTally(retrieved=11, outside=10).unusable()
    assert GroupTally(retrieved=1, outside=1).unusable()
    assert not GroupTally().unusable()  # nothing retrieved: nothing to judge
