"""Embedders: text in, L2-normalised float32 vectors out.

A store records its embedder's ``name`` and ``dimension`` and refuses to open with another, so
vectors from two models never mix. ``HashEmbedder`` is deterministic and dependency-free, for
logic tests only: retrieval-quality numbers always come from the real model.

The real model, all-MiniLM-L6-v2 (384-d), runs on two backends that produce the same vectors
under the same name: :class:`OnnxEmbedder` (onnxruntime, the default: fast to load and to embed
one sentence) and :class:`SentenceTransformerEmbedder` (torch). Both come with the ``local``
extra (``pip install 'mnemowire[local]'``) and import their libraries only when first used, so
importing this package stays cheap. ``load_embedder("minilm")`` picks by name.
"""

from mnemowire.embedders._hash import HashEmbedder
from mnemowire.embedders._load import NAMES, default_embedder, load_embedder
from mnemowire.embedders._local import MINILM_DIMENSION, MINILM_NAME
from mnemowire.embedders._onnx import ENV_CACHE, OnnxEmbedder, model_cache_dir
from mnemowire.embedders._protocol import Embedder, Preparable, Vectors
from mnemowire.embedders._sentence_transformers import SentenceTransformerEmbedder

__all__ = [
    "ENV_CACHE",
    "MINILM_DIMENSION",
    "MINILM_NAME",
    "NAMES",
    "Embedder",
    "HashEmbedder",
    "OnnxEmbedder",
    "Preparable",
    "SentenceTransformerEmbedder",
    "Vectors",
    "default_embedder",
    "load_embedder",
    "model_cache_dir",
]
