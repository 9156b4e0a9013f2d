"""The JSONB filter compiler means exactly what ``mnemowire.filters.matches`` means: checked on
generated metadata and filters, evaluated by PostgreSQL itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import compile_filter
from mnemowire.filters import OPERATORS, matches

KEYS = ["a", "b", "odd key.with 'quotes' and \"more\"", "ключ"]
# JSON text in PostgreSQL cannot hold NUL, and UTF-8 cannot hold lone surrogates
TEXT = st.text(
    alphabet=st.characters(codec="utf-8", exclude_characters="\x00"),
    max_size=6,
)
NUMBERS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0, 1, 1.0, -0.0, 2.5, 2**53, 2**53 + 1, float(2**53)]),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, TEXT, st.sampled_from(["m", "z", "é"]))
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=6,
)
METADATA = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=4)


def _operator(op: str) -> st.SearchStrategy[Any]:
    if op == "$exists":
        return st.booleans()
    if op in ("$in", "$nin"):
        return st.lists(SCALARS, min_size=1, max_size=4)
    return SCALARS


CONDITIONS = st.one_of(
    SCALARS,
    st.sets(st.sampled_from(OPERATORS), min_size=1, max_size=3).flatmap(
        lambda ops: st.fixed_dictionaries({op: _operator(op) for op in sorted(ops)})
    ),
)
FILTERS = st.dictionaries(st.sampled_from(KEYS), CONDITIONS, min_size=1, max_size=3)


@pytest.fixture(scope="module")
def connection(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        yield conn


def evaluate(conn: psycopg.Connection[Any], metadata: dict[str, Any], spec: dict[str, Any]) -> Any:
    clause, params = compile_filter(spec, column="m.metadata")
    query = f"SELECT {clause} FROM (SELECT %s::jsonb AS metadata) AS m"
    row = conn.execute(query, [*params, Jsonb(metadata)]).fetchone()
    assert row is not None
    return row[0]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metadata=METADATA, spec=FILTERS)
def test_compiled_filter_agrees_with_the_reference(
    connection: psycopg.Connection[Any], metadata: dict[str, Any], spec: dict[str, Any]
) -> None:
    assert evaluate(connection, metadata, spec) is matches(metadata, spec)


@pytest.mark.parametrize(
    ("metadata", "spec", "expected"),
    [
        ({"n": 1}, {"n": 1.0}, True),
        ({"n": 1}, {"n": True}, False),
        ({"n": True}, {"n": 1}, False),
        ({"n": [1]}, {"n": 1}, False),
        ({"n": {"x": 1}}, {"n": {"$ne": 1}}, True),
        ({}, {"n": {"$ne": 1}}, True),
        ({}, {"n": {"$nin": [1]}}, True),
        ({}, {"n": {"$lt": 5}}, False),
        ({"n": None}, {"n": {"$exists": True}}, True),
        ({"n": None}, {"n": None}, True),
        ({}, {"n": None}, False),
        ({"s": "é"}, {"s": {"$gt": "z"}}, True),  # code point order, whatever the collation
        ({"s": "10"}, {"s": {"$lt": 9}}, False),
        ({"n": 2**53 + 1}, {"n": {"$gt": float(2**53)}}, True),
    ],
)
def test_edge_cases(
    connection: psycopg.Connection[Any],
    metadata: dict[str, Any],
    spec: dict[str, Any],
    expected: bool,
) -> None:
    assert matches(metadata, spec) is expected
    assert evaluate(connection, metadata, spec) is expected


def test_keys_and_values_are_parameters_never_sql() -> None:
    clause, params = compile_filter({"x') OR true --": {"$gt": "'; DROP TABLE memories; --"}})
    assert "DROP" not in clause
    assert "OR true" not in clause
    assert "x') OR true --" in params
