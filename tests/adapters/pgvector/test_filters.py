"""The JSONB filter compiler means exactly what ``mnemowire.filters.matches`` means: checked on
generated metadata and filters, evaluated by PostgreSQL itself."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from hypothesis import HealthCheck, given, settings
from psycopg.types.json import Jsonb

from mnemowire.adapters.pgvector._filters import DIALECT
from mnemowire.filters import matches
from tests.adapters._filter_cases import EDGE_CASES, FILTERS, METADATA


@pytest.fixture(scope="module")
def connection(pg_dsn: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        yield conn


def evaluate(conn: psycopg.Connection[Any], metadata: dict[str, Any], spec: dict[str, Any]) -> Any:
    clause, params = DIALECT.metadata_filter(spec, column="m.metadata")
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


@pytest.mark.parametrize(("metadata", "spec", "expected"), EDGE_CASES)
def test_edge_cases(
    connection: psycopg.Connection[Any],
    metadata: dict[str, Any],
    spec: dict[str, Any],
    expected: bool,
) -> None:
    assert matches(metadata, spec) is expected
    assert evaluate(connection, metadata, spec) is expected


def test_keys_and_values_are_parameters_never_sql() -> None:
    clause, params = DIALECT.metadata_filter(
        {"x') OR true --": {"$gt": "'; DROP TABLE memories; --"}}
    )
    assert "DROP" not in clause
    assert "OR true" not in clause
    assert "x') OR true --" in params
