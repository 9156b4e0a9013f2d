"""The SQLite filter compiler means exactly what ``mnemowire.filters.matches`` means: checked on
generated metadata and filters, evaluated by SQLite itself (the store's own driver)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from mnemowire.adapters.sqlite_vec._driver import connect, find_driver
from mnemowire.adapters.sqlite_vec._filters import DIALECT
from mnemowire.filters import matches
from tests.adapters._filter_cases import EDGE_CASES, FILTERS, METADATA

CONNECTION = connect(find_driver(), ":memory:")


def evaluate(metadata: dict[str, Any], spec: dict[str, Any]) -> bool:
    clause, params = DIALECT.metadata_filter(spec, column="m.metadata")
    query = f"SELECT {clause} FROM (SELECT ? AS metadata) AS m"
    (value,) = CONNECTION.execute(query, [*params, json.dumps(metadata)]).fetchone()
    assert value in (0, 1), f"the clause is {value!r}, not true or false"
    return bool(value)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(metadata=METADATA, spec=FILTERS)
def test_compiled_filter_agrees_with_the_reference(
    metadata: dict[str, Any], spec: dict[str, Any]
) -> None:
    assert evaluate(metadata, spec) is matches(metadata, spec)


@pytest.mark.parametrize(("metadata", "spec", "expected"), EDGE_CASES)
def test_edge_cases(metadata: dict[str, Any], spec: dict[str, Any], expected: bool) -> None:
    assert matches(metadata, spec) is expected
    assert evaluate(metadata, spec) is expected


def test_the_largest_filter_the_schema_allows_compiles_and_runs() -> None:
    """64 keys, each with $in and $nin of 1000 values: one parameter per list, a flat clause
    (SQLite refuses expressions deeper than 1000 and, by default, more than 32766 variables)."""
    values = [f"v{i}" for i in range(999)]
    spec = {f"k{i}": {"$in": [*values, i], "$nin": [*values, "x"]} for i in range(64)}
    metadata = {f"k{i}": i for i in range(64)}
    assert matches(metadata, spec)
    assert evaluate(metadata, spec) is True


def test_keys_and_values_are_parameters_never_sql() -> None:
    clause, params = DIALECT.metadata_filter({"x') OR 1 --": {"$gt": "'; DROP TABLE memories; --"}})
    assert "DROP" not in clause
    assert "OR 1" not in clause
    assert any("x') OR 1 --" in str(p) for p in params)
