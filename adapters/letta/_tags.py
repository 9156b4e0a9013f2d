"""What a Letta passage carries besides its text: tags, since Letta 0.16.8's agent passages
keep no metadata. One tag holds the whole record (less its content, which is the passage's
text) as JSON; the others exist to be filtered on by Letta's tag search."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["id_tag", "record_of", "scope_tags", "tags_of", "type_tag", "user_tag", "write_tag"]

_RECORD = "mw:record:"
_ID = "mw:id:"
_USER = "mw:user:"
_TYPE = "mw:type:"
_WRITE = "mw:write:"
#: the fields the store keeps beside the wire's, not on the passage
_LOCAL = ("backend_id", "demote", "content")


def id_tag(record_id: str) -> str:
    return _ID + record_id


def user_tag(user_id: str) -> str:
    return _USER + user_id


def type_tag(kind: str) -> str:
    return _TYPE + kind


def write_tag() -> str:
    """A tag naming one write, so a write whose answer was lost can be found and undone."""
    return _WRITE + secrets.token_hex(12)


def tags_of(record: dict[str, Any], write: str) -> list[str]:
    fields = {k: v for k, v in record.items() if k not in _LOCAL}
    tags = [
        _RECORD + json.dumps(fields, ensure_ascii=False, separators=(",", ":")),
        id_tag(record["id"]),
        type_tag(record["type"]),
        write,
    ]
    if record.get("user_id") is not None:
        tags.append(user_tag(record["user_id"]))
    return tags


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


def scope_tags(user_id: str | None, kinds: Sequence[str]) -> tuple[list[str], str]:
    """The tags (and Letta's match mode) that narrow a search to a user and types: all of a
    user and one type; any of several types; for a user with several types, the user alone
    (the store filters the types itself)."""
    if user_id is None:
        return [type_tag(k) for k in kinds], "any"
    if len(kinds) == 1:
        return [user_tag(user_id), type_tag(kinds[0])], "all"
    return [user_tag(user_id)], "all"
