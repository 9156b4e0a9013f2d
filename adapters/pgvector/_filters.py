"""Compile a spec metadata filter into a PostgreSQL boolean over a JSONB column.

Keys and values are always bound parameters, never SQL text. Each clause is written to be
exactly true or false (never NULL), so negating it, or a missing key, cannot flip a result.
The meaning is :func:`mnemowire.filters.matches`, and the test suite checks the two agree on
generated metadata and filters:

- equality is JSONB equality, which is JSON's: same type, numbers by value (1 = 1.0), never a
  boolean with a number, never a structured value with a scalar;
- ``$gt``/``$gte``/``$lt``/``$lte`` compare numbers numerically and strings by code point
  (``COLLATE "C"`` on UTF-8), and a value of the other type never matches;
- ``$ne`` and ``$nin`` hold for a missing key, ``$eq`` and ``$in`` do not.
"""

from __future__ import annotations

from typing import Any

from psycopg.types.json import Jsonb

from mnemowire.kit.sql import Dialect

__all__ = ["DIALECT"]

_COMPARE = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


def _operator(column: str, key: str, op: str, arg: Any) -> tuple[str, list[Any]]:
    value = f"({column} -> %s::text)"
    if op == "$exists":
        return (f"({column} ? %s::text)" if arg else f"NOT ({column} ? %s::text)"), [key]
    if op in ("$eq", "$ne"):
        if not _scalar(arg):  # a structured value never equals anything (filters.json_equal)
            return ("false" if op == "$eq" else "true"), []
        test = "IS NOT DISTINCT FROM" if op == "$eq" else "IS DISTINCT FROM"
        return f"({value} {test} %s::jsonb)", [key, Jsonb(arg)]
    if op in ("$in", "$nin"):
        scalars = [Jsonb(a) for a in arg if _scalar(a)]
        if not scalars:
            return ("false" if op == "$in" else "true"), []
        test = f"coalesce({value} = ANY(%s::jsonb[]), false)"
        return (test if op == "$in" else f"NOT {test}"), [key, scalars]
    if op in _COMPARE:
        sign = _COMPARE[op]
        if isinstance(arg, bool) or not isinstance(arg, int | float | str):
            return "false", []
        if isinstance(arg, str):
            return (
                f"coalesce(jsonb_typeof({value}) = 'string' AND "
                f'({column} ->> %s::text) COLLATE "C" {sign} %s::text COLLATE "C", false)'
            ), [key, key, arg]
        return (
            f"coalesce(jsonb_typeof({value}) = 'number' AND {value} {sign} %s::jsonb, false)"
        ), [key, key, Jsonb(arg)]
    raise ValueError(f"unknown filter operator {op!r}")


#: PostgreSQL's spelling of the kit's scopes: ``%s`` parameters, ``= ANY(%s)`` arrays, and
#: the metadata filter over JSONB
DIALECT = Dialect(
    param="%s", operator=_operator, membership="any", true="true", code_point_order=' COLLATE "C"'
)
