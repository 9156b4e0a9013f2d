"""mem0's vocabulary and mnemowire's, both ways: a mem0 scope and filter as a request's
``user_id`` and metadata filter, and a record or hit as the dict mem0 answers with.

A mem0 ``Memory`` is one mnemowire agent (the facade's ``agent``): mem0 keeps every memory in
one collection and scopes by payload, so its ``user_id`` is the record's ``user_id`` and its
``agent_id``, ``run_id``, ``actor_id`` and ``role`` are metadata keys, filtered as mem0 filters
them. What mnemowire's filter cannot say (``contains``, ``OR``, ``NOT``) is refused by name.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from mnemowire.errors import UnsupportedError
from mnemowire.models import HistoryEntry, MemoryRecord, RecallHit

__all__ = [
    "ENTITY_IDS",
    "NO_SCORE",
    "PROMOTED",
    "entity_id",
    "expires_at",
    "history_items",
    "item",
    "scope",
    "stripped",
]

#: mem0's scopes: at least one names every add, search, get_all and delete_all
ENTITY_IDS: Final = ("user_id", "agent_id", "run_id")
#: payload keys mem0 lifts to the top of an item instead of leaving them in ``metadata``
PROMOTED: Final = ("agent_id", "run_id", "actor_id", "role")
#: mem0's filter operators, as the spec's
_OPERATORS: Final = {
    "eq": "$eq",
    "ne": "$ne",
    "in": "$in",
    "nin": "$nin",
    "gt": "$gt",
    "gte": "$gte",
    "lt": "$lt",
    "lte": "$lte",
}
_DAY_MS: Final = 86_400_000


def entity_id(value: Any, name: str) -> str | None:
    """An entity id as mem0 takes it: coerced to str, trimmed, never empty or spaced."""
    if value is None:
        return None
    trimmed = str(value).strip()
    if not trimmed:
        raise ValueError(
            f"Invalid {name}: cannot be empty or whitespace-only. Provide a valid identifier."
        )
    if any(c.isspace() for c in trimmed):
        raise ValueError(
            f"Invalid {name}: cannot contain whitespace. Provide a valid identifier without spaces."
        )
    return trimmed


def stripped(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """Caller metadata without the entity ids: as in mem0, only the arguments place a memory
    in a scope."""
    return {k: v for k, v in (metadata or {}).items() if k not in ENTITY_IDS}


def scope(filters: Mapping[str, Any] | None, method: str) -> tuple[str | None, dict[str, Any]]:
    """A mem0 ``filters`` as the request's ``user_id`` and metadata filter (ANDed)."""
    given = dict(filters or {})
    for name in ENTITY_IDS:
        if name in given:
            given[name] = entity_id(given[name], name)
    if not any(given.get(name) for name in ENTITY_IDS):
        raise ValueError(
            "filters must contain at least one of: user_id, agent_id, run_id. "
            "Example: filters={'user_id': 'u1'}"
        )
    user = given.pop("user_id", None)
    condition: dict[str, Any] = {}
    _merge(condition, given, method)
    return user, condition


def _merge(into: dict[str, Any], filters: Mapping[str, Any], method: str) -> None:
    for key, value in filters.items():
        if key == "AND":
            for part in value:
                _merge(into, part, method)
        elif key in ("OR", "NOT"):
            raise UnsupportedError(
                f"{method}(filters={{'{key}': ...}}): mnemowire's metadata filter ANDs its "
                f"conditions and has no {key}; run one {method} per branch and join the results"
            )
        else:
            into.setdefault(key, {}).update(_condition(key, value, method))


def _condition(key: str, value: Any, method: str) -> dict[str, Any]:
    if value == "*":
        return {"$exists": True}
    if not isinstance(value, Mapping):
        return {"$eq": value}
    operators: dict[str, Any] = {}
    for op, argument in value.items():
        if op not in _OPERATORS:
            raise UnsupportedError(
                f"{method}(filters={{'{key}': {{'{op}': ...}}}}): mnemowire's metadata filter "
                f"has no {op!r}; it takes {', '.join(_OPERATORS)} and '*' (any value)"
            )
        operators[_OPERATORS[op]] = argument
    return operators


def expires_at(expiration_date: Any) -> int | None:
    """mem0's ``expiration_date`` (a day; hidden once it has passed) as the spec's
    ``expires_at``: the first millisecond of the day after, UTC."""
    if expiration_date is None:
        return None
    if isinstance(expiration_date, datetime):
        day = expiration_date.date()
    elif isinstance(expiration_date, date):
        day = expiration_date
    elif isinstance(expiration_date, str):
        try:
            day = date.fromisoformat(expiration_date)
        except ValueError as exc:
            raise ValueError("expiration_date must be a valid date in YYYY-MM-DD format.") from exc
    else:
        raise ValueError("expiration_date must be a date string in YYYY-MM-DD format.")
    midnight = datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    return int(midnight.timestamp() * 1000)


def _expiration_date(expires: int | None) -> str | None:
    if expires is None:
        return None
    return datetime.fromtimestamp((expires - _DAY_MS) / 1000, UTC).date().isoformat()


def _iso(epoch_ms: int | None) -> str | None:
    if epoch_ms is None:
        return None
    return datetime.fromtimestamp(epoch_ms / 1000, UTC).isoformat()


#: ``item``'s score for an answer that has no score key (get_all's)
NO_SCORE: Final = object()


def item(found: MemoryRecord | RecallHit, score: Any = None) -> dict[str, Any]:
    """A record or hit as mem0's item, in mem0's key order: ``id``, ``memory``, ``hash``,
    ``metadata`` (what is not promoted, or None), ``score`` (a search hit's; None in a get;
    absent with :data:`NO_SCORE`, as get_all's), ``created_at``/``updated_at`` (ISO 8601, UTC),
    then the promoted keys the memory has."""
    metadata = dict(found.metadata or {})
    answer: dict[str, Any] = {
        "id": found.id,
        "memory": found.content,
        "hash": hashlib.md5(found.content.encode(), usedforsecurity=False).hexdigest(),
        "metadata": None,
        "score": score,
        "created_at": _iso(found.created_at),
        "updated_at": _iso(found.updated_at or found.created_at),
    }
    if score is NO_SCORE:
        del answer["score"]
    if found.user_id is not None:
        answer["user_id"] = found.user_id
    for key in PROMOTED:
        if key in metadata:
            answer[key] = metadata.pop(key)
    expiration = _expiration_date(found.expires_at)
    if expiration is not None:
        answer["expiration_date"] = expiration
    if metadata:
        answer["metadata"] = metadata
    return answer


#: the operations whose version is a memory's first (mem0's ADD)
_ADDED: Final = ("remember", "import_records", "unrecorded")
#: the states in which a memory is gone for mem0 (its DELETE)
_GONE: Final = ("forgotten", "merged")


def history_items(entries: Sequence[HistoryEntry]) -> list[dict[str, Any]]:
    """A record's versions as mem0's history rows, oldest first: ``ADD`` for the write that
    stored it, ``UPDATE`` for each update or merge into it, ``DELETE`` when it was forgotten
    or merged away (``is_deleted``). A version mem0 has no event for (archived, restored, a
    staged write approved) is left out. Each row's ``id`` is derived from the record and the
    revision, so it is the same on every read."""
    rows: list[dict[str, Any]] = []
    before: HistoryEntry | None = None
    for entry in entries:
        record, state = entry.record, str(entry.record.state)
        gone = state in _GONE and (before is None or str(before.record.state) not in _GONE)
        if entry.operation in _ADDED and before is None:
            event, old, new = "ADD", None, record.content
        elif gone:
            event, old, new = "DELETE", record.content, None
        elif entry.operation in ("update", "merge") and state not in _GONE:
            event, old, new = (
                "UPDATE",
                None if before is None else before.record.content,
                (record.content),
            )
        else:
            before = entry
            continue
        metadata = record.metadata or {}
        rows.append(
            {
                "id": str(
                    uuid.uuid5(uuid.NAMESPACE_URL, f"mnemowire:{record.id}#{entry.revision}")
                ),
                "memory_id": record.id,
                "old_memory": old,
                "new_memory": new,
                "event": event,
                "created_at": _iso(record.created_at),
                "updated_at": _iso(entry.at),
                "is_deleted": event == "DELETE",
                "actor_id": metadata.get("actor_id"),
                "role": metadata.get("role"),
            }
        )
        before = entry
    return rows
