"""`--set SECTION.KEY=VALUE` overrides any setting of recall-gate.yaml."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import load_config
from recall_gate.errors import InputError

CONFIG = """\
# a comment
k: 5
retrieval:
  mode: dense
  hybrid: {rrf_k: 60}
"""


@pytest.fixture
def config_file(tmp_path: Path) -> Path:
    path = tmp_path / "recall-gate.yaml"
    path.write_text(CONFIG, encoding="utf-8")
    return path


def test_overrides_replace_nested_values_and_create_sections(config_file: Path) -> None:
    config = load_config(
        config_file,
        overrides=[
            "retrieval.mode=hybrid",
            "retrieval.hybrid.rrf_k=10",
            "k=3",
            "reranker.enabled=true",
            "reranker.model=some/cross-encoder",
            "gate.floors.hit=0.7",
        ],
    )
    assert config.retrieval.mode == "hybrid"
    assert config.retrieval.hybrid.rrf_k == 10
    assert config.k == 3
    assert config.reranker.enabled is True
    assert config.gate.floors == {"hit": 0.7}


def test_an_empty_value_means_null(config_file: Path) -> None:
    assert load_config(config_file, overrides=["gate.floors.hit=0.5"]).gate.floors == {"hit": 0.5}
    assert load_config(config_file, overrides=["gate.floors.hit="]).gate.floors == {"hit": None}


def test_a_relative_path_override_resolves_like_the_file(config_file: Path) -> None:
    config = load_config(config_file, overrides=["store.path=chroma-db"])
    assert config.store.path == config_file.parent / "chroma-db"


def test_an_unknown_key_gets_the_same_message_as_in_the_file(config_file: Path) -> None:
    with pytest.raises(InputError) as raised:
        load_config(config_file, overrides=["retrieval.mod=hybrid"])
    assert str(raised.value).startswith(
        f"{config_file} (with --set): field `retrieval.mod`: unknown field; "
        "did you mean `retrieval.mode`?"
    )


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("retrieval", "--set 'retrieval': expected KEY=VALUE"),
        ("=5", "--set '=5': expected KEY=VALUE"),
        ("retrieval..mode=dense", "--set 'retrieval..mode=dense': expected KEY=VALUE"),
        ("k.x=1", "--set k.x: `k` is not a section"),
    ],
)
def test_a_malformed_override_names_itself_and_the_fix(
    config_file: Path, override: str, message: str
) -> None:
    with pytest.raises(InputError) as raised:
        load_config(config_file, overrides=[override])
    assert raised.value.message == message
    assert "--set retrieval.mode=hybrid" in raised.value.fix


def test_the_cli_set_flag_overrides_the_config_and_needs_one(
    config_file: Path, tmp_path: Path
) -> None:
    import io

    from recall_gate.cli import main

    capture = tmp_path / "a.jsonl"
    capture.write_text(
        '{"case_id": "q", "retrieved": ["a", "b", "c", "d"], "must_cite_one_of": ["d"],'
        ' "language": "en", "case_type": "golden"}\n',
        encoding="utf-8",
    )
    out, err = io.StringIO(), io.StringIO()
    argv = ["score", "--artifacts", str(capture), "--config", str(config_file)]
    assert main([*argv, "--set", "k=3"], {}, stdout=out, stderr=err, cwd=tmp_path) == 0
    assert "hit@3" in out.getvalue()
    assert "hit@5" not in out.getvalue()

    err = io.StringIO()
    (tmp_path / "nowhere" / ".git").mkdir(parents=True)  # its own repository: no config
    code = main(
        ["score", "--artifacts", str(capture), "--set", "k=3"],
        {},
        stdout=io.StringIO(),
        stderr=err,
        cwd=tmp_path / "nowhere",
    )
    assert code == 2
    assert "or a parent folder up to the repository root for --set to override" in err.getvalue()
