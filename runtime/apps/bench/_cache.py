"""Embeddings of benchmark corpora, computed once and cached on disk between runs."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from mnemowire.embedders import Embedder, Vectors

__all__ = ["cache_dir", "cached_embeddings"]


def cache_dir() -> Path:
    """``$MNEMOWIRE_BENCH_CACHE`` or the user cache directory's mnemowire/bench."""
    configured = os.environ.get("MNEMOWIRE_BENCH_CACHE")
    if configured:
        return Path(configured)
    import platformdirs

    return Path(platformdirs.user_cache_dir("mnemowire")) / "bench"


def cached_embeddings(
    embedder: Embedder,
    texts: Sequence[str],
    *,
    batch_size: int = 256,
    progress: Callable[[int], None] | None = None,
) -> Vectors:
    """``embedder.embed(texts)``, read from the cache when this exact list was embedded before."""
    key = hashlib.sha256(embedder.name.encode())
    for text in texts:
        key.update(text.encode() + b"\0")
    path = cache_dir() / f"{key.hexdigest()[:32]}.npy"
    if path.exists():
        cached = np.load(path)
        if cached.shape == (len(texts), embedder.dimension):
            return np.asarray(cached, np.float32)
    parts = []
    for start in range(0, len(texts), batch_size):
        parts.append(embedder.embed(texts[start : start + batch_size]))
        if progress is not None:
            progress(len(parts[-1]))
    vectors = np.concatenate(parts) if parts else np.zeros((0, embedder.dimension), np.float32)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(temporary, vectors)
    os.replace(temporary, path)  # atomic: a concurrent run never reads half a file
    return vectors
