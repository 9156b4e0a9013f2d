"""Compile a spec metadata filter into SQLite SQL over ``memories.metadata``.

Every key and value is a bound parameter (never spliced into SQL text). A key is read with
``json_type``/``json_extract`` and the path ``$."key"``, which means exactly that top-level key
whatever it holds (dots, brackets, spaces); SQLite's path syntax has no escape for ``"`` or
``\\``, so a key holding either is looked up with ``json_each`` instead (eight times slower:
measured 19 ms against 154 ms for 64 conditions over 2,000 records). ``$in``/``$nin`` send their
values as one JSON array parameter, so a list of any length the schema allows is one variable
and one flat ``IN``, never a chain of ORs (SQLite refuses expressions deeper than 1000).

Each clause is exactly true or false, never NULL, so negating one cannot flip a missing key.
The result must agree with :func:`mnemowire.filters.matches` (tested property by property).
"""

from __future__ import annotations

import json
from typing import Any

from mnemowire.kit.sql import Dialect

__all__ = ["DIALECT"]

_COMPARE = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_NUMBER = " IN ('integer', 'real')"
#: SQL text and its parameters, in order
Sql = tuple[str, list[Any]]


def _cat(*parts: str | Sql) -> Sql:
    """Join SQL text and (text, parameters) pieces, keeping the parameters in order."""
    text: list[str] = []
    params: list[Any] = []
    for part in parts:
        if isinstance(part, str):
            text.append(part)
        else:
            text.append(part[0])
            params.extend(part[1])
    return "".join(text), params


def _arg(value: Any) -> Sql:
    return "?", [value]


def _clause(column: str, key: str, op: str, arg: Any) -> Sql:
    """One operator on one key, exactly true or false."""
    if '"' in key or "\\" in key:  # no path can name it: look it up among the members
        kind: Sql = ("j.type", [])
        value: Sql = ("j.atom", [])
        test, negate = _operator(kind, value, op, arg)
        member = _cat(
            f"EXISTS (SELECT 1 FROM json_each({column}) AS j WHERE j.key = ", _arg(key), " AND ",
            test, ")",
        )  # fmt: skip
    else:
        path = f'$."{key}"'
        kind = (f"coalesce(json_type({column}, ?), '')", [path])
        value = (f"json_extract({column}, ?)", [path])
        test, negate = _operator(kind, value, op, arg)
        member = _cat("(", test, ")")
    return _cat("NOT ", member) if negate else member


def _operator(kind: Sql, value: Sql, op: str, arg: Any) -> tuple[Sql, bool]:
    """The test for ``op`` on a key whose JSON type is ``kind`` and SQL value ``value``, and
    whether the clause is its negation ($ne, $nin, $exists false: true for a missing key)."""
    if op == "$exists":
        return _cat(kind, " != ''"), not arg
    if op in ("$eq", "$ne"):
        return _equal(kind, value, arg), op == "$ne"
    if op in ("$in", "$nin"):
        return _member_of(kind, value, list(arg)), op == "$nin"
    if op in _COMPARE:
        if isinstance(arg, bool) or not isinstance(arg, int | float | str):
            return ("0", []), False
        is_kind = _cat(kind, " = 'text'") if isinstance(arg, str) else _cat(kind, _NUMBER)
        return _cat(is_kind, " AND ", value, f" {_COMPARE[op]} ", _arg(arg)), False
    raise ValueError(f"unknown filter operator {op!r}")


def _equal(kind: Sql, value: Sql, arg: Any) -> Sql:
    """True when the key holds the scalar ``arg``: same JSON type, same value."""
    if arg is None:
        return _cat(kind, " = 'null'")
    if isinstance(arg, bool):
        return _cat(kind, " = 'true'" if arg else " = 'false'")
    if isinstance(arg, int | float):
        return _cat(kind, _NUMBER, " AND ", value, " = ", _arg(arg))
    return _cat(kind, " = 'text' AND ", value, " = ", _arg(arg))


def _member_of(kind: Sql, value: Sql, values: list[Any]) -> Sql:
    """True when the key holds one of ``values``: each JSON type tested once, its values sent as
    one JSON array (one parameter, one flat IN, whatever the list's length)."""
    parts: list[Sql] = []
    strings = [v for v in values if isinstance(v, str)]
    numbers = [v for v in values if isinstance(v, int | float) and not isinstance(v, bool)]
    if strings:
        listed = _arg(json.dumps(strings, ensure_ascii=False))
        parts.append(
            _cat(
                "(",
                kind,
                " = 'text' AND ",
                value,
                " IN (SELECT value FROM json_each(",
                listed,
                ")))",
            )
        )
    if numbers:
        listed = _arg(json.dumps(numbers))
        parts.append(
            _cat(
                "(",
                kind,
                _NUMBER,
                " AND ",
                value,
                " IN (SELECT value FROM json_each(",
                listed,
                ")))",
            )
        )
    others = sorted(
        {"'null'" for v in values if v is None}
        | {"'true'" for v in values if v is True}
        | {"'false'" for v in values if v is False}
    )
    if others:
        parts.append(_cat(kind, f" IN ({', '.join(others)})"))
    if not parts:
        return "0", []
    joined: list[str | Sql] = []
    for part in parts:
        joined += [" OR ", part] if joined else [part]
    return _cat("(", *joined, ")")


#: SQLite's spelling of the kit's scopes: ``?`` parameters, ``IN (?, ...)`` lists, and the
#: metadata filter over ``json_type``/``json_extract``
DIALECT = Dialect(param="?", operator=_clause, membership="in", true="1")
