"""The one-time export of a sentence-transformers transformer to ONNX (needs torch).

Imported only when a machine has no cached export yet. It uses torch's ``torch.export``-based
exporter (``dynamo=True``; the TorchScript one is deprecated and traced the attention mask into
Python booleans), exports only the transformer (token ids in, token vectors out: pooling stays in
numpy, shared with nothing to drift), and checks the result against sentence-transformers on
probe texts before publishing it atomically into the cache.
"""

from __future__ import annotations

import contextlib
import logging
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from mnemowire.embedders._local import ModelConfig
from mnemowire.embedders._onnx import (
    INPUT_NAMES,
    OUTPUT_NAME,
    TOLERANCE,
    _Runtime,
    write_atomically,
)
from mnemowire.errors import ConfigError

__all__ = ["PROBES", "export"]

#: texts an export must reproduce before it is published: short, long, padded, non-ASCII
PROBES = (
    "",
    "Alice is allergic to peanuts.",
    "What should I not serve Alice for dinner tomorrow?",
    "Café naïve résumé: 東京で会いましょう 😀",
    "memory " * 300,  # beyond max_seq_length: checks truncation
)


class _Encoder(torch.nn.Module):
    """The transformer alone, with named tensor inputs and its last hidden state as output."""

    def __init__(self, transformer: torch.nn.Module) -> None:
        super().__init__()
        self.transformer = transformer

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor, token_type_ids: torch.Tensor
    ) -> torch.Tensor:
        output = self.transformer(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        )
        hidden: torch.Tensor = output.last_hidden_state
        return hidden


def export(folder: Path, config: ModelConfig, target: Path) -> None:
    """Export ``folder``'s transformer to ``target`` (atomically), verified against torch.
    The caller checks the dependencies first (``EXPORT_NEEDS``): this module imports torch."""
    from mnemowire.embedders._sentence_transformers import load_model

    model = load_model(folder)
    transformer = getattr(model[0], "auto_model", None)
    if not isinstance(transformer, torch.nn.Module):
        raise ConfigError(f"{folder}: the first module is not a transformers model")
    encoder = _Encoder(transformer).eval()
    # Distinct batch and length (2 x 7) so the exporter cannot mistake one dimension for the other.
    sample = torch.tensor([[101, 7592, 2088, 2003, 2204, 1012, 102]] * 2, dtype=torch.int64)
    mask = torch.ones_like(sample)
    mask[1, 4:] = 0
    batch, length = torch.export.Dim("batch"), torch.export.Dim("sequence")
    dims = {0: batch, 1: length}

    def write(path: Path) -> None:
        started = time.perf_counter()
        with _quiet(), torch.no_grad():
            torch.onnx.export(
                encoder,
                (sample, mask, torch.zeros_like(sample)),
                str(path),
                input_names=list(INPUT_NAMES),
                output_names=[OUTPUT_NAME],
                dynamic_shapes=dict.fromkeys(INPUT_NAMES, dims),
                dynamo=True,
                external_data=False,  # one self-contained file (90 MB), renamed atomically
                verbose=False,
            )
        _verify(path, folder, config, model)
        logging.getLogger("mnemowire.embedders").info(
            "exported %s to ONNX in %.1f s", folder, time.perf_counter() - started
        )

    write_atomically(target, write)


def _verify(path: Path, folder: Path, config: ModelConfig, model: Any) -> None:
    runtime = _Runtime(path, folder, config, threads=1, spin=False)
    ours = runtime.embed(list(PROBES), batch_size=2)  # batch of 2: exercises padding too
    theirs = model.encode(list(PROBES), convert_to_numpy=True, normalize_embeddings=True)
    difference = float(np.abs(ours - theirs).max())
    if not difference <= TOLERANCE:
        raise ConfigError(
            f"the ONNX export of {folder} differs from sentence-transformers by {difference:.2e} "
            f"(> {TOLERANCE:.0e}); it was not cached"
        )


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Silence the exporter's warnings and log lines: internal notices (deprecations inside
    torch, torchvision ops this model never uses) that would fail a ``-W error`` run."""
    logger = logging.getLogger("torch.onnx")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logger.setLevel(level)
