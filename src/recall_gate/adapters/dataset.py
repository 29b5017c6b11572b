"""Loaders for the KB, cases and captured artifacts (adapter: file I/O).

Every failure becomes one :class:`InputError` naming the file (and line or
case) and the fix. Formats:

* **KB**: a directory of Markdown files (``*.md``, ``*.markdown``), each
  optionally with YAML front matter (``id``, ``language``, ``title``, optional
  ``tags``) above the body. A field the front matter does not give is derived:
  ``id`` = the path under the KB root without extension (``de/setup`` for
  ``kb/de/setup.md``), ``title`` = the first heading (else the file name),
  ``language`` = the nearest folder named after a language (``de/``,
  ``fr-CA/``), else the config's ``default_language``. Or a YAML / JSONL file
  of card objects (``id``, ``language``, ``title``, ``body``, optional ``tags``).
* **Cases**: YAML (a top-level list, or a mapping with a ``cases:`` list) or
  JSONL (one case object per line). Several files may be given.
* **Artifacts**: JSONL, one ``{"case_id", "retrieved", "cited"?, ...}`` per line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from recall_gate.adapters.files import (
    describe_validation_error,
    ensure_readable,
    iter_jsonl_lines,
    parse_yaml,
    read_text,
    too_deep,
)
from recall_gate.core.language import folder_language
from recall_gate.core.records import Artifact, Card, Case
from recall_gate.errors import InputError

__all__ = [
    "ARTIFACTS_WHAT",
    "iter_artifacts",
    "load_artifacts",
    "load_cards",
    "load_cases",
    "parse_artifact_line",
]

M = TypeVar("M", bound=BaseModel)

_YAML_SUFFIXES = (".yaml", ".yml")
_JSONL_SUFFIXES = (".jsonl", ".ndjson")


def _validate(model: type[M], data: Any, *, where: str, fix: str) -> M:
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a mapping, got {type(data).__name__}", fix=fix)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(f"{where}: {describe_validation_error(exc)}", fix=fix) from None


def _jsonl(text: str, *, source: str) -> Iterator[tuple[int, Any]]:
    # Split on "\n" only: str.splitlines() also breaks on U+2028, U+0085 and
    # friends, which JSON allows unescaped inside strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        yield number, _json_line(line, number=number, source=source)


def _json_line(line: str, *, number: int, source: str) -> Any:
    """One JSONL line parsed; invalid JSON is an error naming the line and column."""
    try:
        return json.loads(line)
    except RecursionError:
        raise too_deep(f"{source}:{number}") from None
    except json.JSONDecodeError as exc:
        raise InputError(
            f"{source}:{number}: invalid JSON: {exc.msg} (column {exc.colno})",
            fix="write one JSON object per line (JSON Lines)",
        ) from None


# --- cards -------------------------------------------------------------------

_CARD_FIX = (
    "a card needs id, language (a BCP-47 tag such as en, de, es-419, pt-BR), title and a body"
)
_MARKDOWN_SUFFIXES = (".md", ".markdown")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$")
_SETEXT_UNDERLINE = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")


def _split_front_matter(text: str, *, source: str) -> tuple[Any, str]:
    """The front matter (``{}`` when the file has none) and the body below it."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        return {}, text.strip()
    for end in range(1, len(lines)):
        if lines[end].strip() == "---":
            # A leading newline stands in for the opening '---', so YAML errors
            # name the line of the file, not of the front matter.
            meta_text = "\n".join(lines[1:end])
            meta = parse_yaml("\n" + meta_text if meta_text.strip() else "{}", source=source)
            return meta, "\n".join(lines[end + 1 :]).strip()
    raise InputError(
        f"{source}: front matter is not closed", fix="add a '---' line after the card's fields"
    )


def _first_heading(body: str) -> str | None:
    """The text of the first ATX (``# Title``) or setext (``Title`` over ``===``) heading."""
    lines = body.splitlines()
    for i, line in enumerate(lines):
        match = _HEADING.match(line)
        if match:
            return match.group(1).strip()
        if (
            line.strip()
            and i + 1 < len(lines)
            and _SETEXT_UNDERLINE.match(lines[i + 1])
            and not line.lstrip().startswith(("-", "*", ">"))
        ):
            return line.strip()
    return None


def _folder_language(path: Path, root: Path) -> str | None:
    """The nearest folder between the card and the KB root named after a language."""
    for folder in path.relative_to(root).parents:
        if folder.name and (tag := folder_language(folder.name)) is not None:
            return tag
    return None


def _card_from_markdown(path: Path, *, root: Path, default_language: str | None) -> Card:
    """A Markdown card; without front matter (or without some of its fields) the id
    is the path under the KB root without extension, the title the first heading
    (else the file name), the language the nearest language-named folder, else
    ``default_language``."""
    source = str(path)
    meta, body = _split_front_matter(read_text(path, what="card"), source=source)
    if not isinstance(meta, dict):
        raise InputError(f"{source}: front matter must be a mapping of fields", fix=_CARD_FIX)
    if "body" in meta:
        raise InputError(
            f"{source}: field `body` in front matter", fix="write the body below the front matter"
        )
    derived: dict[str, Any] = {}
    if "id" not in meta:
        derived["id"] = path.relative_to(root).with_suffix("").as_posix()
    if "title" not in meta:
        derived["title"] = _first_heading(body) or path.stem
    if "language" not in meta:
        language = _folder_language(path, root) or default_language
        if language is None:
            raise InputError(
                f"{source}: no language for this card",
                fix="add `language: <tag>` front matter, keep the file under a folder named "
                "after its language (e.g. de/ or fr-CA/), or set `default_language` in "
                "recall-gate.yaml",
            )
        derived["language"] = language
    return _validate(Card, {**derived, **meta, "body": body}, where=source, fix=_CARD_FIX)


def _all_or_report(
    results: Sequence[tuple[str, Card | InputError]], *, total: int
) -> list[tuple[str, Card]]:
    """The cards, or one error listing every bad file (a fix must find them all)."""
    errors = [r for _, r in results if isinstance(r, InputError)]
    if not errors:
        return [(w, r) for w, r in results if isinstance(r, Card)]
    if len(errors) == 1:
        raise errors[0]
    listed = "\n".join(f"  {e.message}\n    fix: {e.fix}" for e in errors)
    raise InputError(
        f"{len(errors)} of {total} KB card files are unusable:\n{listed}",
        fix="fix each file listed above",
    )


def _markdown_cards(root: Path, *, default_language: str | None) -> list[tuple[str, Card]]:
    try:
        files = sorted(p for p in root.rglob("*") if p.suffix in _MARKDOWN_SUFFIXES and p.is_file())
    except OSError as exc:  # a folder that vanished or may not be read, mid-walk
        raise InputError(
            f"{root}: cannot list the KB directory ({exc.filename}: {exc.strerror})",
            fix="check the KB path and the permissions of the folders under it",
        ) from None
    if not files:
        raise InputError(
            f"{root}: no *.md card files in the KB directory",
            fix="add Markdown files (front matter optional), or point `kb` elsewhere",
        )
    results: list[tuple[str, Card | InputError]] = []
    real_root = root.resolve()
    for file in files:
        try:
            _refuse_outside(file, root=root, real_root=real_root)
            card: Card | InputError = _card_from_markdown(
                file, root=root, default_language=default_language
            )
        except InputError as exc:
            card = exc
        results.append((str(file), card))
    return _all_or_report(results, total=len(files))


def _refuse_outside(file: Path, *, root: Path, real_root: Path) -> None:
    """A card file that resolves outside the KB (a symlink to ``/etc/hostname``, to a
    sibling checkout) is never read: a pull request could otherwise publish any
    file of the runner as a card."""
    target = file.resolve()
    if not target.is_relative_to(real_root):
        raise InputError(
            f"{file}: a symlink to {target}, outside the KB {root}",
            fix="copy the card into the KB, or remove the link: recall-gate reads no "
            "card file outside the KB",
        )


def load_cards(path: Path, *, default_language: str | None = None) -> list[tuple[str, Card]]:
    """Cards with where each was defined; see the module docstring for formats.

    ``default_language`` labels Markdown cards that name no language themselves
    and sit under no language-named folder. Every bad Markdown file of a KB
    directory is reported in one error.
    """
    if path.is_dir():
        return _markdown_cards(path, default_language=default_language)
    source = str(path)
    text = read_text(path, what="KB file")
    if path.suffix in _JSONL_SUFFIXES:
        return [
            (f"{source}:{n}", _validate(Card, obj, where=f"{source}:{n}", fix=_CARD_FIX))
            for n, obj in _jsonl(text, source=source)
        ]
    if path.suffix in _YAML_SUFFIXES:
        data = parse_yaml(text, source=source)
        items = data.get("cards") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise InputError(
                f"{source}: expected a list of cards (or a `cards:` list)", fix=_CARD_FIX
            )
        located = ((f"{source} card #{i}", obj) for i, obj in enumerate(items, start=1))
        return [(w, _validate(Card, obj, where=w, fix=_CARD_FIX)) for w, obj in located]
    if path.suffix in _MARKDOWN_SUFFIXES:
        card = _card_from_markdown(path, root=path.parent, default_language=default_language)
        return [(source, card)]
    raise InputError(
        f"{source}: unknown KB format {path.suffix!r}",
        fix="use a directory of .md cards, or a .yaml / .jsonl file of cards",
    )


# --- cases -------------------------------------------------------------------

_CASE_FIX = (
    "a case needs id, language (a BCP-47 tag such as en, de, es-419, pt-BR), case_type "
    "(golden | adversarial | capability | no_match), query and must_cite_one_of "
    "(a list of card ids, [] for none)"
)


def _case_where(source: str, index: int, obj: Any) -> str:
    ident = obj.get("id") if isinstance(obj, dict) else None
    return f"{source} case #{index}" + (f" (id {ident})" if isinstance(ident, str) else "")


def _load_case_file(path: Path) -> list[tuple[str, Case]]:
    source = str(path)
    text = read_text(path, what="cases file")
    if path.suffix in _JSONL_SUFFIXES:
        return [
            (f"{source}:{n}", _validate(Case, obj, where=f"{source}:{n}", fix=_CASE_FIX))
            for n, obj in _jsonl(text, source=source)
        ]
    data = parse_yaml(text, source=source)
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError(
            f"{source}: expected a top-level list of cases or a `cases:` list",
            fix="write `cases:` followed by a list of case mappings",
        )
    if not items:
        raise InputError(f"{source}: the case list is empty", fix="add at least one case")
    out = []
    for i, obj in enumerate(items, start=1):
        where = _case_where(source, i, obj)
        out.append((where, _validate(Case, obj, where=where, fix=_CASE_FIX)))
    return out


def load_cases(paths: Sequence[Path]) -> list[tuple[str, Case]]:
    """Cases from one or more files (a directory means its *.yaml/*.yml/*.jsonl)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.suffix in (*_YAML_SUFFIXES, *_JSONL_SUFFIXES)
            )
            if not found:
                raise InputError(
                    f"{path}: no .yaml or .jsonl cases files in the directory",
                    fix="point `cases` at a cases file or a directory holding them",
                )
            files.extend(found)
        else:
            files.append(path)
    return [located for f in files for located in _load_case_file(f)]


# --- artifacts ---------------------------------------------------------------

ARTIFACTS_WHAT = "artifacts file"

_ARTIFACT_FIX = (
    'each line is {"case_id": "...", "retrieved": ["card-id", ...]} '
    '(an item may be {"id": ..., "parent_id": ..., "score": ...})'
)


def load_artifacts(path: Path) -> list[tuple[int, Artifact]]:
    """Captured artifacts with their line numbers (:func:`iter_artifacts`, as a list)."""
    return list(iter_artifacts(path))


def iter_artifacts(path: Path) -> Iterator[tuple[int, Artifact]]:
    """Captured artifacts with their line numbers, streamed (flat memory).

    The errors of :func:`read_text` for a file that cannot be read (missing,
    binary, not UTF-8, empty), else of :func:`parse_artifact_line` for the
    first bad line.
    """
    source = str(path)
    for number, line in iter_jsonl_lines(path, what=ARTIFACTS_WHAT):
        try:
            artifact = parse_artifact_line(line, number=number, source=source)
        except InputError:
            ensure_readable(path, what=ARTIFACTS_WHAT)  # a binary file is reported as such
            raise
        yield number, artifact


def _artifact_at(obj: Any, *, number: int, source: str) -> Artifact:
    where = f"{source}:{number}"
    if isinstance(obj, dict) and isinstance(obj.get("case_id"), str):
        where += f" (case {obj['case_id']})"
    return _validate(Artifact, obj, where=where, fix=_ARTIFACT_FIX)


_VALIDATE_ARTIFACT_JSON = Artifact.__pydantic_validator__.validate_json


def parse_artifact_line(line: str, *, number: int, source: str) -> Artifact:
    """One artifacts JSONL line, validated against :class:`Artifact`.

    pydantic-core parses and validates the line in one native pass. A line it
    refuses is read again by ``json`` and validated from Python objects against
    the same model: that pass words the error (the JSON error with its column,
    or the fields), and accepts what only it accepts (``NaN``, say).
    """
    try:
        return _VALIDATE_ARTIFACT_JSON(line)  # type: ignore[no-any-return]
    except ValidationError:
        pass
    return _artifact_at(
        _json_line(line, number=number, source=source), number=number, source=source
    )
