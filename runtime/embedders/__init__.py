"""Embedders: text in, L2-normalised float32 vectors out.

A store records its embedder's ``name`` and ``dimension`` and refuses to open with another, so
vectors from two models never mix. ``HashEmbedder`` is deterministic and dependency-free, for
logic tests only: retrieval-quality numbers always come from the real model.
"""

from mnemowire.embedders._hash import HashEmbedder
from mnemowire.embedders._protocol import Embedder, Vectors

__all__ = ["Embedder", "HashEmbedder", "Vectors"]
