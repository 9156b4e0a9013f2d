"""The metadata filter's meaning, as a pure function: the reference every adapter's query
compiler is tested against (docs/spec/v0.md#types.filter).

A filter maps top-level metadata keys to conditions, all of which must hold. A condition is a
JSON scalar (equality) or an object of operators. Equality compares JSON values of the same kind:
numbers by value (1 == 1.0), never a boolean with a number.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["matches", "operators_of"]

_MISSING = object()


def operators_of(condition: Any) -> dict[str, Any]:
    """A condition as an operator map: a bare scalar means ``{"$eq": scalar}``."""
    if isinstance(condition, Mapping):
        return dict(condition)
    return {"$eq": condition}


def matches(metadata: Mapping[str, Any], spec_filter: Mapping[str, Any] | None) -> bool:
    """Whether ``metadata`` satisfies every condition of ``spec_filter`` (None: no filter)."""
    if not spec_filter:
        return True
    return all(
        _holds(metadata.get(key, _MISSING), op, arg)
        for key, condition in spec_filter.items()
        for op, arg in operators_of(condition).items()
    )


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "structured"


def json_equal(value: Any, scalar: Any) -> bool:
    """Scalar equality in JSON terms: same kind, same value."""
    kind = _kind(value)
    return kind == _kind(scalar) and kind != "structured" and value == scalar


def _holds(value: Any, op: str, arg: Any) -> bool:
    present = value is not _MISSING
    if op == "$exists":
        return present is bool(arg)
    if op == "$eq":
        return present and json_equal(value, arg)
    if op == "$ne":
        return not (present and json_equal(value, arg))
    if op == "$in":
        return present and any(json_equal(value, a) for a in arg)
    if op == "$nin":
        return not (present and any(json_equal(value, a) for a in arg))
    if not present or _kind(value) != _kind(arg) or _kind(arg) not in ("number", "string"):
        return False
    if op == "$gt":
        return bool(value > arg)
    if op == "$gte":
        return bool(value >= arg)
    if op == "$lt":
        return bool(value < arg)
    if op == "$lte":
        return bool(value <= arg)
    raise ValueError(f"unknown filter operator {op!r}")
