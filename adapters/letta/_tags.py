"""What a Letta passage carries besides its text: tags, since Letta 0.16.8's agent passages
keep no metadata. One tag holds the whole record (less its content, which is the passage's
text) as JSON; one its id, which reads by id look for; one the write that made it, which a
failed write looks for to undo itself. A recall filters on none: Letta applies a search's tag
filter after it has taken its ``top_k``, so a filtered search comes back short whatever
matches further down (docs/adapters/letta.md#recall)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from typing import Any

__all__ = ["id_tag", "record_of", "tags_of", "write_tag"]

_RECORD = "mw:record:"
_ID = "mw:id:"
_WRITE = "mw:write:"
#: the fields the store keeps beside the wire's, not on the passage
_LOCAL = ("backend_id", "demote", "content")


def id_tag(record_id: str) -> str:
    return _ID + record_id


def write_tag() -> str:
    """A tag naming one write, so a write whose answer was lost can be found and undone."""
    return _WRITE + secrets.token_hex(12)


def tags_of(record: dict[str, Any], write: str) -> list[str]:
    fields = {k: v for k, v in record.items() if k not in _LOCAL}
    return [
        _RECORD + json.dumps(fields, ensure_ascii=False, separators=(",", ":")),
        id_tag(record["id"]),
        write,
    ]


def record_of(
    text: str, tags: Iterable[str] | None, backend_id: str, owners: dict[str, str]
) -> dict[str, Any] | None:
    """The record a passage holds, when the id map names the passage as that record."""
    record_id = owners.get(backend_id)
    if record_id is None:
        return None
    held = next((t for t in tags or () if t.startswith(_RECORD)), None)
    if held is None:
        return None
    record: dict[str, Any] = json.loads(held.removeprefix(_RECORD))
    if record.get("id") != record_id:
        return None
    return {**record, "content": text, "backend_id": backend_id, "demote": 1.0}
