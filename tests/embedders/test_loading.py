"""Embedders by name, backend choice, lazy imports and the hash embedder across processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemowire.embedders import (
    NAMES,
    HashEmbedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    default_embedder,
    load_embedder,
)
from mnemowire.errors import ConfigError

HEAVY = ("torch", "onnxruntime", "tokenizers", "sentence_transformers", "transformers")


@pytest.mark.parametrize(
    ("spec", "cls", "dimension"),
    [
        ("minilm", OnnxEmbedder, 384),  # onnxruntime is the faster backend (docs/benchmarks.md)
        ("default", OnnxEmbedder, 384),
        ("minilm-onnx", OnnxEmbedder, 384),
        ("minilm-torch", SentenceTransformerEmbedder, 384),
        ("hash", HashEmbedder, 64),
        ("hash:16", HashEmbedder, 16),
        (" HASH:32 ", HashEmbedder, 32),
    ],
)
def test_names(spec: str, cls: type, dimension: int) -> None:
    embedder = load_embedder(spec)
    assert type(embedder) is cls
    assert embedder.dimension == dimension


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "minilm-gpu",
            r"unknown embedder 'minilm-gpu'; did you mean 'minilm'\? choose one of: default",
        ),
        ("", "unknown embedder"),
        ("hash:x", "hash:N needs a whole number N >= 8"),
        ("hash:4", "hash:N needs a whole number N >= 8"),
    ],
)
def test_bad_names(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        load_embedder(spec)
    assert caught.value.code == "unavailable"


def test_every_name_is_listed() -> None:
    assert set(NAMES) == {"default", "minilm", "minilm-onnx", "minilm-torch", "hash"}


def block(monkeypatch: pytest.MonkeyPatch, *modules: str) -> None:
    """Make modules look uninstalled: ``None`` in sys.modules is Python's own import block."""
    for module in modules:
        monkeypatch.setitem(sys.modules, module, None)


def test_default_falls_back_to_torch_without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "onnxruntime")
    assert isinstance(default_embedder(), SentenceTransformerEmbedder)
    with pytest.raises(
        ConfigError,
        match=r"needs onnxruntime, not installed here; install it with: pip install 'mnemowire\[",
    ):
        load_embedder("minilm-onnx")


def test_default_uses_a_cached_export_without_torch(
    monkeypatch: pytest.MonkeyPatch, onnx_embedder: OnnxEmbedder, model_cache: Path
) -> None:
    monkeypatch.setenv("MNEMOWIRE_MODEL_CACHE", str(model_cache))
    block(monkeypatch, "torch")
    assert isinstance(default_embedder(), OnnxEmbedder)
    with pytest.raises(ConfigError, match=r"needs torch.*mnemowire\[local\]"):
        load_embedder("minilm-torch")


def test_onnx_without_an_export_needs_torch(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("MNEMOWIRE_MODEL_CACHE", str(tmp_path))  # empty: nothing exported
    block(monkeypatch, "torch")
    with pytest.raises(ConfigError, match=r"no local embedding backend.*mnemowire\[local\]"):
        default_embedder()
    with pytest.raises(ConfigError, match=r"the one-time ONNX export needs torch, not installed"):
        OnnxEmbedder().embed(["Alice likes tea"])
    assert list(tmp_path.iterdir()) == []


def test_no_backend_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    block(monkeypatch, "onnxruntime", "torch")
    with pytest.raises(ConfigError, match=r"pip install 'mnemowire\[local\]'"):
        default_embedder()


def run_python(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout


def test_importing_and_constructing_loads_no_model_library() -> None:
    code = (
        "import json, sys\n"
        "from mnemowire.embedders import load_embedder\n"
        "import mnemowire\n"
        "for name in ('minilm', 'minilm-onnx', 'minilm-torch', 'hash'):\n"
        "    embedder = load_embedder(name)\n"
        "    embedder.name, embedder.dimension\n"
        f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))\n"
    )
    assert json.loads(run_python(code)) == []


@pytest.mark.parametrize("seed", ["0", "1", "4242"])
def test_hash_embedder_is_the_same_in_every_process(seed: str) -> None:
    texts = ["Alice likes tea", "", "東京 😀", "the same words, the same vector"]
    code = (
        "from mnemowire.embedders import HashEmbedder\n"
        f"print(HashEmbedder(32).embed({texts!r}).tobytes().hex())\n"
    )
    theirs = bytes.fromhex(run_python(code, PYTHONHASHSEED=seed).strip())
    ours = HashEmbedder(32).embed(texts)
    assert theirs == ours.tobytes()
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0)


def test_torch_backend_asks_openmp_for_passive_waiting() -> None:
    """Measured: OpenMP's default spin-waiting made 2-thread torch calls 2-5x slower whenever
    another process wanted a core. Set only when unset and before torch loads."""
    code = (
        "import os\n"
        "os.environ.pop('OMP_WAIT_POLICY', None)\n"
        "from mnemowire.embedders import SentenceTransformerEmbedder\n"
        "SentenceTransformerEmbedder().embed(['Alice likes tea'])\n"
        "print(os.environ['OMP_WAIT_POLICY'])\n"
    )
    assert run_python(code).strip() == "PASSIVE"
