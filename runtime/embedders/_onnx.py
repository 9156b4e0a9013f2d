"""The same model on onnxruntime + tokenizers: loads in a fraction of a second, no torch.

The first use on a machine exports the transformer to ONNX with torch (``_onnx_export``) into a
cache folder and checks it against sentence-transformers before publishing it; afterwards the
file is loaded straight away and torch is never imported. Tokenisation (the model's own
``tokenizer.json``, truncated to sentence-transformers' ``max_seq_length``), mean pooling and L2
normalisation follow sentence-transformers exactly, so the vectors agree to ~1e-7 and both
backends carry the same ``name``.

Cache: ``MNEMOWIRE_MODEL_CACHE`` or the ``cache_dir`` argument, else ``<user cache>/mnemowire/
models``. Each export lives in a folder named after the model and a fingerprint of its weights
file (path, size, mtime) and of the export code's version, so a changed model is re-exported,
never silently reused.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from mnemowire.embedders._local import (
    ModelConfig,
    check_texts,
    mean_pool,
    require,
    resolve_model,
)
from mnemowire.embedders._protocol import Vectors
from mnemowire.embedders._sentence_transformers import cores
from mnemowire.errors import ConfigError

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = ["ENV_CACHE", "OnnxEmbedder", "model_cache_dir", "write_atomically"]

#: environment variable that moves the model cache
ENV_CACHE = "MNEMOWIRE_MODEL_CACHE"
#: bump when the exported graph changes (inputs, outputs, exporter): old exports are then ignored
EXPORT_FORMAT = 1
#: the largest difference from sentence-transformers an export may show (measured: ~3e-7)
TOLERANCE = 1e-5
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT_NAME = "last_hidden_state"
_WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")
#: what the one-time export imports (onnx and onnxscript: torch's exporter needs them)
EXPORT_NEEDS = ("torch", "sentence_transformers", "onnxscript", "onnx")

_log = logging.getLogger("mnemowire.embedders")
_RUNTIMES: dict[tuple[Path, int, bool], _Runtime] = {}
_LOCK = threading.Lock()  # guards _RUNTIMES and in-process exports


def model_cache_dir(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """Where exported models live: the argument, else ``$MNEMOWIRE_MODEL_CACHE``, else the user
    cache folder (``~/.cache/mnemowire/models`` on Linux)."""
    if cache_dir is not None:
        return Path(cache_dir).expanduser()
    if os.environ.get(ENV_CACHE):
        return Path(os.environ[ENV_CACHE]).expanduser()
    require("platformdirs", purpose="locating the model cache")
    import platformdirs

    return Path(platformdirs.user_cache_dir("mnemowire")) / "models"


def write_atomically(target: Path, write: Callable[[Path], None]) -> None:
    """Have ``write`` fill a temporary file beside ``target``, flush it to disk, then rename it
    over ``target``. Readers see no file or a complete one; when two processes race, both
    complete and the last rename wins with an equally valid file."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, temp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    os.close(fd)
    temp = Path(temp_name)
    try:
        write(temp)
        with temp.open("rb+") as written:
            os.fsync(written.fileno())
        temp.chmod(0o644)  # mkstemp makes it owner-only; the cache holds nothing secret
        os.replace(temp, target)
    finally:
        temp.unlink(missing_ok=True)


def _fingerprint(folder: Path, name: str) -> str:
    digest = hashlib.blake2b(digest_size=8)
    digest.update(f"{EXPORT_FORMAT}\0{name}\0{folder}".encode())
    for file in ("config.json", *_WEIGHT_FILES):
        path = folder / file
        if path.exists():
            stat = path.stat()
            digest.update(f"\0{file}\0{stat.st_size}\0{stat.st_mtime_ns}".encode())
    return digest.hexdigest()


class _Runtime:
    """One loaded ONNX session with its tokenizer: the torch-free inference path."""

    def __init__(
        self, model_file: Path, folder: Path, config: ModelConfig, threads: int, spin: bool
    ) -> None:
        require("onnxruntime", "tokenizers", purpose="the ONNX embedder")
        import onnxruntime  # type: ignore[import-untyped]

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.add_session_config_entry("session.intra_op.allow_spinning", "1" if spin else "0")
        options.log_severity_level = 3  # errors only: its warnings are about graph rewrites
        self.session = onnxruntime.InferenceSession(
            str(model_file), options, providers=["CPUExecutionProvider"]
        )
        self.tokenizer, self.pad_id = _tokenizer(folder, config.max_seq_length)
        self.config = config

    def embed(self, texts: list[str], batch_size: int) -> Vectors:
        if self.config.do_lower_case:
            texts = [text.lower() for text in texts]
        if len(texts) == 1:  # skip encode_batch's thread pool for the latency-critical case
            token_ids = [self.tokenizer.encode(texts[0]).ids]
        else:
            token_ids = [encoding.ids for encoding in self.tokenizer.encode_batch(texts)]
        # Longest first, as sentence-transformers does, so each batch carries little padding.
        order = sorted(range(len(texts)), key=lambda i: -len(token_ids[i]))
        out = np.empty((len(texts), self.config.dimension), dtype=np.float32)
        for rows in _batches(order, [len(ids) for ids in token_ids], batch_size):
            width = len(token_ids[rows[0]])
            ids = np.full((len(rows), width), self.pad_id, dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for row, i in enumerate(rows):
                ids[row, : len(token_ids[i])] = token_ids[i]
                mask[row, : len(token_ids[i])] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = self.session.run([OUTPUT_NAME], feeds)
            out[rows] = mean_pool(hidden, mask)
        return out


def _batches(order: list[int], lengths: list[int], batch_size: int) -> Iterator[list[int]]:
    """Split indices sorted longest first into batches of at most ``batch_size`` that also end
    where a text is under half the batch's longest: one 256-token text then no longer pads 31
    short ones to 256 (padding costs as much compute as text; the vectors do not change)."""
    batch: list[int] = []
    for i in order:
        if batch and (len(batch) == batch_size or 2 * lengths[i] < lengths[batch[0]]):
            yield batch
            batch = []
        batch.append(i)
    if batch:
        yield batch


def _tokenizer(folder: Path, max_length: int) -> tuple[Tokenizer, int]:
    from tokenizers import Tokenizer

    path = folder / "tokenizer.json"
    if not path.exists():
        raise ConfigError(f"{folder} has no tokenizer.json, which the ONNX embedder needs")
    tokenizer = Tokenizer.from_file(str(path))
    padding: dict[str, Any] | None = tokenizer.padding
    pad_id = int(padding["pad_id"]) if padding else (tokenizer.token_to_id("[PAD]") or 0)
    # tokenizer.json may pad to a fixed width and truncate at another length than the model was
    # used with (all-MiniLM-L6-v2's says 128; sentence-transformers uses 256): override both.
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_length)
    return tokenizer, pad_id


class OnnxEmbedder:
    """The real model on onnxruntime, with a one-time export to a per-user cache.

    >>> embedder = OnnxEmbedder()  # doctest: +SKIP
    >>> embedder.embed(["Alice likes tea"]).shape  # doctest: +SKIP
    (1, 384)

    Same ``name`` and numerically the same vectors as
    :class:`~mnemowire.embedders.SentenceTransformerEmbedder` (the tests assert a max absolute
    difference below 1e-5). ``threads`` is onnxruntime's intra-op thread count (default: every
    core the process may use); ``spin`` lets its idle threads spin-wait for work, which can shave
    a little latency on an idle machine and costs a lot when other processes want the cores.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        name: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        spin: bool = False,
        batch_size: int = 32,
    ) -> None:
        require("onnxruntime", "tokenizers", purpose="the ONNX embedder")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._folder, self._name = resolve_model(model_path, name)
        self._config = ModelConfig.read(self._folder)
        self._threads = threads or cores()
        self._spin = spin
        self._batch_size = batch_size
        slug = re.sub(r"[^A-Za-z0-9._-]+", "--", self._name)
        export_dir = f"{slug}-{_fingerprint(self._folder, self._name)}"
        self._model_file = model_cache_dir(cache_dir) / export_dir / "model.onnx"

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        return self._config.dimension

    @property
    def model_file(self) -> Path:
        """The exported model: present once any process on this machine has exported it."""
        return self._model_file

    @property
    def threads(self) -> int:
        return self._threads

    def is_exported(self) -> bool:
        """Whether the ONNX file is already cached, so no torch is needed to run."""
        return self._model_file.is_file()

    def export(self) -> Path:
        """Export now (normally done by the first ``embed``); a no-op when already cached."""
        with _LOCK:
            if not self.is_exported():
                require(*EXPORT_NEEDS, purpose="the one-time ONNX export")
                from mnemowire.embedders._onnx_export import export

                _log.info(
                    "preparing %s: exporting it to ONNX, once per machine (about 20 s on two "
                    "cores), into %s",
                    self._name,
                    self._model_file.parent,
                )
                export(self._folder, self._config, self._model_file)
        return self._model_file

    def prepare(self) -> None:
        """Export (the first time on this machine) and load the model now."""
        self._runtime()

    def _runtime(self) -> _Runtime:
        key = (self._model_file, self._threads, self._spin)
        runtime = _RUNTIMES.get(key)
        if runtime is None:
            self.export()
            with _LOCK:
                runtime = _RUNTIMES.get(key)
                if runtime is None:
                    runtime = _Runtime(
                        self._model_file, self._folder, self._config, self._threads, self._spin
                    )
                    _RUNTIMES[key] = runtime
        return runtime

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._runtime().embed(items, self._batch_size)
