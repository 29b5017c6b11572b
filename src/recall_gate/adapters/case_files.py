"""The cases: YAML (a top-level list, or a mapping with a ``cases:`` list), JSONL
(one case object per line), or a BEIR split (adapter: file I/O). Several files
may be given; every unusable case of every file is reported in one error.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recall_gate.adapters.beir import read_beir_queries
from recall_gate.adapters.files import (
    parse_yaml,
    read_text,
)
from recall_gate.adapters.input_records import (
    JSONL_SUFFIXES,
    YAML_SUFFIXES,
    json_line,
    report_all,
    validate_record,
)
from recall_gate.adapters.trec import UNDETERMINED_LANGUAGE, judgment_labels, read_qrels
from recall_gate.core.records import Case
from recall_gate.errors import InputError

__all__ = ["holds_no_case", "load_cases"]

_CASE_FIX = (
    "a case needs id, language (a BCP-47 tag such as en, de, es-419, pt-BR), case_type "
    "(golden | adversarial | capability | no_match), query and must_cite_one_of "
    "(a list of card ids, [] for none)"
)


def _case_where(source: str, index: int, obj: Any) -> str:
    ident = obj.get("id") if isinstance(obj, dict) else None
    return f"{source} case #{index}" + (f" (id {ident})" if isinstance(ident, str) else "")


def _beir_cases(path: Path) -> list[tuple[str, Case | InputError]]:
    """A BEIR split (``qrels/<split>.tsv``) as cases, the query texts from the
    dataset's ``queries.jsonl`` two folders up (BEIR's layout)."""
    queries_path = path.parent.parent / "queries.jsonl"
    if not queries_path.is_file():
        raise InputError(
            f"{path}: no {queries_path} beside the qrels folder for the query texts",
            fix="keep BEIR's layout (DATASET/queries.jsonl, DATASET/qrels/<split>.tsv), or "
            "convert with `recall-gate convert --qrels F --queries F --to cases`",
        )
    queries = read_beir_queries(queries_path)
    cases: list[tuple[str, Case | InputError]] = []
    for label in judgment_labels(read_qrels(path, "beir"), language=UNDETERMINED_LANGUAGE):
        query = queries.get(label.id)
        if query is None:
            raise InputError(
                f"{path}: query {label.id!r} has no text in {queries_path}",
                fix="use the queries.jsonl of the same BEIR dataset",
            )
        cases.append((f"{path} (query {label.id})", Case(query=query, **label.model_dump())))
    return cases


def _located_case(where: str, obj: Any) -> tuple[str, Case | InputError]:
    try:
        return where, validate_record(Case, obj, where=where, fix=_CASE_FIX)
    except InputError as exc:
        return where, exc


def _load_case_file(path: Path) -> list[tuple[str, Case | InputError]]:
    """Every case of one file, or the error of each case that is unusable."""
    source = str(path)
    if path.suffix == ".tsv":
        return _beir_cases(path)
    text = read_text(path, what="cases file")
    if path.suffix in JSONL_SUFFIXES:
        out: list[tuple[str, Case | InputError]] = []
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            where = f"{source}:{number}"
            try:
                obj = json_line(line, number=number, source=source)
            except InputError as exc:
                out.append((where, exc))
                continue
            out.append(_located_case(where, obj))
        return out
    data = parse_yaml(text, source=source)
    items = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise InputError(
            f"{source}: expected a top-level list of cases or a `cases:` list",
            fix="write `cases:` followed by a list of case mappings",
        )
    if not items:
        raise InputError(f"{source}: the case list is empty", fix="add at least one case")
    return [_located_case(_case_where(source, i, obj), obj) for i, obj in enumerate(items, start=1)]


def load_cases(paths: Sequence[Path]) -> list[tuple[str, Case]]:
    """Cases from one or more files (a directory means its *.yaml/*.yml/*.jsonl)."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = sorted(
                p for p in path.iterdir() if p.suffix in (*YAML_SUFFIXES, *JSONL_SUFFIXES)
            )
            if not found:
                raise InputError(
                    f"{path}: no .yaml or .jsonl cases files in the directory",
                    fix="point `cases` at a cases file or a directory holding them",
                )
            files.extend(found)
        else:
            files.append(path)
    results = [located for f in files for located in _load_case_file(f)]
    # Every unusable case of every file in one run: three typos, one fix round.
    report_all(
        [r for _, r in results if isinstance(r, InputError)], total=len(results), what="cases"
    )
    return [(where, case) for where, case in results if isinstance(case, Case)]


# A file longer than this holds something: no need to read it to know.
_BLANK_AT_MOST = 4096


def holds_no_case(path: Path) -> bool:
    """Whether a cases path holds no case yet: it does not exist, is empty, holds an
    empty list (``[]``, ``cases: []``), or is a folder of such files. What lists the
    KB before labelling (``recall-gate cards``) reads such a path as no cases."""
    if path.is_dir():
        found = [p for p in path.iterdir() if p.suffix in (*YAML_SUFFIXES, *JSONL_SUFFIXES)]
        return all(holds_no_case(p) for p in found)
    if not path.exists():
        return True
    if path.suffix == ".tsv" or path.stat().st_size > _BLANK_AT_MOST:
        return False
    if not path.read_bytes().strip():
        return True
    if path.suffix in JSONL_SUFFIXES:
        return False
    text = read_text(path, what="cases file")
    data = parse_yaml(text, source=str(path))
    items = data.get("cases") if isinstance(data, dict) else data
    return isinstance(items, list) and not items
