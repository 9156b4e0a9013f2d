"""Embedders by name, as the CLI and store URLs spell them (``?embedder=minilm``)."""

from __future__ import annotations

import difflib
import importlib.util

from mnemowire.embedders._hash import HashEmbedder
from mnemowire.embedders._local import EXTRA
from mnemowire.embedders._onnx import EXPORT_NEEDS, OnnxEmbedder
from mnemowire.embedders._protocol import Embedder
from mnemowire.embedders._sentence_transformers import SentenceTransformerEmbedder
from mnemowire.errors import ConfigError

__all__ = ["NAMES", "default_embedder", "load_embedder"]

#: what ``load_embedder`` accepts, for help texts and error messages
NAMES = {
    "default": "the real model on the fastest installed backend (same as minilm)",
    "minilm": "all-MiniLM-L6-v2, 384-d, on the fastest installed backend",
    "minilm-onnx": "all-MiniLM-L6-v2 on onnxruntime (exported once with torch, then torch-free)",
    "minilm-torch": "all-MiniLM-L6-v2 on sentence-transformers + torch",
    "hash": "deterministic 64-d hash embedder, for logic tests only (hash:N for N dimensions)",
}


def _installed(*modules: str) -> bool:
    return all(importlib.util.find_spec(m) is not None for m in modules)


def default_embedder() -> Embedder:
    """The real model on the faster backend that can run here.

    onnxruntime first: a process starts it in ~0.4-1 s instead of 5-14 s, and it embeds one
    sentence 2-4x faster (docs/benchmarks.md, "Embedders"). It needs torch only for its one-time
    export, so it is chosen when that export is cached or torch is there to make it; otherwise
    torch runs the model itself. Neither installed: a ConfigError naming the extra.
    """
    onnx_ready = _installed("onnxruntime", "tokenizers")
    torch_ready = _installed("torch", "sentence_transformers")
    if onnx_ready:
        onnx = OnnxEmbedder()
        if onnx.is_exported() or _installed(*EXPORT_NEEDS):
            return onnx
    if torch_ready:
        return SentenceTransformerEmbedder()
    raise ConfigError(
        "no local embedding backend is installed (onnxruntime + tokenizers, or "
        f"sentence-transformers + torch); install one with: pip install '{EXTRA}'"
    )


def load_embedder(spec: str) -> Embedder:
    """The embedder a short name selects: ``minilm``/``default``, ``minilm-onnx``,
    ``minilm-torch``, ``hash`` or ``hash:N``. Unknown names raise ConfigError listing the
    valid ones."""
    key = spec.strip().lower()
    if key in {"default", "minilm"}:
        return default_embedder()
    if key == "minilm-onnx":
        return OnnxEmbedder()
    if key == "minilm-torch":
        return SentenceTransformerEmbedder()
    if key == "hash":
        return HashEmbedder()
    if key.startswith("hash:"):
        size = key.removeprefix("hash:")
        if not size.isdigit() or int(size) < 8:
            raise ConfigError(f"bad embedder {spec!r}: hash:N needs a whole number N >= 8")
        return HashEmbedder(int(size))
    close = difflib.get_close_matches(key, [*NAMES, "hash:64"], n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    raise ConfigError(f"unknown embedder {spec!r}; {hint}choose one of: {', '.join(NAMES)}")
