"""LangGraph's items as mnemowire records, both ways.

An item ``(namespace, key) -> value`` is one record of the store's agent: the value's fields are
the record's metadata, as they are (so a LangGraph ``filter`` is the spec's metadata filter,
and any mnemowire client, the review queue and the UI see the value), beside reserved keys
``langgraph:key``, ``langgraph:depth`` and ``langgraph:0``, ``langgraph:1``, ... (the
namespace's labels, one key each, so a namespace prefix is a filter too), ``langgraph:indexed``
and ``langgraph:ttl``. The content is the text LangGraph would embed (the index's fields of the
value, or the whole value as JSON); the store's embedder embeds it.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Final

from langgraph.store.base import Item, SearchItem
from langgraph.store.base.embed import get_text_at_path

from mnemowire.models import MemoryRecord, RecallHit

__all__ = [
    "DEPTH",
    "INDEXED",
    "KEY",
    "RESERVED",
    "TTL",
    "base_id",
    "content_of",
    "item_of",
    "label",
    "matches",
    "metadata_of",
    "namespace_filter",
    "namespace_of",
    "value_filter",
    "value_of",
]

RESERVED: Final = "langgraph:"
KEY: Final = "langgraph:key"
DEPTH: Final = "langgraph:depth"
INDEXED: Final = "langgraph:indexed"
TTL: Final = "langgraph:ttl"
_OPERATORS: Final = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def label(position: int) -> str:
    """The metadata key of a namespace's label at ``position``."""
    return f"{RESERVED}{position}"


def base_id(namespace: Sequence[str], key: str) -> str:
    """The record id an item gets the first time its key is written (ids are never reused, so
    a key written again after a delete gets a minted one and is found by its metadata)."""
    digest = hashlib.blake2b(json.dumps([list(namespace), key]).encode(), digest_size=16)
    return f"lg-{digest.hexdigest()}"


def content_of(value: Mapping[str, Any], fields: Sequence[str] | None) -> tuple[str, bool]:
    """The text to embed (the ``fields`` of the value, as LangGraph reads a path; the whole
    value as JSON for ``$``), and whether there was any: an item with none is stored (as its
    JSON) but not indexed, as LangGraph leaves it out of a query's ranking."""
    whole = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if fields is None:
        return whole, False
    texts = [
        text
        for path in fields
        for text in ([whole] if path == "$" else get_text_at_path(value, path))
        if text
    ]
    return ("\n".join(texts), True) if texts else (whole, False)


def metadata_of(
    namespace: Sequence[str], key: str, value: Mapping[str, Any], indexed: bool, ttl: float | None
) -> dict[str, Any]:
    """A value and where it lives, as the record's metadata."""
    reserved = sorted(k for k in value if k.startswith(RESERVED))
    if reserved:
        raise ValueError(
            f"value keys {reserved} start with {RESERVED!r}, which mnemowire keeps for where "
            "an item lives; rename them"
        )
    metadata: dict[str, Any] = {**value, KEY: key, DEPTH: len(namespace), INDEXED: indexed}
    metadata.update({label(i): part for i, part in enumerate(namespace)})
    if ttl is not None:
        metadata[TTL] = ttl
    return metadata


def namespace_of(metadata: Mapping[str, Any]) -> tuple[str, ...]:
    return tuple(str(metadata[label(i)]) for i in range(int(metadata[DEPTH])))


def namespace_filter(prefix: Sequence[str], *, exact: bool) -> dict[str, Any]:
    """The metadata filter of a namespace prefix (and, ``exact``, of that namespace alone)."""
    condition: dict[str, Any] = {label(i): part for i, part in enumerate(prefix)}
    if exact:
        condition[DEPTH] = len(prefix)
    return condition


def value_filter(filter_: Mapping[str, Any] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """LangGraph's ``filter`` split in two: what the spec's metadata filter says the same way
    (a top-level field's scalar, or ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte`` of
    finite scalars), for the store to run, and the rest (a nested object or a list matched
    element by element, an infinite bound, a text no store can hold), for :func:`matches`."""
    native: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, wanted in (filter_ or {}).items():
        if key.startswith(RESERVED):
            raise ValueError(f"filter key {key!r}: {RESERVED!r} keys are mnemowire's own")
        operators = dict(wanted) if _is_operators(wanted) else {"$eq": wanted}
        unknown = sorted(set(operators) - set(_OPERATORS))
        if unknown:
            raise ValueError(
                f"filter {{{key!r}: ...}}: unknown operators {unknown}; LangGraph's filter "
                f"takes {', '.join(_OPERATORS)}"
            )
        if all(_storable(v) for v in operators.values()):
            native[key] = operators
        else:
            rest[key] = wanted
    return native, rest


def _is_operators(wanted: Any) -> bool:
    return isinstance(wanted, Mapping) and any(str(k).startswith("$") for k in wanted)


def _storable(value: Any) -> bool:
    """A scalar the spec's filter takes as it is: finite, within +-(2**53 - 1), no NUL."""
    if value is None or isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return math.isfinite(value) and abs(value) <= 2**53 - 1
    return isinstance(value, str) and "\x00" not in value


def matches(value: Mapping[str, Any], rest: Mapping[str, Any]) -> bool:
    """Whether a value meets the conditions :func:`value_filter` left to Python, as
    LangGraph's reference store reads them (JSON-like: objects by their keys, lists element
    by element, operators on numbers)."""
    return all(_holds(value.get(key), wanted) for key, wanted in rest.items())


def _holds(found: Any, wanted: Any) -> bool:
    if _is_operators(wanted):
        return all(_compares(found, op, operand) for op, operand in wanted.items())
    if isinstance(wanted, Mapping):
        return isinstance(found, Mapping) and all(
            _holds(found.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, list | tuple):
        return (
            isinstance(found, list | tuple)
            and len(found) == len(wanted)
            and all(_holds(f, w) for f, w in zip(found, wanted, strict=True))
        )
    return bool(found == wanted)


def _compares(found: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(found == operand)
    if op == "$ne":
        return bool(found != operand)
    try:
        left, right = float(found), float(operand)
    except (TypeError, ValueError):
        return False
    return {"$gt": left > right, "$gte": left >= right, "$lt": left < right}.get(op, left <= right)


def value_of(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """The item's value: its record's metadata without mnemowire's keys."""
    return {k: v for k, v in metadata.items() if not k.startswith(RESERVED)}


def _when(epoch_ms: int | None) -> datetime:
    return datetime.fromtimestamp((epoch_ms or 0) / 1000, UTC)


def item_of(found: MemoryRecord | RecallHit, score: float | None = None, *, search: bool) -> Item:
    """A record or hit as LangGraph's ``Item`` (``SearchItem`` for a search, with ``score``)."""
    metadata = dict(found.metadata or {})
    namespace = namespace_of(metadata)
    key = str(metadata[KEY])
    value = value_of(metadata)
    created = _when(found.created_at)
    updated = _when(found.updated_at or found.created_at)
    if search:
        return SearchItem(namespace, key, value, created, updated, score)
    return Item(value=value, key=key, namespace=namespace, created_at=created, updated_at=updated)
