"""The capture line as msgspec decodes it: Structs derived from the one schema.

:class:`~recall_gate.core.records.Artifact` (with :class:`RetrievedItem`,
:class:`Retriever` and :class:`Coverage`) is the one definition of a capture
line. The Structs here are *derived* from those models at import — their
fields, types, defaults, ``min_length`` / ``gt`` / ``ge`` constraints and their
methods (``ranked_card_ids``, ``card_id``, ``differences``, ``describe``) — so
that msgspec decodes a line and checks its types and constraints in one native
pass, with no per-line model object. Nothing is written twice: a field added
to a model is a field of its Struct.

What a Struct cannot say, :func:`needs_full_validation` tells: a language
that is not a well-formed tag in canonical case, an empty retrieved id, a
coverage whose shards do not fit. A line it flags (or that msgspec refuses) is
read by the full pydantic validation instead, which words the error or, for
what only it accepts (``NaN``, ``"0.5"`` as a number, ``PT-br``), gives the
value. A validator added to a model that this module does not know stops the
derivation at import (:class:`UnknownRule`): a rule is never silently dropped.
"""

from __future__ import annotations

import operator
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec
from annotated_types import Ge, Gt, MinLen
from pydantic import AfterValidator, BaseModel
from pydantic.fields import FieldInfo

from recall_gate.core.language import canonical_language, is_canonical_language
from recall_gate.core.records import Artifact, Coverage, RetrievedItem, Retriever

__all__ = [
    "ArtifactLine",
    "CoverageLine",
    "RetrievedLine",
    "RetrieverLine",
    "UnknownRule",
    "as_retriever",
    "capture_line_schema",
    "decode_line",
    "derive_struct",
    "items_may_tell_language",
    "needs_full_validation",
    "with_fields",
]


class UnknownRule(TypeError):
    """A model rule the derived Struct cannot carry and no check here covers."""


# The validators this module knows, and what takes their place on the fast path
# (see needs_full_validation): the language tag's canonical form, Artifact's
# non-empty retrieved ids, Coverage's shard order.
_KNOWN_VALIDATORS: frozenset[object] = frozenset({canonical_language})
_KNOWN_DECORATORS = {
    "Artifact": {"_no_empty_ids"},
    "Coverage": {"_shards_exist"},
}


def _meta(metadata: list[Any]) -> msgspec.Meta | None:
    """msgspec's form of pydantic's constraints (``min_length``, ``gt``, ``ge``)."""
    constraints: dict[str, Any] = {}
    for rule in metadata:
        if isinstance(rule, MinLen):
            constraints["min_length"] = rule.min_length
        elif isinstance(rule, Gt):
            constraints["gt"] = rule.gt
        elif isinstance(rule, Ge):
            constraints["ge"] = rule.ge
        elif isinstance(rule, AfterValidator) and rule.func in _KNOWN_VALIDATORS:
            continue
        elif isinstance(rule, FieldInfo) and all(
            vars(m).keys() == {"union_mode"} for m in rule.metadata
        ):
            continue  # union_mode: msgspec tells a string from an object by its JSON type
        else:
            raise UnknownRule(f"no msgspec form for the rule {rule!r}")
    return msgspec.Meta(**constraints) if constraints else None


def _constrained(tp: Any, meta: msgspec.Meta | None) -> Any:
    """``tp`` with ``meta`` on its non-None members (where pydantic applies it)."""
    if meta is None:
        return tp
    if get_origin(tp) in (Union, types.UnionType):
        members = [m if m is type(None) else Annotated[m, meta] for m in get_args(tp)]
        return Union[tuple(members)]  # noqa: UP007 (built from a list)
    return Annotated[tp, meta]


def _translated(tp: Any, structs: dict[type[BaseModel], type[msgspec.Struct]]) -> Any:
    """A pydantic annotation as msgspec decodes it; models become their Structs."""
    origin = get_origin(tp)
    if origin is Annotated:
        inner, *metadata = get_args(tp)
        return _constrained(_translated(inner, structs), _meta(metadata))
    if origin in (Union, types.UnionType):
        return Union[tuple(_translated(m, structs) for m in get_args(tp))]  # noqa: UP007
    if origin is tuple:
        args = get_args(tp)
        return tuple[tuple(_translated(a, structs) if a is not Ellipsis else a for a in args)]  # type: ignore[misc]
    if origin is dict:
        key, value = get_args(tp)
        return dict[_translated(key, structs), _translated(value, structs)]  # type: ignore[misc]
    if origin is Literal or tp in (str, int, float, bool, type(None), Any):
        return tp
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _derived(tp, structs)
    raise UnknownRule(f"no msgspec form for the type {tp!r}")


def _methods(model: type[BaseModel]) -> dict[str, Any]:
    """The model's own methods and properties (its behaviour), for its Struct."""
    return {
        name: value
        for name, value in vars(model).items()
        if not name.startswith("__")
        and (isinstance(value, property) or type(value) is types.FunctionType)
    }


def _derived(
    model: type[BaseModel], structs: dict[type[BaseModel], type[msgspec.Struct]]
) -> type[msgspec.Struct]:
    if model in structs:
        return structs[model]
    decorators = model.__pydantic_decorators__
    own = {
        *decorators.validators,
        *decorators.field_validators,
        *decorators.root_validators,
        *decorators.model_validators,
    }
    unknown = own - _KNOWN_DECORATORS.get(model.__name__, set())
    if unknown:
        raise UnknownRule(f"{model.__name__}: no fast-path check for {', '.join(sorted(unknown))}")
    fields: list[tuple[str, Any, Any]] = []
    for name, info in model.model_fields.items():
        tp = _constrained(_translated(info.annotation, structs), _meta(list(info.metadata)))
        if info.default_factory is not None:
            fields.append((name, tp, msgspec.field(default_factory=info.default_factory)))  # type: ignore[arg-type]
        elif info.is_required():
            fields.append((name, tp, msgspec.NODEFAULT))
        else:
            fields.append((name, tp, info.default))
    struct = msgspec.defstruct(
        f"{model.__name__}Line",
        [(n, t) if d is msgspec.NODEFAULT else (n, t, d) for n, t, d in fields],
        namespace={**_methods(model), "__doc__": model.__doc__},
        module=__name__,
        kw_only=True,
        frozen=True,
        forbid_unknown_fields=True,
        gc=False,  # no cycle can form: a decoded line holds strings, numbers, tuples and Structs
    )
    structs[model] = struct
    return struct


def derive_struct(model: type[BaseModel]) -> type[msgspec.Struct]:
    """The Struct of a frozen, extra-forbidding model (and of the models it holds);
    :class:`UnknownRule` if the model has a rule that would be lost."""
    return _derived(model, {})


_STRUCTS: dict[type[BaseModel], type[msgspec.Struct]] = {}
if TYPE_CHECKING:
    # To the type checker a Struct is the model it mirrors (same fields, same
    # methods); copies go through with_fields, which takes either.
    ArtifactLine = Artifact
    RetrievedLine = RetrievedItem
    RetrieverLine = Retriever
    CoverageLine = Coverage
else:
    ArtifactLine = _derived(Artifact, _STRUCTS)
    RetrievedLine = _STRUCTS[RetrievedItem]
    RetrieverLine = _STRUCTS[Retriever]
    CoverageLine = _STRUCTS[Coverage]

R = TypeVar("R", Artifact, RetrievedItem)


def with_fields(record: R, **changes: Any) -> R:
    """A copy of a capture line (or item) with ``changes``: a model or its Struct."""
    if isinstance(record, BaseModel):
        return record.model_copy(update=changes)
    return msgspec.structs.replace(record, **changes)


def as_retriever(retriever: Retriever) -> Retriever:
    """The :class:`Retriever` model of a line's retriever (a Struct once decoded)."""
    if isinstance(retriever, Retriever):
        return retriever
    return Retriever.model_validate(msgspec.structs.asdict(retriever))


def capture_line_schema() -> dict[str, Any]:
    """The JSON Schema of a capture line, generated from its Structs (the docs' copy)."""
    schema = msgspec.json.schema(ArtifactLine)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "recall-gate capture line (one line of an artifacts JSONL file)",
        **schema,
    }


def _coverage_fits(coverage: Coverage) -> bool:
    try:
        Coverage.model_validate(msgspec.to_builtins(coverage))
    except ValueError:
        return False
    return True


_LANGUAGE = operator.attrgetter("language")

# Tags found canonical already (a capture holds a handful): a set lookup per line.
_CANONICAL_SEEN: set[str] = set()
_CANONICAL_KEPT = 1024


def _uncanonical(language: str | None) -> bool:
    if language is None or language in _CANONICAL_SEEN:
        return False
    if not is_canonical_language(language):
        return True
    if len(_CANONICAL_SEEN) < _CANONICAL_KEPT:
        _CANONICAL_SEEN.add(language)
    return False


def items_may_tell_language(line: ArtifactLine, raw: bytes | str) -> bool:
    """Whether the line's text names ``"language"`` more often than its own field:
    only then may an item carry one (a count in C, instead of a look at each item)."""
    told = raw.count(b'"language"') if isinstance(raw, bytes) else raw.count('"language"')
    return told > (line.language is not None)


def needs_full_validation(line: ArtifactLine, *, items: bool = True) -> bool:
    """Whether a decoded line holds what only the full validation may judge: a
    language (the line's or an item's) not in canonical form, an empty retrieved
    id, a coverage to check. ``items=False``: no item carries a language
    (:func:`items_may_tell_language` said so), their check is skipped."""
    if _uncanonical(line.language):
        return True
    retrieved = line.retrieved
    if "" in retrieved:
        return True
    if items and _item_uncanonical(retrieved):
        return True
    return line.coverage is not None and not _coverage_fits(line.coverage)


def _item_uncanonical(retrieved: tuple[Any, ...]) -> bool:
    """Whether an item's language is not a tag in canonical form."""
    try:  # bare ids only (the usual capture): str.join refuses any item, in C
        "".join(retrieved)
    except TypeError:
        try:  # items only (a chunk capture): their languages read at C speed
            told = set(map(_LANGUAGE, retrieved))
        except AttributeError:  # bare ids among them
            told = {item.language for item in retrieved if not isinstance(item, str)}
        return any(_uncanonical(language) for language in told)
    return False


# One line's JSON → an ArtifactLine; msgspec.DecodeError (or its ValidationError) if refused.
decode_line: Callable[[bytes | str], ArtifactLine] = msgspec.json.Decoder(ArtifactLine).decode
