"""Embeddings as the sqlite-vec store keeps them: float32 blobs in the ``embedding`` columns (of
``memories`` and of vec0's ``memories_vec``). No other module of the store's, so every one of
them can use it (the keyword index's module included, which the schema imports)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["blob", "similarities"]


def blob(vector: Any) -> bytes:
    """A vector as the float32 blob the ``embedding`` columns hold."""
    return np.asarray(vector, dtype=np.float32).tobytes()


def similarities(blobs: Sequence[bytes], vector: Any) -> Any:
    """The cosine similarity of ``vector`` to each stored ``embedding`` blob, in order (the
    vectors are unit length, so a dot product)."""
    matrix = np.frombuffer(b"".join(blobs), np.float32)
    return matrix.reshape(len(blobs), -1) @ vector
