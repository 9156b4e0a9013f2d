"""What every store does the same way: record ids, the clock, wire JSON, digests, timings."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

import numpy as np
import orjson
from pydantic import BaseModel
from ulid import ULID

__all__ = [
    "digest",
    "elapsed_ms",
    "json_bytes",
    "json_text",
    "max_items",
    "new_id",
    "now_ms",
    "to_wire",
]


def new_id() -> str:
    """A fresh record id: a ULID, so ids sort by creation time (docs/spec/v0.md#types.id).
    Minted in one place, so a router and every store mint the same kind of id."""
    return str(ULID())


def now_ms() -> int:
    """Wall-clock time as the spec's epoch milliseconds."""
    return time.time_ns() // 1_000_000


def elapsed_ms(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()``), as ``latency_ms`` reports
    them."""
    return round((time.perf_counter() - started) * 1000, 3)


def max_items(model: type[BaseModel], name: str) -> int:
    """A list field's ``maxItems`` in the spec, as the generated model carries it: a bound
    read, never typed again."""
    return next(
        int(bound.max_length)
        for bound in model.model_fields[name].metadata
        if getattr(bound, "max_length", None) is not None
    )


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The JSON object a model stands for: wire names, only the fields that were set.

    Python mode, not JSON mode: the generated models hold JSON types only, and JSON mode would
    quietly turn a NaN in metadata into null (and bytes into text), which validation must see
    and refuse instead (docs/spec/v0.md#messages.wellformed)."""
    if not isinstance(model, BaseModel):  # the usual slip: JSON handed to a store directly
        raise TypeError(
            f"expected a generated model (mnemowire.models), not a {type(model).__name__}: "
            "stores and the router take models; send JSON through the validating boundary, "
            "mnemowire.layers.memory.Memory(store)"
        )
    return model.model_dump(by_alias=True, exclude_unset=True)


def digest(payload: Any) -> str:
    """sha256 of a JSON value in canonical form (sorted keys, no spaces): for the audit log.
    orjson writes it (an import page's 1000 vectors took json ~0.4 s), json what orjson
    refuses (integers past 64 bits, text that is not Unicode)."""
    try:
        text = orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        written = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        text = written.encode(errors="surrogatepass")
    return hashlib.sha256(text).hexdigest()


def json_bytes(message: Any) -> bytes:
    """A validated wire message as compact UTF-8 JSON, as a transport sends it.

    orjson writes a recall answer in a tenth of json's time, and a float32 query vector (a
    numpy array) as float32: the shortest text that reads back as the same float32, in ~8 µs
    where json takes ~250 µs and twice the bytes (docs/transports.md#http.bench). json writes
    what orjson refuses: integers past 64 bits (JSON allows them in metadata), and text that is
    not Unicode (escaped, so it can still be sent). Only for validated messages: orjson would
    write a NaN as null, and validation refuses NaN before a message gets here."""
    try:
        return orjson.dumps(message, option=orjson.OPT_SERIALIZE_NUMPY)
    except orjson.JSONEncodeError:
        return json.dumps(message, separators=(",", ":"), allow_nan=False, default=_listed).encode()


def json_text(value: Any) -> str:
    """A JSON column's text (metadata, a seal): ``json_bytes`` decoded, so a store writing a
    page of records pays orjson's cost, not json's, and text that is not Unicode is kept
    escaped as json writes it."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value)


def _listed(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")
