"""A deterministic bag-of-features embedder for logic tests: no model, no randomness.

Words and character trigrams are hashed (blake2b, so the result is the same in every process
and on every platform) into signed buckets. Texts that share words land close together, which is
enough to test ranking logic; it is not a semantic model and never stands in for one in quality
measurements.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np

from mnemowire.embedders._protocol import Vectors

_WORD = re.compile(r"\w+", re.UNICODE)


class HashEmbedder:
    """Deterministic test embedder (``mnemowire-hash-v1``)."""

    def __init__(self, dimension: int = 64) -> None:
        if dimension < 8:
            raise ValueError("dimension must be at least 8")
        self._dimension = dimension

    @property
    def name(self) -> str:
        return f"mnemowire-hash-v1/{self._dimension}"

    @property
    def dimension(self) -> int:
        return self._dimension

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            for feature, weight in _features(text):
                digest = hashlib.blake2b(feature.encode(), digest_size=8).digest()
                bucket = int.from_bytes(digest[:4], "little") % self._dimension
                sign = 1.0 if digest[4] & 1 else -1.0
                out[row, bucket] += sign * weight
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0] = 1.0  # an empty text still gets a valid unit vector
            else:
                out[row] /= norm
        return out


def _features(text: str) -> list[tuple[str, float]]:
    words = [w.lower() for w in _WORD.findall(text)]
    features = [(f"w:{w}", 1.0) for w in words]
    for w in words:
        padded = f" {w} "
        features.extend((f"c:{padded[i : i + 3]}", 0.3) for i in range(len(padded) - 2))
    return features
