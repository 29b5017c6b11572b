"""A small synthetic KB for the capture tests: plain Markdown in language folders,
its cases, and a deterministic bag-of-words embedding (no model, no network).

All text is invented for these tests."""

from __future__ import annotations

import math
import re
import zlib
from pathlib import Path

DOCS = {
    "en/refills.md": "# Prescription refills\n\nAsk the pharmacy for a refill of your pills "
    "three days before they run out.\n",
    "en/parking.md": "# Parking\n\nThe garage next to the clinic is free for patients for "
    "two hours; park on level two.\n",
    "de/rechnung.md": "# Rechnung bezahlen\n\nSie können Ihre Rechnung online oder am "
    "Schalter bezahlen.\n",
    "es/citas.md": "# Citas\n\nPuede pedir una cita por teléfono o en el portal.\n",
    "fr-CA/stationnement.md": "# Stationnement\n\nLe stationnement de la clinique est gratuit "
    "pendant deux heures.\n",
}
# (id, language, case type, query, gold)
CASES = [
    ("en-1", "en", "golden", "how do I get a refill of my pills", ["en/refills"]),
    ("en-2", "en", "golden", "where can I park at the clinic garage", ["en/parking"]),
    ("de-1", "de", "golden", "wie kann ich meine Rechnung bezahlen", ["de/rechnung"]),
    ("es-1", "es", "golden", "cómo pido una cita por teléfono", ["es/citas"]),
    ("fr-1", "fr-CA", "golden", "le stationnement est-il gratuit", ["fr-CA/stationnement"]),
    ("en-3", "en", "capability", "what can you help me with", []),
]
DIMENSIONS = 512


def write_kb(root: Path) -> Path:
    """The KB under ``root/docs`` and its cases in ``root/cases.yaml``; returns ``root``."""
    for name, text in DOCS.items():
        path = root / "docs" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    lines = ["cases:"]
    for ident, language, case_type, query, gold in CASES:
        lines.append(
            f"  - {{id: {ident}, language: {language}, case_type: {case_type}, "
            f"query: '{query}', must_cite_one_of: [{', '.join(gold)}]}}"
        )
    (root / "cases.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def doc_text(name: str) -> str:
    return DOCS[name]


def embed(text: str) -> list[float]:
    """Words of 3+ letters hashed into DIMENSIONS buckets, L2-normalised: texts that
    share words are close."""
    vector = [0.0] * DIMENSIONS
    for word in re.findall(r"\w{3,}", text.lower()):
        vector[zlib.crc32(word.encode("utf-8")) % DIMENSIONS] += 1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    return [v / norm for v in vector]
