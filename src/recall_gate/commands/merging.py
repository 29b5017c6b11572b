"""``recall-gate merge``: combine the shards of one capture (``capture --shard I/N``)
into one artifacts file, as ``coverage combine`` combines a CI matrix's data.

Refused (exit 2, nothing written): a file that is no shard, shards of
different case sets or of different retrievers (conflicting provenance), a
shard given twice, a case in two shards, a line whose case is not in the case
set (``--cases`` or the config's). A merge that lacks a shard is
written with its coverage on the first line, so ``score`` refuses it rather
than scoring part of the cases as all of them; merging it again with the
missing shard completes it.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from recall_gate.commands.arguments import Parser, add_config
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.errors import InputError

if TYPE_CHECKING:
    from recall_gate.adapters.query_snapshot import QuerySnapshot
    from recall_gate.core.records import Artifact, Coverage, Retriever

# Each helper imports what it runs when it runs: `merge --help` loads the parser alone.

_SHARD_FIX = "merge the files `recall-gate capture --shard I/N` wrote for one capture"


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "merge",
        help="combine capture shards (capture --shard I/N) into one artifacts file",
        description="Combine the shards of one capture into one artifacts file. Shards of "
        "different case sets or retrievers, a shard given twice and a case in two shards are "
        "refused, and so is a line whose case is not in --cases; a merge that lacks a shard is "
        "marked so that `score` refuses it.",
    )
    add_config(p)
    p.add_argument("shards", nargs="+", type=Path, metavar="SHARD", help="shard files")
    p.add_argument("--out", type=Path, required=True, metavar="PATH", help="the merged file")
    p.add_argument(
        "--cases",
        type=Path,
        action="append",
        metavar="PATH",
        help="the cases the shards were captured from (default: the config's): the merged "
        "lines follow their order, as one capture's do; without cases, shard by shard",
    )
    return {"merge": _cmd_merge}


@dataclass(frozen=True)
class _Shard:
    path: Path
    coverage: Coverage
    retriever: Retriever | None
    artifacts: tuple[Artifact, ...]
    lines: tuple[int, ...]  # each artifact's line in the file


def _read_shard(path: Path, console: Console) -> _Shard:
    from recall_gate.adapters.dataset import iter_artifacts

    name = display_path(path, console)
    coverage: Coverage | None = None
    retriever: Retriever | None = None
    artifacts = []
    lines = []
    for number, artifact in iter_artifacts(path):
        if number == 1:
            coverage, retriever = artifact.coverage, artifact.retriever
            if coverage is None:
                raise InputError(
                    f"{name}: holds every case of its capture (no shard marker on its first "
                    "line): only shards are merged",
                    fix=f"score it as it is, or {_SHARD_FIX}",
                )
        elif artifact.coverage is not None:
            raise InputError(
                f"{name}:{number}: a shard marker past the first line (files joined by hand?)",
                fix=_SHARD_FIX,
            )
        elif artifact.retriever is not None and artifact.retriever != retriever:
            raise InputError(
                f"{name}:{number}: the shard mixes retrievers", fix="capture the shard again"
            )
        artifacts.append(artifact.model_copy(update={"coverage": None, "retriever": None}))
        lines.append(number)
    assert coverage is not None
    return _Shard(path, coverage, retriever, tuple(artifacts), tuple(lines))


def _refuse_foreign_cases(
    shards: list[_Shard], order: dict[str, int], args: argparse.Namespace, console: Console
) -> None:
    """Exit 2 on a line whose case is not in the case set (added to a shard by hand?):
    merged, it would be scored as one of the set's."""
    for shard in shards:
        for artifact, number in zip(shard.artifacts, shard.lines, strict=True):
            if artifact.case_id not in order:
                from recall_gate.settings import resolve_settings

                settings = resolve_settings(args, console)
                listed = ", ".join(display_path(p, console) for p in settings.cases)
                raise InputError(
                    f"{display_path(shard.path, console)}:{number}: case "
                    f"{artifact.case_id!r} is not in the case set ({listed})",
                    fix="remove the line (the shards hold only the cases they were captured "
                    "from), or capture the shards again from the cases that hold it",
                )


def _check_same_capture(first: _Shard, other: _Shard, console: Console) -> None:
    a, b = display_path(first.path, console), display_path(other.path, console)
    one, two = first.coverage, other.coverage
    if (one.of, one.cases, one.cases_fingerprint) != (two.of, two.cases, two.cases_fingerprint):
        raise InputError(
            f"{b} is not a shard of the same case set as {a} ({a}: {one.describe()} of "
            f"{one.cases} cases, {one.cases_fingerprint}; {b}: {two.describe()} of "
            f"{two.cases} cases, {two.cases_fingerprint})",
            fix="capture every shard from the same cases with the same N, then merge them",
        )
    if first.retriever != other.retriever:
        mine, theirs = (
            first.retriever.differences(other.retriever)
            if first.retriever is not None and other.retriever is not None
            else (str(first.retriever), str(other.retriever))
        )
        raise InputError(
            f"{b} was captured by another retriever than {a} ({a}: {mine}; {b}: {theirs})",
            fix="capture every shard with the same retriever, label and k, then merge them",
        )


def _case_order(
    args: argparse.Namespace, console: Console, coverage: Coverage
) -> dict[str, int] | None:
    """Each case's position in the cases the shards were captured from (flag or config),
    or None when no cases are known. Cases of another set are refused."""
    from recall_gate.adapters.dataset import load_cases
    from recall_gate.retrievers.capture import fingerprint_case_set
    from recall_gate.settings import resolve_settings

    settings = resolve_settings(args, console)
    if not settings.cases:
        return None
    cases = [case for _, case in load_cases(settings.cases)]
    if fingerprint_case_set(cases) != coverage.cases_fingerprint:
        listed = ", ".join(display_path(p, console) for p in settings.cases)
        raise InputError(
            f"the shards were captured from another case set than {listed} "
            f"({coverage.cases} cases, {coverage.cases_fingerprint}; {listed}: {len(cases)} "
            f"cases, {fingerprint_case_set(cases)})",
            fix="pass the cases the shards were captured from (--cases), or capture the "
            "shards again from these",
        )
    return {case.id: index for index, case in enumerate(cases)}


def _merged_snapshot(shards: list[_Shard], console: Console) -> QuerySnapshot | None:
    """The shards' logged-query snapshots as one (each shard holds its part of the
    log), or None when no shard has one; a shard without one, while others have
    one, is refused."""
    from recall_gate.adapters.query_snapshot import QuerySnapshot, read_snapshot

    found = [(shard, read_snapshot(shard.path)) for shard in shards]
    if all(snapshot is None for _, snapshot in found):
        return None
    rankings: dict[str, tuple[str, ...]] = {}
    k = None
    for shard, snapshot in found:
        name = display_path(shard.path, console)
        if snapshot is None or (k is not None and snapshot.k != k):
            raise InputError(
                f"{name}: "
                + ("no snapshot of the logged queries beside it" if snapshot is None else
                   f"its logged queries were captured at k = {snapshot.k}, not {k}")
                + ", unlike the other shards",
                fix="capture every shard with the same config (`queries:`), then merge them",
            )  # fmt: skip
        k = snapshot.k
        rankings.update(snapshot.rankings)
    assert k is not None
    return QuerySnapshot(k=k, rankings=rankings)


def _cmd_merge(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.artifacts import dump_artifacts
    from recall_gate.adapters.query_snapshot import write_with_snapshot

    shards = [_read_shard(path, console) for path in args.shards]
    first = shards[0]
    held: dict[int, Path] = {}
    cases: dict[str, Path] = {}
    for shard in shards:
        _check_same_capture(first, shard, console)
        name = display_path(shard.path, console)
        for index in shard.coverage.shards:
            if index in held:
                raise InputError(
                    f"shard {index} of {first.coverage.of} is in both "
                    f"{display_path(held[index], console)} and {name}",
                    fix="give each shard once",
                )
            held[index] = shard.path
        for artifact in shard.artifacts:
            if artifact.case_id in cases:
                raise InputError(
                    f"case {artifact.case_id!r} is in both "
                    f"{display_path(cases[artifact.case_id], console)} and {name}",
                    fix=_SHARD_FIX,
                )
            cases[artifact.case_id] = shard.path
    total = first.coverage
    indexes = tuple(sorted(held))
    complete = len(indexes) == total.of
    if complete and len(cases) != total.cases:
        raise InputError(
            f"every shard of {total.of} is here but they hold {len(cases)} of the "
            f"{total.cases} cases (a shard file was edited?)",
            fix="capture the shards again",
        )
    in_order = sorted(shards, key=lambda s: s.coverage.shards)
    merged = [artifact for shard in in_order for artifact in shard.artifacts]
    order = _case_order(args, console, total)
    if order is not None:  # one capture's order
        _refuse_foreign_cases(shards, order, args, console)
        merged.sort(key=lambda a: order.get(a.case_id, len(order)))
    coverage = None if complete else total.model_copy(update={"shards": indexes})
    snapshot = _merged_snapshot(shards, console)  # refused before anything is written
    text = dump_artifacts(merged, retriever=first.retriever, coverage=coverage)
    write_with_snapshot(args.out, text, snapshot)  # the two land together
    out = display_path(args.out, console)
    if coverage is None:
        console.stderr.write(
            f"recall-gate: merged {len(shards)} file(s), all {total.of} shards, "
            f"{len(cases)} cases → {out}\n"
        )
    else:
        missing = ", ".join(str(i) for i in range(1, total.of + 1) if i not in held)
        console.stderr.write(
            f"recall-gate: warning: merged {coverage.describe()} ({len(cases)} of "
            f"{total.cases} cases) → {out}; shard(s) {missing} missing: `score` refuses this "
            "file until they are merged in\n"
        )
    return 0
