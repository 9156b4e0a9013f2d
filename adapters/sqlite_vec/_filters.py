"""Compile a spec metadata filter into SQLite SQL over ``memories.metadata``.

Every key and value is a bound parameter (never spliced into SQL text), and each key is looked
up with ``json_each`` so any key, dots and quotes included, means exactly that top-level key.
The result must agree with :func:`mnemowire.filters.matches` (tested property by property).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mnemowire.filters import operators_of

__all__ = ["compile_filter"]

_COMPARE = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def compile_filter(
    spec_filter: Mapping[str, Any], column: str = "m.metadata"
) -> tuple[str, list[Any]]:
    """``(sql, params)``: a boolean SQL expression true exactly when the filter matches."""
    clauses: list[str] = []
    params: list[Any] = []
    for key, condition in spec_filter.items():
        for op, arg in operators_of(condition).items():
            sql, args = _operator(column, key, op, arg)
            clauses.append(sql)
            params.extend(args)
    return (" AND ".join(clauses) or "1"), params


def _member(column: str, predicate: str) -> str:
    return f"EXISTS (SELECT 1 FROM json_each({column}) AS j WHERE j.key = ? AND ({predicate}))"


def _equal(arg: Any) -> tuple[str, list[Any]]:
    if arg is None:
        return "j.type = 'null'", []
    if isinstance(arg, bool):
        return ("j.type = 'true'" if arg else "j.type = 'false'"), []
    if isinstance(arg, int | float):
        return "j.type IN ('integer', 'real') AND j.atom = ?", [arg]
    return "j.type = 'text' AND j.atom = ?", [arg]


def _operator(column: str, key: str, op: str, arg: Any) -> tuple[str, list[Any]]:
    if op == "$exists":
        sql = _member(column, "1")
        return (sql if arg else f"NOT {sql}"), [key]
    if op in ("$eq", "$ne"):
        predicate, args = _equal(arg)
        sql = _member(column, predicate)
        return (sql if op == "$eq" else f"NOT {sql}"), [key, *args]
    if op in ("$in", "$nin"):
        parts = [_equal(a) for a in arg]
        predicate = " OR ".join(f"({p})" for p, _ in parts)
        sql = _member(column, predicate)
        return (sql if op == "$in" else f"NOT {sql}"), [key, *(x for _, a in parts for x in a)]
    if op in _COMPARE:
        if isinstance(arg, bool) or not isinstance(arg, int | float | str):
            return "0", []
        kind = "j.type = 'text'" if isinstance(arg, str) else "j.type IN ('integer', 'real')"
        return _member(column, f"{kind} AND j.atom {_COMPARE[op]} ?"), [key, arg]
    raise ValueError(f"unknown filter operator {op!r}")
