"""Embedders: text in, L2-normalised float32 vectors out.

A store records its embedder's ``name`` and ``dimension`` and refuses to open with another, so
vectors from two models never mix. ``HashEmbedder`` is deterministic and dependency-free, for
logic tests only: retrieval-quality numbers always come from the real model.
"""

from mnemowire.embedders._hash import HashEmbedder
from mnemowire.embedders._protocol import Embedder, Vectors

__all__ = ["Embedder", "HashEmbedder", "Vectors", "load_embedder"]


def load_embedder(name: str) -> Embedder:
    """An embedder by name: ``hash`` or ``hash:DIM`` (deterministic, for tests)."""
    from mnemowire.errors import ConfigError

    kind, _, size = name.partition(":")
    if kind == "hash":
        return HashEmbedder(int(size) if size else 64)
    raise ConfigError(f"unknown embedder {name!r}; known here: hash, hash:DIM")
