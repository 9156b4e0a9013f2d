"""Models <-> wire JSON, and the spec check every boundary applies."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, TypeVar

from pydantic import BaseModel

from mnemowire import spec

__all__ = ["checked", "digest", "now_ms", "to_wire"]

M = TypeVar("M", bound=BaseModel)


def to_wire(model: BaseModel) -> dict[str, Any]:
    """The JSON object a model stands for: wire names, only the fields that were set.

    Python mode, not JSON mode: the generated models hold JSON types only, and JSON mode would
    quietly turn a NaN in metadata into null (and bytes into text), which validation must see
    and refuse instead (docs/spec/v0.md#messages.wellformed)."""
    return model.model_dump(by_alias=True, exclude_unset=True)


def checked(message: str, request: M | dict[str, Any], model: type[M]) -> tuple[M, dict[str, Any]]:
    """Validate a request against the spec (raising RequestError with the envelope) and return
    it both as the generated model and as wire JSON. Accepts either form."""
    payload = to_wire(request) if isinstance(request, BaseModel) else request
    spec.check(message, payload)
    typed = request if isinstance(request, model) else model.model_validate(payload)
    return typed, payload


def digest(payload: Any) -> str:
    """sha256 of a JSON value in canonical form (sorted keys, no spaces): for the audit log."""
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def now_ms() -> int:
    """Wall-clock time as the spec's epoch milliseconds."""
    return time.time_ns() // 1_000_000
