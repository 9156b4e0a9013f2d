"""all-MiniLM-L6-v2 (or another sentence-transformers folder) on torch, CPU only, offline.

The model is loaded on the first ``embed`` and once per process: every embedder for the same
folder shares it through a module-level cache, so a store, a router and the tests do not each
pay the ~5 s of importing torch and loading the weights.

Threads: torch's intra-op pool is process-wide. One sentence is fastest and, on a busy 2-core
machine, far steadier on one thread, while batches gain from every core (docs/benchmarks.md,
"Embedders"), so by default each call picks its thread count from its size. Calls are
serialised by a process-wide lock so that setting the count and running the model stay paired.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from mnemowire.embedders._local import (
    MINILM_DIMENSION,
    check_texts,
    require,
    resolve_model,
)
from mnemowire.embedders._protocol import Vectors

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["SMALL_CALL", "SentenceTransformerEmbedder", "load_model"]

#: calls with at most this many texts run on one thread; larger ones on every core
SMALL_CALL = 4

_MODELS: dict[Path, SentenceTransformer] = {}
_LOAD_LOCK = threading.Lock()
_RUN_LOCK = threading.Lock()


def load_model(folder: Path) -> SentenceTransformer:
    """The process-wide model for ``folder``: loaded by the first caller, shared afterwards."""
    model = _MODELS.get(folder)
    if model is None:
        with _LOAD_LOCK:
            model = _MODELS.get(folder)
            if model is None:
                model = _load(folder)
                _MODELS[folder] = model
    return model


def _load(folder: Path) -> SentenceTransformer:
    require("torch", "sentence_transformers", purpose="the torch embedder")
    logging.getLogger("mnemowire.embedders").info("loading %s on torch (a few seconds)", folder)
    if "torch" not in sys.modules:
        # With OpenMP's default active waiting, two threads on two busy cores spin against each
        # other: one sentence's p95 reached 0.5-0.8 s (docs/benchmarks.md). Only takes effect
        # before torch loads its OpenMP runtime, and never overrides the user's setting.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    # transformers draws a "Loading weights" progress bar on stderr: noise for a library call.
    bar = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        # local_files_only: a folder never needs the hub, and here there is none to ask.
        model = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    finally:
        if bar:
            hf_logging.enable_progress_bar()  # type: ignore[no-untyped-call]
    return model.eval()


def cores() -> int:
    """CPUs this process may run on (the affinity mask, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class SentenceTransformerEmbedder:
    """The real model on sentence-transformers + torch (CPU, offline).

    >>> embedder = SentenceTransformerEmbedder()  # doctest: +SKIP
    >>> embedder.embed(["Alice likes tea"]).shape  # doctest: +SKIP
    (1, 384)

    ``name`` is the vector space (``sentence-transformers/all-MiniLM-L6-v2``), not the backend:
    :class:`~mnemowire.embedders.OnnxEmbedder` produces the same vectors under the same name.
    ``threads=None`` picks one thread for calls of at most ``SMALL_CALL`` texts and every core
    for larger ones; an int fixes the count.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        *,
        name: str | None = None,
        threads: int | None = None,
        batch_size: int = 32,
    ) -> None:
        require("torch", "sentence_transformers", purpose="the torch embedder")
        if threads is not None and threads < 1:
            raise ValueError("threads must be at least 1")
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        self._bundled = model_path is None
        self._folder, self._name = resolve_model(model_path, name)
        self._threads = threads
        self._batch_size = batch_size

    @property
    def name(self) -> str:
        return self._name

    @property
    def dimension(self) -> int:
        if self._bundled:
            return MINILM_DIMENSION  # known without loading the model
        dimension = self.model.get_embedding_dimension()
        if dimension is None:
            raise ValueError(f"{self._folder} does not declare its embedding dimension")
        return int(dimension)

    @property
    def model(self) -> SentenceTransformer:
        """The loaded sentence-transformers model (loads it on first access)."""
        return load_model(self._folder)

    def prepare(self) -> None:
        """Load the model now (torch and the weights: several seconds)."""
        self.model  # noqa: B018 (the property loads it)

    def threads_for(self, count: int) -> int:
        """The torch thread count a call embedding ``count`` texts runs with."""
        if self._threads is not None:
            return self._threads
        return 1 if count <= SMALL_CALL else cores()

    def embed(self, texts: Sequence[str]) -> Vectors:
        items = check_texts(texts)
        model = self.model
        if not items:
            return np.zeros((0, self.dimension), dtype=np.float32)
        import torch

        threads = self.threads_for(len(items))
        with _RUN_LOCK:
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
            vectors = model.encode(
                items,
                batch_size=self._batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)
