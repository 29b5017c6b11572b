"""``recall-gate convert``: captures and cases to and from the IR tools' files
(TREC run, TREC qrels, BEIR qrels), so a capture can be checked with trec_eval
or ranx, and a TREC/BEIR dataset becomes recall-gate cases."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from recall_gate.commands.arguments import Parser
from recall_gate.commands.context import Console, Handler, display_path
from recall_gate.errors import InputError
from recall_gate.settings.values import language_tag

if TYPE_CHECKING:
    from recall_gate.adapters.trec import JudgedRun
    from recall_gate.core.records import Artifact, CaseLabel

# Each helper imports what it runs when it runs: `convert --help` loads the parser alone.

__all__ = ["TARGETS", "add_commands"]

TARGETS = ("trec-run", "trec-qrels", "beir-qrels", "artifacts", "cases")


def add_commands(sub: argparse._SubParsersAction[Parser]) -> dict[str, Handler]:
    p = sub.add_parser(
        "convert",
        help="captures and cases to and from TREC runs and TREC / BEIR qrels",
        description="Write a TREC run (from a capture or a run), TREC or BEIR qrels (from "
        "cases, qrels or a self-labelled capture), a capture (from a run, labelled by "
        "--qrels or --cases when given) or cases (from qrels and a BEIR queries.jsonl).",
    )
    src = p.add_argument_group("what to read (the rankings, the judgments, the queries)")
    src.add_argument("--artifacts", type=Path, metavar="PATH", help="a capture (JSONL)")
    src.add_argument("--run", type=Path, metavar="PATH", help="a TREC run (or a capture)")
    src.add_argument("--cases", type=Path, action="append", metavar="PATH", help="cases file")
    src.add_argument("--qrels", type=Path, metavar="PATH", help="TREC or BEIR qrels")
    src.add_argument(
        "--queries", type=Path, metavar="PATH", help="BEIR queries.jsonl (query texts for cases)"
    )
    src.add_argument(
        "--language",
        type=language_tag,
        metavar="TAG",
        help="the language of qrels queries (a BCP-47 tag; default: und)",
    )
    p.add_argument("--to", required=True, choices=TARGETS, help="the format to write")
    p.add_argument("--out", type=Path, required=True, metavar="PATH", help="the file to write")
    p.add_argument(
        "--tag", default="recall-gate", help="a TREC run's tag column (default: %(default)s)"
    )
    return {"convert": _cmd_convert}


def _rankings(args: argparse.Namespace) -> tuple[str, Iterable[tuple[int, Artifact]]] | None:
    from recall_gate.adapters.dataset import iter_artifacts
    from recall_gate.adapters.trec import detect_run_format, read_trec_run, run_artifacts

    if args.artifacts is not None and args.run is not None:
        raise InputError("convert takes --artifacts or --run, not both", fix="pass one of them")
    path: Path | None = args.artifacts if args.artifacts is not None else args.run
    if path is None:
        return None
    if args.run is not None and detect_run_format(path) == "trec":
        return str(path), run_artifacts(read_trec_run(path))
    return str(path), iter_artifacts(path)


def _judgments(args: argparse.Namespace) -> list[CaseLabel] | None:
    from recall_gate.adapters.dataset import load_cases
    from recall_gate.adapters.trec import (
        UNDETERMINED_LANGUAGE,
        detect_qrels_format,
        judgment_labels,
        read_qrels,
    )
    from recall_gate.judging.oracle import unique_cases

    if args.cases and args.qrels is not None:
        raise InputError("convert takes --cases or --qrels, not both", fix="pass one of them")
    if args.cases:
        return list(unique_cases(load_cases(args.cases)))
    if args.qrels is None:
        return None
    fmt = detect_qrels_format(args.qrels)
    if fmt == "jsonl":
        return list(unique_cases(load_cases([args.qrels])))
    return judgment_labels(
        read_qrels(args.qrels, fmt), language=args.language or UNDETERMINED_LANGUAGE
    )


def _self_labels(artifacts: Sequence[Artifact], source: str) -> list[CaseLabel]:
    from recall_gate.adapters.trec import UNDETERMINED_LANGUAGE
    from recall_gate.core.records import CaseLabel

    labels = []
    for artifact in artifacts:
        if artifact.must_cite_one_of is None:
            raise InputError(
                f"{source}: case {artifact.case_id!r} carries no `must_cite_one_of`: the "
                "capture holds no judgments to write",
                fix="pass --cases or --qrels with the judgments",
            )
        labels.append(
            CaseLabel(
                id=artifact.case_id,
                language=artifact.language or UNDETERMINED_LANGUAGE,
                case_type=artifact.case_type or "golden",
                must_cite_one_of=artifact.must_cite_one_of,
                relevant_ids=artifact.relevant_ids,
            )
        )
    return labels


def _queries(n: int) -> str:
    return f"{n} quer{'y' if n == 1 else 'ies'}"


def _relevant(label: CaseLabel) -> tuple[str, ...]:
    return label.relevant_ids if label.relevant_ids is not None else label.must_cite_one_of


def _qrels(labels: Sequence[CaseLabel], *, fmt: Literal["trec", "beir"], where: str) -> str:
    from recall_gate.adapters.trec import check_id, format_qrels

    for label in labels:
        check_id(label.id, what="case id", where=where)
        for doc in _relevant(label):
            check_id(doc, what=f"relevant id of case {label.id!r}", where=where)
    return "".join(format_qrels(((lb.id, _relevant(lb)) for lb in labels), fmt=fmt))


def _labelled(artifacts: Sequence[Artifact], labels: Sequence[CaseLabel] | None) -> str:
    from recall_gate.adapters.results_store import dump_jsonl
    from recall_gate.core.records import Case

    by_id = {label.id: label for label in labels or ()}
    lines = []
    for captured in artifacts:
        label = by_id.get(captured.case_id)
        if label is None:
            lines.append(captured)
        else:
            update: dict[str, object] = {
                "language": label.language,
                "case_type": label.case_type,
                "must_cite_one_of": label.must_cite_one_of,
                "relevant_ids": label.relevant_ids,
            }
            if isinstance(label, Case):
                update["query"] = label.query
            lines.append(captured.model_copy(update=update))
    return dump_jsonl(lines)


def _cases(labels: Sequence[CaseLabel], args: argparse.Namespace) -> str:
    from recall_gate.adapters.beir import read_beir_queries
    from recall_gate.adapters.results_store import dump_jsonl
    from recall_gate.core.records import Case

    queries = read_beir_queries(args.queries) if args.queries is not None else {}
    cases = []
    for label in labels:
        query = label.query if isinstance(label, Case) else queries.get(label.id)
        if query is None:
            raise InputError(
                f"query {label.id!r} of {args.qrels} has no text"
                + (f" in {args.queries}" if args.queries is not None else ""),
                fix="pass --queries PATH (BEIR queries.jsonl) holding every judged query",
            )
        cases.append(Case(query=query, **label.model_dump(exclude={"query"})))
    return dump_jsonl(cases)


def _cmd_convert(args: argparse.Namespace, console: Console) -> int:
    from recall_gate.adapters.files import atomic_write_text
    from recall_gate.adapters.trec import JudgedRun, trec_run_text

    ranked = _rankings(args)
    labels = _judgments(args)
    target: str = args.to
    where = display_path(args.out, console)
    artifacts: list[Artifact] = []
    judged: JudgedRun | None = None
    if ranked is not None:
        stream = ranked[1]
        if labels is not None and target == "artifacts":
            judged = JudgedRun(labels)
            stream = judged.filter(stream)
        artifacts = [artifact for _, artifact in stream]
    elif target in ("trec-run", "artifacts"):
        raise InputError(f"--to {target} needs rankings", fix="pass --artifacts PATH or --run PATH")
    if target in ("trec-qrels", "beir-qrels", "cases") and labels is None:
        if ranked is None or target == "cases":
            raise InputError(
                f"--to {target} needs judgments",
                fix="pass --cases PATH or --qrels PATH (and --queries PATH for cases)",
            )
        labels = _self_labels(artifacts, ranked[0])
    if target == "trec-run":
        assert ranked is not None
        text = trec_run_text(artifacts, source=ranked[0], tag=args.tag)
        written = len(artifacts)
    elif target == "artifacts":
        text, written = _labelled(artifacts, labels), len(artifacts)
    else:
        assert labels is not None
        written = len(labels)
        if target == "cases":
            text = _cases(labels, args)
        else:
            text = _qrels(labels, fmt="trec" if target == "trec-qrels" else "beir", where=where)
    atomic_write_text(args.out, text)
    console.stderr.write(f"recall-gate: wrote {_queries(written)} as {target} → {where}\n")
    if judged is not None:
        _note_judged(judged, console)
    return 0


def _note_judged(judged: JudgedRun, console: Console) -> None:
    for ids, what in (
        (judged.unjudged, "of the run without a judgment: left out"),
        (judged.unretrieved, "judged but not in the run: written as empty rankings"),
    ):
        if ids:
            console.stderr.write(f"recall-gate: {_queries(len(ids))} {what}\n")
