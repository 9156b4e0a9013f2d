"""One loaded model per backend for the whole test session: loading is the slow part."""

from __future__ import annotations

from pathlib import Path

import pytest

from mnemowire.embedders import OnnxEmbedder, SentenceTransformerEmbedder
from tests.models import shared_model_cache


@pytest.fixture(scope="session")
def model_cache(request: pytest.FixtureRequest) -> Path:
    return shared_model_cache(request)


@pytest.fixture(scope="session")
def onnx_embedder(model_cache: Path) -> OnnxEmbedder:
    embedder = OnnxEmbedder(cache_dir=model_cache)
    embedder.export()  # a no-op after the first run on this machine
    return embedder


@pytest.fixture(scope="session")
def torch_embedder() -> SentenceTransformerEmbedder:
    embedder = SentenceTransformerEmbedder()
    embedder.model  # noqa: B018  # load now, so the first test does not carry the cost
    return embedder
