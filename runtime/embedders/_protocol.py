"""The Embedder protocol every store and the router rely on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["Embedder", "Preparable", "Vectors"]

#: shape (n, dimension), dtype float32, every row of unit L2 norm
Vectors = npt.NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors; cosine similarity is then a dot product."""

    @property
    def name(self) -> str:
        """Identity of the vector space (model, not backend): two embedders with the same name
        must produce interchangeable vectors."""
        ...

    @property
    def dimension(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed a batch, in order. Blocking: async callers run it in a worker thread."""
        ...


@runtime_checkable
class Preparable(Protocol):
    """An embedder with one-time setup: loading a model, or exporting it once per machine.

    Stores call ``prepare`` before they start timing their first operation, so the setup (up to
    ~20 s for the first ONNX export on a machine) never shows up as an operation's latency;
    the embedder logs to ``mnemowire.embedders`` while it works, for a CLI to show."""

    def prepare(self) -> None:
        """Do the setup now; later calls return at once."""
        ...
