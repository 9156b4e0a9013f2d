"""The ONNX export cache: where it lives, reuse without torch, atomic publication."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from mnemowire.embedders import ENV_CACHE, MINILM_NAME, OnnxEmbedder, model_cache_dir
from mnemowire.embedders._local import bundled_model_path
from mnemowire.embedders._onnx import INPUT_NAMES, write_atomically
from mnemowire.errors import ConfigError


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_cache_location_argument_then_environment_then_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(ENV_CACHE, raising=False)
    user_default = model_cache_dir()
    assert user_default.parts[-2:] == ("mnemowire", "models")
    monkeypatch.setenv(ENV_CACHE, str(tmp_path / "env"))
    assert model_cache_dir() == tmp_path / "env"
    assert model_cache_dir(tmp_path / "arg") == tmp_path / "arg"
    assert OnnxEmbedder().model_file.is_relative_to(tmp_path / "env")
    assert OnnxEmbedder(cache_dir=tmp_path / "arg").model_file.is_relative_to(tmp_path / "arg")


def test_a_second_embedder_reuses_the_export(
    onnx_embedder: OnnxEmbedder, model_cache: Path
) -> None:
    before = onnx_embedder.model_file.stat()
    again = OnnxEmbedder(cache_dir=model_cache)
    assert again.model_file == onnx_embedder.model_file
    assert again.is_exported()
    again.embed(["Alice likes tea"])
    after = again.model_file.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    leftovers = [p.name for p in again.model_file.parent.iterdir() if p.name != "model.onnx"]
    assert leftovers == []  # no temporary file survives a publication


def test_a_cached_export_runs_without_torch(onnx_embedder: OnnxEmbedder, model_cache: Path) -> None:
    done = run_python(
        """
        import json, sys
        from mnemowire.embedders import OnnxEmbedder, load_embedder
        embedder = load_embedder("minilm")
        assert isinstance(embedder, OnnxEmbedder), embedder
        vector = embedder.embed(["Alice likes tea"])[0]
        heavy = [m for m in ("torch", "sentence_transformers", "transformers") if m in sys.modules]
        print(json.dumps({"heavy": heavy, "vector": vector.tolist()}))
        """,
        **{ENV_CACHE: str(model_cache)},
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["heavy"] == []
    expected = onnx_embedder.embed(["Alice likes tea"])[0]
    np.testing.assert_allclose(np.array(result["vector"], dtype=np.float32), expected, atol=1e-7)


WRITER = """
import shutil, sys, time
from pathlib import Path
from mnemowire.embedders._onnx import INPUT_NAMES, write_atomically

source, target = Path(sys.argv[1]), Path(sys.argv[2])

def slow_copy(path):
    with source.open("rb") as src, path.open("wb") as dst:
        while chunk := src.read(4 << 20):
            dst.write(chunk)
            time.sleep(0.005)  # stretch the write so the race is real

write_atomically(target, slow_copy)
"""


def test_racing_exports_publish_one_complete_file(
    onnx_embedder: OnnxEmbedder, tmp_path: Path
) -> None:
    """Two processes publish the same 90 MB file at once while a reader watches: the reader
    never sees a partial file, and what remains is complete and loads."""
    source = onnx_embedder.model_file
    target = tmp_path / "cache" / "model" / "model.onnx"
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(source), str(target)]) for _ in range(2)
    ]
    sizes = set()
    deadline = time.monotonic() + 120
    while any(w.poll() is None for w in writers) and time.monotonic() < deadline:
        if target.exists():
            sizes.add(target.stat().st_size)
        time.sleep(0.002)
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    assert sizes <= {source.stat().st_size}  # never a partial file
    assert target.read_bytes() == source.read_bytes()
    assert [p.name for p in target.parent.iterdir()] == ["model.onnx"]
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)
    import onnxruntime  # type: ignore[import-untyped]

    session = onnxruntime.InferenceSession(str(target), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == list(INPUT_NAMES)


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "model.onnx"

    def fail(path: Path) -> None:
        path.write_bytes(b"half a model")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        write_atomically(target, fail)
    assert list(tmp_path.iterdir()) == []


def linked_model(folder: Path) -> Path:
    """A second model folder with the bundled files (symlinked: no 90 MB copy)."""
    folder.mkdir()
    for item in bundled_model_path().iterdir():
        (folder / item.name).symlink_to(item)
    return folder


def test_another_model_folder_gets_its_own_export_and_needs_a_name(tmp_path: Path) -> None:
    folder = linked_model(tmp_path / "my-model")
    with pytest.raises(ConfigError, match="needs name="):
        OnnxEmbedder(folder)
    mine = OnnxEmbedder(folder, name="me/my-model", cache_dir=tmp_path / "cache")
    default = OnnxEmbedder(cache_dir=tmp_path / "cache")
    assert mine.name == "me/my-model"
    assert default.name == MINILM_NAME
    assert mine.model_file != default.model_file
    assert mine.model_file.parent.name.startswith("me--my-model-")
    with pytest.raises(ConfigError, match="not found"):
        OnnxEmbedder(tmp_path / "missing", name="x")


@pytest.mark.parametrize(
    ("modules", "pooling", "message"),
    [
        (["Transformer", "Pooling", "Dense", "Normalize"], None, "unsupported module stack"),
        (["Transformer", "Pooling"], {"pooling_mode_cls_token": True}, "only mean pooling"),
    ],
)
def test_models_the_onnx_path_cannot_reproduce_are_refused(
    tmp_path: Path, modules: list[str], pooling: dict[str, bool] | None, message: str
) -> None:
    folder = tmp_path / "model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"hidden_size": 8}))
    stack = [
        {"idx": i, "name": str(i), "path": "1_Pooling" if kind == "Pooling" else "", "type": kind}
        for i, kind in enumerate(modules)
    ]
    (folder / "modules.json").write_text(json.dumps(stack))
    if pooling is not None:
        (folder / "1_Pooling").mkdir()
        (folder / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    with pytest.raises(ConfigError, match=message):
        OnnxEmbedder(folder, name="test/model", cache_dir=tmp_path / "cache")
