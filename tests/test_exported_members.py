"""The public surface is pinned (as httpx's tests/test_exported_members.py): what
``recall_gate`` and ``recall_gate.retrievers`` export, and the ``capture`` API the
docs show (docs/guide/score-mode.md, docs/large-evaluation-sets.md). Adding or
removing a public name fails here: change this list on purpose, and the
CHANGELOG with it."""

from __future__ import annotations

import inspect
import types

import recall_gate
import recall_gate.retrievers

PACKAGE = [
    "HIT",
    "METRIC_KEYS",
    "NDCG",
    "RECALL",
    "Capture",
    "__version__",
    "capture",
    "score_ranking",
]
RETRIEVERS = ["Capture", "adapt", "capture"]
CAPTURE_PARAMETERS = [
    "retriever",
    "cases",
    "k",
    "id_from",
    "label",
    "kb",
    "kb_root",
    "concurrency",
    "retries",
    "timeout",
    "max_failures",
    "max_qps",
    "queries",
    "shard",
    "answered",
    "on_artifact",
    "on_progress",
]
CAPTURE_MEMBERS = [
    "artifacts",
    "coverage",
    "failed",
    "k",
    "logged",
    "metadata_dropped",
    "retriever",
    "to_jsonl",
    "write",
]
# Names a module binds for itself, not for its users.
_NOT_EXPORTED = {"annotations", "TYPE_CHECKING", "Any"}


def _public_names(module: types.ModuleType) -> set[str]:
    """What ``module`` binds that is neither private, a submodule, nor a typing helper."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and name not in _NOT_EXPORTED
        and not isinstance(value, types.ModuleType)
    }


def test_the_package_exports_exactly_its_listed_names() -> None:
    assert recall_gate.__all__ == PACKAGE
    for name in PACKAGE:
        assert getattr(recall_gate, name) is not None, name
    # Anything else bound at the top level would be public by accident.
    assert _public_names(recall_gate) <= set(PACKAGE)


def test_the_retrievers_package_exports_exactly_its_listed_names() -> None:
    assert recall_gate.retrievers.__all__ == RETRIEVERS
    assert recall_gate.capture is recall_gate.retrievers.capture
    assert recall_gate.Capture is recall_gate.retrievers.Capture


def test_capture_takes_the_documented_parameters() -> None:
    assert list(inspect.signature(recall_gate.capture).parameters) == CAPTURE_PARAMETERS


def test_a_capture_has_the_documented_members() -> None:
    members = {name for name in dir(recall_gate.Capture) if not name.startswith("_")} | set(
        recall_gate.Capture.__dataclass_fields__
    )
    assert sorted(members) == CAPTURE_MEMBERS
