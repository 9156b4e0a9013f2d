"""Where tests keep the exported ONNX model, so the one-time export is paid once per machine."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mnemowire.embedders import ENV_CACHE


def shared_model_cache(request: pytest.FixtureRequest) -> Path:
    """``$MNEMOWIRE_MODEL_CACHE`` when set, else a folder in pytest's cache (``.pytest_cache``),
    which survives between runs; a fresh temporary folder when the cache plugin is off."""
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE])
    cache: pytest.Cache | None = getattr(request.config, "cache", None)  # None: -p no:cacheprovider
    if cache is None:
        factory: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
        return factory.mktemp("mnemowire-models")
    return Path(cache.mkdir("mnemowire-models"))
