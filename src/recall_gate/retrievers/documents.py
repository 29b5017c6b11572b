"""A retrieved document as every adapter hands it over, and how its card id is found.

Each framework has its own document type (LangChain ``Document``, LlamaIndex
``NodeWithScore``, Haystack ``Document``, a plain ``dict`` or ``str``); an
adapter turns each into a :class:`Hit`: a namespace of readable fields
(``id``, ``metadata`` …), the score and the chunk id when there are any.

The card id comes from one field of that namespace, named by a dotted path
(``--id-from metadata.source``); by default the common fields are tried in
order (:data:`DEFAULT_ID_FIELDS`). A value that looks like a file path is
normalised to a KB card id: separators made ``/``, a document extension
dropped, then the longest trailing part of the path that is a KB card id is
taken (``/srv/app/docs/de/setup.md`` → ``de/setup`` in a KB at ``docs/``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from recall_gate.core.card_language import address_language, metadata_language
from recall_gate.core.integrity import card_of_path, looks_like_file_path
from recall_gate.errors import InputError

__all__ = ["DEFAULT_ID_FIELDS", "Hit", "IdMapper"]

# Tried in this order when --id-from is not given.
DEFAULT_ID_FIELDS: tuple[str, ...] = (
    "metadata.card_id",
    "metadata.id",
    "metadata.source",
    "metadata.file_path",
    "metadata.path",
    "metadata.file_name",
    "ref_doc_id",
    "id",
)
_URL = re.compile(r"https?://", re.IGNORECASE)
_DOC_EXTENSION = re.compile(r"\.(?:md|markdown|mdx|txt|rst|html?|pdf|json|ya?ml)$", re.IGNORECASE)


@dataclass(frozen=True)
class Hit:
    """One retrieved document: readable fields, its score and chunk id (when known)."""

    fields: Mapping[str, Any]
    score: float | None = None
    chunk_id: str | None = None


def lookup(fields: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (``metadata.source``), or None."""
    value: Any = fields
    for part in path.split("."):
        value = value.get(part) if isinstance(value, Mapping) else getattr(value, part, None)
        if value is None:
            return None
    return value


def clean_score(value: Any) -> float | None:
    """A finite float score, or None (a framework may give None, NaN or a numpy float)."""
    try:
        score = float(value)
    except (TypeError, ValueError):
        return None
    return score if math.isfinite(score) else None


@dataclass
class IdMapper:
    """Finds each hit's card id; with the KB's ``card_ids``, only ids of real cards."""

    id_from: str | None = None
    card_ids: frozenset[str] | None = None
    # Without a KB: the cases' gold and relevant ids, which a path may equal.
    gold_ids: frozenset[str] = frozenset()
    # Why the first document outside the KB mapped to no card.
    first_unmapped: InputError | None = None
    # Documents whose metadata was left out of the capture (over the cap, or not JSON).
    metadata_dropped: int = 0
    # Absolute folders (the KB's, then its repository's) that a page outside the
    # KB is named relative to, so a capture on a CI runner and one on a laptop
    # name it alike, and no machine path reaches the report.
    anchors: tuple[str, ...] = ()

    def card_id(self, hit: Hit, *, case_id: str, rank: int) -> str:
        """The hit's card id; with a KB, a hit that maps to no card is an error
        (:meth:`map` keeps it as a page outside the KB instead)."""
        return self.map(hit, case_id=case_id, rank=rank, outside_ok=False)[0]

    def map(
        self, hit: Hit, *, case_id: str, rank: int, outside_ok: bool = True
    ) -> tuple[str, bool]:
        """The hit's card id and False; or, with a KB, for a document that maps to
        no card (a blog post, release notes, an API page in the same index), the
        document's own reference (its first id field) and True: a page outside the KB."""
        fields = (self.id_from,) if self.id_from else DEFAULT_ID_FIELDS
        tried = []
        first: str | None = None
        where = f"case {case_id!r}, document {rank}"
        for name in fields:
            value = lookup(hit.fields, name)
            if value is None or (isinstance(value, str) and not value.strip()):
                tried.append(f"{name}: absent")
                continue
            text = str(value)
            card = self._to_card(text)
            if card is not None:
                if self.card_ids is None:
                    self._refuse_unmapped_path(text, card, where=where, field=name)
                return card, False
            first = first or text.replace("\\", "/")
            tried.append(f"{name}: {text!r} is no KB card")
        error = self._unmapped(where, tried, first)
        if first is not None and outside_ok:
            if self.first_unmapped is None:
                self.first_unmapped = error  # raised if no document maps at all
            return self._relative(first), True
        raise error

    def language(self, hit: Hit, card: str) -> str | None:
        """Which language's card ``card`` the hit is, where the KB holds that id in
        two or more languages (else None: the id alone is the card): its metadata's
        ``language`` / ``lang`` / ``locale``, else what the URL or file path its card
        was found by tells (:func:`~recall_gate.core.card_language.address_language`)."""
        written = getattr(self.card_ids, "languages", None) or {}
        if self.card_ids is None or len(written.get(card, ())) < 2:
            return None
        metadata = lookup(hit.fields, "metadata")
        told = metadata_language(metadata) if isinstance(metadata, Mapping) else None
        if told is not None:
            return told
        for name in (self.id_from,) if self.id_from else DEFAULT_ID_FIELDS:
            value = lookup(hit.fields, name)
            if isinstance(value, str) and value != card and self._to_card(value) == card:
                return address_language(value, card, self.card_ids)
        return None

    def _relative(self, reference: str) -> str:
        """An absolute path under one of the anchors, relative to the first that
        holds it (``/runner/work/app/docs/blog/a.md`` → ``blog/a.md``); else as given."""
        for anchor in self.anchors:
            prefix = anchor.rstrip("/") + "/"
            if reference.startswith(prefix) and len(reference) > len(prefix):
                return reference[len(prefix) :]
        return reference

    def project_relative(self, value: str) -> str:
        """An absolute path inside the project (the repository that holds the KB,
        else the KB's folder: the last anchor) relative to it
        (``/runner/work/app/content/a.md`` → ``content/a.md``), so a capture's metadata
        carries no machine path; any other value as given."""
        if not self.anchors:
            return value
        prefix = self.anchors[-1].rstrip("/") + "/"
        if value.startswith(prefix) and len(value) > len(prefix):
            return value[len(prefix) :]
        return value

    def _unmapped(self, where: str, tried: list[str], first: str | None = None) -> InputError:
        # A site-search retriever's page URL, and a KB that publishes none.
        url_fix = (
            "set `kb:` to the content folder of your Hugo, Docusaurus or MkDocs site (the "
            "folder the generator reads, beside its config: `recall-gate cards` then lists "
            "each card's URLs), or pass --id-from FIELD naming a field that holds the file "
            "path (e.g. --id-from metadata.source)"
            if first is not None
            and _URL.match(first)
            and not getattr(self.card_ids, "addresses", None)
            else None
        )
        if self.id_from:
            return InputError(
                f"{where}: --id-from {self.id_from}: {tried[0].split(': ', 1)[1]}"
                + (" (the KB publishes no page URLs)" if url_fix else ""),
                fix=url_fix
                or "name the field that holds the card id or file path (e.g. --id-from "
                "metadata.source), or check that the KB (`kb:` in recall-gate.yaml) holds "
                "the documents the retriever returns",
            )
        if url_fix:
            return InputError(
                f"{where}: {first!r} is a page URL and the KB publishes no URLs to map it "
                f"to a card (tried {'; '.join(tried)})",
                fix=url_fix,
            )
        return InputError(
            f"{where}: no field maps to a KB card (tried {'; '.join(tried)})",
            fix="pass --id-from FIELD naming the field that holds the card id or file path "
            "(e.g. --id-from metadata.source), and set `kb:` so paths map to card ids",
        )

    def _refuse_unmapped_path(self, text: str, card: str, *, where: str, field: str) -> None:
        """Without a KB, a file path that is no gold id would match nothing: every
        case would score 0. Exit 2 naming `kb:` instead of an all-zero pass."""
        gold = self.gold_ids
        if text in gold or card in gold or any(looks_like_file_path(g) for g in gold):
            return
        if looks_like_file_path(text):
            raise InputError(
                f"{where}: {field} {text!r} looks like a file path and no `kb:` is set to "
                "map it to a card id: every case would score 0",
                fix="set `kb:` in recall-gate.yaml (or pass --kb PATH) to the folder of your "
                "docs, so each path maps to its card id (the path under that folder, "
                "without extension)",
            )

    def _to_card(self, value: str) -> str | None:
        """``value`` as a card id: itself, or the normalised path (see the module docstring)."""
        if self.card_ids is None:  # no KB: a path loses its extension, nothing more
            return _DOC_EXTENSION.sub("", value.replace("\\", "/"))
        return card_of_path(value, self.card_ids)
