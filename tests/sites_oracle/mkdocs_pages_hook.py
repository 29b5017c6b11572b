"""An MkDocs hook (``hooks:`` of the oracle's config): each page MkDocs builds, as one
JSON line in the file ``RECALL_GATE_ORACLE_OUT`` names: its source path, its URL,
and the language of its text as the i18n plugin says it (``file.locale``: a
file's suffix locale, the default locale for a file without one, also where the
plugin serves it in another language's site as a fallback), else None."""

from __future__ import annotations

import json
import os
from typing import Any


def on_post_page(output: str, page: Any, config: Any, **_: Any) -> str:
    row = {
        "src": page.file.src_uri,
        "url": page.url,
        "locale": getattr(page.file, "locale", None),
    }
    with open(os.environ["RECALL_GATE_ORACLE_OUT"], "a", encoding="utf-8") as out:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
    return output
