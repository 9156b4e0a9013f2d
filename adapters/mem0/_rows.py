"""A memorywire record as a mem0 row, and back: what goes in mem0's metadata, what comes out.

The content is mem0's own text; the agent and user are mem0's scopes (as ``entity`` spells
them) and, exactly, in the record; everything else the wire carries is one JSON text,
``mw_record``, beside the three fields mem0 filters on (``mw_id``, ``mw_type``, ``mw_state``).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

__all__ = ["payload_of", "record_of", "unit"]

#: the fields mem0 holds itself, not in ``mw_record`` (the agent and user are in both: mem0's
#: scopes hold an id it cannot keep as it is under another name, see ``_backend.entity``)
_NATIVE = ("id", "content", "state")
#: what a record carries in this store only (mem0's id as ``backend_id``, the kit's demote factor)
_LOCAL = ("backend_id", "demote")


def record_of(row: dict[str, Any], owners: dict[str, str]) -> dict[str, Any] | None:
    """A mem0 row (``get``/``get_all`` form) as a record, when the id map names it
    (``owners``: mem0 id -> wire id)."""
    meta = row.get("metadata") or {}
    record_id = owners.get(str(row["id"]))
    if record_id is None or meta.get("mw_id") != record_id or "mw_record" not in meta:
        return None
    fields = json.loads(meta["mw_record"])
    return {
        **fields,
        "id": record_id,
        "content": row["memory"],
        "state": meta["mw_state"],
        "backend_id": str(row["id"]),
        "demote": 1.0,
    }


def payload_of(record: dict[str, Any]) -> dict[str, Any]:
    """The mem0 metadata a record is written with."""
    fields = {k: v for k, v in record.items() if k not in (*_NATIVE, *_LOCAL)}
    return {
        "mw_id": record["id"],
        "mw_type": record["type"],
        "mw_state": record["state"],
        "mw_record": json.dumps(fields, ensure_ascii=False, separators=(",", ":")),
    }


def unit(vector: Any) -> np.ndarray[Any, Any]:
    """``vector`` as float32 of length one (a zero vector as it is)."""
    array = np.asarray(vector, np.float32).reshape(-1)
    norm = float(np.linalg.norm(array))
    return array / norm if norm > 0 else array
